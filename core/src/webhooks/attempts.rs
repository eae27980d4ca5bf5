//! The attempt log (`webhook_attempts`): one row per webhook request made, or
//! refused before sending, shown as `webhook_attempts` of an event's details
//! (docs/guide.md "Events").
//!
//! An attempt's `status` is how that attempt ended: `succeeded` (the
//! receiver answered `2xx`) or `failed` (anything else: another answer, no
//! answer, a refused target or a disabled endpoint), whether or not a retry
//! follows (docs/guide.md "Events"). The queue row (`queue`) says whether the
//! event is still on its way. An attempt is logged once it has ended, so
//! the public `pending` (an attempt being made right now) is never stored.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::entity::attempt;
use super::send::Outcome;
use crate::{CoreError, CoreResult, ids};

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptStatus {
    Succeeded,
    Failed,
}

impl AttemptStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptStatus::Succeeded => "succeeded",
            AttemptStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<AttemptStatus> {
        [AttemptStatus::Succeeded, AttemptStatus::Failed]
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

/// Logs attempts, each the `outcome` of sending an event to an endpoint
/// (`event_id`, `webhook_id`), in one statement.
pub async fn record_many<'a>(
    db: &impl ConnectionTrait,
    sends: impl IntoIterator<Item = (&'a str, &'a str, AttemptStatus, &'a Outcome)>,
) -> CoreResult<()> {
    let rows: Vec<attempt::ActiveModel> = sends
        .into_iter()
        .map(|(event_id, webhook_id, status, outcome)| {
            active(attempt::Model {
                id: ids::new_id("wha"),
                event_id: event_id.to_owned(),
                webhook_id: webhook_id.to_owned(),
                attempted_at: outcome.attempted_at,
                status: status.as_str().to_owned(),
                response_code: outcome.response_code.map(i32::from),
                latency_ms: outcome.latency_ms,
                error: outcome.error.clone(),
            })
        })
        .collect();
    if !rows.is_empty() {
        attempt::Entity::insert_many(rows).exec(db).await?;
    }
    Ok(())
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
        .map(|row| {
            let status = AttemptStatus::parse(&row.status)
                .ok_or_else(|| CoreError::Internal(format!("attempt {} has status {}", row.id, row.status)))?;
            Ok(Attempt {
                webhook_id: row.webhook_id,
                attempted_at: row.attempted_at,
                status,
                response_code: row.response_code,
                latency_ms: row.latency_ms,
                error: row.error,
            })
        })
        .collect()
}

/// Deletes attempts made before `cutoff`.
pub async fn purge_before(db: &impl ConnectionTrait, cutoff: i64) -> CoreResult<u64> {
    let result = attempt::Entity::delete_many()
        .filter(attempt::Column::AttemptedAt.lt(cutoff))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}
