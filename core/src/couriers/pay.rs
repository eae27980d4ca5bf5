//! Couriers' pay as operators and fleets set it and couriers read it
//! (docs/couriers.md "Pay", "Earnings"): the pay rules of the platform's
//! vehicle types and of each fleet, audited; a courier's earnings over a
//! day or a week (Monday to Sunday) in the platform's time zone, with
//! totals per currency; and adjustments, a bonus or a correction with its
//! reason, audited. The rules and lines themselves are
//! `courier_orders::pay`'s.

use chrono::{Days, NaiveDate, TimeZone};
use chrono_tz::Tz;

use super::shifts::parse_day;
use super::{Courier, Fleet};
use crate::{Core, CoreError, CoreResult};
use courier_identity::access::{Granted, act};
use courier_identity::workspaces::{self, WorkspaceKind};
use courier_identity::{audit, text};
use courier_orders::pay::earnings::{self, Kind, Line, NewLine, Totals};
use courier_orders::pay::rules::{self, Rule, RuleInput, Scope};
use courier_orders::pay::statements::{self, Closer, Statement};

/// The largest adjustment either way, in minor units (10,000.00).
pub const MAX_ADJUSTMENT_CENTS: i64 = 1_000_000;
/// The longest reason of an adjustment.
pub const MAX_REASON_CHARS: usize = 500;

/// Sets the pay rule of `scope` to `parts` for the caller `granted` it (an
/// operator for a vehicle type's, the fleet's owners and admins for a
/// fleet's): its next version, audited in the same transaction.
pub async fn set_rule(
    core: &Core,
    granted: &Granted<act::ManageCouriers>,
    scope: Scope,
    parts: RuleInput,
) -> CoreResult<Rule> {
    let tx = core.begin().await?;
    if let Some(fleet) = scope.fleet_id() {
        granted.covers(fleet)?;
        if workspaces::get(&*tx, fleet).await?.kind != WorkspaceKind::Fleet {
            return Err(CoreError::invalid(
                "fleet_id",
                "Pay rules are a fleet's for its drivers; this is a business workspace.",
            ));
        }
    }
    let rule = rules::set(core, &tx, scope, parts, granted.actor(), core.clock.now_micros()).await?;
    let change = audit::Change {
        action: "pay_rule.set",
        workspace_id: rule.scope.fleet_id(),
        target: &rule.id,
        courier_id: None,
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    Ok(rule)
}

/// Every version of the pay rules of `fleet` (the platform's: one per
/// vehicle type), by scope, newest first.
pub async fn rules_of(core: &Core, fleet: &Fleet) -> CoreResult<Vec<Rule>> {
    rules::history(&core.db, fleet.workspace_id()).await
}

/// A span of earnings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    Day,
    /// Monday to Sunday.
    Week,
}

/// A courier's earnings over a period.
#[derive(Clone, Debug, PartialEq)]
pub struct Earnings {
    /// Its first instant and the first after it.
    pub start: i64,
    pub end: i64,
    pub time_zone: Tz,
    /// Oldest first.
    pub lines: Vec<Line>,
    /// Per currency, by currency.
    pub totals: Vec<(String, Totals)>,
}

/// `day` (`YYYY-MM-DD`; empty: today in `time_zone`); `invalid_request`
/// naming `day`.
fn day_of(time_zone: Tz, day: &str, now: i64) -> CoreResult<NaiveDate> {
    match day.trim() {
        "" => time_zone
            .timestamp_micros(now)
            .single()
            .map(|at| at.date_naive())
            .ok_or_else(|| CoreError::Internal("the clock is out of range".into())),
        day => parse_day(day, "day"),
    }
}

/// The `period` holding `day` (`YYYY-MM-DD`; empty: today) in `time_zone`,
/// as `[start, end)` in unix microseconds; `invalid_request` naming `day`.
pub fn span(time_zone: Tz, period: Period, day: &str, now: i64) -> CoreResult<(i64, i64)> {
    let date = day_of(time_zone, day, now)?;
    Ok(match period {
        Period::Day => (
            statements::midnight(time_zone, date),
            statements::midnight(time_zone, date + Days::new(1)),
        ),
        Period::Week => statements::week_of(time_zone, date),
    })
}

