//! Statements: a closed billing period of one workspace in one currency
//! (docs/billing.md). Closing a period puts every billable line delivered
//! before its end and every billable charge (a live SMS) made before it on
//! a statement and moves the lines' amounts out of the open amount, in one
//! transaction; paying or voiding an open statement clears the overdue flag
//! once no open statement is past due.
//!
//! Every move of one workspace's billing (close, pay, void, the overdue
//! flag) first locks the workspace row (`workspaces::get_for_update`), so
//! replicas take turns: two closes of one period make one statement, and a
//! payment and the overdue check never undo each other.

use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};

use super::charges::{self, Kind};
use super::lines;
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_identity::workspaces::{self, entity as workspaces_table};
use courier_store::db::WriteTransaction;
use courier_store::pagination::{self, Keyset};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "statements")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub workspace_id: String,
        pub status: String,
        pub currency: String,
        pub total_cents: i64,
        pub delivery_count: i32,
        pub sms_count: i32,
        pub sms_cents: i64,
        pub sms_unit_cents: Option<i64>,
        pub tip_count: i32,
        pub tip_cents: i64,
        pub period_start: i64,
        pub period_end: i64,
        pub issued_at: i64,
        pub due_at: i64,
        pub paid_at: Option<i64>,
        pub voided_at: Option<i64>,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

const MICROS_PER_DAY: i64 = 86_400 * 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementStatus {
    Open,
    Paid,
    Void,
}

impl StatementStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StatementStatus::Open => "open",
            StatementStatus::Paid => "paid",
            StatementStatus::Void => "void",
        }
    }

    pub fn parse(text: &str) -> Option<StatementStatus> {
        [StatementStatus::Open, StatementStatus::Paid, StatementStatus::Void]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    pub id: String,
    pub workspace_id: String,
    pub status: StatementStatus,
    pub currency: String,
    /// Its deliveries' amounts, its SMS charges and its tips (VAT
    /// included).
    pub total_cents: i64,
    pub delivery_count: i32,
    /// The live SMS notifications it bills (docs/billing.md "SMS
    /// notifications").
    pub sms_count: i32,
    /// Their amount, in `total_cents`.
    pub sms_cents: i64,
    /// The price of each, when every one had the same (a catalogue changed
    /// within the period may have priced them differently).
    pub sms_unit_cents: Option<i64>,
    /// The tips it bills (docs/billing.md "Tips"): each tip a delivery
    /// carried to its courier, and each raise after.
    pub tip_count: i32,
    /// Their amount, in `total_cents`.
    pub tip_cents: i64,
    pub period_start: i64,
    pub period_end: i64,
    pub issued_at: i64,
    pub due_at: i64,
    pub paid_at: Option<i64>,
    pub voided_at: Option<i64>,
}

impl Statement {
    /// Open and past its due date.
    pub fn is_overdue(&self, now: i64) -> bool {
        self.status == StatementStatus::Open && self.due_at <= now
    }
}

/// Which period a close ends.
#[derive(Clone, Copy, Debug)]
pub enum PeriodEnd<'a> {
    /// Now, on the request of a caller `granted` the close (audited in the
    /// close's transaction): nothing to bill is a refusal.
    Now(&'a Granted<act::ManageBilling>),
    /// A billing day that has passed (`cycle`): skipped when a statement
    /// already ends there or later, or when nothing is billable.
    BillingDay(i64),
}

