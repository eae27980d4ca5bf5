//! Creates through `POST /v1/deliveries/batch` beside single creates, at 64
//! connections, run by run: deliveries per second each way. Target: the
//! batches book at least three times as many (BENCHMARKS.md).

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::service::{BenchResult, Service};

/// Deliveries per batch: the most a batch takes.
pub const ITEMS: usize = 100;

/// A batch of [`ITEMS`] creates of the bench's delivery, each with a key of
/// its own.
pub fn request(client: &reqwest::Client, service: &Service) -> reqwest::RequestBuilder {
    static NEXT_BATCH: AtomicU64 = AtomicU64::new(0);
    // The delivery's members after `{`, serialized once: the driver shares
    // the service's two cores.
    static MEMBERS: LazyLock<String> = LazyLock::new(|| crate::delivery_body().to_string()[1..].to_owned());
    let batch = NEXT_BATCH.fetch_add(1, Ordering::Relaxed);
    let pid = std::process::id();
    let mut body = String::with_capacity(ITEMS * (MEMBERS.len() + 48) + 16);
    body.push_str("{\"deliveries\":[");
    for item in 0..ITEMS {
        if item > 0 {
            body.push(',');
        }
        body.push_str(&format!("{{\"idempotency_key\":\"batch-{pid}-{batch}-{item}\","));
        body.push_str(&MEMBERS);
    }
    body.push_str("]}");
    client
        .post(format!("{}/v1/deliveries/batch", service.base_url))
        .header("x-api-key", &service.live_key)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
}

/// Sends one batch and checks that every item was created: the load runs
/// count answers, not items.
pub async fn check(client: &reqwest::Client, service: &Service) -> BenchResult<()> {
    let answer = request(client, service).send().await?;
    let status = answer.status();
    let body: Value = answer.json().await?;
    let results = body["results"]
        .as_array()
        .ok_or(format!("a batch answered {status}: {body}"))?;
    let created = results.iter().filter(|r| r["delivery"]["id"].is_string()).count();
    if created != ITEMS {
        return Err(format!("a batch created {created} of {ITEMS}: {body}").into());
    }
    Ok(())
}
