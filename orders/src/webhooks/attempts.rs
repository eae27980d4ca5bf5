//! The attempt log (`webhook_attempts`): one row per webhook request made, or
//! refused before sending, shown as `webhook_attempts` of an event's details
//! (docs/guide.md "Events").
//!
//! An attempt's `status` is how that attempt ended: `succeeded` (the
//! receiver answered `2xx`) or `failed` (anything else: another answer, no
//! answer, a refused target or a disabled endpoint), whether or not a retry
//! follows (docs/guide.md "Events"). The queue row (`queue`) says whether the
//! event is still on its way.
//!
//! A request is logged as `pending` before it leaves ([`record_started`]),
//! in the transaction that extends its row's lease, and gets its ending
//! when its answer is recorded ([`record_ended`]). An attempt whose sender
//! stopped in between (a crash) is still `pending` when its row is claimed
//! again once the lease ends: the claim ends it as failed ([`cut_off`]), so
//! the log shows every request that may have reached the receiver.

use sea_orm::sea_query::{Expr, ExprTrait, OnConflict, Query, SimpleExpr};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect,
};

use super::entity::{attempt, webhook_delivery};
use super::send::Outcome;
use crate::{CoreError, CoreResult};
use courier_store::{day_partitions, ids};

/// The error of an attempt cut off by its sender's stop.
pub const CUT_OFF: &str =
    "The attempt was cut off: the sending server stopped before the endpoint's answer was recorded.";

/// Where an attempt stands: being made, or how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptStatus {
    Pending,
    Succeeded,
    Failed,
}

impl AttemptStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptStatus::Pending => "pending",
            AttemptStatus::Succeeded => "succeeded",
            AttemptStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<AttemptStatus> {
        [AttemptStatus::Pending, AttemptStatus::Succeeded, AttemptStatus::Failed]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// One attempt as the events API shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub webhook_id: String,
    pub attempted_at: i64,
    pub status: AttemptStatus,
    pub response_code: Option<i32>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

/// Logs as `pending`, started `at`, an attempt of each queue row before its
/// request leaves (with its attempt id), in one statement.
pub async fn record_started<'a>(
    db: &impl ConnectionTrait,
    started: impl IntoIterator<Item = (&'a str, &'a webhook_delivery::Model)>,
    at: i64,
) -> CoreResult<()> {
    let rows: Vec<attempt::ActiveModel> = started
        .into_iter()
        .map(|(id, row)| {
            active(attempt::Model {
                id: id.to_owned(),
                event_id: row.event_id.clone(),
                webhook_id: row.webhook_id.clone(),
                attempted_at: at,
                status: AttemptStatus::Pending.as_str().to_owned(),
                response_code: None,
                latency_ms: None,
                error: None,
            })
        })
        .collect();
    if !rows.is_empty() {
        attempt::Entity::insert_many(rows).exec(db).await?;
    }
    Ok(())
}