/// Courier `courier`'s earnings over the `period` holding `day`.
pub async fn list(core: &Core, courier: &Courier, period: Period, day: &str) -> CoreResult<Earnings> {
    let time_zone = core.catalog.home_time_zone();
    let (start, end) = span(time_zone, period, day, core.clock.now_micros())?;
    let lines = earnings::between(&core.db, &courier.id, start, end).await?;
    let mut currencies: Vec<&str> = lines.iter().map(|line| line.currency.as_str()).collect();
    currencies.sort_unstable();
    currencies.dedup();
    let totals = currencies
        .into_iter()
        .map(|currency| {
            let totals = Totals::of(lines.iter().filter(|line| line.currency == currency));
            (currency.to_owned(), totals)
        })
        .collect();
    Ok(Earnings {
        start,
        end,
        time_zone,
        lines,
        totals,
    })
}

/// Adds `amount_cents` (a bonus, or a correction below 0) to courier
/// `courier`'s earnings now, in the platform's currency, for the caller
/// `granted` it, with `reason`; audited in the same transaction.
pub async fn adjust(
    core: &Core,
    granted: &Granted<act::ManageCouriers>,
    courier: &Courier,
    amount_cents: i64,
    reason: &str,
) -> CoreResult<Line> {
    if amount_cents == 0 || amount_cents.abs() > MAX_ADJUSTMENT_CENTS {
        return Err(CoreError::invalid(
            "amount_cents",
            format!("amount_cents must be between -{MAX_ADJUSTMENT_CENTS} and {MAX_ADJUSTMENT_CENTS}, and not 0."),
        ));
    }
    let reason = reason.trim();
    text::text_length("reason", reason, 1, MAX_REASON_CHARS)?;
    text::text("reason", reason.as_bytes(), text::TextKind::Free)?;
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let line = NewLine {
        courier_id: &courier.id,
        kind: Kind::Adjustment,
        job_id: None,
        assignment_id: None,
        currency: core.catalog.currency(),
        amount_cents,
        reason: Some(reason),
        created_by: Some(granted.actor()),
    };
    let ids = earnings::record(&*tx, &[line], now).await?;
    let change = audit::Change {
        action: "earnings.adjust",
        workspace_id: courier.fleet.workspace_id(),
        target: &courier.id,
        courier_id: Some(&courier.id),
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    let id = ids.into_iter().next().unwrap_or_default();
    earnings::get(&core.db, &id)
        .await?
        .ok_or_else(|| CoreError::Internal("an adjustment just written was not found".into()))
}

/// `courier`'s statements, newest week first.
pub async fn statements_of(core: &Core, courier: &Courier) -> CoreResult<Vec<Statement>> {
    statements::of_courier(&core.db, &courier.id).await
}

/// Statement `id` with its lines, and whose it is (`not_found` when there
/// is none).
pub async fn statement(core: &Core, id: &str) -> CoreResult<(Statement, Vec<Line>, Courier)> {
    let (statement, lines) = statements::with_lines(&core.db, id)
        .await?
        .ok_or_else(|| CoreError::not_found("statement"))?;
    let courier = super::get(&core.db, &statement.courier_id).await?;
    Ok((statement, lines, courier))
}

/// Closes the week holding `day` (empty: the last week that ended) for the
/// caller `granted` it, each statement audited; a week not over yet is
/// `invalid_request` naming `day`.
pub async fn close_week(core: &Core, granted: &Granted<act::Administer>, day: &str) -> CoreResult<Vec<Statement>> {
    let time_zone = core.catalog.home_time_zone();
    let now = core.clock.now_micros();
    let date = match day.trim() {
        "" => day_of(time_zone, day, now)? - Days::new(7),
        _ => day_of(time_zone, day, now)?,
    };
    let week = statements::week_of(time_zone, date);
    if week.1 > now {
        return Err(CoreError::invalid(
            "day",
            format!("The week of {day} is not over yet; it closes once it has ended."),
        ));
    }
    statements::close(core, week, Closer::Caller(granted)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_week_runs_from_monday_midnight_in_the_time_zone() {
        let berlin = chrono_tz::Europe::Berlin;
        // Wednesday 2026-12-02.
        let (start, end) = span(berlin, Period::Week, "2026-12-02", 0).expect("a week");
        let monday = berlin
            .with_ymd_and_hms(2026, 11, 30, 0, 0, 0)
            .single()
            .expect("one local midnight")
            .timestamp_micros();
        let next = berlin
            .with_ymd_and_hms(2026, 12, 7, 0, 0, 0)
            .single()
            .expect("one local midnight")
            .timestamp_micros();
        assert_eq!((start, end), (monday, next));
        let (start, end) = span(berlin, Period::Day, "2026-03-29", 0).expect("a day");
        // The day the clocks go forward has 23 hours.
        assert_eq!(end - start, 23 * 3_600_000_000);
        let refused = span(berlin, Period::Day, "2026-02-30", 0).expect_err("no such day");
        assert!(matches!(refused, CoreError::Rejected { param: Some(p), .. } if p == "day"));
    }
}
