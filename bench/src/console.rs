//! The console's deliveries page on a workspace with at least 10,000 live
//! deliveries: a signed-in operator loads the first page (25 rows, the
//! API's keyset list) over and over. Target: p99 under 100 ms on this
//! machine (BENCHMARKS.md).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use crate::load::{self, Stats};
use crate::service::{BenchResult, Service, free_addr};
use crate::webhooks;

/// Deliveries the workspace holds before the page is measured.
pub const DELIVERIES: u64 = 10_000;
/// Connections loading the page (people at their consoles, not a load test
/// of the API).
pub const CONNECTIONS: [usize; 2] = [1, 8];

/// The console on a port of its own, signed in as an operator.
struct Console {
    process: Child,
    page_url: String,
    cookie: String,
}

impl Console {
    async fn start(bin_dir: &Path, service: &Service) -> BenchResult<Console> {
        let printed = service
            .admin(
                bin_dir,
                &[
                    "user",
                    "create",
                    "--email",
                    "bench@example.com",
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
        let sign_in = format!("{base_url}/console/sign-in");
        // The session cookie comes with the sign-in's redirect, not after it.
        let browser = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let cookie = loop {
            let answer = browser
                .post(&sign_in)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("email=bench%40example.com&password={password}"))
                .send()
                .await;
            let cookie = answer.ok().and_then(|a| {
                a.headers()
                    .get("set-cookie")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.split(';').next())
                    .map(str::to_owned)
            });
            if let Some(cookie) = cookie {
                break cookie;
            }
            if Instant::now() > deadline {
                return Err("the console did not sign in within 30 s".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        Ok(Console {
            process,
            page_url: format!("{base_url}/console/w/{}/deliveries?mode=live", service.workspace_id),
            cookie,
        })
    }
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
    let mut console = Console::start(bin_dir, service).await?;
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
