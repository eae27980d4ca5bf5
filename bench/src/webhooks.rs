//! Webhook delivery: a loopback receiver records when each
//! `delivery.created` event arrives; the latency is from the event's
//! `created_at` (the state change's commit time) to its arrival.
//!
//! Three runs: the dispatcher draining a backlog (the receiver holds every
//! request until the backlog is queued, so the rate is the dispatcher's, not
//! the creates'), events while creates run flat out, and latency at a steady
//! modest rate.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

use crate::load::{self, percentile_ms};
use crate::service::{BenchResult, Service};

#[derive(Default)]
struct Arrivals {
    latencies: Vec<Duration>,
    last: Option<Instant>,
}

#[derive(Clone)]
struct Receiver {
    arrivals: Arc<Mutex<Arrivals>>,
    /// Requests wait until this is `true`.
    open: tokio::sync::watch::Receiver<bool>,
}

async fn receive(State(Receiver { arrivals, mut open }): State<Receiver>, body: String) -> &'static str {
    // The sender dropping (end of the run) opens the gate too.
    let _ = open.wait_for(|open| *open).await;
    let now = chrono::Utc::now();
    let created = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|event| event["created_at"].as_str().map(str::to_owned))
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok());
    if let (Some(created), Ok(mut arrivals)) = (created, arrivals.lock()) {
        let latency = (now - created.to_utc()).to_std().unwrap_or_default();
        arrivals.latencies.push(latency);
        arrivals.last = Some(Instant::now());
    }
    "ok"
}

/// What the webhook runs measured.
pub struct WebhookStats {
    /// Events per second reaching the receiver from a queued backlog.
    pub drain_per_second: f64,
    /// Events per second reaching the receiver while creates run flat out.
    pub events_per_second: f64,
    pub saturated_p50_ms: f64,
    pub saturated_p99_ms: f64,
    /// Latency at a modest steady rate (`PACED_RATE` creates per second).
    pub paced_p50_ms: f64,
    pub paced_p99_ms: f64,
}

/// The steady rate of the unsaturated run.
pub const PACED_RATE: u32 = 50;
/// How long the backlog builds while the receiver holds its requests: well
/// under the dispatcher's 5-second receiver timeout, so that no held request
/// times out into a retry.
const BACKLOG_BUILD: Duration = Duration::from_secs(3);

pub async fn measure(service: &Service, client: &reqwest::Client, duration: Duration) -> BenchResult<WebhookStats> {
    let arrivals: Shared = Arc::default();
    let (gate, open) = tokio::sync::watch::channel(false);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    let app = Router::new().route("/hook", post(receive)).with_state(Receiver {
        arrivals: arrivals.clone(),
        open,
    });
    let receiver = tokio::spawn(async move { axum::serve(crate::ceilings::nodelay(listener), app).await });

    let endpoint = client
        .post(format!("{}/v1/webhooks", service.base_url))
        .header("x-api-key", &service.live_key)
        .json(&json!({ "url": url, "events": ["delivery.created"] }))
        .send()
        .await?;
    if !endpoint.status().is_success() {
        return Err(format!("webhook endpoint: {}", endpoint.text().await?).into());
    }

    // Drain: a backlog queued while the receiver holds its requests, then
    // timed from the moment it answers.
    let backlog = create_many(service, client, 64, duration.min(BACKLOG_BUILD)).await;
    let opened = Instant::now();
    gate.send_replace(true);
    let drained = wait_for(&arrivals, backlog).await;
    let drain_per_second = drained.last.map_or(0.0, |last| {
        drained.latencies.len() as f64 / last.duration_since(opened).as_secs_f64()
    });

    // Flat out: 64 connections creating deliveries.
    let before = drained.latencies.len();
    let started = Instant::now();
    let created = create_many(service, client, 64, duration).await;
    let saturated = wait_for(&arrivals, before + created).await;
    let events_per_second = saturated
        .last
        .map_or(0.0, |last| created as f64 / last.duration_since(started).as_secs_f64());
    let mut saturated_latencies = saturated.latencies[before.min(saturated.latencies.len())..].to_vec();
    saturated_latencies.sort_unstable();

    // Paced: one create every 1/PACED_RATE s.
    let before = arrivals.lock().map(|a| a.latencies.len()).unwrap_or_default();
    let mut tick = tokio::time::interval(Duration::from_secs(1) / PACED_RATE);
    let mut paced = 0;
    let until = Instant::now() + duration;
    while Instant::now() < until {
        tick.tick().await;
        if create_one(service, client).await {
            paced += 1;
        }
    }
    let all = wait_for(&arrivals, backlog + created + paced as usize).await;
    let mut paced_latencies: Vec<Duration> = all.latencies[before.min(all.latencies.len())..].to_vec();
    paced_latencies.sort_unstable();
    receiver.abort();
    Ok(WebhookStats {
        drain_per_second,
        events_per_second,
        saturated_p50_ms: percentile_ms(&saturated_latencies, 0.5),
        saturated_p99_ms: percentile_ms(&saturated_latencies, 0.99),
        paced_p50_ms: percentile_ms(&paced_latencies, 0.5),
        paced_p99_ms: percentile_ms(&paced_latencies, 0.99),
    })
}

type Shared = Arc<Mutex<Arrivals>>;

/// Waits (up to a minute) until `count` events arrived; returns a copy.
async fn wait_for(arrivals: &Shared, count: usize) -> Arrivals {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let snapshot = arrivals.lock().map(|a| Arrivals {
            latencies: a.latencies.clone(),
            last: a.last,
        });
        if let Ok(snapshot) = snapshot
            && (snapshot.latencies.len() >= count || Instant::now() > deadline)
        {
            return snapshot;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn create_many(service: &Service, client: &reqwest::Client, concurrency: usize, duration: Duration) -> usize {
    let (service_url, key, client) = (service.base_url.clone(), service.live_key.clone(), client.clone());
    let stats = load::run(concurrency, duration, move |_| {
        let request = create_request(&client, &service_url, &key);
        load::succeeded(request.send())
    })
    .await;
    stats.completed as usize
}

async fn create_one(service: &Service, client: &reqwest::Client) -> bool {
    create_request(client, &service.base_url, &service.live_key)
        .send()
        .await
        .is_ok_and(|a| a.status().is_success())
}

/// `POST /v1/deliveries` with an idempotency key never used before.
pub fn create_request(client: &reqwest::Client, base_url: &str, key: &str) -> reqwest::RequestBuilder {
    static NEXT_KEY: AtomicU64 = AtomicU64::new(0);
    // Serialized once: the driver shares the service's two cores, so what
    // it spends per request is taken from the service.
    static BODY: LazyLock<String> = LazyLock::new(|| crate::delivery_body().to_string());
    let n = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    client
        .post(format!("{base_url}/v1/deliveries"))
        .header("x-api-key", key)
        .header("idempotency-key", format!("bench-{}-{n}", std::process::id()))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(BODY.as_str())
}
