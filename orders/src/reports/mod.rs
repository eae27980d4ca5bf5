//! Reports (docs/reports.md): a workspace's deliveries, or the platform's
//! per service area, by day or week: how many, delivered, cancelled by
//! reason, on time, time to pickup and to delivery. Read from the days the
//! rollup worker keeps (`rollup`), so that 90 days of a workspace are 90
//! rows whatever its volume; the couriers' hours are the core's
//! (`courier_core::couriers::hours`), over the same periods (`figures`).

pub mod figures;
pub mod rollup;

use chrono::NaiveDate;

pub use figures::{CourierFigures, DeliveryFigures, Histogram, Period, Range};

use crate::{CoreResult, Orders};
use courier_identity::auth::Mode;

/// Whose deliveries a report counts.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// One workspace's; every workspace's when `None` (operators).
    pub workspace_id: Option<&'a str>,
    pub mode: Mode,
    /// One service area's; every area's when `None`.
    pub service_area_id: Option<&'a str>,
}

/// The deliveries of `scope` booked in `range`, per period (each period's
/// first day, in order, empty periods included).
pub async fn deliveries(
    orders: &Orders,
    scope: Scope<'_>,
    range: Range,
    period: Period,
) -> CoreResult<Vec<(NaiveDate, DeliveryFigures)>> {
    let rows = rollup::stored_days(
        &orders.db,
        scope.workspace_id,
        scope.mode.as_str(),
        scope.service_area_id,
        (range.first, range.last),
    )
    .await?;
    let mut days = Vec::with_capacity(rows.len());
    for row in &rows {
        if let Ok(day) = row.day.parse::<NaiveDate>() {
            days.push((day, rollup::figures_of(row)?));
        }
    }
    Ok(figures::by_period(range, period, days, DeliveryFigures::merge))
}

#[cfg(test)]
mod tests;
