//! `courier-bench`: loads the running service (release `courier-core` and
//! `courier-edge` child processes) on SQLite and PostgreSQL and prints, in
//! one run, each flow's throughput and latency next to the ceilings it is
//! judged against. Method and results: BENCHMARKS.md.
//!
//! Run: `cargo build --release --workspace && target/release/courier-bench`

mod ceilings;
mod database;
mod load;
mod service;
mod webhooks;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use clap::Parser;
use serde_json::{Value, json};

use load::Stats;
use service::{Backend, BenchResult, Service};

#[derive(Parser)]
#[command(
    name = "courier-bench",
    about = "Throughput and latency of the main flows next to their ceilings"
)]
struct Cli {
    #[command(subcommand)]
    role: Option<ceilings::Role>,
    /// Backends to measure.
    #[arg(long, value_enum, default_values_t = [Backend::Sqlite, Backend::Postgres])]
    backend: Vec<Backend>,
    /// Length of each load run, in seconds.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Measure only these parts (repeatable; default all), e.g. `--only
    /// webhooks` for work on the dispatcher, `--only flows --only ceilings`
    /// for the request paths.
    #[arg(long, value_enum)]
    only: Vec<Part>,
    #[arg(
        long,
        env = "COURIER_BENCH_POSTGRES_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/test"
    )]
    postgres_url: String,
}

/// The parts of a run.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    /// The service's flows at 1 and 64 connections, and the resident set.
    Flows,
    /// Bare axum, and axum plus one tonic call.
    Ceilings,
    /// The create's writes on the bare database.
    Database,
    /// The three webhook runs.
    Webhooks,
}

impl Cli {
    fn runs(&self, part: Part) -> bool {
        self.only.is_empty() || self.only.contains(&part)
    }
}

/// Connection counts every flow is measured at.
const CONCURRENCY: [usize; 2] = [1, 64];

pub fn place(address: &str, latitude: f64, longitude: f64, contact: &str) -> Value {
    json!({ "address": address, "latitude": latitude, "longitude": longitude,
            "contact": { "name": contact, "phone": "+49 30 1234567" } })
}

