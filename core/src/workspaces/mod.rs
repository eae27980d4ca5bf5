//! Workspaces: a business or a fleet, its plan flags and its billing state.
//! Owns the `workspaces` table; only this module and `billing` (the running
//! open amount) write it.

pub mod entity;

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait, EntityTrait, QueryOrder};

use crate::auth::cache::KeyCache;
use crate::{CoreError, CoreResult};
use courier::errors::ErrorCode;

/// What a workspace is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkspaceKind {
    Business,
    Fleet,
}

impl WorkspaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkspaceKind::Business => "business",
            WorkspaceKind::Fleet => "fleet",
        }
    }

    pub fn parse(text: &str) -> Option<WorkspaceKind> {
        match text {
            "business" => Some(WorkspaceKind::Business),
            "fleet" => Some(WorkspaceKind::Fleet),
            _ => None,
        }
    }
}

/// Plan flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Fleet workspaces only: business workspaces always have API access.
    pub api_access: bool,
    pub fleet_order_intake: bool,
    pub proof_of_delivery: bool,
    /// Discount on the route fare, in basis points (0..=10000).
    pub discount_bps: u32,
}

/// Invoice billing state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BillingState {
    pub invoice_billing_enabled: bool,
    pub credit_limit_cents: i64,
    pub statement_overdue: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Workspace {
    pub id: String,
    pub name: String,
    pub kind: WorkspaceKind,
    pub plan: Plan,
    pub billing: BillingState,
    /// Live amount priced, not cancelled and not invoiced (kept by `billing`).
    pub open_amount_cents: i64,
    pub created_at: i64,
}

impl Workspace {
    /// Whether keys of this workspace may use the public API at all.
    pub fn has_api_access(&self) -> bool {
        self.kind == WorkspaceKind::Business || self.plan.api_access
    }
}

/// A workspace to create.
pub struct NewWorkspace {
    pub name: String,
    pub kind: WorkspaceKind,
    pub plan: Plan,
    pub billing: BillingState,
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

fn validate_billing(billing: &BillingState) -> CoreResult<()> {
    if billing.credit_limit_cents < 0 {
        return Err(CoreError::invalid(
            "billing.credit_limit_cents",
            "credit_limit_cents must not be negative.",
        ));
    }
    Ok(())
}

pub async fn create(db: &impl ConnectionTrait, now: i64, new: NewWorkspace) -> CoreResult<Workspace> {
    let name = new.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(CoreError::invalid("name", "name must be 1 to 200 characters."));
    }
    validate_plan(&new.plan)?;
    validate_billing(&new.billing)?;
    let model = entity::ActiveModel {
        id: Set(crate::ids::new_id("wks")),
        name: Set(name.to_owned()),
        kind: Set(new.kind.as_str().to_owned()),
        api_access: Set(new.plan.api_access),
        fleet_order_intake: Set(new.plan.fleet_order_intake),
        proof_of_delivery: Set(new.plan.proof_of_delivery),
        discount_bps: Set(new.plan.discount_bps as i32),
        invoice_billing_enabled: Set(new.billing.invoice_billing_enabled),
        credit_limit_cents: Set(new.billing.credit_limit_cents),
        statement_overdue: Set(new.billing.statement_overdue),
        open_amount_cents: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    from_model(model)
}

pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Workspace> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("workspace"))?;
    from_model(model)
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

pub async fn is_empty(db: &impl ConnectionTrait) -> CoreResult<bool> {
    Ok(entity::Entity::find().one(db).await?.is_none())
}

/// Changes the plan; the key cache forgets the workspace's keys (their
/// checks read the plan) before this answers.
pub async fn update_plan(
    db: &impl ConnectionTrait,
    keys: &KeyCache,
    now: i64,
    id: &str,
    plan: Plan,
) -> CoreResult<Workspace> {
    validate_plan(&plan)?;
    get(db, id).await?;
    let model = entity::ActiveModel {
        id: Set(id.to_owned()),
        api_access: Set(plan.api_access),
        fleet_order_intake: Set(plan.fleet_order_intake),
        proof_of_delivery: Set(plan.proof_of_delivery),
        discount_bps: Set(plan.discount_bps as i32),
        updated_at: Set(now),
        ..Default::default()
    }
    .update(db)
    .await?;
    keys.forget_all();
    from_model(model)
}

/// Changes the billing state; like [`update_plan`], the key cache forgets
/// the workspace's keys.
pub async fn update_billing(
    db: &impl ConnectionTrait,
    keys: &KeyCache,
    now: i64,
    id: &str,
    billing: BillingState,
) -> CoreResult<Workspace> {
    validate_billing(&billing)?;
    get(db, id).await?;
    let model = entity::ActiveModel {
        id: Set(id.to_owned()),
        invoice_billing_enabled: Set(billing.invoice_billing_enabled),
        credit_limit_cents: Set(billing.credit_limit_cents),
        statement_overdue: Set(billing.statement_overdue),
        updated_at: Set(now),
        ..Default::default()
    }
    .update(db)
    .await?;
    keys.forget_all();
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
        },
        billing: BillingState {
            invoice_billing_enabled: model.invoice_billing_enabled,
            credit_limit_cents: model.credit_limit_cents,
            statement_overdue: model.statement_overdue,
        },
        open_amount_cents: model.open_amount_cents,
        created_at: model.created_at,
    })
}

/// A refusal for an unknown kind in an admin request.
pub fn unknown_kind() -> CoreError {
    CoreError::at(ErrorCode::InvalidRequest, "kind", "kind must be business or fleet.")
}
