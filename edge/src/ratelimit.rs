//! Per-key rate limits (docs/guide.md "Limits"; docs/API.md "Rate limits"): two
//! token buckets per presented API key, one for reads (`GET`, `HEAD`) and one for writes.
//!
//! - A bucket holds up to `burst` tokens and refills at `per_second`; a
//!   request takes one token or is refused with `429 rate_limited` and a
//!   `Retry-After` of the whole seconds until the next token.
//! - Buckets are keyed by a keyed hash of the key, so no key is kept in
//!   memory, and picked the way the core picks the key (`x-api-key` wins over
//!   `Authorization: Bearer`). Requests presenting no key are not limited
//!   here (the core refuses them).
//! - Limits are per edge replica: each replica counts on its own.
//! - A bucket that has refilled completely is the same as no bucket, so such
//!   buckets are dropped every [`SWEEP_EVERY`], or at once when more than
//!   [`SWEEP_ABOVE`] are tracked: memory follows the keys active within the
//!   last `burst / per_second` seconds.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use courier::credentials::{PresentedKey, presented_key};
use courier::errors::ErrorCode;

use crate::EdgeState;
use crate::error::ApiError;

/// How often fully refilled buckets are dropped.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Tracked buckets above which a sweep runs at once.
const SWEEP_ABOVE: usize = 100_000;

/// The limits, per key and edge replica.
#[derive(clap::Args, Clone, Debug)]
pub struct RateLimitConfig {
    /// Reads (`GET`, `HEAD`) per second and key, sustained.
    #[arg(long, env = "COURIER_RATE_LIMIT_READS_PER_SECOND", default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    pub reads_per_second: u32,

    /// Reads a key may make at once after being idle.
    #[arg(long, env = "COURIER_RATE_LIMIT_READ_BURST", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub read_burst: u32,

    /// Writes (every other method) per second and key, sustained.
    #[arg(long, env = "COURIER_RATE_LIMIT_WRITES_PER_SECOND", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub writes_per_second: u32,

    /// Writes a key may make at once after being idle.
    #[arg(long, env = "COURIER_RATE_LIMIT_WRITE_BURST", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub write_burst: u32,
}

/// Which bucket a request draws from.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Kind {
    Reads,
    Writes,
}