/// A Berlin delivery like an integrator's.
pub fn delivery_body() -> Value {
    json!({
        "pickup": place("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132, "Ana Sender"),
        "dropoff": place("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190, "Rui Receiver"),
        "vehicle_type_id": "cargo_bike",
    })
}

fn quote_body() -> Value {
    json!({
        "pickup": { "address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.5219, "longitude": 13.4132 },
        "dropoff": { "address": "Oranienstraße 25, 10999 Berlin", "latitude": 52.5010, "longitude": 13.4190 },
        "vehicle_type_id": "car",
    })
}

const HTTP_CEILING: &str = "ceiling: bare axum, same body";
const HOP_CEILING: &str = "ceiling: axum + one tonic call";

#[derive(Clone, Copy)]
enum Flow {
    Quote,
    Create,
    Get,
    List,
    Events,
}

impl Flow {
    const ALL: [Flow; 5] = [Flow::Quote, Flow::Create, Flow::Get, Flow::List, Flow::Events];

    fn label(self) -> &'static str {
        match self {
            Flow::Quote => "POST /v1/quotes",
            Flow::Create => "POST /v1/deliveries",
            Flow::Get => "GET /v1/deliveries/{id}",
            Flow::List => "GET /v1/deliveries?limit=20",
            Flow::Events => "GET /v1/events?limit=20",
        }
    }

    fn request(self, client: &reqwest::Client, service: &Service, delivery_id: &str) -> reqwest::RequestBuilder {
        let url = |path: &str| format!("{}{path}", service.base_url);
        let keyed = |r: reqwest::RequestBuilder| r.header("x-api-key", &service.live_key);
        match self {
            Flow::Quote => keyed(client.post(url("/v1/quotes")).json(&quote_body())),
            Flow::Create => webhooks::create_request(client, &service.base_url, &service.live_key),
            Flow::Get => keyed(client.get(url(&format!("/v1/deliveries/{delivery_id}")))),
            Flow::List => keyed(client.get(url("/v1/deliveries?limit=20"))),
            Flow::Events => keyed(client.get(url("/v1/events?limit=20"))),
        }
    }
}

/// Loads `url_for` `repeat` times at `concurrency` and takes the median.
async fn measure(
    repeat: usize,
    concurrency: usize,
    duration: Duration,
    request: impl Fn() -> reqwest::RequestBuilder + Send + Sync + Clone + 'static,
) -> Stats {
    let mut runs = Vec::new();
    for _ in 0..repeat {
        let request = request.clone();
        runs.push(
            load::run(concurrency, duration, move |_| {
                let sent = request().send();
                async move { sent.await.is_ok_and(|a| a.status().is_success()) }
            })
            .await,
        );
    }
    load::median(&runs)
}

fn row(label: &str, concurrency: usize, s: &Stats) {
    println!(
        "| {label} | {concurrency} | {:.0} | {:.2} | {:.2} | {} |",
        s.requests_per_second, s.p50_ms, s.p99_ms, s.errors
    );
}

async fn bench_backend(cli: &Cli, backend: Backend, bin_dir: &std::path::Path) -> BenchResult<()> {
    let duration = Duration::from_secs(cli.seconds);
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(128)
        .build()?;
    let service = Service::start(bin_dir, backend, &cli.postgres_url).await?;
    let created = Flow::Create.request(&client, &service, "").send().await?;
    let delivery: Value = created.json().await?;
    let delivery_id = delivery["id"].as_str().ok_or("create answered no id")?.to_owned();
    let get_body = Flow::Get
        .request(&client, &service, &delivery_id)
        .send()
        .await?
        .bytes()
        .await?;

    println!("\n### {}\n", backend.name());
    let service = Arc::new(service);
    if [Part::Flows, Part::Ceilings, Part::Database]
        .into_iter()
        .any(|p| cli.runs(p))
    {
        println!("| Flow | Connections | Requests/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|");
    }
    let peak_kib = Arc::new(AtomicU64::new(0));
    let mut results = Vec::new();
    for concurrency in CONCURRENCY.into_iter().filter(|_| cli.runs(Part::Flows)) {
        for flow in Flow::ALL {
            let sampler = (concurrency > 1).then(|| {
                let (service, peak) = (service.clone(), peak_kib.clone());
                tokio::spawn(async move {
                    loop {
                        let kib = (service.resident_mib() * 1024.0) as u64;
                        peak.fetch_max(kib, Ordering::Relaxed);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                })
            });
            let (client, service, id) = (client.clone(), service.clone(), delivery_id.clone());
            let stats = measure(cli.repeat, concurrency, duration, move || {
                flow.request(&client, &service, &id)
            })
            .await;
            if let Some(sampler) = sampler {
                sampler.abort();
            }
            row(flow.label(), concurrency, &stats);
            results.push((flow.label(), concurrency, stats));
        }
    }

    if cli.runs(Part::Ceilings) {
        let ceilings = ceilings::Ceilings::start(&service.database.dir, &get_body).await?;
        for concurrency in CONCURRENCY {
            for (label, url) in [
                (HTTP_CEILING, ceilings.http_url.clone()),
                (HOP_CEILING, ceilings.hop_url.clone()),
            ] {
                let client = client.clone();
                let stats = measure(cli.repeat, concurrency, duration, move || client.get(&url)).await;
                row(label, concurrency, &stats);
                results.push((label, concurrency, stats));
            }
        }
        ceilings.stop().await;
    }

    let database_rate = if cli.runs(Part::Database) {
        let mut runs = Vec::new();
        for _ in 0..cli.repeat {
            runs.push(database::ceiling(backend, &cli.postgres_url, 64, duration).await?);
        }
        runs.sort_by(f64::total_cmp);
        let rate = runs[runs.len() / 2];
        println!("| ceiling: the create's writes, bare database | 64 | {rate:.0} | | | |");
        Some(rate)
    } else {
        None
    };

    let webhook = if cli.runs(Part::Webhooks) {
        let webhook = webhooks::measure(&service, &client, duration).await?;
        print_webhooks(&webhook);
        Some(webhook)
    } else {
        None
    };

    let at_64 = |label: &str| {
        results
            .iter()
            .find(|(l, c, _)| *l == label && *c == 64)
            .map(|(_, _, s)| s.requests_per_second)
    };
    println!("\nRatios at 64 connections:");
    if let (Some(get), Some(hop)) = (at_64(Flow::Get.label()), at_64(HOP_CEILING)) {
        println!(
            "- GET /v1/deliveries/{{id}} ÷ edge-to-core hop: {:.2} (target ≥ 0.6)",
            get / hop
        );
    }
    if let Some(create) = at_64(Flow::Create.label()) {
        let of_bare = database_rate.map_or("not measured".into(), |rate| format!("{:.2}", create / rate));
        match backend {
            Backend::Postgres => {
                println!("- POST /v1/deliveries ÷ bare database transaction: {of_bare} (target ≥ 0.5)")
            }
            Backend::Sqlite => {
                println!("- POST /v1/deliveries: {create:.0}/s (target ≥ 5000/s); ÷ bare SQLite loop: {of_bare}")
            }
        }
    }
    if let Some(webhook) = webhook {
        println!(
            "- Webhooks to one receiver: {:.0} events/s draining a backlog (target ≥ 3000/s); p99 at {} creates/s: {:.0} ms (target < 250 ms)",
            webhook.drain_per_second,
            webhooks::PACED_RATE,
            webhook.paced_p99_ms
        );
    }
    if cli.runs(Part::Flows) {
        println!(
            "- Resident set of core + edge, peak under 64 connections: {:.0} MiB (target < 150 MiB)",
            peak_kib.load(Ordering::Relaxed) as f64 / 1024.0
        );
    }

    stop(service).await
}

fn print_webhooks(webhook: &webhooks::WebhookStats) {
    println!(
        "\nWebhooks: {:.0} events/s to one receiver draining a backlog; {:.0} events/s while creates run flat out (p50 {:.1} ms, p99 {:.1} ms from state change to receiver); at {} creates/s: p50 {:.1} ms, p99 {:.1} ms.",
        webhook.drain_per_second,
        webhook.events_per_second,
        webhook.saturated_p50_ms,
        webhook.saturated_p99_ms,
        webhooks::PACED_RATE,
        webhook.paced_p50_ms,
        webhook.paced_p99_ms
    );
}

async fn stop(service: Arc<Service>) -> BenchResult<()> {
    match Arc::try_unwrap(service) {
        Ok(service) => {
            service.stop().await;
            Ok(())
        }
        Err(_) => Err("service still shared at the end".into()),
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.role {
        Some(role) => ceilings::serve(role).await,
        None => run(&cli).await,
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: &Cli) -> BenchResult<()> {
    let bin_dir = std::env::current_exe()?
        .parent()
        .ok_or("the bench binary has no directory")?
        .to_owned();
    for binary in ["courier-core", "courier-edge"] {
        if !bin_dir.join(binary).exists() {
            return Err(
                format!("{binary} not found next to the bench; run `cargo build --release --workspace` first").into(),
            );
        }
    }
    println!(
        "courier-bench: {} s per run, median of {}, {} cores",
        cli.seconds,
        cli.repeat,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    for backend in &cli.backend {
        bench_backend(cli, *backend, &bin_dir).await?;
    }
    Ok(())
}
