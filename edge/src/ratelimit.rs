//! Per-key rate limits (docs/guide.md "Limits"; docs/API.md "Rate limits"): two
//! token buckets per presented API key, one for reads (`GET`, `HEAD`) and one for writes.
//!
//! - A bucket holds up to `burst` tokens and refills at `per_second`; a
//!   request takes one token or is refused with `429 rate_limited` and a
//!   `Retry-After` of the whole seconds until the next token. A batch
//!   (`POST /v1/deliveries/batch`) is let in by one token like any write,
//!   then charged one more per item beyond the first ([`RateLimiter::charge`]):
//!   the bucket may go below zero, and the key's next writes wait until it
//!   has refilled past one again, so a batch counts each item without
//!   needing a burst as large as itself.
//! - Buckets are keyed by a hash of the key, so no key is kept, and picked
//!   the way the core picks the key (`x-api-key` wins over
//!   `Authorization: Bearer`). Requests presenting no key are not limited
//!   here (the core refuses them).
//! - Without Redis each edge replica counts on its own, in memory
//!   ([`Buckets`]). With `COURIER_RATE_LIMIT_REDIS_URL` every replica counts
//!   in Redis ([`Shared`]): one atomic script takes the token on the Redis
//!   server's clock, so a key's limit and its `RateLimit-*` headers are the
//!   same whichever replica answers.
//! - While Redis cannot be reached each replica counts in memory again, at
//!   its share of the limit (the limit divided by
//!   `COURIER_RATE_LIMIT_EDGES`); it logs the outage once, counts each such
//!   decision in `courier_edge_rate_limit_local_decisions_total`, tries
//!   Redis again after [`REDIS_RETRY_AFTER`], and never refuses a request
//!   for it.
//! - A bucket that has refilled completely is the same as no bucket, so such
//!   buckets are dropped (in memory every [`SWEEP_EVERY`], or at once when
//!   more than [`SWEEP_ABOVE`] are tracked; in Redis by their expiry).

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
use prometheus_client::metrics::counter::Counter;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use sha2::{Digest, Sha256};

use crate::EdgeState;
use crate::error::ApiError;

/// How often fully refilled buckets are dropped.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Tracked buckets above which a sweep runs at once.
const SWEEP_ABOVE: usize = 100_000;
/// The longest a request waits for Redis before it is counted locally.
const REDIS_TIMEOUT: Duration = Duration::from_millis(250);
/// After Redis failed, how long requests are counted locally before it is
/// tried again.
const REDIS_RETRY_AFTER: Duration = Duration::from_secs(1);
/// The prefix of the bucket keys in Redis unless configured.
const DEFAULT_REDIS_PREFIX: &str = "courier:ratelimit:";

/// The limits, per key.
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

    /// Redis every edge replica counts in (`redis://host:6379/0`,
    /// `rediss://…` for TLS); unset, each replica counts on its own.
    #[arg(long, env = "COURIER_RATE_LIMIT_REDIS_URL", value_parser = parse_redis_url)]
    pub redis_url: Option<redis::ConnectionInfo>,

    /// The prefix of this service's bucket keys in Redis.
    #[arg(long, env = "COURIER_RATE_LIMIT_REDIS_PREFIX", default_value = DEFAULT_REDIS_PREFIX)]
    pub redis_prefix: String,

    /// How many edge replicas share the limits: while Redis is unreachable
    /// each counts on its own at the limit divided by this number.
    #[arg(long, env = "COURIER_RATE_LIMIT_EDGES", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub edges: u32,
}

fn parse_redis_url(url: &str) -> Result<redis::ConnectionInfo, String> {
    redis::IntoConnectionInfo::into_connection_info(url).map_err(|error| format!("not a Redis URL: {error}"))
}

impl RateLimitConfig {
    /// The limits of the in-memory buckets, with no Redis.
    pub fn local(reads_per_second: u32, read_burst: u32, writes_per_second: u32, write_burst: u32) -> RateLimitConfig {
        RateLimitConfig {
            reads_per_second,
            read_burst,
            writes_per_second,
            write_burst,
            redis_url: None,
            redis_prefix: DEFAULT_REDIS_PREFIX.into(),
            edges: 1,
        }
    }
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

impl Quota {
    /// The decision for a bucket left holding `tokens` after a request that
    /// took one (`allowed`) or found none.
    fn decision(self, allowed: bool, tokens: f64) -> Decision {
        Decision {
            allowed,
            limit: self.burst as u32,
            remaining: tokens.max(0.0).floor() as u32,
            reset: whole_seconds((self.burst - tokens) / self.per_second),
            retry_after: if allowed {
                0
            } else {
                whole_seconds((1.0 - tokens) / self.per_second).max(1)
            },
        }
    }
}

/// The reads and writes quotas.
#[derive(Clone, Copy, Debug)]
struct Quotas {
    reads: Quota,
    writes: Quota,
}

impl Quotas {
    /// The configured limits, each divided by `share`.
    fn of(config: &RateLimitConfig, share: u32) -> Quotas {
        let share = f64::from(share.max(1));
        let quota = |per_second: u32, burst: u32| Quota {
            per_second: f64::from(per_second.max(1)) / share,
            burst: (f64::from(burst.max(1)) / share).floor().max(1.0),
        };
        Quotas {
            reads: quota(config.reads_per_second, config.read_burst),
            writes: quota(config.writes_per_second, config.write_burst),
        }
    }

