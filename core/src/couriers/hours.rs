//! A fleet's courier hours (docs/reports.md "Courier hours"): per period,
//! the couriers online, their minutes online (`online`), their minutes
//! holding at least one job (their assignments, overlaps counted once), and
//! the jobs they delivered; read over the report's range from the periods'
//! and the assignments' indexes.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use chrono_tz::Tz;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::{Fleet, online};
use crate::{Core, CoreResult};
use courier_orders::assignments::entity as assignments;
use courier_orders::reports::rollup::day_bounds;
use courier_orders::reports::{CourierFigures, Period, Range};

/// The courier figures of `fleet` per period of `range` (each period's
/// first day, in order), days on `zone`'s clock; what is still open counts
/// until `now`.
pub async fn figures(
    core: &Core,
    fleet: &Fleet,
    zone: Tz,
    range: Range,
    period: Period,
) -> CoreResult<Vec<(NaiveDate, CourierFigures)>> {
    let now = core.clock.now_micros();
    let (from, _) = day_bounds(zone, range.first);
    let (_, to) = day_bounds(zone, range.last);
    let periods = online::overlapping(&core.db, fleet, from, to).await?;
    let couriers: BTreeSet<&str> = periods.iter().map(|p| p.courier_id.as_str()).collect();
    let mut jobs: Vec<assignments::Model> = Vec::new();
    // The assignments index is per courier.
    for courier in &couriers {
        let held = assignments::Entity::find()
            .filter(assignments::Column::CourierId.eq(*courier))
            .filter(assignments::Column::AssignedAt.lt(to))
            .filter(
                sea_orm::Condition::any()
                    .add(assignments::Column::EndedAt.is_null())
                    .add(assignments::Column::EndedAt.gt(from)),
            )
            .all(&core.db)
            .await?;
        jobs.extend(held);
    }
    let busy = busy_intervals(&jobs, now);
    Ok(range
        .periods(period)
        .into_iter()
        .map(|start| {
            let (first, last) = range.period_days(period, start);
            let (start_at, _) = day_bounds(zone, first);
            let (_, end_at) = day_bounds(zone, last);
            let mut figures = CourierFigures::default();
            let mut seen = BTreeSet::new();
            for p in &periods {
                let ended_at = p.ended_at.unwrap_or(now);
                if p.started_at < end_at && ended_at > start_at {
                    seen.insert(p.courier_id.as_str());
                }
                figures.online_minutes += overlap(p.started_at, ended_at, start_at, end_at);
            }
            figures.couriers = seen.len() as u64;
            figures.busy_minutes = busy
                .values()
                .flatten()
                .map(|(a, b)| overlap(*a, *b, start_at, end_at))
                .sum();
            figures.delivered = jobs
                .iter()
                .filter(|j| j.outcome.as_deref() == Some("delivered"))
                .filter(|j| j.ended_at.is_some_and(|e| e >= start_at && e < end_at))
                .count() as u64;
            (start, figures)
        })
        .collect())
}

/// Whole minutes of `[a, b)` within `[from, to)`.
fn overlap(a: i64, b: i64, from: i64, to: i64) -> u64 {
    let micros = (b.min(to) - a.max(from)).max(0);
    (micros / 60_000_000) as u64
}

/// Each courier's time holding a job: their assignments' spans merged.
fn busy_intervals(jobs: &[assignments::Model], now: i64) -> BTreeMap<&str, Vec<(i64, i64)>> {
    let mut spans: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
    for job in jobs {
        spans
            .entry(job.courier_id.as_str())
            .or_default()
            .push((job.assigned_at, job.ended_at.unwrap_or(now)));
    }
    for list in spans.values_mut() {
        list.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(list.len());
        for (a, b) in list.drain(..) {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *list = merged;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(courier: &str, assigned_at: i64, ended_at: Option<i64>) -> assignments::Model {
        assignments::Model {
            id: format!("asg_{assigned_at}"),
            courier_id: courier.into(),
            job_id: "del_1".into(),
            assigned_by: "dispatch:auto".into(),
            assigned_at,
            ended_at,
            outcome: ended_at.map(|_| "delivered".into()),
        }
    }

    #[test]
    fn jobs_held_at_once_count_once_and_an_open_one_until_now() {
        let minute = 60_000_000;
        let jobs = [
            job("c1", 0, Some(30 * minute)),
            job("c1", 10 * minute, Some(40 * minute)),
            job("c1", 60 * minute, None),
            job("c2", 0, Some(5 * minute)),
        ];
        let busy = busy_intervals(&jobs, 70 * minute);
        assert_eq!(busy["c1"], vec![(0, 40 * minute), (60 * minute, 70 * minute)]);
        let total: u64 = busy
            .values()
            .flatten()
            .map(|(a, b)| overlap(*a, *b, 0, 65 * minute))
            .sum();
        assert_eq!(total, 40 + 5 + 5);
    }
}
