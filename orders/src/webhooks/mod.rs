//! Webhooks: endpoints, the delivery queue, the dispatcher that sends events
//! to endpoints with retries, the attempt log, signing and target checks
//! (docs/guide.md "Webhooks").
//!
//! How an event reaches an endpoint: `events::record` writes the event and,
//! in the same transaction, [`enqueue`] adds one queue row for each active
//! endpoint of the workspace and mode that subscribes to its type (both
//! called by `deliveries::record_events`). The [`dispatch`] worker claims
//! due rows, sends the signed envelope, records the attempt and schedules a
//! retry or ends the row. Owns the tables
//! `webhook_endpoints` ([`endpoints`]), `webhook_deliveries` ([`queue`]) and
//! `webhook_attempts` ([`attempts`]).

pub mod attempts;
pub mod dispatch;
pub mod endpoints;
pub mod entity;
pub mod queue;
pub mod retry;
pub mod send;
pub mod signature;
pub mod target;

use std::time::Duration;

use sea_orm::DatabaseConnection;

use crate::CoreResult;

pub use queue::enqueue;

/// How long attempts and queue rows are kept: as long as their events.
pub const RETENTION: Duration = crate::events::history::RETENTION;

/// Deletes queue rows and attempts older than [`RETENTION`]; returns how many
/// rows went.
pub async fn purge_expired(db: &DatabaseConnection, now: i64) -> CoreResult<u64> {
    let cutoff = now - i64::try_from(RETENTION.as_micros()).unwrap_or(i64::MAX);
    Ok(queue::purge_before(db, cutoff).await? + attempts::purge_before(db, cutoff).await?)
}

#[cfg(test)]
mod tests;
