//! The core's notion of "now". Production uses the system clock; tests move
//! it forward (quote expiry, retention) without sleeping; a simulation may
//! run it faster (`COURIER_CLOCK_RATE`), so that a day in a city passes in
//! minutes with every promise, window and handling time as in the city.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

use crate::config::CoreConfig;

/// The system clock, possibly faster, plus an offset that tests can advance.
#[derive(Clone, Default, Debug)]
pub struct Clock {
    offset_micros: Arc<AtomicI64>,
    pace: Option<Pace>,
}

/// A faster clock: `rate` times the system's, from `origin_micros` on.
#[derive(Clone, Copy, Debug)]
struct Pace {
    origin_micros: i64,
    rate: f64,
}

impl Clock {
    /// The clock `config` asks for: the system's, or a simulation's
    /// faster one (`COURIER_CLOCK_RATE` from `COURIER_CLOCK_ORIGIN`).
    pub fn from_config(config: &CoreConfig) -> Result<Clock, String> {
        if config.clock_rate == 1.0 {
            return Ok(Clock::default());
        }
        if config.clock_origin <= 0 {
            return Err(
                "COURIER_CLOCK_RATE needs COURIER_CLOCK_ORIGIN (unix seconds, the same on every replica)".into(),
            );
        }
        Ok(Clock::paced(config.clock_origin, config.clock_rate))
    }

    /// A clock running `rate` times as fast as the system's from unix
    /// second `origin` on (a simulation's, and the bench driving one).
    pub fn paced(origin: i64, rate: f64) -> Clock {
        Clock {
            offset_micros: Arc::default(),
            pace: Some(Pace {
                origin_micros: origin.saturating_mul(1_000_000),
                rate,
            }),
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        let system = Utc::now();
        let paced = match self.pace {
            None => system,
            Some(Pace { origin_micros, rate }) => {
                let elapsed = system.timestamp_micros().saturating_sub(origin_micros);
                DateTime::from_timestamp_micros(origin_micros + (elapsed as f64 * rate) as i64).unwrap_or(system)
            }
        };
        paced + chrono::Duration::microseconds(self.offset_micros.load(Ordering::Relaxed))
    }
    /// Now, in unix microseconds, as the database stores times.
    pub fn now_micros(&self) -> i64 {
        self.now().timestamp_micros()
    }

    /// Moves this clock (and every clone of it) forward.
    pub fn advance(&self, by: std::time::Duration) {
        let micros = i64::try_from(by.as_micros()).unwrap_or(i64::MAX);
        self.offset_micros.fetch_add(micros, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faster_clock_runs_at_its_rate_from_its_origin() {
        let origin = Utc::now().timestamp() - 10;
        let mut config = crate::testing::config("sqlite::memory:", std::env::temp_dir());
        config.clock_rate = 30.0;
        config.clock_origin = origin;
        let clock = Clock::from_config(&config).expect("clock");
        let ahead = clock.now_micros() - origin * 1_000_000;
        // Ten to eleven seconds (and a little) since the whole second of
        // the origin, thirty times.
        assert!((300_000_000..340_000_000).contains(&ahead), "{ahead}");
        config.clock_origin = 0;
        assert!(Clock::from_config(&config).is_err());
    }
}
