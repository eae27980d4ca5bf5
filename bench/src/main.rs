//! `courier-bench`: loads the running service (release `courier-core` and
//! `courier-edge` child processes) on SQLite and PostgreSQL and prints, in
//! one run, each flow's throughput and latency next to the ceilings it is
//! judged against. Method and results: BENCHMARKS.md.
//!
//! Run: `cargo build-release --workspace && target/release/courier-bench`

mod batch;
mod ceilings;
mod city;
mod console;
mod database;
mod dispatch;
mod limits;
mod load;
mod million;
mod notifications;
mod planner;
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
    /// Couriers in the dispatch run's city.
    #[arg(long, default_value_t = 1000)]
    dispatch_couriers: usize,
    /// Deliveries booked per second in the dispatch run.
    #[arg(long, default_value_t = 50.0)]
    dispatch_creates_per_second: f64,
    /// Length of the dispatch run, in seconds.
    #[arg(long, default_value_t = 60)]
    dispatch_seconds: u64,
    /// How long the city run books deliveries, in seconds (with the
    /// dispatch run's couriers and bookings per second).
    #[arg(long, default_value_t = 240)]
    city_seconds: u64,
    /// How many times faster than the city its runs go: at 50 bookings a
    /// second and 1,000 couriers, 24 books 7.5 deliveries per courier-hour
    /// of the city, 18 books 10 (a peak no fleet of one job each keeps up
    /// with).
    #[arg(long, default_value_t = 24.0)]
    city_time_scale: f64,
    /// Keep the city runs' databases and logs, and print where they are.
    #[arg(long)]
    keep_scratch: bool,
    /// The planner run's time budgets per instance and solver, in seconds.
    #[arg(long, value_delimiter = ',', default_values_t = [10, 60])]
    planner_budgets: Vec<u64>,
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
    /// GET by id on an edge counting the per-key limits in Redis beside
    /// the in-memory edge (Redis at `COURIER_BENCH_REDIS_URL`, default
    /// `redis://127.0.0.1:6379`).
    Limits,
    /// The bare database ceilings: the create's writes, and a two-insert transaction.
    Database,
    /// Creates in batches of 100 beside single creates, at 64 connections.
    Batch,
    /// The three webhook runs.
    Webhooks,
    /// The console's deliveries page with 10,000 deliveries.
    Console,
    /// The console's dispatch page with 1,000 online couriers and 500
    /// waiting jobs, on a service of its own.
    DispatchPage,
    /// List pages beside GET by id on a million deliveries and events
    /// (PostgreSQL; only when named, as seeding takes minutes and gigabytes).
    Million,
    /// Automatic dispatch in a simulated city, and the intake of couriers'
    /// positions (only when named: signing up a thousand couriers and the
    /// run take minutes).
    Dispatch,
    /// A day in a city, couriers following their routes, with several
    /// jobs per courier and with one (only when named: two services of a
    /// thousand couriers each).
    City,
    /// Four service areas of a thousand couriers each on two core
    /// replicas (PostgreSQL; only when named).
    CityAreas,
    /// Recipient notifications: the outbox draining live SMS to a Twilio
    /// stand-in beside a bare POST loop, and the create path with SMS on
    /// and off, on a service of its own (only when named).
    Notifications,
    /// The route planner on Li & Lim's instances beside VROOM and OR-Tools,
    /// and a generated fleet day (no service, no database; only when
    /// named: minutes per budget).
    Planner,
}

impl Cli {
    fn runs(&self, part: Part) -> bool {
        self.only.contains(&part)
            || (self.only.is_empty()
                && !matches!(
                    part,
                    Part::Million | Part::Dispatch | Part::City | Part::CityAreas | Part::Planner | Part::Notifications
                ))
    }
}

/// Connection counts every flow is measured at.
const CONCURRENCY: [usize; 2] = [1, 64];