    fn of_kind(self, kind: Kind) -> Quota {
        match kind {
            Kind::Reads => self.reads,
            Kind::Writes => self.writes,
        }
    }
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

/// What a check takes from a bucket: `tokens`, if it holds `needs`.
#[derive(Clone, Copy, Debug)]
struct Take {
    tokens: f64,
    needs: f64,
}

impl Take {
    /// A request's token.
    const ONE: Take = Take {
        tokens: 1.0,
        needs: 1.0,
    };

    /// `tokens` more for what a request let in goes on to do, whatever the
    /// bucket holds.
    fn charge(tokens: u32) -> Take {
        Take {
            tokens: f64::from(tokens),
            needs: f64::NEG_INFINITY,
        }
    }
}

struct Tracked {
    by_key: HashMap<(u64, Kind), Bucket>,
    swept: Instant,
}

/// Token buckets in this process's memory, of every key seen recently.
struct Buckets {
    quotas: Quotas,
    hasher: RandomState,
    tracked: Mutex<Tracked>,
}

impl Buckets {
    fn new(quotas: Quotas) -> Buckets {
        Buckets {
            quotas,
            hasher: RandomState::new(),
            tracked: Mutex::new(Tracked {
                by_key: HashMap::new(),
                swept: Instant::now(),
            }),
        }
    }

    /// Takes `take.tokens` from `key`'s `kind` bucket if it holds
    /// `take.needs` at least.
    fn take(&self, key: &str, kind: Kind, now: Instant, take: Take) -> Decision {
        let quota = self.quotas.of_kind(kind);
        let id = (self.hasher.hash_one(key), kind);
        // A poisoned lock only means another request panicked mid-update; the
        // counts are still usable.
        let mut tracked = self.tracked.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if now.saturating_duration_since(tracked.swept) >= SWEEP_EVERY || tracked.by_key.len() > SWEEP_ABOVE {
            self.sweep(&mut tracked, now);
        }
        let fresh = Bucket {
            tokens: quota.burst,
            at: now,
        };
        let bucket = tracked.by_key.entry(id).or_insert(fresh);
        *bucket = bucket.refilled(quota, now);
        let allowed = bucket.tokens >= take.needs;
        if allowed {
            bucket.tokens -= take.tokens;
        }
        quota.decision(allowed, bucket.tokens)
    }

    fn sweep(&self, tracked: &mut Tracked, now: Instant) {
        tracked.by_key.retain(|(_, kind), bucket| {
            let quota = self.quotas.of_kind(*kind);
            bucket.refilled(quota, now).tokens < quota.burst
        });
        tracked.swept = now;
    }
}

/// The token bucket in Redis, taken atomically on the server's clock (so the
/// replicas' clocks never matter). KEYS[1]: the bucket; ARGV: tokens per
/// second, burst, the tokens to take and the tokens the bucket must hold
/// for them to be taken. The bucket is a hash of its tokens and the time they were
/// counted (microseconds), expiring when it would be full again. Answers
/// whether a token was taken and the tokens left, as text (Lua numbers
/// would reach the client truncated to integers).
const TAKE_TOKEN: &str = r"
local per_second = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local take = tonumber(ARGV[3])
local needs = tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
tokens = math.min(burst, tokens + math.max(0, now - at) * per_second / 1000000)
local allowed = 0
if tokens >= needs then
  tokens = tokens - take
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((burst - tokens) / per_second * 1000)))
return {allowed, string.format('%.17g', tokens)}
";

/// Counting in Redis, shared by every edge replica, with this replica's
/// share of the limits in memory for while Redis cannot be reached.
struct Shared {
    connection: ConnectionManager,
    take_token: redis::Script,
    prefix: String,
    quotas: Quotas,
    /// This replica's share, used while Redis is unreachable.
    fallback: Buckets,
    /// Until when requests are counted in `fallback` (Redis failed).
    outage_until: Mutex<Option<Instant>>,
    local_decisions: Counter,
}

