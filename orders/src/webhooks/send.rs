//! One webhook request: the target checked again, the request signed over the
//! exact bytes it carries, and the answer judged. Used by the dispatcher for
//! every attempt and by `POST /v1/webhooks/{id}/test` for the sample event.
//!
//! The target is checked before every send, not only at registration: a host
//! name may resolve elsewhere today (DNS rebinding), and the connection goes to
//! the address this check approved ([`target::PinnedClients`]). A target that
//! is refused now fails the event without retries, except a host that does
//! not resolve at all, which is treated like a network error (DNS outages
//! pass).

use std::time::{Duration, Instant};

use crate::webhooks::retry::{self, Verdict};
use crate::webhooks::signature;
use crate::webhooks::target::{self, SystemResolver, TargetPolicy};
use crate::{CoreError, Orders};

/// How long a receiver has to answer (docs/guide.md "Webhooks").
pub const RECEIVER_TIMEOUT: Duration = Duration::from_secs(5);

/// Header repeating the event id (docs/guide.md "Webhooks").
pub const HEADER_EVENT_ID: &str = "x-event-id";

/// The `user-agent` of webhook requests.
pub const USER_AGENT: &str = concat!("Courier-Webhooks/", env!("CARGO_PKG_VERSION"));

/// What one attempt came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// When the attempt started (unix microseconds).
    pub attempted_at: i64,
    pub verdict: Verdict,
    /// The receiver's HTTP status; `None` when no answer arrived.
    pub response_code: Option<u16>,
    /// From sending to the answer or the failure; `None` when no request was
    /// made (the target was refused).
    pub latency_ms: Option<i64>,
    /// Why the attempt failed, in words an integrator can act on.
    pub error: Option<String>,
    /// The receiver's `Retry-After`, if it sent a valid one.
    pub retry_after: Option<Duration>,
}

impl Outcome {
    /// An attempt that ended before a request was made, for `error`.
    pub fn unsent(attempted_at: i64, verdict: Verdict, error: String) -> Outcome {
        Outcome {
            attempted_at,
            verdict,
            response_code: None,
            latency_ms: None,
            error: Some(error),
            retry_after: None,
        }
    }
}

/// Sends `body` (the event's JSON bytes) as event `event_id` to `url`, signed
/// with `secret`. Takes at most [`target::LOOKUP_TIMEOUT`] plus
/// [`RECEIVER_TIMEOUT`] (the dispatcher's lease counts on it).
pub async fn send(orders: &Orders, url: &str, secret: &str, event_id: &str, body: Vec<u8>) -> Outcome {
    let attempted_at = orders.clock.now_micros();
    let unsent = |verdict: Verdict, error: String| Outcome::unsent(attempted_at, verdict, error);
    let policy = TargetPolicy {
        allow_insecure: orders.config.webhook_allow_insecure,
    };
    let parsed = match target::check_url_syntax(url, policy) {
        Ok(parsed) => parsed,
        Err(error) => return unsent(Verdict::Permanent, refusal(&error)),
    };
    let address = match target::resolve_target(&parsed, policy, &SystemResolver).await {
        Ok(address) => address,
        Err(error) if target::is_unresolvable(&error) => return unsent(Verdict::Retryable, refusal(&error)),
        Err(error) => return unsent(Verdict::Permanent, refusal(&error)),
    };
    let client = match orders.webhook_clients.get(&parsed, address, RECEIVER_TIMEOUT) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "webhook client could not be built");
            return unsent(
                Verdict::Retryable,
                "Internal error before sending; the event will be retried.".into(),
            );
        }
    };
    let signed = match signature::headers(secret, event_id, orders.clock.now().timestamp(), &body) {
        Ok(signed) => signed,
        Err(error) => {
            tracing::error!(%error, event_id, "webhook could not be signed");
            return unsent(
                Verdict::Permanent,
                "Internal error: the endpoint secret is unusable.".into(),
            );
        }
    };
    let request = client
        .post(parsed)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(reqwest::header::USER_AGENT, USER_AGENT)
        .header(signature::HEADER_WEBHOOK_ID, signed.webhook_id)
        .header(signature::HEADER_WEBHOOK_TIMESTAMP, signed.webhook_timestamp)
        .header(signature::HEADER_WEBHOOK_SIGNATURE, signed.webhook_signature)
        .header(HEADER_EVENT_ID, event_id)
        .body(body);
    let started = Instant::now();
    let result = request.send().await;
    let latency_ms = Some(i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX));
    match result {
        Ok(response) => {
            let status = response.status().as_u16();
            let verdict = retry::classify_status(status);
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| retry::parse_retry_after(value, orders.clock.now()));
            Outcome {
                attempted_at,
                verdict,
                response_code: Some(status),
                latency_ms,
                error: (verdict != Verdict::Succeeded).then(|| format!("The endpoint answered HTTP {status}.")),
                retry_after,
            }
        }
        Err(error) => Outcome {
            attempted_at,
            verdict: Verdict::Retryable,
            response_code: None,
            latency_ms,
            error: Some(transport_error(&error)),
            retry_after: None,
        },
    }
}

/// The public message of a target refusal.
fn refusal(error: &CoreError) -> String {
    match error {
        CoreError::Rejected { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// A request that got no HTTP answer, described without internals.
fn transport_error(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!(
            "The endpoint did not answer within {} seconds.",
            RECEIVER_TIMEOUT.as_secs()
        );
    }
    let cause = root_cause(error);
    if error.is_connect() {
        format!("Could not connect to the endpoint: {cause}.")
    } else {
        format!("The request failed: {cause}.")
    }
}

/// The innermost error of a chain (e.g. "Connection refused (os error 111)").
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}