/// Records how attempts ended (each: its id and start time from
/// [`record_started`], its queue row, its status and what came back), in
/// one statement: the `pending` entry of each gets its ending, even one a
/// claim marked cut off meanwhile (the sender was slow, not stopped); one
/// missing is written whole.
pub async fn record_ended<'a>(
    db: &impl ConnectionTrait,
    ended: impl IntoIterator<Item = (&'a str, i64, &'a webhook_delivery::Model, AttemptStatus, &'a Outcome)>,
) -> CoreResult<()> {
    let rows: Vec<attempt::ActiveModel> = ended
        .into_iter()
        .map(|(id, started_at, row, status, outcome)| {
            active(attempt::Model {
                id: id.to_owned(),
                event_id: row.event_id.clone(),
                webhook_id: row.webhook_id.clone(),
                attempted_at: started_at,
                status: status.as_str().to_owned(),
                response_code: outcome.response_code.map(i32::from),
                latency_ms: outcome.latency_ms,
                error: outcome.error.clone(),
            })
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    // PostgreSQL keys attempts by id and start (the table is partitioned by
    // day of start, docs/scaling.md "History partitions"); SQLite by id.
    let key = match db.get_database_backend() {
        DbBackend::Postgres => vec![attempt::Column::Id, attempt::Column::AttemptedAt],
        _ => vec![attempt::Column::Id],
    };
    let ending = OnConflict::columns(key)
        .update_columns([
            attempt::Column::Status,
            attempt::Column::ResponseCode,
            attempt::Column::LatencyMs,
            attempt::Column::Error,
        ])
        .to_owned();
    attempt::Entity::insert_many(rows).on_conflict(ending).exec(db).await?;
    Ok(())
}

/// Ends as failed ([`CUT_OFF`]) the attempts still `pending` of the rows
/// claimed with `claim_token`: their senders' leases ended before their
/// answers were recorded. One statement, whatever the claim's size.
pub async fn cut_off(db: &impl ConnectionTrait, claim_token: &str) -> CoreResult<u64> {
    let claimed = Query::select()
        .columns([webhook_delivery::Column::EventId, webhook_delivery::Column::WebhookId])
        .from(webhook_delivery::Entity)
        .and_where(webhook_delivery::Column::ClaimToken.eq(claim_token))
        .to_owned();
    let pair = Expr::tuple([
        Expr::col(attempt::Column::EventId),
        Expr::col(attempt::Column::WebhookId),
    ]);
    end_cut_off(db, pair.in_subquery(claimed)).await
}

/// [`cut_off`] for every attempt still `pending` to `webhook_id`: its
/// queued rows were just failed or deleted, so none is claimed again.
pub async fn cut_off_of_endpoint(db: &impl ConnectionTrait, webhook_id: &str) -> CoreResult<u64> {
    end_cut_off(db, attempt::Column::WebhookId.eq(webhook_id)).await
}

async fn end_cut_off(db: &impl ConnectionTrait, which: SimpleExpr) -> CoreResult<u64> {
    let result = attempt::Entity::update_many()
        .col_expr(attempt::Column::Status, Expr::value(AttemptStatus::Failed.as_str()))
        .col_expr(attempt::Column::Error, Expr::value(CUT_OFF))
        .filter(attempt::Column::Status.eq(AttemptStatus::Pending.as_str()))
        .filter(which)
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// Logs an attempt that sent nothing, with the reason.
pub async fn record_unsent(
    db: &impl ConnectionTrait,
    event_id: &str,
    webhook_id: &str,
    at: i64,
    status: AttemptStatus,
    error: &str,
) -> CoreResult<()> {
    insert(
        db,
        attempt::Model {
            id: ids::new_id("wha"),
            event_id: event_id.to_owned(),
            webhook_id: webhook_id.to_owned(),
            attempted_at: at,
            status: status.as_str().to_owned(),
            response_code: None,
            latency_ms: None,
            error: Some(error.to_owned()),
        },
    )
    .await
}

async fn insert(db: &impl ConnectionTrait, row: attempt::Model) -> CoreResult<()> {
    active(row).insert(db).await?;
    Ok(())
}

fn active(row: attempt::Model) -> attempt::ActiveModel {
    attempt::ActiveModel {
        id: Set(row.id),
        event_id: Set(row.event_id),
        webhook_id: Set(row.webhook_id),
        attempted_at: Set(row.attempted_at),
        status: Set(row.status),
        response_code: Set(row.response_code),
        latency_ms: Set(row.latency_ms),
        error: Set(row.error),
    }
}

/// Every attempt of `event_id` to any endpoint, oldest first.
pub async fn of_event(db: &impl ConnectionTrait, event_id: &str) -> CoreResult<Vec<Attempt>> {
    attempt::Entity::find()
        .filter(attempt::Column::EventId.eq(event_id))
        .order_by_asc(attempt::Column::AttemptedAt)
        .order_by_asc(attempt::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|row| attempt_of(row).map(|(_, attempt)| attempt))
        .collect()
}

/// The latest `limit` attempts to `webhook_id`, newest first, each with
/// the id of the event it carried.
pub async fn of_endpoint(
    db: &impl ConnectionTrait,
    webhook_id: &str,
    limit: u64,
) -> CoreResult<Vec<(String, Attempt)>> {
    attempt::Entity::find()
        .filter(attempt::Column::WebhookId.eq(webhook_id))
        .order_by_desc(attempt::Column::AttemptedAt)
        .order_by_desc(attempt::Column::Id)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(attempt_of)
        .collect()
}

/// A logged row as `(event id, attempt)`.
fn attempt_of(row: attempt::Model) -> CoreResult<(String, Attempt)> {
    let status = AttemptStatus::parse(&row.status)
        .ok_or_else(|| CoreError::Internal(format!("attempt {} has status {}", row.id, row.status)))?;
    Ok((
        row.event_id,
        Attempt {
            webhook_id: row.webhook_id,
            attempted_at: row.attempted_at,
            status,
            response_code: row.response_code,
            latency_ms: row.latency_ms,
            error: row.error,
        },
    ))
}

/// Deletes attempts made before `cutoff`; how many rows were deleted. On
/// PostgreSQL whole days go ([`day_partitions::drop_before`]).
pub async fn purge_before(db: &DatabaseConnection, cutoff: i64) -> CoreResult<u64> {
    if db.get_database_backend() == DbBackend::Postgres {
        return day_partitions::drop_before(db, &day_partitions::WEBHOOK_ATTEMPTS, cutoff).await;
    }
    let result = attempt::Entity::delete_many()
        .filter(attempt::Column::AttemptedAt.lt(cutoff))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}
