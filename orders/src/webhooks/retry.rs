//! When a webhook attempt is tried again (docs/guide.md "Webhooks").
//!
//! - Retried: a timeout, a network error, `408`, `409`, `425`, `429` and every
//!   `5xx`. Every other answer outside `2xx` (redirects included, since they
//!   are not followed) fails the event at once: the receiver said no.
//! - Eight attempts in all. The waits after attempts 1–7 are 5 s, 30 s, 2 min,
//!   5 min, 10 min, 15 min and 15 min, each with ±10 % jitter so that the
//!   retries of many events failed by one outage do not arrive together.
//! - A `Retry-After` answer (seconds or an HTTP date) lengthens the wait, never
//!   shortens it, and no wait exceeds 15 minutes: the API promises attempts
//!   at most 15 minutes apart.
//! - `COURIER_WEBHOOK_RETRY_SCALE` multiplies the schedule and its bound, so
//!   tests run the whole schedule in seconds. A receiver's `Retry-After` is
//!   its own request and is not scaled (only bounded).

use std::time::Duration;

use chrono::{DateTime, Utc};

/// Attempts per event and endpoint, the first included.
pub const MAX_ATTEMPTS: i32 = 8;

/// Waits after attempts 1 to 7, in seconds.
const SCHEDULE_SECS: [u64; 7] = [5, 30, 120, 300, 600, 900, 900];

/// The longest wait between two attempts.
const BOUND: Duration = Duration::from_secs(15 * 60);

/// Jitter: each wait is moved by up to this fraction either way.
const JITTER: f64 = 0.1;

/// What one attempt means for the event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The receiver took it (`2xx`).
    Succeeded,
    /// Failed in a way worth trying again.
    Retryable,
    /// Failed for good.
    Permanent,
}

/// The verdict of an HTTP answer with `status`.
pub fn classify_status(status: u16) -> Verdict {
    match status {
        200..=299 => Verdict::Succeeded,
        408 | 409 | 425 | 429 | 500..=599 => Verdict::Retryable,
        _ => Verdict::Permanent,
    }
}

/// The wait before the next attempt after `made` attempts (1 or more) failed
/// retryably, or `None` when all [`MAX_ATTEMPTS`] are used up.
///
/// `jitter` in `-1.0..=1.0` picks the point in the ±10 % band (the caller
/// draws it at random); `retry_after` is the receiver's `Retry-After`.
pub fn next_delay(made: i32, scale: f64, jitter: f64, retry_after: Option<Duration>) -> Option<Duration> {
    if made >= MAX_ATTEMPTS {
        return None;
    }
    let index = usize::try_from(made.max(1) - 1).ok()?;
    let base = Duration::from_secs(*SCHEDULE_SECS.get(index)?).mul_f64(scale);
    let jittered = base.mul_f64(1.0 + JITTER * jitter.clamp(-1.0, 1.0));
    let bound = BOUND.mul_f64(scale);
    let wanted = retry_after.map_or(jittered, |asked| asked.max(jittered));
    Some(wanted.min(bound))
}

/// A `Retry-After` header: whole seconds, or an HTTP date (then the time
/// left until it from `now`; a past date is no wait). `None` when malformed.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value).ok()?.with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(value: f64) -> Duration {
        Duration::from_secs_f64(value)
    }

    #[test]
    fn retried_answers_are_exactly_the_documented_list() {
        for status in [200, 201, 204, 299] {
            assert_eq!(classify_status(status), Verdict::Succeeded, "{status}");
        }
        for status in [408, 409, 425, 429, 500, 502, 503, 504, 599] {
            assert_eq!(classify_status(status), Verdict::Retryable, "{status}");
        }
        for status in [
            100, 301, 302, 304, 400, 401, 403, 404, 405, 410, 413, 422, 426, 428, 431, 451, 600,
        ] {
            assert_eq!(classify_status(status), Verdict::Permanent, "{status}");
        }
    }

    #[test]
    fn schedule_without_jitter() {
        let waits: Vec<Option<Duration>> = (1..=8).map(|made| next_delay(made, 1.0, 0.0, None)).collect();
        assert_eq!(
            waits,
            [5.0, 30.0, 120.0, 300.0, 600.0, 900.0, 900.0]
                .into_iter()
                .map(|s| Some(secs(s)))
                .chain([None])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn jitter_stays_within_ten_percent_and_the_bound() {
        assert_eq!(next_delay(1, 1.0, 1.0, None), Some(secs(5.5)));
        assert_eq!(next_delay(1, 1.0, -1.0, None), Some(secs(4.5)));
        assert_eq!(next_delay(2, 1.0, 7.0, None), Some(secs(33.0)), "clamped to +10 %");
        assert_eq!(next_delay(6, 1.0, 1.0, None), Some(secs(900.0)), "never over 15 min");
        assert_eq!(next_delay(7, 1.0, -1.0, None), Some(secs(810.0)));
    }

    #[test]
    fn scale_shrinks_schedule_and_bound() {
        assert_eq!(next_delay(1, 0.002, 0.0, None), Some(Duration::from_millis(10)));
        assert_eq!(next_delay(7, 0.002, 0.0, None), Some(Duration::from_millis(1800)));
        // Retry-After is not scaled, only bounded by the scaled bound.
        assert_eq!(
            next_delay(1, 0.002, 0.0, Some(Duration::from_secs(1))),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            next_delay(1, 0.002, 0.0, Some(Duration::from_secs(60))),
            Some(Duration::from_millis(1800))
        );
    }

    #[test]
    fn retry_after_lengthens_but_never_shortens_or_exceeds_the_bound() {
        assert_eq!(next_delay(1, 1.0, 0.0, Some(secs(60.0))), Some(secs(60.0)));
        assert_eq!(next_delay(3, 1.0, 0.0, Some(secs(1.0))), Some(secs(120.0)));
        assert_eq!(next_delay(1, 1.0, 0.0, Some(secs(7200.0))), Some(secs(900.0)));
        assert_eq!(next_delay(8, 1.0, 0.0, Some(secs(1.0))), None);
    }

    #[test]
    fn parses_retry_after_values() {
        let now = DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
            .expect("time")
            .with_timezone(&Utc);
        assert_eq!(parse_retry_after("120", now), Some(secs(120.0)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("Sun, 22 Nov 2026 10:01:30 GMT", now),
            Some(secs(90.0))
        );
        assert_eq!(
            parse_retry_after("Sun, 22 Nov 2026 09:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        for bad in ["", "soon", "-5", "1.5"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
    }
}
