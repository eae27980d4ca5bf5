//! Promised times (docs/guide.md "Windows"): the pickup and dropoff windows
//! of quotes, deliveries and fleet orders, their rules, and the times the
//! dispatcher plans inside them. Times are Unix microseconds.

use courier::errors::ErrorCode;
use courier_store::{CoreError, CoreResult};
use serde::{Deserialize, Serialize};

/// A minute in microseconds.
pub const MINUTE: i64 = 60_000_000;
/// A window lasts at least this long…
pub const MIN_LENGTH: i64 = 15 * MINUTE;
/// …and at most this long.
pub const MAX_LENGTH: i64 = 12 * 60 * MINUTE;
/// A window starts at most this far ahead.
pub const HORIZON: i64 = 30 * 24 * 60 * MINUTE;
/// Before a courier is chosen, an immediate pickup is planned this long
/// after the booking: the time a courier near the pickup takes to reach it.
pub const PLANNED_APPROACH: i64 = 10 * MINUTE;

/// From `start` to `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub start: i64,
    pub end: i64,
}

impl Window {
    /// The window's rules at `now`, each refusal naming `param.start` or
    /// `param.end`.
    fn check(&self, param: &str, now: i64) -> CoreResult<()> {
        let length = self.end - self.start;
        if length < MIN_LENGTH {
            let message = if length <= 0 {
                format!("{param}.end must be after {param}.start.")
            } else {
                format!("{param} must last at least 15 minutes.")
            };
            return Err(CoreError::invalid(format!("{param}.end"), message));
        }
        if length > MAX_LENGTH {
            return Err(CoreError::invalid(
                format!("{param}.end"),
                format!("{param} must last at most 12 hours."),
            ));
        }
        if self.end <= now {
            return Err(CoreError::invalid(
                format!("{param}.end"),
                format!("{param}.end must be in the future."),
            ));
        }
        if self.start > now + HORIZON {
            return Err(CoreError::invalid(
                format!("{param}.start"),
                format!("{param}.start must be at most 30 days ahead."),
            ));
        }
        Ok(())
    }

    /// `at` moved into the window: not before its start, not after its end.
    fn clamp(&self, at: i64) -> i64 {
        at.clamp(self.start, self.end)
    }
}

/// The windows a request or a delivery carries; either may be absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Windows {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pickup: Option<Window>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropoff: Option<Window>,
}

/// When the dispatcher plans the courier at the pickup and at the dropoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub pickup_at: i64,
    pub dropoff_at: i64,
}

impl Windows {
    /// The windows stored as four columns (start and end of each, both or
    /// neither); `None` when a window is half stored.
    pub fn from_columns(pickup: (Option<i64>, Option<i64>), dropoff: (Option<i64>, Option<i64>)) -> Option<Windows> {
        let window = |(start, end): (Option<i64>, Option<i64>)| match (start, end) {
            (Some(start), Some(end)) => Some(Some(Window { start, end })),
            (None, None) => Some(None),
            _ => None,
        };
        Some(Windows {
            pickup: window(pickup)?,
            dropoff: window(dropoff)?,
        })
    }

    /// The four columns: pickup start and end, dropoff start and end.
    pub fn columns(&self) -> [Option<i64>; 4] {
        [
            self.pickup.map(|w| w.start),
            self.pickup.map(|w| w.end),
            self.dropoff.map(|w| w.start),
            self.dropoff.map(|w| w.end),
        ]
    }

    /// Each window's rules at `now`, and no pickup window beside a
    /// `scheduled_at` (two answers to "when").
    pub fn check(&self, now: i64, scheduled_at: Option<i64>) -> CoreResult<()> {
        if let Some(window) = &self.pickup {
            if scheduled_at.is_some() {
                return Err(CoreError::invalid(
                    "pickup_window",
                    "Send either scheduled_at or pickup_window, not both.",
                ));
            }
            window.check("pickup_window", now)?;
        }
        if let Some(window) = &self.dropoff {
            window.check("dropoff_window", now)?;
        }
        Ok(())
    }

