//! Workspaces: a business or a fleet, its plan flags and its billing
//! settings. Owns the `workspaces` table; only this module and `billing`
//! (the running open amount and the overdue flag) write it.

pub mod entity;
pub mod model;

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use crate::access::{Granted, act};
use crate::{CoreError, CoreResult, Identity, audit};
use courier::errors::ErrorCode;
use courier_store::cache_feed;
use courier_store::db::WriteTransaction;
pub use model::{BillingSettings, Plan, Workspace, WorkspaceKind};

/// A workspace to create.
pub struct NewWorkspace {
    pub name: String,
    pub kind: WorkspaceKind,
    pub plan: Plan,
    pub billing: BillingSettings,
}

fn validate_plan(plan: &Plan) -> CoreResult<()> {
    if plan.discount_bps > 10_000 {
        return Err(CoreError::invalid(
            "plan.discount_bps",
            "discount_bps must be 0 to 10000.",
        ));
    }
    Ok(())
}

fn validate_billing(billing: &BillingSettings) -> CoreResult<()> {
    if billing.credit_limit_cents < 0 {
        return Err(CoreError::invalid(
            "billing.credit_limit_cents",
            "credit_limit_cents must not be negative.",
        ));
    }
    if !(1..=28).contains(&billing.billing_day) {
        return Err(CoreError::invalid(
            "billing.billing_day",
            "billing_day must be 1 to 28 (a day every month has).",
        ));
    }
    if billing.payment_terms_days > 365 {
        return Err(CoreError::invalid(
            "billing.payment_terms_days",
            "payment_terms_days must be 0 to 365.",
        ));
    }
    Ok(())
}

/// Creates a workspace, with its audit entry in the same transaction.
pub async fn create(
    identity: &Identity,
    granted: &Granted<act::Administer>,
    new: NewWorkspace,
) -> CoreResult<Workspace> {
    let name = new.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(CoreError::invalid("name", "name must be 1 to 200 characters."));
    }
    validate_plan(&new.plan)?;
    validate_billing(&new.billing)?;
    let now = identity.clock.now_micros();
    let model = entity::ActiveModel {
        id: Set(courier_store::ids::new_id("wks")),
        name: Set(name.to_owned()),
        kind: Set(new.kind.as_str().to_owned()),
        api_access: Set(new.plan.api_access),
        fleet_order_intake: Set(new.plan.fleet_order_intake),
        proof_of_delivery: Set(new.plan.proof_of_delivery),
        discount_bps: Set(new.plan.discount_bps as i32),
        auto_dispatch: Set(new.plan.auto_dispatch),
        invoice_billing_enabled: Set(new.billing.invoice_billing_enabled),
        credit_limit_cents: Set(new.billing.credit_limit_cents),
        billing_day: Set(new.billing.billing_day as i32),
        payment_terms_days: Set(new.billing.payment_terms_days as i32),
        statement_overdue: Set(false),
        open_amount_cents: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let tx = identity.begin().await?;
    let model = model.insert(&*tx).await?;
    granted
        .record(identity, &*tx, change("workspace.create", &model.id))
        .await?;
    tx.commit().await?;
    from_model(model)
}

/// The audit entry of a change of workspace `id`.
fn change<'a>(action: &'a str, id: &'a str) -> audit::Change<'a> {
    audit::Change {
        action,
        workspace_id: Some(id),
        target: id,
        courier_id: None,
    }
}

pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Workspace> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("workspace"))?;
    from_model(model)
}

/// The workspace, its row locked until `tx` ends (PostgreSQL `FOR UPDATE`;
/// a SQLite write transaction holds the whole database): the billing
/// cycle's moves of one workspace take turns on it.
pub async fn get_for_update(tx: &WriteTransaction, id: &str) -> CoreResult<Workspace> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(tx)
        .await?
        .ok_or_else(|| CoreError::not_found("workspace"))?;
    from_model(model)
}

