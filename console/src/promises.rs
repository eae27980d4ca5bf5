//! A job's promise as pages show it (docs/guide.md "Windows"): whether it is
//! at risk of missing its promised dropoff, or missed it, and by how much.
//! The deliveries pages and the dispatch page say it the same way.

use courier::internal::v1 as ipb;
use courier::v1 as pb;

use crate::labels;

/// How a promise stands, when it needs saying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PromiseFlag {
    /// `at-risk` or `late`: the flag's style.
    pub(crate) class: &'static str,
    /// "At risk: about 12 min late", "Late: 4 min past the promise".
    pub(crate) text: String,
    /// How late, in seconds (for ordering: the latest first).
    pub(crate) seconds: i64,
}

/// What a flag is judged from, in Unix microseconds.
pub(crate) struct Promise {
    pub(crate) promised_by: i64,
    /// The dropoff expected now (planned, or the courier's ETA).
    pub(crate) dropoff_eta: Option<i64>,
    /// Reported at risk by the core (`delivery.delayed`).
    pub(crate) at_risk: bool,
    /// When it was delivered, if it was.
    pub(crate) delivered_at: Option<i64>,
}

impl Promise {
    /// The flag at `now`: a delivered job late if handed over after the
    /// promise; an open one late once the promise passed, at risk while its
    /// expected dropoff lies after it (or the core said so); none otherwise.
    pub(crate) fn flag(&self, now: i64) -> Option<PromiseFlag> {
        let past = |at: i64| (at - self.promised_by) / 1_000_000;
        if let Some(delivered_at) = self.delivered_at {
            let seconds = past(delivered_at);
            return (seconds > 0).then(|| PromiseFlag {
                class: "late",
                text: format!("Late: delivered {} after the promise", labels::duration_short(seconds)),
                seconds,
            });
        }
        if now > self.promised_by {
            let seconds = past(self.dropoff_eta.unwrap_or(now).max(now));
            return Some(PromiseFlag {
                class: "late",
                text: format!("Late: {} past the promise", labels::duration_short(past(now))),
                seconds,
            });
        }
        let expected_late = self.dropoff_eta.map(past).filter(|s| *s > 0);
        if !self.at_risk && expected_late.is_none() {
            return None;
        }
        let seconds = expected_late.unwrap_or(0);
        Some(PromiseFlag {
            class: "at-risk",
            text: match expected_late {
                Some(seconds) => format!("At risk: about {} late", labels::duration_short(seconds)),
                None => "At risk".to_owned(),
            },
            seconds,
        })
    }
}

impl Promise {
    /// A delivery's promise; none for one without (booked before promises
    /// were kept) or cancelled.
    pub(crate) fn of_delivery(d: &pb::Delivery) -> Option<Promise> {
        if d.status() == pb::DeliveryStatus::Cancelled {
            return None;
        }
        Some(Promise {
            promised_by: micros(d.promised_by.as_ref())?,
            dropoff_eta: micros(d.dropoff_eta.as_ref()),
            at_risk: d.delayed_at.is_some(),
            delivered_at: micros(d.delivered_at.as_ref()),
        })
    }

    /// A job of the dispatch map's promise (its jobs are open).
    pub(crate) fn of_job(job: &ipb::MapJob) -> Option<Promise> {
        Some(Promise {
            promised_by: micros(job.promised_by.as_ref())?,
            dropoff_eta: micros(job.dropoff_eta.as_ref()),
            at_risk: job.at_risk,
            delivered_at: None,
        })
    }
}

/// A timestamp of a message in Unix microseconds.
fn micros(at: Option<&prost_types::Timestamp>) -> Option<i64> {
    at.and_then(courier::time::from_proto).map(|t| t.timestamp_micros())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: i64 = 60_000_000;
    const BY: i64 = 1_800_000_000_000_000;

    fn promise(dropoff_eta: Option<i64>, at_risk: bool, delivered_at: Option<i64>) -> Promise {
        Promise {
            promised_by: BY,
            dropoff_eta,
            at_risk,
            delivered_at,
        }
    }

    #[test]
    fn on_time_says_nothing_at_risk_and_late_say_by_how_much() {
        let before = BY - 30 * MINUTE;
        assert_eq!(promise(Some(BY - MINUTE), false, None).flag(before), None);
        let risk = promise(Some(BY + 12 * MINUTE), true, None)
            .flag(before)
            .expect("at risk");
        assert_eq!(
            (risk.class, risk.text.as_str()),
            ("at-risk", "At risk: about 12 min late")
        );
        let said = promise(Some(BY), true, None).flag(before).expect("the core said so");
        assert_eq!(said.text, "At risk");
        let late = promise(Some(BY + 20 * MINUTE), true, None)
            .flag(BY + 4 * MINUTE)
            .expect("late");
        assert_eq!(
            (late.class, late.text.as_str()),
            ("late", "Late: 4 min past the promise")
        );
        assert_eq!(late.seconds, 20 * 60);
        assert_eq!(promise(None, false, Some(BY)).flag(BY + 60 * MINUTE), None, "kept");
        let after = promise(None, false, Some(BY + 7 * MINUTE))
            .flag(BY + 60 * MINUTE)
            .expect("late");
        assert_eq!(after.text, "Late: delivered 7 min after the promise");
    }
}
