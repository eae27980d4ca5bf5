//! Per-key rate limits (docs/guide.md "Limits"): token buckets for reads and
//! writes, `RateLimit-*` headers on every keyed answer, `429 rate_limited` with
//! `Retry-After`.

use std::time::Duration;

use courier::v1::Mode;
use courier_edge::ratelimit::RateLimitConfig;
use serde_json::json;

use crate::harness::{Answer, unique_suffix, wait_until};

/// A write that reaches the core and is refused there: it still counts.
const WRITE: &str = "/v1/webhooks/whe_unknown/replay";

fn header_number(answer: &Answer, name: &str) -> u64 {
    answer
        .header(name)
        .unwrap_or_else(|| panic!("{name} missing: {:?}", answer.headers))
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a whole number: {:?}", answer.headers))
}

/// `(RateLimit-Limit, RateLimit-Remaining)`, asserting `RateLimit-Reset` is there.
fn limit_headers(answer: &Answer) -> (u64, u64) {
    header_number(answer, "ratelimit-reset");
    (
        header_number(answer, "ratelimit-limit"),
        header_number(answer, "ratelimit-remaining"),
    )
}

e2e! {
    edge |limits: &mut RateLimitConfig| {
        (limits.writes_per_second, limits.write_burst) = (1, 3);
        (limits.reads_per_second, limits.read_burst) = (1, 2);
    };

    async fn a_burst_past_the_limit_waits_retry_after(app: TestApp) {
        let other_key = app.create_key(&app.workspace_id, Mode::Test, &[]).await;
        for remaining in [2, 1, 0] {
            let answer = app.post(WRITE, &app.test_key, &json!({})).await;
            answer.assert_error(404, "not_found", None);
            assert_eq!(limit_headers(&answer), (3, remaining));
        }
        let refused = app.post(WRITE, &app.test_key, &json!({})).await;
        refused.assert_error(429, "rate_limited", None);
        assert_eq!(limit_headers(&refused), (3, 0));
        // One write per second: the next token is less than a second away.
        assert_eq!(refused.header("retry-after"), Some("1"));
        assert!(header_number(&refused, "ratelimit-reset") <= 3);

        // The same key as a bearer token draws from the same bucket…
        let bearer = app
            .send(app.http.post(app.url(WRITE)).bearer_auth(&app.test_key).json(&json!({})))
            .await;
        bearer.assert_error(429, "rate_limited", None);
        // …but x-api-key wins over the bearer token, as in authentication.
        let both = app
            .send(
                app.http
                    .post(app.url(WRITE))
                    .header("x-api-key", &other_key)
                    .bearer_auth(&app.test_key)
                    .json(&json!({})),
            )
            .await;
        both.assert_error(404, "not_found", None);
        assert_eq!(limit_headers(&both), (3, 2));

        // Another key of the same workspace, and reads of the limited key,
        // have buckets of their own.
        let other = app.post(WRITE, &other_key, &json!({})).await;
        assert_eq!(other.status, 404);
        assert_eq!(limit_headers(&other), (3, 1));
        let read = app.get("/v1/vehicle-types", &app.test_key).await;
        assert_eq!(read.status, 200, "{:#}", read.body);
        assert_eq!(limit_headers(&read), (2, 1));

        tokio::time::sleep(Duration::from_secs(header_number(&refused, "retry-after"))).await;
        let again = app.post(WRITE, &app.test_key, &json!({})).await;
        again.assert_error(404, "not_found", None);
        let (limit, remaining) = limit_headers(&again);
        // About one token refilled during the wait, and this request took it.
        assert!(limit == 3 && remaining <= 1, "{:?}", again.headers);
    }

    async fn keyless_answers_are_not_limited(app: TestApp) {
        for _ in 0..5 {
            for path in ["/healthz", "/v1/docs/errors"] {
                let answer = app.get(path, &app.test_key).await;
                assert_eq!(answer.status, 200, "{path}: {:#}", answer.body);
                assert_eq!(answer.header("ratelimit-limit"), None, "{path}");
            }
            let anonymous = app.send(app.http.get(app.url("/v1/vehicle-types"))).await;
            anonymous.assert_error(401, "missing_api_key", None);
            assert_eq!(anonymous.header("ratelimit-limit"), None);
        }
        // The key's read bucket is untouched.
        let read = app.get("/v1/vehicle-types", &app.test_key).await;
        assert_eq!(limit_headers(&read), (2, 1));
    }
}

