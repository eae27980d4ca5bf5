//! The core's notion of "now". Production uses the system clock; tests move
//! it forward (quote expiry, retention) without sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

/// The system clock plus an offset that tests can advance.
#[derive(Clone, Default, Debug)]
pub struct Clock {
    offset_micros: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + chrono::Duration::microseconds(self.offset_micros.load(Ordering::Relaxed))
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