impl Kind {
    fn of(method: &Method) -> Kind {
        if method == Method::GET || method == Method::HEAD {
            Kind::Reads
        } else {
            Kind::Writes
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Kind::Reads => "reads",
            Kind::Writes => "writes",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Quota {
    per_second: f64,
    burst: f64,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn refilled(self, quota: Quota, now: Instant) -> Bucket {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        Bucket {
            tokens: (self.tokens + elapsed * quota.per_second).min(quota.burst),
            at: now,
        }
    }
}

/// The outcome of one request's check, as the `RateLimit-*` headers tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// The bucket's size.
    pub limit: u32,
    /// Requests left right now.
    pub remaining: u32,
    /// Whole seconds until the bucket is full again.
    pub reset: u64,
    /// When refused: whole seconds until the next request is allowed (>= 1).
    pub retry_after: u64,
}

struct Buckets {
    by_key: HashMap<(u64, Kind), Bucket>,
    swept: Instant,
}

/// Token buckets of every key seen recently.
pub struct RateLimiter {
    reads: Quota,
    writes: Quota,
    hasher: RandomState,
    buckets: Mutex<Buckets>,
}

impl RateLimiter {
    pub fn new(config: &RateLimitConfig) -> RateLimiter {
        let quota = |per_second: u32, burst: u32| Quota {
            per_second: f64::from(per_second.max(1)),
            burst: f64::from(burst.max(1)),
        };
        RateLimiter {
            reads: quota(config.reads_per_second, config.read_burst),
            writes: quota(config.writes_per_second, config.write_burst),
            hasher: RandomState::new(),
            buckets: Mutex::new(Buckets {
                by_key: HashMap::new(),
                swept: Instant::now(),
            }),
        }
    }

    fn quota(&self, kind: Kind) -> Quota {
        match kind {
            Kind::Reads => self.reads,
            Kind::Writes => self.writes,
        }
    }

    /// Takes a token for `key` from its `kind` bucket, if there is one.
    pub fn check(&self, key: &str, kind: Kind, now: Instant) -> Decision {
        let quota = self.quota(kind);
        let id = (self.hasher.hash_one(key), kind);
        // A poisoned lock only means another request panicked mid-update; the
        // counts are still usable.
        let mut buckets = self.buckets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if now.saturating_duration_since(buckets.swept) >= SWEEP_EVERY || buckets.by_key.len() > SWEEP_ABOVE {
            self.sweep(&mut buckets, now);
        }
        let fresh = Bucket {
            tokens: quota.burst,
            at: now,
        };
        let bucket = buckets.by_key.entry(id).or_insert(fresh);
        *bucket = bucket.refilled(quota, now);
        let allowed = bucket.tokens >= 1.0;
        if allowed {
            bucket.tokens -= 1.0;
        }
        let tokens = bucket.tokens;
        Decision {
            allowed,
            limit: quota.burst as u32,
            remaining: tokens.floor() as u32,
            reset: whole_seconds((quota.burst - tokens) / quota.per_second),
            retry_after: if allowed {
                0
            } else {
                whole_seconds((1.0 - tokens) / quota.per_second).max(1)
            },
        }
    }

    fn sweep(&self, buckets: &mut Buckets, now: Instant) {
        buckets.by_key.retain(|(_, kind), bucket| {
            let quota = self.quota(*kind);
            bucket.refilled(quota, now).tokens < quota.burst
        });
        buckets.swept = now;
    }
}

/// The smallest whole number of seconds covering `seconds`.
fn whole_seconds(seconds: f64) -> u64 {
    // Float noise must not turn an exact second into two.
    let rounded = (seconds * 1e6).round() / 1e6;
    rounded.ceil().max(0.0) as u64
}

/// Middleware of the keyed routes: refuses a request over its key's limit,
/// and puts the `RateLimit-*` headers on every answer.
pub async fn limit(State(state): State<EdgeState>, request: Request, next: Next) -> Response {
    let kind = Kind::of(request.method());
    let Some(decision) = check(&state.limits, request.headers(), kind) else {
        return next.run(request).await;
    };
    let mut response = if decision.allowed {
        next.run(request).await
    } else {
        let message = format!(
            "Too many {} with this API key; retry in {} s.",
            kind.as_str(),
            decision.retry_after
        );
        let mut response = ApiError::new(ErrorCode::RateLimited, message).into_response();
        set(response.headers_mut(), header::RETRY_AFTER, decision.retry_after);
        response
    };
    let headers = response.headers_mut();
    set(
        headers,
        HeaderName::from_static("ratelimit-limit"),
        decision.limit.into(),
    );
    set(
        headers,
        HeaderName::from_static("ratelimit-remaining"),
        decision.remaining.into(),
    );
    set(headers, HeaderName::from_static("ratelimit-reset"), decision.reset);
    response
}

/// The decision for the key `headers` present; `None` when they present none.
fn check(limits: &RateLimiter, headers: &HeaderMap, kind: Kind) -> Option<Decision> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match presented_key(text("x-api-key"), text("authorization")) {
        PresentedKey::Key(key) => Some(limits.check(key, kind, Instant::now())),
        PresentedKey::Missing | PresentedKey::MalformedAuthorization => None,
    }
}

fn set(headers: &mut HeaderMap, name: HeaderName, value: u64) {
    headers.insert(name, HeaderValue::from(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracked(limiter: &RateLimiter) -> usize {
        limiter.buckets.lock().expect("lock").by_key.len()
    }

    fn limiter(per_second: u32, burst: u32) -> RateLimiter {
        RateLimiter::new(&RateLimitConfig {
            reads_per_second: per_second,
            read_burst: burst,
            writes_per_second: per_second,
            write_burst: burst,
        })
    }

    #[test]
    fn burst_then_refusal_then_refill() {
        let limiter = limiter(2, 3);
        let start = Instant::now();
        for remaining in [2, 1, 0] {
            let decision = limiter.check("k", Kind::Writes, start);
            assert!(decision.allowed);
            assert_eq!((decision.limit, decision.remaining), (3, remaining));
        }
        let refused = limiter.check("k", Kind::Writes, start);
        assert!(!refused.allowed);
        // One token takes 0.5 s at 2/s: wait one whole second, not more.
        assert_eq!((refused.retry_after, refused.reset), (1, 2));
        // Reads of the same key and writes of another key are separate buckets.
        assert!(limiter.check("k", Kind::Reads, start).allowed);
        assert!(limiter.check("other", Kind::Writes, start).allowed);
        let later = limiter.check("k", Kind::Writes, start + Duration::from_millis(500));
        assert!(later.allowed);
        assert_eq!(later.remaining, 0);
    }

    #[test]
    fn retry_after_is_the_whole_seconds_to_the_next_token() {
        let limiter = limiter(1, 1);
        let start = Instant::now();
        assert!(limiter.check("k", Kind::Reads, start).allowed);
        let refused = limiter.check("k", Kind::Reads, start + Duration::from_millis(100));
        assert_eq!(refused.retry_after, 1);
        assert_eq!(refused.reset, 1);
        assert!(limiter.check("k", Kind::Reads, start + Duration::from_secs(1)).allowed);
    }

    #[test]
    fn full_buckets_are_evicted() {
        let limiter = limiter(10, 10);
        let start = Instant::now();
        for n in 0..100 {
            limiter.check(&format!("key-{n}"), Kind::Reads, start);
        }
        assert_eq!(tracked(&limiter), 100);
        // After a sweep interval every bucket has refilled: all are dropped
        // but the one just used.
        limiter.check("key-0", Kind::Reads, start + SWEEP_EVERY);
        assert_eq!(tracked(&limiter), 1);
    }
}