impl Shared {
    async fn check(&self, key: &str, kind: Kind, take: Take) -> Decision {
        if self.in_outage() {
            return self.check_locally(key, kind, take);
        }
        match tokio::time::timeout(REDIS_TIMEOUT, self.take(key, kind, take)).await {
            Ok(Ok(decision)) => {
                self.recovered();
                decision
            }
            Ok(Err(error)) => {
                self.failed(&error.to_string());
                self.check_locally(key, kind, take)
            }
            Err(_) => {
                self.failed("no answer in time");
                self.check_locally(key, kind, take)
            }
        }
    }

    async fn take(&self, key: &str, kind: Kind, take: Take) -> redis::RedisResult<Decision> {
        let quota = self.quotas.of_kind(kind);
        // The key's SHA-256: one name on every replica, and no key in Redis.
        let bucket = format!(
            "{}{}:{}",
            self.prefix,
            kind.as_str(),
            hex::encode(Sha256::digest(key.as_bytes()))
        );
        let mut connection = self.connection.clone();
        let (allowed, tokens): (i64, String) = self
            .take_token
            .key(bucket)
            .arg(quota.per_second)
            .arg(quota.burst)
            .arg(take.tokens)
            // Lua reads `-inf` as nil: a charge needs less than any bucket holds.
            .arg(take.needs.max(-1e18))
            .invoke_async(&mut connection)
            .await?;
        let tokens = tokens.parse::<f64>().unwrap_or(0.0);
        Ok(quota.decision(allowed == 1, tokens))
    }

    fn check_locally(&self, key: &str, kind: Kind, take: Take) -> Decision {
        self.local_decisions.inc();
        self.fallback.take(key, kind, Instant::now(), take)
    }

    fn outage(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.outage_until
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn in_outage(&self) -> bool {
        self.outage().is_some_and(|until| Instant::now() < until)
    }

    fn failed(&self, error: &str) {
        let mut outage = self.outage();
        if outage.is_none() {
            tracing::warn!(
                error,
                "rate limits: Redis unreachable; each edge counts on its own at its share of the limits"
            );
        }
        *outage = Some(Instant::now() + REDIS_RETRY_AFTER);
    }

    fn recovered(&self) {
        if self.outage().take().is_some() {
            tracing::info!("rate limits: Redis reachable again; counting there");
        }
    }
}

/// Where a request's token is taken: this process's buckets, or Redis.
pub struct RateLimiter {
    local: Buckets,
    shared: Option<Shared>,
}

impl RateLimiter {
    /// The limiter `config` describes; `local_decisions` counts the requests
    /// decided in memory while Redis was unreachable.
    pub fn new(config: &RateLimitConfig, local_decisions: Counter) -> redis::RedisResult<RateLimiter> {
        let shared = match &config.redis_url {
            None => None,
            Some(url) => {
                let client = redis::Client::open(url.clone())?;
                let connection = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(REDIS_TIMEOUT))
                    .set_response_timeout(Some(REDIS_TIMEOUT))
                    .set_number_of_retries(1);
                Some(Shared {
                    connection: ConnectionManager::new_lazy_with_config(client, connection)?,
                    take_token: redis::Script::new(TAKE_TOKEN),
                    prefix: config.redis_prefix.clone(),
                    quotas: Quotas::of(config, 1),
                    fallback: Buckets::new(Quotas::of(config, config.edges)),
                    outage_until: Mutex::new(None),
                    local_decisions,
                })
            }
        };
        Ok(RateLimiter {
            local: Buckets::new(Quotas::of(config, 1)),
            shared,
        })
    }

    /// Takes a token for `key` from its `kind` bucket, if there is one.
    pub async fn check(&self, key: &str, kind: Kind) -> Decision {
        self.take(key, kind, Take::ONE).await
    }

    /// Takes `tokens` more from `key`'s `kind` bucket for a request it let
    /// in, below zero if need be (a batch's items beyond the first).
    pub async fn charge(&self, key: &str, kind: Kind, tokens: u32) -> Decision {
        self.take(key, kind, Take::charge(tokens)).await
    }