    /// `window_not_feasible` when the dropoff window closes before the
    /// goods can arrive: the earliest pickup (`quotes::RouteInput::
    /// earliest_pickup`) plus the route's `duration` lies after the dropoff
    /// window's end.
    pub fn check_reachable(&self, earliest_pickup: i64, duration: i64) -> CoreResult<()> {
        let Some(dropoff) = &self.dropoff else {
            return Ok(());
        };
        if earliest_pickup + duration > dropoff.end {
            return Err(CoreError::at(
                ErrorCode::WindowNotFeasible,
                "dropoff_window",
                format!(
                    "The route takes {} minutes, so the goods cannot arrive before dropoff_window.end; move the window later or the pickup earlier.",
                    duration / MINUTE
                ),
            ));
        }
        Ok(())
    }

    /// The dispatcher's plan for a route of `duration` booked at
    /// `booked_at` (pickup at `scheduled_at` when set): the pickup as soon
    /// as a courier can be there, inside its window and early enough for
    /// the dropoff window; the dropoff a route later, not before its
    /// window opens. Deterministic, so that every read of a delivery
    /// answers the same plan.
    pub fn plan(&self, booked_at: i64, scheduled_at: Option<i64>, duration: i64) -> Plan {
        let earliest = scheduled_at.unwrap_or(booked_at);
        let mut pickup_at = scheduled_at.unwrap_or(booked_at + PLANNED_APPROACH);
        if let Some(window) = &self.pickup {
            pickup_at = window.clamp(pickup_at).max(earliest);
        }
        if let Some(dropoff) = &self.dropoff {
            // Late enough for the dropoff window is not the question; early
            // enough is: pull the pickup forward, never before it can be.
            let latest = dropoff.end - duration;
            let floor = self.pickup.map_or(earliest, |w| w.start.max(earliest));
            if pickup_at > latest {
                pickup_at = latest.max(floor);
            }
        }
        let mut dropoff_at = pickup_at + duration;
        if let Some(dropoff) = &self.dropoff {
            dropoff_at = dropoff_at.max(dropoff.start);
        }
        Plan { pickup_at, dropoff_at }
    }

    /// The dropoff promised: the dropoff window's end or, without one, the
    /// first planned dropoff plus [`ON_TIME_GRACE`].
    pub fn promised_dropoff(&self, planned_dropoff: i64) -> i64 {
        self.dropoff.map_or(planned_dropoff + ON_TIME_GRACE, |w| w.end)
    }
}

