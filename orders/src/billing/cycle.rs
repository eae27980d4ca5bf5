//! The billing cycle's worker: every `billing_check_every` it closes the
//! period of each workspace whose billing day has passed since its last
//! statement, and brings the overdue flags in line with the statements.
//! Its state is the database (billing lines, charges, statements), so it resumes
//! after a restart, and replicas running it at once take turns on each
//! workspace's row (`statements`): a period is closed once.

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, TimeZone, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use tokio_util::sync::CancellationToken;

use super::charges::entity as charges_table;
use super::lines::entity as lines_table;
use super::statements::{self, PeriodEnd};
use crate::{CoreResult, Orders};
use courier_identity::workspaces;
use courier_store::runner::{Done, Runner, log_step};

/// The latest billing day at or before `now` (unix microseconds): day
/// `billing_day` (1 to 28) of this month or the last, at 00:00 UTC.
pub fn last_billing_day(now: i64, billing_day: u32) -> i64 {
    let today = Utc.timestamp_micros(now).single().unwrap_or_default().date_naive();
    let (mut year, mut month) = (today.year(), today.month());
    if today.day() < billing_day {
        (year, month) = if month == 1 { (year - 1, 12) } else { (year, month - 1) };
    }
    chrono::NaiveDate::from_ymd_opt(year, month, billing_day.clamp(1, 28))
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|midnight| midnight.and_utc().timestamp_micros())
        .unwrap_or(now)
}

/// Runs the billing checks every `billing_check_every` until `stop` fires.
pub async fn run(orders: Orders, stop: CancellationToken) {
    Runner::every(orders.config.billing_check_every)
        .run(&stop, move || check(orders.clone()))
        .await
}

/// Closes the due periods, then brings the overdue flags in line, the
/// second whatever the first did.
async fn check(orders: Orders) -> CoreResult<Done> {
    let closed = close_due_periods(&orders).await;
    log_step(closed, "billing periods closed", "billing periods not closed");
    let changed = statements::flag_overdue(&orders).await;
    log_step(changed, "overdue flags changed", "overdue flags not checked");
    Ok(Done::Idle)
}

/// Closes the period of every workspace with a billable line delivered, or
/// a billable charge made, before its latest billing day; returns the
/// statements issued.
pub async fn close_due_periods(orders: &Orders) -> CoreResult<usize> {
    let now = orders.clock.now_micros();
    let lines: Vec<(String, Option<i64>)> = lines_table::Entity::find()
        .select_only()
        .column(lines_table::Column::WorkspaceId)
        .column_as(lines_table::Column::DeliveredAt.min(), "oldest")
        .filter(lines_table::Column::StatementId.is_null())
        .group_by(lines_table::Column::WorkspaceId)
        .into_tuple()
        .all(&orders.db)
        .await?;
    let charges: Vec<(String, Option<i64>)> = charges_table::Entity::find()
        .select_only()
        .column(charges_table::Column::WorkspaceId)
        .column_as(charges_table::Column::CreatedAt.min(), "oldest")
        .filter(charges_table::Column::StatementId.is_null())
        .group_by(charges_table::Column::WorkspaceId)
        .into_tuple()
        .all(&orders.db)
        .await?;
    // Each workspace's oldest billable line or charge.
    let mut oldest_billable: BTreeMap<String, Option<i64>> = BTreeMap::new();
    for (workspace_id, oldest) in lines.into_iter().chain(charges) {
        let entry = oldest_billable.entry(workspace_id).or_insert(oldest);
        *entry = match (*entry, oldest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    let ids = oldest_billable.keys().cloned().collect();
    let billing_days: HashMap<String, u32> = workspaces::get_many(&orders.db, ids)
        .await?
        .into_iter()
        .map(|w| (w.id, w.billing.billing_day))
        .collect();
    let mut issued = 0;
    for (workspace_id, oldest) in oldest_billable {
        let Some(billing_day) = billing_days.get(&workspace_id) else {
            continue;
        };
        let day = last_billing_day(now, *billing_day);
        if oldest.is_some_and(|oldest| oldest < day) {
            match statements::close(orders, &workspace_id, PeriodEnd::BillingDay(day)).await {
                Ok(closed) => issued += closed.len(),
                Err(error) => tracing::warn!(%error, workspace_id, "billing period not closed"),
            }
        }
    }
    Ok(issued)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .expect("time")
            .timestamp_micros()
    }

    #[test]
    fn billing_days_are_midnight_utc_of_this_month_or_the_last() {
        assert_eq!(
            last_billing_day(at("2026-11-24T14:00:00Z"), 1),
            at("2026-11-01T00:00:00Z")
        );
        assert_eq!(
            last_billing_day(at("2026-11-24T14:00:00Z"), 24),
            at("2026-11-24T00:00:00Z")
        );
        assert_eq!(
            last_billing_day(at("2026-11-24T14:00:00Z"), 25),
            at("2026-10-25T00:00:00Z")
        );
        assert_eq!(
            last_billing_day(at("2027-01-05T00:00:00Z"), 28),
            at("2026-12-28T00:00:00Z")
        );
        assert_eq!(
            last_billing_day(at("2026-03-01T00:00:00Z"), 1),
            at("2026-03-01T00:00:00Z")
        );
    }
}