    async fn take(&self, key: &str, kind: Kind, take: Take) -> Decision {
        match &self.shared {
            Some(shared) => shared.check(key, kind, take).await,
            None => self.local.take(key, kind, Instant::now(), take),
        }
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
    let Some(decision) = check(&state.limits, request.headers(), kind).await else {
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

/// Charges `tokens` more writes to the key `headers` present (none:
/// nothing), for a request let in that does the work of several.
pub async fn charge_writes(limits: &RateLimiter, headers: &HeaderMap, tokens: u32) {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if tokens > 0
        && let PresentedKey::Key(key) = presented_key(text("x-api-key"), text("authorization"))
    {
        limits.charge(key, Kind::Writes, tokens).await;
    }
}

/// The decision for the key `headers` present; `None` when they present none.
async fn check(limits: &RateLimiter, headers: &HeaderMap, kind: Kind) -> Option<Decision> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match presented_key(text("x-api-key"), text("authorization")) {
        PresentedKey::Key(key) => Some(limits.check(key, kind).await),
        PresentedKey::Missing | PresentedKey::MalformedAuthorization => None,
    }
}

fn set(headers: &mut HeaderMap, name: HeaderName, value: u64) {
    headers.insert(name, HeaderValue::from(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracked(buckets: &Buckets) -> usize {
        buckets.tracked.lock().expect("lock").by_key.len()
    }

    fn buckets(per_second: u32, burst: u32) -> Buckets {
        Buckets::new(Quotas::of(
            &RateLimitConfig::local(per_second, burst, per_second, burst),
            1,
        ))
    }

    #[test]
    fn burst_then_refusal_then_refill() {
        let limiter = buckets(2, 3);
        let start = Instant::now();
        for remaining in [2, 1, 0] {
            let decision = limiter.take("k", Kind::Writes, start, Take::ONE);
            assert!(decision.allowed);
            assert_eq!((decision.limit, decision.remaining), (3, remaining));
        }
        let refused = limiter.take("k", Kind::Writes, start, Take::ONE);
        assert!(!refused.allowed);
        // One token takes 0.5 s at 2/s: wait one whole second, not more.
        assert_eq!((refused.retry_after, refused.reset), (1, 2));
        // Reads of the same key and writes of another key are separate buckets.
        assert!(limiter.take("k", Kind::Reads, start, Take::ONE).allowed);
        assert!(limiter.take("other", Kind::Writes, start, Take::ONE).allowed);
        let later = limiter.take("k", Kind::Writes, start + Duration::from_millis(500), Take::ONE);
        assert!(later.allowed);
        assert_eq!(later.remaining, 0);
    }

    #[test]
    fn retry_after_is_the_whole_seconds_to_the_next_token() {
        let limiter = buckets(1, 1);
        let start = Instant::now();
        assert!(limiter.take("k", Kind::Reads, start, Take::ONE).allowed);
        let refused = limiter.take("k", Kind::Reads, start + Duration::from_millis(100), Take::ONE);
        assert_eq!(refused.retry_after, 1);
        assert_eq!(refused.reset, 1);
        assert!(
            limiter
                .take("k", Kind::Reads, start + Duration::from_secs(1), Take::ONE)
                .allowed
        );
    }

    #[test]
    fn full_buckets_are_evicted() {
        let limiter = buckets(10, 10);
        let start = Instant::now();
        for n in 0..100 {
            limiter.take(&format!("key-{n}"), Kind::Reads, start, Take::ONE);
        }
        assert_eq!(tracked(&limiter), 100);
        // After a sweep interval every bucket has refilled: all are dropped
        // but the one just used.
        limiter.take("key-0", Kind::Reads, start + SWEEP_EVERY, Take::ONE);
        assert_eq!(tracked(&limiter), 1);
    }

    #[test]
    fn a_share_divides_rate_and_burst_and_keeps_one_token() {
        let config = RateLimitConfig::local(10, 20, 1, 3);
        let shared = Quotas::of(&config, 4);
        assert_eq!((shared.reads.per_second, shared.reads.burst), (2.5, 5.0));
        assert_eq!((shared.writes.per_second, shared.writes.burst), (0.25, 1.0));
    }

    #[test]
    fn a_charge_goes_below_zero_and_holds_the_next_writes_back() {
        let limiter = buckets(10, 20);
        let start = Instant::now();
        assert!(limiter.take("k", Kind::Writes, start, Take::ONE).allowed);
        // A batch of 100: one token let it in, 99 more are charged.
        let charged = limiter.take("k", Kind::Writes, start, Take::charge(99));
        assert!(charged.allowed && charged.remaining == 0);
        let refused = limiter.take("k", Kind::Writes, start, Take::ONE);
        assert!(!refused.allowed);
        // 80 tokens short of one: 8.1 s at 10 a second.
        assert_eq!(refused.retry_after, 9);
        assert!(
            !limiter
                .take("k", Kind::Writes, start + Duration::from_secs(8), Take::ONE)
                .allowed
        );
        assert!(
            limiter
                .take("k", Kind::Writes, start + Duration::from_secs(9), Take::ONE)
                .allowed
        );
    }
}