/// Without a dropoff window, a delivery is on time up to this long after
/// its first planned dropoff.
pub const ON_TIME_GRACE: i64 = 10 * MINUTE;

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000_000;

    fn window(start_min: i64, end_min: i64) -> Window {
        Window {
            start: NOW + start_min * MINUTE,
            end: NOW + end_min * MINUTE,
        }
    }

    fn param_of(result: CoreResult<()>) -> Option<String> {
        match result {
            Err(CoreError::Rejected { param, .. }) => param,
            _ => None,
        }
    }

    fn pickup(w: Window) -> Windows {
        Windows {
            pickup: Some(w),
            dropoff: None,
        }
    }

    #[test]
    fn lengths_order_and_horizon_are_checked_and_named() {
        assert!(pickup(window(0, 15)).check(NOW, None).is_ok());
        assert!(pickup(window(0, 12 * 60)).check(NOW, None).is_ok());
        assert_eq!(
            param_of(pickup(window(0, 14)).check(NOW, None)).as_deref(),
            Some("pickup_window.end")
        );
        assert_eq!(
            param_of(pickup(window(10, 5)).check(NOW, None)).as_deref(),
            Some("pickup_window.end")
        );
        assert_eq!(
            param_of(pickup(window(0, 12 * 60 + 1)).check(NOW, None)).as_deref(),
            Some("pickup_window.end")
        );
        assert_eq!(
            param_of(pickup(window(-30, -10)).check(NOW, None)).as_deref(),
            Some("pickup_window.end")
        );
        // A window that opened earlier and is still open is accepted.
        assert!(pickup(window(-30, 10)).check(NOW, None).is_ok());
        let day = 24 * 60;
        assert!(pickup(window(30 * day, 30 * day + 60)).check(NOW, None).is_ok());
        assert_eq!(
            param_of(pickup(window(30 * day + 1, 30 * day + 60)).check(NOW, None)).as_deref(),
            Some("pickup_window.start")
        );
        let dropoff = Windows {
            pickup: None,
            dropoff: Some(window(0, 10)),
        };
        assert_eq!(
            param_of(dropoff.check(NOW, None)).as_deref(),
            Some("dropoff_window.end")
        );
    }

    #[test]
    fn a_pickup_window_and_scheduled_at_are_exclusive() {
        assert_eq!(
            param_of(pickup(window(60, 120)).check(NOW, Some(NOW + 60 * MINUTE))).as_deref(),
            Some("pickup_window")
        );
        let dropoff_only = Windows {
            pickup: None,
            dropoff: Some(window(60, 120)),
        };
        assert!(dropoff_only.check(NOW, Some(NOW + 30 * MINUTE)).is_ok());
    }

    #[test]
    fn a_dropoff_window_closing_before_the_route_can_end_is_not_feasible() {
        let both = Windows {
            pickup: Some(window(60, 120)),
            dropoff: Some(window(60, 80)),
        };
        // The earliest pickup is the pickup window's start.
        let opens = NOW + 60 * MINUTE;
        assert!(both.check_reachable(opens, 20 * MINUTE).is_ok());
        let error = both.check_reachable(opens, 21 * MINUTE).expect_err("not reachable");
        assert_eq!(error.code(), ErrorCode::WindowNotFeasible);
        assert_eq!(param_of(Err(error)).as_deref(), Some("dropoff_window"));
        let immediate = Windows {
            pickup: None,
            dropoff: Some(window(0, 30)),
        };
        assert!(immediate.check_reachable(NOW, 30 * MINUTE).is_ok());
        assert!(immediate.check_reachable(NOW, 31 * MINUTE).is_err());
    }

    #[test]
    fn the_plan_lies_inside_the_windows() {
        let duration = 20 * MINUTE;
        let none = Windows::default();
        assert_eq!(
            none.plan(NOW, None, duration),
            Plan {
                pickup_at: NOW + PLANNED_APPROACH,
                dropoff_at: NOW + PLANNED_APPROACH + duration
            }
        );
        let later = Windows {
            pickup: Some(window(120, 180)),
            dropoff: Some(window(200, 260)),
        };
        assert_eq!(
            later.plan(NOW, None, duration),
            Plan {
                pickup_at: NOW + 120 * MINUTE,
                dropoff_at: NOW + 200 * MINUTE
            }
        );
        // A dropoff window closing soon pulls the pickup forward.
        let soon = Windows {
            pickup: None,
            dropoff: Some(window(0, 25)),
        };
        assert_eq!(soon.plan(NOW, None, duration).pickup_at, NOW + 5 * MINUTE);
        assert_eq!(soon.plan(NOW, None, duration).dropoff_at, NOW + 25 * MINUTE);
        // Scheduled: the pickup at the scheduled time.
        let scheduled = NOW + 90 * MINUTE;
        assert_eq!(none.plan(NOW, Some(scheduled), duration).pickup_at, scheduled);
    }

    #[test]
    fn the_promise_is_the_dropoff_window_or_the_plan_plus_grace() {
        let with = Windows {
            pickup: None,
            dropoff: Some(window(0, 60)),
        };
        assert_eq!(with.promised_dropoff(NOW), NOW + 60 * MINUTE);
        assert_eq!(Windows::default().promised_dropoff(NOW), NOW + ON_TIME_GRACE);
    }
}
