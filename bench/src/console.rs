//! The console's deliveries page on a workspace with at least 10,000 live
//! deliveries: a signed-in operator loads the first page (25 rows, the
//! API's keyset list) over and over. Target: p99 under 100 ms on this
//! machine (BENCHMARKS.md).
//!
//! Then the operators' dispatch page (`/console/ops/dispatch`) on a service
//! of its own with [`ONLINE_COURIERS`] online couriers on cargo bikes and
//! [`WAITING_JOBS`] live deliveries for a small van, which no cargo bike
//! serves, so that automatic dispatch leaves them waiting: the first load
//! (target p99 under 200 ms), and the time from a courier's position report
//! to the page's event stream carrying it (target p99 under one second).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::dispatch::{self, Random};
use crate::load::{self, Stats};
use crate::service::{Backend, BenchResult, Service, free_addr};
use crate::webhooks;

/// Deliveries the workspace holds before the page is measured.
pub const DELIVERIES: u64 = 10_000;
/// Connections loading the page (people at their consoles, not a load test
/// of the API).
pub const CONNECTIONS: [usize; 2] = [1, 8];

/// Online couriers on the dispatch page.
pub const ONLINE_COURIERS: usize = 1_000;
/// Live deliveries waiting on the dispatch page.
pub const WAITING_JOBS: usize = 500;
/// Position reports timed to the page's event stream, one at a time.
pub const POSITION_REPORTS: usize = 200;
/// How long a report's position may take to reach the stream before it
/// counts as lost.
const POSITION_TIMEOUT: Duration = Duration::from_secs(5);

/// The console on a port of its own, signed in as an operator.
pub struct Console {
    pub process: Child,
    pub base_url: String,
    page_url: String,
    pub cookie: String,
}