/// Live deliveries waiting, with no courier online, when the flows are
/// measured: a city at peak, where automatic dispatch has work it cannot
/// place (every create adds one more).
const WAITING: u64 = 1_000;

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
    /// The deliveries list, every request a page of its own (a filter
    /// that differs each time), so that no two share a read.
    DistinctLists,
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
            Flow::DistinctLists => "GET /v1/deliveries?limit=20&created_before=…, every page different",
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
            Flow::DistinctLists => {
                // Seconds past a time after every row: the same rows, a
                // different statement each time.
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let before =
                    chrono::DateTime::from_timestamp(4_102_444_800 + NEXT.fetch_add(1, Ordering::Relaxed) as i64, 0)
                        .unwrap_or_default()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                keyed(client.get(url(&format!("/v1/deliveries?limit=20&created_before={before}"))))
            }
            Flow::Events => keyed(client.get(url("/v1/events?limit=20"))),
        }
    }
}

/// One load run of `request` at `concurrency` for `duration`.
async fn load_once(
    concurrency: usize,
    duration: Duration,
    request: impl Fn() -> reqwest::RequestBuilder + Send + Sync + 'static,
) -> Stats {
    load::run(concurrency, duration, move |_| {
        let sent = request().send();
        load::succeeded(sent)
    })
    .await
}

fn flow_request(
    flow: Flow,
    client: &reqwest::Client,
    service: &Arc<Service>,
    delivery_id: &str,
) -> impl Fn() -> reqwest::RequestBuilder + Send + Sync + Clone + 'static {
    let (client, service, id) = (client.clone(), service.clone(), delivery_id.to_owned());
    move || flow.request(&client, &service, &id)
}

fn ceiling_request(
    client: &reqwest::Client,
    url: &str,
) -> impl Fn() -> reqwest::RequestBuilder + Send + Sync + Clone + 'static {
    let (client, url) = (client.clone(), url.to_owned());
    move || client.get(&url)
}

/// One run of the create's writes on the bare database, as a rate.
async fn database_run(
    backend: Backend,
    postgres_url: &str,
    workload: database::Workload,
    duration: Duration,
) -> BenchResult<Stats> {
    Ok(Stats {
        requests_per_second: database::ceiling(backend, postgres_url, workload, 64, duration).await?,
        ..Stats::default()
    })
}

fn database_row(workload: database::Workload, rate: f64) {
    let label = match workload {
        database::Workload::CreateWrites => "ceiling: the create's writes, bare database",
        database::Workload::TwoInserts => "ceiling: bare 2-insert transaction, no shared row",
    };
    println!("| {label} | 64 | {rate:.0} | | | |");
}

/// A flow and its ceiling measured alternately.
struct Pair {
    flow: Stats,
    ceiling: Stats,
    /// The median of the runs' flow ÷ ceiling, pair by pair.
    ratio: f64,
}

