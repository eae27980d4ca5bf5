//! What this process holds of couriers' positions (`super`): each
//! courier's latest and their report allowance, and the reports not yet
//! written. State the core holds; the rules that fill and drain it are in
//! `super`.

use courier_pricing::geo::GeoPoint;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use courier_store::{CoreError, CoreResult};

/// A phone's clock may run this far ahead; a position further in the
/// future is refused.
pub const MAX_AHEAD_MICROS: i64 = 5 * 60 * 1_000_000;
/// A position taken longer ago than this (kept on a phone without network
/// for a day, or from a clock that is plainly wrong) is refused.
pub const MAX_AGE_MICROS: i64 = 24 * 3_600 * 1_000_000;

/// One position taken by a courier's phone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub latitude: f64,
    pub longitude: f64,
    pub accuracy_m: Option<f64>,
    pub heading_deg: Option<f64>,
    pub speed_mps: Option<f64>,
    /// When the phone took it (its clock).
    pub recorded_at: i64,
}

impl Position {
    /// Where it is, as the router and the geometry take it.
    pub fn point(&self) -> GeoPoint {
        GeoPoint {
            latitude: self.latitude,
            longitude: self.longitude,
        }
    }

    /// `invalid_request` naming the field (`positions.<index>.<field>`)
    /// unless every value is in range and finite.
    pub fn check(&self, index: usize, now: i64) -> CoreResult<()> {
        let field = |name: &str| format!("positions.{index}.{name}");
        let refuse = |name: &str, rule: &str| Err(CoreError::invalid(field(name), format!("{} {rule}.", field(name))));
        if !(-90.0..=90.0).contains(&self.latitude) {
            return refuse("latitude", "must be between -90 and 90");
        }
        if !(-180.0..=180.0).contains(&self.longitude) {
            return refuse("longitude", "must be between -180 and 180");
        }
        if self.accuracy_m.is_some_and(|a| !(0.0..=100_000.0).contains(&a)) {
            return refuse("accuracy_m", "must be between 0 and 100000");
        }
        if self.heading_deg.is_some_and(|h| !(0.0..=360.0).contains(&h)) {
            return refuse("heading_deg", "must be between 0 and 360");
        }
        if self.speed_mps.is_some_and(|s| !(0.0..=150.0).contains(&s)) {
            return refuse("speed_mps", "must be between 0 and 150");
        }
        if self.recorded_at > now + MAX_AHEAD_MICROS {
            return refuse("recorded_at", "is more than 5 minutes in the future");
        }
        if self.recorded_at < now - MAX_AGE_MICROS {
            return refuse("recorded_at", "is more than 24 hours in the past");
        }
        Ok(())
    }
}

/// Positions taken in by this process: each courier's latest, and the
/// reports not yet written.
#[derive(Debug, Default)]
pub struct Intake {
    pub(super) latest: Mutex<HashMap<String, Received>>,
    /// By courier: a stream's reports add to its courier's entry.
    pub(super) pending: Mutex<HashMap<String, Vec<Position>>>,
    /// Report streams open on this process, per courier.
    pub(super) streaming: Mutex<HashMap<String, usize>>,
}

/// A courier's report stream, open on this process while held
/// ([`streaming`]).
pub struct Streaming {
    pub(super) intake: std::sync::Arc<Intake>,
    pub(super) courier_id: String,
}

impl Drop for Streaming {
    fn drop(&mut self) {
        let mut streaming = self.intake.lock_streaming();
        if let Some(count) = streaming.get_mut(&self.courier_id) {
            *count -= 1;
            if *count == 0 {
                streaming.remove(&self.courier_id);
            }
        }
    }
}

/// A courier's last position in this process, and their report allowance.
#[derive(Clone, Copy, Debug)]
pub(super) struct Received {
    pub(super) position: Position,
    /// When `position` was received.
    pub(super) at: i64,
    pub(super) allowance: Allowance,
}

/// The positions a courier may report now: a token bucket, refilled at
/// the configured rate up to the burst.
#[derive(Clone, Copy, Debug)]
pub(super) struct Allowance {
    pub(super) left: f64,
    /// When `left` was counted.
    pub(super) at: i64,
}

/// How many positions a courier may report: `per_second` sustained (0: no
/// limit), `burst` at once above it (never fewer than one report holds).
#[derive(Clone, Copy, Debug)]
pub(super) struct Limit {
    pub(super) per_second: f64,
    pub(super) burst: f64,
}

impl Allowance {
    pub(super) fn full(limit: Limit, now: i64) -> Allowance {
        Allowance {
            left: limit.burst,
            at: now,
        }
    }

    /// Takes `count` positions at `now`; else how long until they fit.
    pub(super) fn take(&mut self, count: usize, now: i64, limit: Limit) -> Result<(), Duration> {
        if limit.per_second <= 0.0 {
            return Ok(());
        }
        let elapsed = now.saturating_sub(self.at).max(0) as f64 / 1e6;
        self.left = (self.left + elapsed * limit.per_second).min(limit.burst);
        self.at = self.at.max(now);
        let count = count as f64;
        if count <= self.left {
            self.left -= count;
            return Ok(());
        }
        Err(Duration::from_secs_f64((count - self.left) / limit.per_second))
    }
}

impl Intake {
    pub(super) fn lock_latest(&self) -> std::sync::MutexGuard<'_, HashMap<String, Received>> {
        self.latest.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Position>>> {
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn lock_streaming(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.streaming.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts `failed`, taken for a write that failed, back before what came
    /// since, keeping at most the newest `kept` positions of a courier.
    pub(super) fn put_back(&self, failed: HashMap<String, Vec<Position>>, kept: usize) {
        let mut pending = self.lock_pending();
        for (courier_id, mut positions) in failed {
            if let Some(newer) = pending.remove(&courier_id) {
                positions.extend(newer);
            }
            if positions.len() > kept {
                positions.drain(..positions.len() - kept);
            }
            pending.insert(courier_id, positions);
        }
    }
}