impl Console {
    /// Signs `email` up as an operator and the workspace's owner, then in.
    pub async fn start(bin_dir: &Path, service: &Service, email: &str) -> BenchResult<Console> {
        let printed = service
            .admin(
                bin_dir,
                &[
                    "user",
                    "create",
                    "--email",
                    email,
                    "--name",
                    "Bench",
                    "--operator",
                    "--workspace",
                    &service.workspace_id,
                    "--role",
                    "owner",
                ],
            )
            .await?;
        let password = printed
            .split_whitespace()
            .skip_while(|word| *word != "password:")
            .nth(1)
            .ok_or("user create printed no password")?
            .to_owned();
        let addr = free_addr()?;
        let base_url = format!("http://{addr}");
        let process = Command::new(bin_dir.join("courier-console"))
            .env("COURIER_CONSOLE_ADDR", &addr)
            .env("COURIER_CONSOLE_BASE_URL", &base_url)
            .env("COURIER_CORE_URL", &service.grpc_url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let sign_in_url = format!("{base_url}/console/sign-in");
        // The session cookie comes with the sign-in's redirect, not after it.
        let browser = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let cookie = loop {
            if let Some(cookie) = sign_in(&browser, &sign_in_url, email, &password).await {
                break cookie;
            }
            if Instant::now() > deadline {
                return Err("the console did not sign in within 30 s".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        Ok(Console {
            process,
            base_url: base_url.clone(),
            page_url: format!("{base_url}/console/w/{}/deliveries?mode=live", service.workspace_id),
            cookie,
        })
    }
}

/// The first `name=value` of an answer's `set-cookie` headers that starts
/// with `prefix`.
fn set_cookie(answer: &reqwest::Response, prefix: &str) -> Option<String> {
    answer
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|v| v.starts_with(prefix))
        .map(str::to_owned)
}

/// Signs in as a browser does: the form's page first (its pre-session
/// cookie and the form's `csrf` field), then the post, whose redirect sets
/// the session cookie. `None` until the console answers.
async fn sign_in(browser: &reqwest::Client, url: &str, email: &str, password: &str) -> Option<String> {
    let form = browser.get(url).send().await.ok()?;
    let pre_session = set_cookie(&form, "courier_presession=")?;
    let html = form.text().await.ok()?;
    let at = html.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    let csrf = &html[at..at + html[at..].find('"')?];
    let answer = browser
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", &pre_session)
        .body(format!(
            "csrf={csrf}&email={}&password={password}",
            email.replace('@', "%40")
        ))
        .send()
        .await
        .ok()?;
    if !answer.status().is_redirection() {
        return None;
    }
    set_cookie(&answer, "courier_session=")
}

/// Creates live deliveries until the workspace has made [`DELIVERIES`] of
/// them in this run, from 32 connections.
async fn seed(service: &Service, client: &reqwest::Client) -> BenchResult<()> {
    let made = Arc::new(AtomicU64::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..32 {
        let (made, client) = (made.clone(), client.clone());
        let (base_url, key) = (service.base_url.clone(), service.live_key.clone());
        workers.spawn(async move {
            while made.fetch_add(1, Ordering::Relaxed) < DELIVERIES {
                let answer = webhooks::create_request(&client, &base_url, &key)
                    .send()
                    .await
                    .map_err(|e| e.to_string())?;
                if !answer.status().is_success() {
                    return Err(format!("seeding a delivery answered {}", answer.status()));
                }
            }
            Ok(())
        });
    }
    while let Some(worker) = workers.join_next().await {
        worker.map_err(|e| e.to_string())??;
    }
    Ok(())
}

/// The page's figures at each of [`CONNECTIONS`], each the median of
/// `repeat` runs of `duration`.
pub async fn measure(
    bin_dir: &Path,
    service: &Service,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<Vec<(usize, Stats)>> {
    seed(service, client).await?;
    let mut console = Console::start(bin_dir, service, "bench@example.com").await?;
    let first = client
        .get(&console.page_url)
        .header("cookie", &console.cookie)
        .send()
        .await?;
    if !first.status().is_success() || !first.text().await?.contains("rel=\"next\"") {
        return Err("the console's deliveries page did not answer a full first page".into());
    }
    let mut figures = Vec::new();
    for connections in CONNECTIONS {
        let mut runs = Vec::new();
        for _ in 0..repeat {
            let (client, url, cookie) = (client.clone(), console.page_url.clone(), console.cookie.clone());
            runs.push(
                load::run(connections, duration, move |_| {
                    let sent = client.get(&url).header("cookie", &cookie).send();
                    load::succeeded(sent)
                })
                .await,
            );
        }
        figures.push((connections, load::median(&runs)));
    }
    let _ = console.process.kill().await;
    Ok(figures)
}

/// The dispatch page's figures.
#[derive(Debug, Default)]
pub struct DispatchPage {
    /// The full page's GET at each of [`CONNECTIONS`].
    pub loads: Vec<(usize, Stats)>,
    /// Couriers and waiting jobs the page showed.
    pub online: usize,
    pub waiting: usize,
    /// Report sent → the first event carrying the new position, and report
    /// answered → that event.
    pub sent_p50_ms: f64,
    pub sent_p99_ms: f64,
    pub answered_p50_ms: f64,
    pub answered_p99_ms: f64,
    pub reports: usize,
    /// Reports whose position the stream did not carry within
    /// [`POSITION_TIMEOUT`].
    pub lost: usize,
}

/// A courier's marker on the page (`<circle id="courier-{id}" … cx cy>`),
/// as its position is drawn: `cx,cy` in map units.
fn marker(html: &str, courier_id: &str) -> Option<(String, String)> {
    let start = html.find(&format!("id=\"courier-{courier_id}\""))?;
    let tag = &html[start..start + html[start..].find('>')?];
    let attribute = |name: &str| {
        let from = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[from..from + tag[from..].find('"')?].to_owned())
    };
    Some((attribute("cx")?, attribute("cy")?))
}

/// The `<title id="map-caption">` of a rendering: "Map: N couriers online,
/// F free; W jobs waiting" → (N, W).
fn caption_counts(html: &str) -> Option<(usize, usize)> {
    let start = html.find("id=\"map-caption\">")? + "id=\"map-caption\">".len();
    let caption = &html[start..start + html[start..].find('<')?];
    let numbers: Vec<usize> = caption
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    Some((*numbers.first()?, *numbers.get(2)?))
}

/// Reads the page's event stream: each `update` event's data (the live
/// part's HTML), with when its last byte arrived.
async fn read_events(mut answer: reqwest::Response, events: mpsc::UnboundedSender<(Instant, String)>) {
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = answer.chunk().await {
        let arrived = Instant::now();
        // The console ends lines with \n alone.
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let mut data = Vec::new();
            let mut kind = "message";
            for line in event.lines() {
                if let Some(value) = line.strip_prefix("data:") {
                    data.push(value.strip_prefix(' ').unwrap_or(value));
                } else if let Some(value) = line.strip_prefix("event:") {
                    kind = value.trim();
                }
            }
            if kind == "update" && !data.is_empty() && events.send((arrived, data.join("\n"))).is_err() {
                return;
            }
        }
    }
}

/// Books [`WAITING_JOBS`] live deliveries for a small van across the city.
async fn book_waiting(service: &Service, client: &reqwest::Client) -> BenchResult<()> {
    let mut places = Random(41);
    let mut workers = tokio::task::JoinSet::new();
    let bodies: Vec<(usize, String)> = (0..WAITING_JOBS)
        .map(|n| {
            let pickup = places.place();
            let dropoff = places.near(pickup);
            let body = json!({
                "pickup": crate::place("Pickup, Berlin", pickup.0, pickup.1, "Ana Sender"),
                "dropoff": crate::place("Dropoff, Berlin", dropoff.0, dropoff.1, "Rui Receiver"),
                "vehicle_type_id": "small_van",
            })
            .to_string();
            (n, body)
        })
        .collect();
    let bodies = Arc::new(std::sync::Mutex::new(bodies));
    for _ in 0..16 {
        let (bodies, client) = (bodies.clone(), client.clone());
        let (base_url, key) = (service.base_url.clone(), service.live_key.clone());
        workers.spawn(async move {
            loop {
                let next = bodies.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let Some((n, body)) = next else {
                    return Ok(());
                };
                let answer = client
                    .post(format!("{base_url}/v1/deliveries"))
                    .header("x-api-key", &key)
                    .header("idempotency-key", format!("van-{}-{n}", std::process::id()))
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body)
                    .send()
                    .await
                    .map_err(|e| e.to_string())?;
                if !answer.status().is_success() {
                    let status = answer.status();
                    let text = answer.text().await.unwrap_or_default();
                    return Err(format!("booking a van delivery answered {status}: {text}"));
                }
            }
        });
    }
    while let Some(worker) = workers.join_next().await {
        worker.map_err(|e| e.to_string())??;
    }
    Ok(())
}

/// The dispatch page on a service of its own (its couriers and jobs apart
/// from the deliveries page's 10,000, which automatic dispatch would offer
/// to them).
pub async fn measure_dispatch(
    bin_dir: &Path,
    backend: Backend,
    postgres_url: &str,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<DispatchPage> {
    let service = Service::start_labelled(bin_dir, backend, postgres_url, "dispatch_page").await?;
    let outcome = measure_dispatch_on(bin_dir, &service, client, duration, repeat).await;
    service.stop().await;
    outcome
}

async fn measure_dispatch_on(
    bin_dir: &Path,
    service: &Service,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<DispatchPage> {
    let couriers =
        dispatch::sign_up_couriers(bin_dir, service, &[&service.grpc_url], ONLINE_COURIERS, "cargo_bike").await?;
    book_waiting(service, client).await?;
    let mut console = Console::start(bin_dir, service, "bench@example.com").await?;
    let page_url = format!("{}/console/ops/dispatch", console.base_url);
    let live_url = format!("{}/console/ops/dispatch/live?mode=live", console.base_url);
    let mut figures = DispatchPage::default();

    // The page shows everyone before it is measured (automatic dispatch
    // has had the jobs since they were booked, and offered none).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer = client.get(&page_url).header("cookie", &console.cookie).send().await?;
        let status = answer.status();
        let html = answer.text().await?;
        if !status.is_success() {
            return Err(format!("the dispatch page answered {status}").into());
        }
        let counts = caption_counts(&html).unwrap_or_default();
        (figures.online, figures.waiting) = counts;
        if counts == (ONLINE_COURIERS, WAITING_JOBS) {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the dispatch page showed {} couriers online and {} jobs waiting, not {ONLINE_COURIERS} and {WAITING_JOBS}",
                counts.0, counts.1
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    for connections in CONNECTIONS {
        let mut runs = Vec::new();
        for _ in 0..repeat {
            let (client, url, cookie) = (client.clone(), page_url.clone(), console.cookie.clone());
            runs.push(
                load::run(connections, duration, move |_| {
                    let sent = client.get(&url).header("cookie", &cookie).send();
                    load::succeeded(sent)
                })
                .await,
            );
        }
        figures.loads.push((connections, load::median(&runs)));
    }

    // Position → the open page: one courier reports at a time; its marker
    // moves in the first event that carries the new position.
    let stream = reqwest::Client::builder().no_proxy().build()?;
    let answer = stream
        .get(&live_url)
        .header("cookie", &console.cookie)
        .header("accept", "text/event-stream")
        .send()
        .await?;
    if !answer.status().is_success() {
        return Err(format!("the dispatch page's event stream answered {}", answer.status()).into());
    }
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let reader = tokio::spawn(read_events(answer, events_tx));
    // The stream's first event: the whole map.
    let mut latest = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .map_err(|_| "the dispatch page's event stream sent nothing in 10 s")?
        .ok_or("the dispatch page's event stream ended")?
        .1;
    let mut places = Random(53);
    let (mut from_sent, mut from_answered) = (Vec::new(), Vec::new());
    for n in 0..POSITION_REPORTS {
        while let Ok((_, html)) = events.try_recv() {
            latest = html;
        }
        // Couriers spread over the thousand, each report somewhere new.
        let courier = &couriers[(n * 7919) % couriers.len()];
        let before = marker(&latest, &courier.id);
        let mut client = courier.client.clone();
        let sent = Instant::now();
        client
            .report_locations(courier.request(tokio_stream::iter([dispatch::report(places.place())])))
            .await
            .map_err(|status| format!("a position report was refused: {status}"))?;
        let answered = Instant::now();
        let deadline = tokio::time::Instant::now() + POSITION_TIMEOUT;
        loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Some((arrived, html))) => {
                    let now = marker(&html, &courier.id);
                    latest = html;
                    if now.is_some() && now != before {
                        from_sent.push(arrived.saturating_duration_since(sent));
                        from_answered.push(arrived.saturating_duration_since(answered));
                        break;
                    }
                }
                Ok(None) => return Err("the dispatch page's event stream ended".into()),
                Err(_) => {
                    figures.lost += 1;
                    break;
                }
            }
        }
    }
    reader.abort();
    figures.reports = POSITION_REPORTS;
    from_sent.sort_unstable();
    from_answered.sort_unstable();
    figures.sent_p50_ms = load::percentile_ms(&from_sent, 0.50);
    figures.sent_p99_ms = load::percentile_ms(&from_sent, 0.99);
    figures.answered_p50_ms = load::percentile_ms(&from_answered, 0.50);
    figures.answered_p99_ms = load::percentile_ms(&from_answered, 0.99);
    let _ = console.process.kill().await;
    Ok(figures)
}