/// Closes a period of `workspace_id`: one statement per currency with every
/// billable line delivered before the period's end and every billable
/// charge made before it; the lines' amounts leave the open amount (charges
/// were never in it). The period starts where the previous statement ended
/// (or when the workspace was created).
pub async fn close(orders: &Orders, workspace_id: &str, end: PeriodEnd<'_>) -> CoreResult<Vec<Statement>> {
    let tx = orders.begin().await?;
    let workspace = workspaces::get_for_update(&tx, workspace_id).await?;
    // Read after the lock: a close that waited sees the one before it.
    let now = orders.clock.now_micros();
    let previous_end: Option<i64> = entity::Entity::find()
        .select_only()
        .column_as(entity::Column::PeriodEnd.max(), "previous_end")
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .into_tuple::<Option<i64>>()
        .one(&*tx)
        .await?
        .flatten();
    let period_end = match end {
        PeriodEnd::Now(_) => now,
        PeriodEnd::BillingDay(day) if previous_end.is_some_and(|previous| previous >= day) => return Ok(vec![]),
        PeriodEnd::BillingDay(day) => day,
    };
    let period_start = Ord::min(previous_end.unwrap_or(workspace.created_at), period_end);
    let billable = lines::billable_before(workspace_id, period_end);
    let billable_charges = charges::billable_before(workspace_id, period_end);
    let mut currencies: Vec<String> = lines::entity::Entity::find()
        .select_only()
        .column(lines::entity::Column::Currency)
        .distinct()
        .filter(billable.clone())
        .order_by_asc(lines::entity::Column::Currency)
        .into_tuple()
        .all(&*tx)
        .await?;
    currencies.extend(charges::currencies(&*tx, billable_charges.clone()).await?);
    currencies.sort();
    currencies.dedup();
    if currencies.is_empty() {
        return match end {
            PeriodEnd::Now(_) => Err(CoreError::new(
                ErrorCode::NothingToBill,
                "The workspace has no delivered live delivery and no SMS charge or tip that is on no statement: there is nothing to bill.",
            )),
            PeriodEnd::BillingDay(_) => Ok(vec![]),
        };
    }
    let due_at = now.saturating_add(i64::from(workspace.billing.payment_terms_days) * MICROS_PER_DAY);
    let mut statements = Vec::with_capacity(currencies.len());
    let mut billed_cents = 0;
    for currency in currencies {
        let id = courier_store::ids::new_id("stm");
        let (count, delivery_cents) = lines::bill(&*tx, billable.clone(), &currency, &id).await?;
        let delivery_count =
            i32::try_from(count).map_err(|_| CoreError::Internal(format!("statement {id} has {count} deliveries")))?;
        let sms = charges::bill(&*tx, billable_charges.clone(), Kind::SmsNotification, &currency, &id).await?;
        let tips = charges::bill(&*tx, billable_charges.clone(), Kind::Tip, &currency, &id).await?;
        let count = |billed: charges::Billed, what: &str| {
            i32::try_from(billed.count)
                .map_err(|_| CoreError::Internal(format!("statement {id} has {} {what}", billed.count)))
        };
        let (sms_count, tip_count) = (count(sms, "SMS charges")?, count(tips, "tips")?);
        let total_cents = delivery_cents
            .checked_add(sms.cents)
            .and_then(|cents| cents.checked_add(tips.cents))
            .ok_or_else(|| CoreError::Internal(format!("statement {id} overflows its total")))?;
        let statement = entity::ActiveModel {
            id: Set(id),
            workspace_id: Set(workspace_id.to_owned()),
            status: Set(StatementStatus::Open.as_str().to_owned()),
            currency: Set(currency),
            total_cents: Set(total_cents),
            delivery_count: Set(delivery_count),
            sms_count: Set(sms_count),
            sms_cents: Set(sms.cents),
            sms_unit_cents: Set(sms.unit_cents),
            tip_count: Set(tip_count),
            tip_cents: Set(tips.cents),
            period_start: Set(period_start),
            period_end: Set(period_end),
            issued_at: Set(now),
            due_at: Set(due_at),
            paid_at: Set(None),
            voided_at: Set(None),
            updated_at: Set(now),
        }
        .insert(&*tx)
        .await?;
        // Charges are not in the open amount: only the lines leave it.
        billed_cents += delivery_cents;
        statements.push(from_model(statement)?);
    }
    super::release_credit(&*tx, workspace_id, billed_cents).await?;
    if let PeriodEnd::Now(granted) = end {
        for statement in &statements {
            granted
                .record(orders, &*tx, change("statement.close", statement))
                .await?;
        }
    }
    orders.faults.before_commit()?;
    tx.commit().await?;
    Ok(statements)
}

pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Statement> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("statement"))?;
    from_model(model)
}

/// The statements of `workspace_id`, newest first.
pub async fn list(
    orders: &Orders,
    workspace_id: &str,
    page_size: i32,
    page_token: Option<&str>,
) -> CoreResult<(Vec<Statement>, Option<String>)> {
    workspaces::get(&orders.db, workspace_id).await?;
    let limit = pagination::page_size_of("page_size", page_size, 20, 100)?;
    let keyset = Keyset::<entity::Entity> {
        created_at: entity::Column::IssuedAt,
        id: entity::Column::Id,
        newest_first: true,
    };
    let condition = Condition::all().add(entity::Column::WorkspaceId.eq(workspace_id));
    let (rows, next) = keyset
        .page(
            &orders.pages,
            &format!("statements|{workspace_id}"),
            condition,
            limit,
            page_token,
        )
        .await?;
    Ok((rows.into_iter().map(from_model).collect::<CoreResult<_>>()?, next))
}

/// Records the payment of open statement `id`, with its audit entry.
pub async fn mark_paid(orders: &Orders, granted: &Granted<act::ManageBilling>, id: &str) -> CoreResult<Statement> {
    settle(orders, granted, id, StatementStatus::Paid).await
}

/// Voids open statement `id`, with its audit entry: its lines and charges
/// stay on it and are not billed again, and the lines' amounts do not
/// return to the open amount.
pub async fn void(orders: &Orders, granted: &Granted<act::ManageBilling>, id: &str) -> CoreResult<Statement> {
    settle(orders, granted, id, StatementStatus::Void).await
}