/// The Redis the shared limits are counted in (`COURIER_TEST_REDIS_URL`,
/// default the machine's, which `.ci/run` starts).
fn test_redis_url() -> String {
    std::env::var("COURIER_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Limits counted in the Redis at `url`, under a prefix of this test's own
/// (tests share the Redis).
fn shared_limits(url: &str, per_second: u32, burst: u32, edges: u32) -> RateLimitConfig {
    RateLimitConfig {
        redis_url: Some(redis_url(url)),
        redis_prefix: format!("courier:e2e:{}:", unique_suffix()),
        edges,
        ..RateLimitConfig::local(per_second, burst, per_second, burst)
    }
}

fn redis_url(url: &str) -> redis::ConnectionInfo {
    redis::IntoConnectionInfo::into_connection_info(url).expect("a Redis URL")
}

/// A `redis-server` of this test's own on a free port, killed when dropped.
struct PrivateRedis {
    url: String,
    address: String,
    process: std::process::Child,
}

impl PrivateRedis {
    async fn start() -> PrivateRedis {
        let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = free.local_addr().expect("addr").port();
        drop(free);
        let process = std::process::Command::new("redis-server")
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts (is it installed?)");
        let address = format!("127.0.0.1:{port}");
        wait_until("the private redis-server", Duration::from_secs(10), async || {
            tokio::net::TcpStream::connect(&address).await.map(drop)
        })
        .await;
        PrivateRedis {
            url: format!("redis://{address}"),
            address,
            process,
        }
    }

    fn kill(&mut self) {
        self.process.kill().expect("kill redis-server");
        self.process.wait().expect("redis-server ends");
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

e2e! {
    async fn edges_on_one_redis_share_each_keys_limit(app: TestApp) {
        let limits = shared_limits(&test_redis_url(), 1, 20, 2);
        let edges = [app.spawn_edge(&limits).await, app.spawn_edge(&limits).await];

        // Requests taking turns between the edges: one bucket, so each
        // answer has one request fewer left than the one before, whichever
        // edge answers (1 token a second refills less than one between them).
        let mut last_remaining = None;
        for turn in 0..6 {
            let edge = &edges[turn % 2];
            let answer = app.send(app.http.get(edge.url("/v1/vehicle-types")).header("x-api-key", &app.test_key)).await;
            assert_eq!(answer.status, 200, "{:#}", answer.body);
            let (limit, remaining) = limit_headers(&answer);
            assert_eq!(limit, 20);
            if let Some(last) = last_remaining {
                assert_eq!(remaining + 1, last, "turn {turn}: {:?}", answer.headers);
            }
            last_remaining = Some(remaining);
        }

        // A burst of twice the limit spread over both edges: exactly the
        // burst gets through, plus what refilled while it ran.
        let key = app.create_key(&app.workspace_id, Mode::Test, &[]).await;
        let started = std::time::Instant::now();
        let answers = crate::harness::together((0..40).map(|n| {
            let request = app.http.post(edges[n % 2].url(WRITE)).header("x-api-key", &key).json(&json!({}));
            async move { request.send().await.expect("answer").status().as_u16() }
        }))
        .await;
        let refilled = started.elapsed().as_secs_f64().ceil() as usize;
        let through = answers.iter().filter(|status| **status == 404).count();
        let refused = answers.iter().filter(|status| **status == 429).count();
        assert_eq!(through + refused, 40, "{answers:?}");
        assert!((20..=20 + refilled).contains(&through), "{through} through, {refilled} refilled: {answers:?}");

        // Both edges now tell the same: nothing left.
        for edge in &edges {
            let answer = app.send(app.http.post(edge.url(WRITE)).header("x-api-key", &key).json(&json!({}))).await;
            let (limit, remaining) = limit_headers(&answer);
            assert_eq!((limit, remaining), (20, 0), "{:?}", answer.headers);
        }
        for edge in &edges {
            let local = app.metric(&edge.metrics_url, "courier_edge_rate_limit_local_decisions_total", "").await;
            assert_eq!(local, 0.0, "Redis answered every request");
        }
    }

    async fn without_redis_each_edge_serves_its_share(app: TestApp) {
        let mut redis = PrivateRedis::start().await;
        let edge = app.spawn_edge(&shared_limits(&redis.url, 1, 10, 2)).await;
        let write = || app.http.post(edge.url(WRITE)).header("x-api-key", &app.test_key).json(&json!({}));

        let counted_in_redis = app.send(write()).await;
        counted_in_redis.assert_error(404, "not_found", None);
        assert_eq!(limit_headers(&counted_in_redis), (10, 9), "{}", redis.address);

        redis.kill();
        // This edge's share of the limit, 10 / 2 edges, served from memory:
        // no 5xx, the first five through, then refusals.
        let started = std::time::Instant::now();
        let mut statuses = Vec::new();
        for _ in 0..10 {
            let answer = app.send(write()).await;
            if answer.status == 404 {
                assert_eq!(limit_headers(&answer).0, 5, "{:?}", answer.headers);
            } else {
                answer.assert_error(429, "rate_limited", None);
            }
            statuses.push(answer.status);
        }
        // Half a token a second refills meanwhile.
        let refilled = (started.elapsed().as_secs_f64() / 2.0).ceil() as usize;
        let through = statuses.iter().filter(|status| **status == 404).count();
        assert!((5..=5 + refilled).contains(&through), "{statuses:?}");
        assert!(statuses[..5].iter().all(|status| *status == 404), "{statuses:?}");
        let local = app.metric(&edge.metrics_url, "courier_edge_rate_limit_local_decisions_total", "").await;
        assert_eq!(local, 10.0);
    }
}
