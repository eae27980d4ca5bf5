//! Per-key rate limits (docs/guide.md "Limits"): token buckets for reads and
//! writes, `RateLimit-*` headers on every keyed answer, `429 rate_limited` with
//! `Retry-After`.

use std::time::Duration;

use courier::v1::Mode;
use courier_edge::ratelimit::RateLimitConfig;
use serde_json::json;

use crate::harness::Answer;

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