/// The audit entry of a change of `statement`.
fn change<'a>(action: &'a str, statement: &'a Statement) -> audit::Change<'a> {
    audit::Change {
        action,
        workspace_id: Some(&statement.workspace_id),
        target: &statement.id,
        courier_id: None,
    }
}

async fn settle(
    orders: &Orders,
    granted: &Granted<act::ManageBilling>,
    id: &str,
    to: StatementStatus,
) -> CoreResult<Statement> {
    let tx = orders.begin().await?;
    let statement = get(&*tx, id).await?;
    workspaces::get_for_update(&tx, &statement.workspace_id).await?;
    let now = orders.clock.now_micros();
    let time_column = match to {
        StatementStatus::Paid => entity::Column::PaidAt,
        _ => entity::Column::VoidedAt,
    };
    let settled = entity::Entity::update_many()
        .col_expr(entity::Column::Status, Expr::value(to.as_str()))
        .col_expr(time_column, Expr::value(now))
        .col_expr(entity::Column::UpdatedAt, Expr::value(now))
        .filter(entity::Column::Id.eq(id))
        .filter(entity::Column::Status.eq(StatementStatus::Open.as_str()))
        .exec(&*tx)
        .await?;
    if settled.rows_affected == 0 {
        let current = get(&*tx, id).await?;
        let verb = if to == StatementStatus::Paid { "paid" } else { "voided" };
        return Err(CoreError::new(
            ErrorCode::StatementNotOpen,
            format!(
                "Statement {id} is {}: only an open statement can be {verb}.",
                current.status.as_str()
            ),
        ));
    }
    reconcile_overdue(&tx, &statement.workspace_id, now).await?;
    let settled = get(&*tx, id).await?;
    let action = if to == StatementStatus::Paid {
        "statement.mark_paid"
    } else {
        "statement.void"
    };
    granted.record(orders, &*tx, change(action, &settled)).await?;
    tx.commit().await?;
    Ok(settled)
}

/// Sets the workspace's overdue flag to whether one of its open statements
/// is past due at `now`; the caller holds the workspace's row lock.
async fn reconcile_overdue(tx: &WriteTransaction, workspace_id: &str, now: i64) -> CoreResult<bool> {
    let overdue = entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .filter(overdue_at(now))
        .one(&**tx)
        .await?
        .is_some();
    super::set_overdue(&**tx, workspace_id, overdue).await?;
    Ok(overdue)
}

fn overdue_at(now: i64) -> Condition {
    Condition::all()
        .add(entity::Column::Status.eq(StatementStatus::Open.as_str()))
        .add(entity::Column::DueAt.lte(now))
}

/// Brings every workspace's overdue flag in line with its statements at
/// the clock's now: set where an open statement is past due, cleared where
/// none is. Returns how many flags changed.
pub async fn flag_overdue(orders: &Orders) -> CoreResult<usize> {
    let now = orders.clock.now_micros();
    let overdue_workspaces = Query::select()
        .column(entity::Column::WorkspaceId)
        .from(entity::Entity)
        .cond_where(overdue_at(now))
        .to_owned();
    use workspaces_table::Column;
    let wrong: Vec<String> = workspaces_table::Entity::find()
        .select_only()
        .column(Column::Id)
        .filter(
            Condition::any()
                .add(
                    Condition::all()
                        .add(Column::StatementOverdue.eq(false))
                        .add(Column::Id.in_subquery(overdue_workspaces.clone())),
                )
                .add(
                    Condition::all()
                        .add(Column::StatementOverdue.eq(true))
                        .add(Expr::col(Column::Id).not_in_subquery(overdue_workspaces)),
                ),
        )
        .into_tuple()
        .all(&orders.db)
        .await?;
    let mut changed = 0;
    for workspace_id in wrong {
        let tx = orders.begin().await?;
        let before = workspaces::get_for_update(&tx, &workspace_id).await?.statement_overdue;
        let now = orders.clock.now_micros();
        if reconcile_overdue(&tx, &workspace_id, now).await? != before {
            changed += 1;
        }
        tx.commit().await?;
    }
    Ok(changed)
}

fn from_model(model: entity::Model) -> CoreResult<Statement> {
    let status = StatementStatus::parse(&model.status)
        .ok_or_else(|| CoreError::Internal(format!("statement {} has unknown status {}", model.id, model.status)))?;
    Ok(Statement {
        id: model.id,
        workspace_id: model.workspace_id,
        status,
        currency: model.currency,
        total_cents: model.total_cents,
        delivery_count: model.delivery_count,
        sms_count: model.sms_count,
        sms_cents: model.sms_cents,
        sms_unit_cents: model.sms_unit_cents,
        tip_count: model.tip_count,
        tip_cents: model.tip_cents,
        period_start: model.period_start,
        period_end: model.period_end,
        issued_at: model.issued_at,
        due_at: model.due_at,
        paid_at: model.paid_at,
        voided_at: model.voided_at,
    })
}