/// The workspaces of `ids` (unknown ids left out), in one read.
pub async fn get_many(db: &impl ConnectionTrait, ids: Vec<String>) -> CoreResult<Vec<Workspace>> {
    entity::Entity::find()
        .filter(entity::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

pub async fn list(db: &impl ConnectionTrait) -> CoreResult<Vec<Workspace>> {
    entity::Entity::find()
        .order_by_asc(entity::Column::CreatedAt)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// The fleets whose plan has automatic dispatch of board orders.
pub async fn auto_dispatch_fleets(db: &impl ConnectionTrait) -> CoreResult<Vec<Workspace>> {
    entity::Entity::find()
        .filter(entity::Column::Kind.eq(WorkspaceKind::Fleet.as_str()))
        .filter(entity::Column::AutoDispatch.eq(true))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

pub async fn is_empty(db: &impl ConnectionTrait) -> CoreResult<bool> {
    Ok(entity::Entity::find().one(db).await?.is_none())
}

/// Changes the plan, with its audit entry; the key cache forgets the
/// workspace's keys (their checks read the plan) before this answers.
pub async fn update_plan(
    identity: &Identity,
    granted: &Granted<act::Administer>,
    id: &str,
    plan: Plan,
) -> CoreResult<Workspace> {
    validate_plan(&plan)?;
    let row = entity::ActiveModel {
        id: Set(id.to_owned()),
        api_access: Set(plan.api_access),
        fleet_order_intake: Set(plan.fleet_order_intake),
        proof_of_delivery: Set(plan.proof_of_delivery),
        discount_bps: Set(plan.discount_bps as i32),
        auto_dispatch: Set(plan.auto_dispatch),
        ..Default::default()
    };
    let (tx, model) = write(identity, id, row).await?;
    granted
        .record(identity, &*tx, change("workspace.update_plan", id))
        .await?;
    committed(identity, tx, model).await
}

/// Turns automatic dispatch of fleet `id`'s board orders on or off (its
/// owners and admins, as they assign by hand), with its audit entry; a
/// business workspace's deliveries are the platform's to dispatch.
pub async fn set_auto_dispatch(
    identity: &Identity,
    granted: &Granted<act::AssignJobs>,
    id: &str,
    auto_dispatch: bool,
) -> CoreResult<Workspace> {
    if get(&identity.db, id).await?.kind != WorkspaceKind::Fleet {
        return Err(CoreError::invalid(
            "settings.workspace_id",
            "Only a fleet workspace dispatches board orders to its drivers.",
        ));
    }
    let row = entity::ActiveModel {
        id: Set(id.to_owned()),
        auto_dispatch: Set(auto_dispatch),
        ..Default::default()
    };
    let (tx, model) = write(identity, id, row).await?;
    granted
        .record(identity, &*tx, change("workspace.auto_dispatch", id))
        .await?;
    committed(identity, tx, model).await
}

/// Changes the billing settings, with its audit entry; like
/// [`update_plan`], the key cache forgets the workspace's keys.
pub async fn update_billing(
    identity: &Identity,
    granted: &Granted<act::ManageBilling>,
    id: &str,
    billing: BillingSettings,
) -> CoreResult<Workspace> {
    validate_billing(&billing)?;
    let row = entity::ActiveModel {
        id: Set(id.to_owned()),
        invoice_billing_enabled: Set(billing.invoice_billing_enabled),
        credit_limit_cents: Set(billing.credit_limit_cents),
        billing_day: Set(billing.billing_day as i32),
        payment_terms_days: Set(billing.payment_terms_days as i32),
        ..Default::default()
    };
    let (tx, model) = write(identity, id, row).await?;
    granted.record(identity, &*tx, change("billing.update", id)).await?;
    committed(identity, tx, model).await
}

/// Writes `row` over workspace `id` in a new transaction, announcing the
/// change to the other replicas' key caches; the caller adds its audit
/// entry and commits with [`committed`].
async fn write(
    identity: &Identity,
    id: &str,
    mut row: entity::ActiveModel,
) -> CoreResult<(WriteTransaction, entity::Model)> {
    row.updated_at = Set(identity.clock.now_micros());
    let tx = identity.begin().await?;
    get_for_update(&tx, id).await?;
    let model = row.update(&*tx).await?;
    cache_feed::announce(&*tx, cache_feed::Change::Keys).await?;
    Ok((tx, model))
}

/// Commits a [`write`]; this replica's key cache forgets its keys once the
/// change is committed, before it is answered.
async fn committed(identity: &Identity, tx: WriteTransaction, model: entity::Model) -> CoreResult<Workspace> {
    tx.commit().await?;
    identity.keys.forget_all();
    from_model(model)
}

pub(crate) fn from_model(model: entity::Model) -> CoreResult<Workspace> {
    let kind = WorkspaceKind::parse(&model.kind)
        .ok_or_else(|| CoreError::Internal(format!("workspace {} has unknown kind {}", model.id, model.kind)))?;
    Ok(Workspace {
        id: model.id,
        name: model.name,
        kind,
        plan: Plan {
            api_access: model.api_access,
            fleet_order_intake: model.fleet_order_intake,
            proof_of_delivery: model.proof_of_delivery,
            discount_bps: u32::try_from(model.discount_bps).unwrap_or(0),
            auto_dispatch: model.auto_dispatch,
        },
        billing: BillingSettings {
            invoice_billing_enabled: model.invoice_billing_enabled,
            credit_limit_cents: model.credit_limit_cents,
            billing_day: u32::try_from(model.billing_day).unwrap_or(BillingSettings::DEFAULT_BILLING_DAY),
            payment_terms_days: u32::try_from(model.payment_terms_days)
                .unwrap_or(BillingSettings::DEFAULT_PAYMENT_TERMS_DAYS),
        },
        statement_overdue: model.statement_overdue,
        open_amount_cents: model.open_amount_cents,
        created_at: model.created_at,
    })
}

/// A refusal for an unknown kind in an admin request.
pub fn unknown_kind() -> CoreError {
    CoreError::at(ErrorCode::InvalidRequest, "kind", "kind must be business or fleet.")
}