/// Runs `flow` and `ceiling` one after the other, `repeat` times: the host's
/// speed drifts over minutes on a shared machine, and a ratio of two runs
/// taken seconds apart is what it cancels out of.
async fn paired<F, C>(repeat: usize, flow: impl Fn() -> F, ceiling: impl Fn() -> C) -> BenchResult<Pair>
where
    F: Future<Output = Stats>,
    C: Future<Output = BenchResult<Stats>>,
{
    let (mut flows, mut ceilings, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repeat {
        let flow = flow().await;
        let ceiling = ceiling().await?;
        ratios.push(flow.requests_per_second / ceiling.requests_per_second);
        flows.push(flow);
        ceilings.push(ceiling);
    }
    ratios.sort_by(f64::total_cmp);
    Ok(Pair {
        flow: load::median(&flows),
        ceiling: load::median(&ceilings),
        ratio: ratios.get(ratios.len() / 2).copied().unwrap_or_default(),
    })
}

fn row(label: &str, concurrency: usize, s: &Stats) {
    println!(
        "| {label} | {concurrency} | {:.0} | {:.2} | {:.2} | {} |",
        s.requests_per_second, s.p50_ms, s.p99_ms, s.errors
    );
}

/// Each measured row: label, connections, figures.
type Results = Vec<(&'static str, usize, Stats)>;

/// Prints a row and keeps it for the ratios.
fn record(results: &mut Results, label: &'static str, concurrency: usize, stats: Stats) {
    row(label, concurrency, &stats);
    results.push((label, concurrency, stats));
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

    if cli.runs(Part::Flows) {
        book_waiting(&client, &service, WAITING).await?;
    }

    println!("\n### {}\n", backend.name());
    if cli.runs(Part::Flows) {
        println!(
            "Automatic dispatch on (the default), {WAITING} live deliveries waiting and no courier online; every create adds one.\n"
        );
    }
    let service = Arc::new(service);
    if [Part::Flows, Part::Ceilings, Part::Database]
        .into_iter()
        .any(|p| cli.runs(p))
    {
        println!("| Flow | Connections | Requests/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|");
    }
    let ceilings = if cli.runs(Part::Ceilings) {
        Some(ceilings::Ceilings::start(&service.database.dir, &get_body).await?)
    } else {
        None
    };
    let peak_kib = Arc::new(AtomicU64::new(0));
    let mut results: Results = Vec::new();
    let (mut get_of_hop, mut create_of_bare, mut create_of_two_inserts) = (None, None, None);
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
            let request = flow_request(flow, &client, &service, &delivery_id);
            let flow_run = || load_once(concurrency, duration, request.clone());
            match (flow, concurrency, &ceilings) {
                (Flow::Get, 64, Some(ceilings)) => {
                    let hop = ceiling_request(&client, &ceilings.hop_url);
                    let hop_run = || async { Ok(load_once(concurrency, duration, hop.clone()).await) };
                    let pair = paired(cli.repeat, flow_run, hop_run).await?;
                    record(&mut results, flow.label(), concurrency, pair.flow);
                    record(&mut results, HOP_CEILING, concurrency, pair.ceiling);
                    get_of_hop = Some(pair.ratio);
                }
                (Flow::Create, 64, _) if cli.runs(Part::Database) => {
                    let bare = || database_run(backend, &cli.postgres_url, database::Workload::CreateWrites, duration);
                    let pair = paired(cli.repeat, flow_run, bare).await?;
                    record(&mut results, flow.label(), concurrency, pair.flow);
                    database_row(database::Workload::CreateWrites, pair.ceiling.requests_per_second);
                    create_of_bare = Some(pair.ratio);
                    let two_inserts =
                        || database_run(backend, &cli.postgres_url, database::Workload::TwoInserts, duration);
                    let pair = paired(cli.repeat, flow_run, two_inserts).await?;
                    database_row(database::Workload::TwoInserts, pair.ceiling.requests_per_second);
                    create_of_two_inserts = Some(pair.ratio);
                }
                _ => {
                    let mut runs = Vec::new();
                    for _ in 0..cli.repeat {
                        runs.push(flow_run().await);
                    }
                    record(&mut results, flow.label(), concurrency, load::median(&runs));
                }
            }
            if let Some(sampler) = sampler {
                sampler.abort();
                // Awaited so that its handle on the service is dropped now
                // (an aborted task is dropped at its next turn), not after
                // `stop` needs the service to itself.
                let _ = sampler.await;
            }
        }
    }

    let auto_of_external = if cli.runs(Part::Flows) {
        creates_beside_external_dispatch(cli, backend, bin_dir, &client, &service, duration).await?
    } else {
        Vec::new()
    };

    if cli.runs(Part::Limits) {
        let edge = limits::start_redis_edge(bin_dir, &service, &client, &delivery_id).await?;
        let memory = flow_request(Flow::Get, &client, &service, &delivery_id);
        let redis = {
            let (client, url, key) = (
                client.clone(),
                format!("{}/v1/deliveries/{delivery_id}", edge.edge.base_url),
                service.live_key.clone(),
            );
            move || client.get(&url).header("x-api-key", &key)
        };
        let redis_run = || load_once(limits::CONNECTIONS, duration, redis.clone());
        let memory_run = || async { Ok(load_once(limits::CONNECTIONS, duration, memory.clone()).await) };
        let pair = paired(cli.repeat, redis_run, memory_run).await;
        let stopped = edge.stop().await;
        let pair = pair?;
        stopped?;
        println!(
            "\nPer-key rate limits counted in Redis ({}) and in memory:\n",
            limits::redis_url()
        );
        println!("| Flow | Connections | Requests/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|");
        row(
            "GET /v1/deliveries/{id}, limits in Redis",
            limits::CONNECTIONS,
            &pair.flow,
        );
        row(
            "GET /v1/deliveries/{id}, limits in memory",
            limits::CONNECTIONS,
            &pair.ceiling,
        );
        println!(
            "\nGET with the Redis limiter ÷ in-memory: {:.2} (target ≥ 0.8; median of {} paired runs)",
            pair.ratio, cli.repeat
        );
    }

    let mut batch_of_single = None;
    if cli.runs(Part::Batch) {
        batch::check(&client, &service).await?;
        let batches = {
            let (client, service) = (client.clone(), service.clone());
            move || batch::request(&client, &service)
        };
        let single = flow_request(Flow::Create, &client, &service, &delivery_id);
        let batch_run = || load_once(64, duration, batches.clone());
        let single_run = || async { Ok(load_once(64, duration, single.clone()).await) };
        let pair = paired(cli.repeat, batch_run, single_run).await?;
        println!(
            "\nCreates in batches of {} and one at a time, 64 connections (deliveries/s = requests/s × items):\n",
            batch::ITEMS
        );
        println!("| Flow | Connections | Requests/s | Deliveries/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for (label, stats, items) in [
            ("POST /v1/deliveries/batch", &pair.flow, batch::ITEMS),
            (Flow::Create.label(), &pair.ceiling, 1),
        ] {
            println!(
                "| {label} | 64 | {:.0} | {:.0} | {:.2} | {:.2} | {} |",
                stats.requests_per_second,
                stats.requests_per_second * items as f64,
                stats.p50_ms,
                stats.p99_ms,
                stats.errors
            );
        }
        batch_of_single = Some(pair.ratio * batch::ITEMS as f64);
    }

    if let Some(ceilings) = ceilings {
        for concurrency in CONCURRENCY {
            for (label, url) in [(HTTP_CEILING, &ceilings.http_url), (HOP_CEILING, &ceilings.hop_url)] {
                if results.iter().any(|(l, c, _)| *l == label && *c == concurrency) {
                    continue;
                }
                let request = ceiling_request(&client, url);
                let mut runs = Vec::new();
                for _ in 0..cli.repeat {
                    runs.push(load_once(concurrency, duration, request.clone()).await);
                }
                record(&mut results, label, concurrency, load::median(&runs));
            }
        }
        ceilings.stop().await;
    }

    if create_of_bare.is_none() && cli.runs(Part::Database) {
        for workload in [database::Workload::CreateWrites, database::Workload::TwoInserts] {
            let mut runs = Vec::new();
            for _ in 0..cli.repeat {
                runs.push(database_run(backend, &cli.postgres_url, workload, duration).await?);
            }
            database_row(workload, load::median(&runs).requests_per_second);
        }
    }

    let webhook = if cli.runs(Part::Webhooks) {
        let webhook = webhooks::measure(&service, &client, duration).await?;
        print_webhooks(&webhook);
        Some(webhook)
    } else {
        None
    };

    if cli.runs(Part::Console) {
        let figures = console::measure(bin_dir, &service, &client, duration, cli.repeat).await?;
        println!(
            "\nConsole deliveries page, the first page of a workspace with {}+ deliveries (target: p99 < 100 ms):",
            console::DELIVERIES
        );
        for (connections, stats) in &figures {
            println!(
                "- {connections} connection(s): {:.0} pages/s, p50 {:.1} ms, p99 {:.1} ms, {} errors",
                stats.requests_per_second, stats.p50_ms, stats.p99_ms, stats.errors
            );
        }
    }

    if cli.runs(Part::DispatchPage) {
        let page =
            console::measure_dispatch(bin_dir, backend, &cli.postgres_url, &client, duration, cli.repeat).await?;
        println!(
            "\nConsole dispatch page (/console/ops/dispatch), {} couriers online and {} jobs waiting, the full page (target: p99 < 200 ms):",
            page.online, page.waiting
        );
        for (connections, stats) in &page.loads {
            println!(
                "- {connections} connection(s): {:.0} pages/s, p50 {:.1} ms, p99 {:.1} ms, {} errors",
                stats.requests_per_second, stats.p50_ms, stats.p99_ms, stats.errors
            );
        }
        println!(
            "- a courier's position report → the open page's event stream carrying it, {} reports one at a time: from the send p50 {:.0} ms, p99 {:.0} ms (target: p99 < 1000 ms); from the answer p50 {:.0} ms, p99 {:.0} ms; {} not carried within 5 s",
            page.reports, page.sent_p50_ms, page.sent_p99_ms, page.answered_p50_ms, page.answered_p99_ms, page.lost
        );
    }

    if cli.runs(Part::Notifications) {
        let figures =
            notifications::measure(bin_dir, backend, &cli.postgres_url, &client, duration, cli.repeat).await?;
        notifications::print(&figures);
    }

    if cli.runs(Part::Dispatch) {
        let settings = dispatch::Settings {
            couriers: cli.dispatch_couriers,
            creates_per_second: cli.dispatch_creates_per_second,
            run: Duration::from_secs(cli.dispatch_seconds),
            intake_run: duration,
            repeat: cli.repeat,
        };
        let figures = dispatch::measure(bin_dir, &service, settings).await?;
        dispatch::print(&settings, &figures);
    }

    if cli.runs(Part::City) {
        let settings = city::Settings {
            couriers: cli.dispatch_couriers,
            creates_per_second: cli.dispatch_creates_per_second,
            run: Duration::from_secs(cli.city_seconds),
            time_scale: cli.city_time_scale,
            keep: cli.keep_scratch,
        };
        let figures = city::measure(bin_dir, backend, &cli.postgres_url, settings).await?;
        city::print(backend, &settings, &figures);
    }

    if cli.runs(Part::CityAreas) {
        if backend == Backend::Postgres {
            let settings = city::Settings {
                couriers: cli.dispatch_couriers,
                creates_per_second: cli.dispatch_creates_per_second,
                run: Duration::from_secs(cli.city_seconds),
                time_scale: cli.city_time_scale,
                keep: cli.keep_scratch,
            };
            let figures = city::measure_areas(bin_dir, &cli.postgres_url, settings).await?;
            city::print_areas(&settings, &figures);
        } else {
            println!(
                "
Four service areas on two core replicas: PostgreSQL only."
            );
        }
    }

    let mut list_ratios = Vec::new();
    if cli.runs(Part::Million) {
        if backend == Backend::Postgres {
            let seconds = million::seed(&service, &delivery_id).await?;
            println!(
                "\nList pages with {} deliveries and as many events in the workspace (seeded in {seconds:.0} s), 64 connections:",
                million::ROWS
            );
            for plan in million::plans(&service).await? {
                println!("- plan of the first page, {plan}");
            }
            let get = flow_request(Flow::Get, &client, &service, &delivery_id);
            for flow in [Flow::List, Flow::DistinctLists, Flow::Events] {
                let list = flow_request(flow, &client, &service, &delivery_id);
                let list_run = || load_once(64, duration, list.clone());
                let get_run = || async { Ok(load_once(64, duration, get.clone()).await) };
                let pair = paired(cli.repeat, list_run, get_run).await?;
                row(flow.label(), 64, &pair.flow);
                row(Flow::Get.label(), 64, &pair.ceiling);
                list_ratios.push((flow.label(), pair.ratio));
            }
            reports_page(bin_dir, &service, &client, duration, cli.repeat).await?;
        } else {
            println!("\nList pages with a million rows: PostgreSQL only.");
        }
    }

    let create_at_64 = results
        .iter()
        .find(|(l, c, _)| *l == Flow::Create.label() && *c == 64)
        .map(|(_, _, s)| s.requests_per_second);
    if [
        Part::Flows,
        Part::Ceilings,
        Part::Database,
        Part::Webhooks,
        Part::Million,
        Part::Batch,
    ]
    .into_iter()
    .any(|p| cli.runs(p))
    {
        println!(
            "\nRatios at 64 connections (each the median of {} paired runs):",
            cli.repeat
        );
    }
    for (label, ratio) in &list_ratios {
        let target = if *label == Flow::DistinctLists.label() {
            "no read shared, for reference"
        } else {
            "target ≥ 0.5"
        };
        println!(
            "- {label} ÷ GET /v1/deliveries/{{id}}, {} deliveries: {ratio:.2} ({target})",
            million::ROWS
        );
    }
    if let [(_, at_1), (_, at_64)] = auto_of_external[..] {
        println!(
            "- POST /v1/deliveries with automatic dispatch ÷ with dispatch external: {at_1:.2} at 1 connection, {at_64:.2} at 64 (target ≥ 0.9)"
        );
    }
    if let Some(ratio) = batch_of_single {
        println!(
            "- Deliveries/s through {}-item batches ÷ single creates: {ratio:.2} (target ≥ 3)",
            batch::ITEMS
        );
    }
    if let Some(ratio) = get_of_hop {
        println!("- GET /v1/deliveries/{{id}} ÷ edge-to-core hop: {ratio:.2} (target ≥ 0.65)");
    }
    let of_bare = create_of_bare.map_or("not measured".into(), |ratio| format!("{ratio:.2}"));
    let of_two_inserts = create_of_two_inserts.map_or("not measured".into(), |ratio| format!("{ratio:.2}"));
    match (backend, create_at_64) {
        (Backend::Postgres, Some(_)) => {
            println!("- POST /v1/deliveries ÷ bare database transaction: {of_bare}");
            println!("- POST /v1/deliveries ÷ bare 2-insert transaction: {of_two_inserts} (target ≥ 1.0)");
        }
        (Backend::Sqlite, Some(create)) => {
            println!("- POST /v1/deliveries: {create:.0}/s; ÷ bare SQLite loop: {of_bare} (target ≥ 2)")
        }
        (_, None) => {}
    }
    if let Some(webhook) = webhook {
        // PostgreSQL's commit and its wake of the dispatcher cost more.
        let p99_target_ms = match backend {
            Backend::Postgres => 15,
            Backend::Sqlite => 10,
        };
        println!(
            "- Webhooks to one receiver: {:.0} events/s draining a backlog (target ≥ 3000/s); p99 at {} creates/s: {:.1} ms (target < {p99_target_ms} ms)",
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

/// The console's reports page over the million deliveries' days, once the
/// rollup has counted them all again: its figures at each of the console's
/// connection counts.
async fn reports_page(
    bin_dir: &std::path::Path,
    service: &Service,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<()> {
    let rollup_seconds = million::roll_up_again(service).await?;
    let mut console = console::Console::start(bin_dir, service, "reports@example.com").await?;
    let url = million::reports_url(&console.base_url, &service.workspace_id);
    let measured = async {
        let first = client.get(&url).header("cookie", &console.cookie).send().await?;
        let status = first.status();
        if !status.is_success() || !first.text().await?.contains("<svg") {
            return Err(format!("the reports page answered {status} without its chart").into());
        }
        println!(
            "\nThe console's reports page, {} days by day, once the rollup had counted every day again ({rollup_seconds:.0} s); target p99 < 1000 ms:\n",
            million::DAYS
        );
        println!("| Flow | Connections | Requests/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|");
        for connections in console::CONNECTIONS {
            let mut runs = Vec::new();
            for _ in 0..repeat {
                let (client, url, cookie) = (client.clone(), url.clone(), console.cookie.clone());
                runs.push(
                    load::run(connections, duration, move |_| {
                        load::succeeded(client.get(&url).header("cookie", &cookie).send())
                    })
                    .await,
                );
            }
            row(
                "GET /console/w/{id}/reports, 90 days",
                connections,
                &load::median(&runs),
            );
        }
        BenchResult::Ok(())
    };
    let measured = measured.await;
    let _ = console.process.kill().await;
    measured
}

/// Books `count` live deliveries on `service`, 16 at a time.
async fn book_waiting(client: &reqwest::Client, service: &Service, count: u64) -> BenchResult<()> {
    let booked = Arc::new(AtomicU64::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let (client, booked) = (client.clone(), booked.clone());
        let (base_url, key) = (service.base_url.clone(), service.live_key.clone());
        workers.spawn(async move {
            while booked.fetch_add(1, Ordering::Relaxed) < count {
                let answer = webhooks::create_request(&client, &base_url, &key).send().await?;
                if !answer.status().is_success() {
                    return Err(format!("a waiting delivery was refused: {}", answer.status()).into());
                }
            }
            BenchResult::Ok(())
        });
    }
    while let Some(done) = workers.join_next().await {
        done??;
    }
    Ok(())
}

/// The create on `service` (automatic dispatch, deliveries waiting) and on
/// a service of its own with dispatch `external` and as many waiting, run
/// by run: what automatic dispatch costs a create. Answers the ratio at
/// each connection count.
async fn creates_beside_external_dispatch(
    cli: &Cli,
    backend: Backend,
    bin_dir: &std::path::Path,
    client: &reqwest::Client,
    service: &Arc<Service>,
    duration: Duration,
) -> BenchResult<Vec<(usize, f64)>> {
    let external = Arc::new(
        Service::start_with(
            bin_dir,
            backend,
            &cli.postgres_url,
            "external",
            &[("COURIER_DISPATCH", "external")],
        )
        .await?,
    );
    let measured = async {
        book_waiting(client, &external, WAITING).await?;
        println!(
            "\nPOST /v1/deliveries with automatic dispatch (the run above, its deliveries waiting) and on a service with dispatch `external` ({WAITING}+ waiting), run by run:\n"
        );
        println!("| Flow | Connections | Requests/s | p50 ms | p99 ms | Errors |");
        println!("|---|---:|---:|---:|---:|---:|");
        let mut ratios = Vec::new();
        for concurrency in CONCURRENCY {
            let auto = flow_request(Flow::Create, client, service, "");
            let without = flow_request(Flow::Create, client, &external, "");
            let pair = paired(
                cli.repeat,
                || load_once(concurrency, duration, auto.clone()),
                || async { Ok(load_once(concurrency, duration, without.clone()).await) },
            )
            .await?;
            row("POST /v1/deliveries, dispatch auto", concurrency, &pair.flow);
            row("POST /v1/deliveries, dispatch external", concurrency, &pair.ceiling);
            ratios.push((concurrency, pair.ratio));
        }
        Ok(ratios)
    }
    .await;
    stop(external).await?;
    measured
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
    if cli.runs(Part::Planner) {
        let budgets: Vec<Duration> = cli.planner_budgets.iter().map(|&s| Duration::from_secs(s)).collect();
        planner::measure(&budgets).await?;
        if cli.only.iter().all(|&part| part == Part::Planner) {
            return Ok(());
        }
    }
    let bin_dir = std::env::current_exe()?
        .parent()
        .ok_or("the bench binary has no directory")?
        .to_owned();
    let console = (cli.runs(Part::Console) || cli.runs(Part::DispatchPage)).then_some("courier-console");
    for binary in ["courier-core", "courier-edge"].into_iter().chain(console) {
        if !bin_dir.join(binary).exists() {
            return Err(
                format!("{binary} not found next to the bench; run `cargo build-release --workspace` first").into(),
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
