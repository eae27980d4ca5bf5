//! A core killed (SIGKILL) while webhook sends are in flight, at the real
//! retry scale (docs/guide.md "Webhooks"): every send it had claimed is made
//! again within 10 s of the next core's start, and the attempt it cut off is
//! listed as failed, saying so.
//!
//! The cores are processes of their own: this test binary run again as
//! [`child_core`], configured by `COURIER_*` variables as `courier-core
//! serve` is.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use courier_orders::webhooks::entity::{attempt, webhook_delivery};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::harness::{TestApp, unique_suffix, wait_until};
use crate::webhooks::{Receiver, Reply};

/// Set for the child process: it serves a core.
const CHILD: &str = "COURIER_E2E_CHILD_CORE";
/// The line the child prints once it serves: this, then its gRPC address
/// and its metrics address.
const SERVING: &str = "child core serving at";

/// The core's settings, read from `COURIER_*` variables only.
#[derive(Parser)]
struct ChildFlags {
    #[command(flatten)]
    config: courier_store::config::CoreConfig,
}

/// The core process of the crash tests (this one, a dispatcher killed
/// mid-run in `auto_dispatch`, a core killed under load in `replicas`):
/// started by them, never on its own (it runs until killed).
#[test]
#[ignore = "the crash test's core process, started by that test"]
fn child_core() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "only the crash test runs the child core"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let config = ChildFlags::parse_from(["child-core"]).config;
        let listener = tokio::net::TcpListener::bind(&config.grpc_addr).await.expect("bind");
        let address = listener.local_addr().expect("addr");
        let ops_listener = tokio::net::TcpListener::bind(&config.metrics_addr)
            .await
            .expect("bind metrics");
        let metrics_address = ops_listener.local_addr().expect("metrics addr");
        let core = courier_server::serving::open_core(config, courier_store::clock::Clock::default())
            .await
            .expect("core starts");
        let _serving = courier_store::db::ServeLock::claim(&core.config.database_url, address).expect("serve lock");
        let stop = tokio_util::sync::CancellationToken::new();
        let _workers = courier_server::workers::spawn(&core, &stop, courier_server::workers::Role::All);
        let mut registry = prometheus_client::registry::Registry::default();
        core.register_metrics(&mut registry);
        tokio::spawn(courier::ops::serve_metrics(
            ops_listener,
            vec![std::sync::Arc::new(registry)],
            std::future::pending(),
        ));
        println!("{SERVING} {address} {metrics_address}");
        courier_server::serving::serve(core, listener, std::future::pending())
            .await
            .expect("served");
    });
}

/// A core process on the test's database; killed when dropped.
pub struct CoreProcess {
    child: Child,
    pub grpc_url: String,
    /// Its gRPC address, to start another on.
    pub address: String,
    pub metrics_url: String,
    /// When it served.
    started: Instant,
}

impl CoreProcess {
    /// Starts a core on `app`'s database, with `settings` as further
    /// `COURIER_*` variables (`COURIER_GRPC_ADDR` to serve on a given
    /// address; a free port otherwise).
    pub fn start(app: &TestApp, settings: &[(&str, &str)]) -> CoreProcess {
        let config = &app.core.config;
        let mut command = Command::new(std::env::current_exe().expect("test binary"));
        if let Some(secret) = &config.secret_key {
            command.env("COURIER_SECRET_KEY", secret);
        }
        command
            .args(["webhook_crash::child_core", "--exact", "--ignored", "--nocapture"])
            .env(CHILD, "1")
            .env("COURIER_DATABASE_URL", &config.database_url)
            .env("COURIER_GRPC_ADDR", "127.0.0.1:0")
            .env("COURIER_METRICS_ADDR", "127.0.0.1:0")
            .env("COURIER_PUBLIC_BASE_URL", &config.public_base_url)
            .env("COURIER_BLOB_DIR", &config.blob_dir)
            .env("COURIER_WEBHOOK_ALLOW_INSECURE", "true");
        let mut child = command
            .envs(settings.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("child core starts");
        let stdout = child.stdout.take().expect("stdout");
        let (lines, serving) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(address) = line.strip_prefix(SERVING) {
                    let _ = lines.send(address.trim().to_owned());
                }
            }
        });
        let addresses = serving
            .recv_timeout(Duration::from_secs(30))
            .expect("the child core serves within 30 s");
        let (address, metrics_address) = addresses.split_once(' ').expect("two addresses");
        CoreProcess {
            child,
            grpc_url: format!("http://{address}"),
            address: address.to_owned(),
            metrics_url: format!("http://{metrics_address}/metrics"),
            started: Instant::now(),
        }
    }

    /// gRPC calls this core answered.
    pub async fn grpc_calls(&self, app: &TestApp) -> f64 {
        app.metric(&self.metrics_url, "courier_core_grpc_requests_total", "")
            .await
    }

    /// SIGKILL: no shutdown, no finished sends recorded.
    pub fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("reaped");
    }
}

impl Drop for CoreProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The webhook test's core: sends at the real retry scale, and no
/// simulated courier moves, so that only the creates' events are sent.
const WEBHOOK_CORE: &[(&str, &str)] = &[("COURIER_WEBHOOK_RETRY_SCALE", "1"), ("COURIER_SIMULATOR_STEP", "1h")];

/// The queue rows held by a claim when the core died: their events.
async fn claimed_events(app: &TestApp) -> HashSet<String> {
    let rows = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::State.eq("pending"))
        .filter(webhook_delivery::Column::ClaimToken.is_not_null())
        .all(&app.core.db)
        .await
        .expect("queue rows");
    rows.into_iter().map(|row| row.event_id).collect()
}

/// The attempts logged as under way.
async fn pending_attempts(app: &TestApp) -> HashSet<String> {
    let rows = attempt::Entity::find()
        .filter(attempt::Column::Status.eq("pending"))
        .all(&app.core.db)
        .await
        .expect("attempts");
    rows.into_iter().map(|row| row.event_id).collect()
}

e2e! {
    async fn every_send_a_killed_core_claimed_is_made_again_within_seconds(app: TestApp) {
        // The first requests are answered after 1.5 s: sends are in flight
        // when the core dies. The receiver answers at once afterwards, so
        // that its own pace does not hold back the sends made again.
        let receiver = Receiver::start().await;
        receiver.then(vec![Reply::status(200).after(Duration::from_millis(1500)); 40]);
        crate::webhooks::create_endpoint(&app, &app.test_key, &receiver.url, json!(["delivery.created"])).await;
        let mut app = app;
        app.shutdown().await;

        let first = CoreProcess::start(&app, WEBHOOK_CORE);
        let edge = crate::hostile::edge_for(&first.grpc_url, Default::default()).await;
        let http = reqwest::Client::builder().no_proxy().build().expect("client");
        let mut created = Vec::new();
        for _ in 0..40 {
            let answer = http
                .post(format!("{edge}/v1/deliveries"))
                .header("x-api-key", &app.test_key)
                .header("idempotency-key", unique_suffix())
                .json(&crate::deliveries::berlin_delivery())
                .send()
                .await
                .expect("create");
            assert_eq!(answer.status(), 201);
            created.push(answer.json::<Value>().await.expect("delivery")["id"].as_str().expect("id").to_owned());
        }
        let in_flight = receiver.wait_for(10, Duration::from_secs(10)).await;
        // An attempt under way is listed as such.
        let event_id = in_flight[0].header("x-event-id");
        let answer = http.get(format!("{edge}/v1/events/{event_id}")).header("x-api-key", &app.test_key).send().await.expect("event");
        let details: Value = answer.json().await.expect("details");
        assert_eq!(details["webhook_attempts"][0]["status"], "pending", "{details:#}");
        assert_eq!(details["webhook_attempts"][0]["response_code"], Value::Null);
        first.kill();
        let claimed = claimed_events(&app).await;
        let cut_off = pending_attempts(&app).await;
        assert!(!cut_off.is_empty(), "sends were in flight at the kill");
        assert!(cut_off.is_subset(&claimed), "a cut-off send's row is still claimed");
        let killed_at = receiver.received().len();

        let second = CoreProcess::start(&app, WEBHOOK_CORE);
        let edge = crate::hostile::edge_for(&second.grpc_url, Default::default()).await;
        // Every claimed send arrives again within 10 s of the start.
        let limit = (second.started + Duration::from_secs(10)).saturating_duration_since(Instant::now());
        let again = wait_until("every claimed send made again", limit, async || {
            let mut again: HashMap<String, Instant> = HashMap::new();
            for request in &receiver.received()[killed_at..] {
                let event = request.header("x-event-id").to_owned();
                if claimed.contains(&event) {
                    again.entry(event).or_insert(request.at);
                }
            }
            match again.len() == claimed.len() {
                true => Ok(again),
                false => Err(format!("{} of {} claimed sends made again", again.len(), claimed.len())),
            }
        })
        .await;
        let latest = again.values().map(|at| at.duration_since(second.started)).max();
        eprintln!("{} claimed sends ({} cut off) made again, the last {latest:?} after the start", claimed.len(), cut_off.len());

        // Every event is delivered in the end, and each cut-off attempt is
        // listed as failed, saying why, before the one that succeeded.
        wait_until("every event delivered", Duration::from_secs(30), async || {
            match courier_orders::webhooks::queue::pending_count(&app.core.db).await.expect("queue") {
                0 => Ok(()),
                pending => Err(format!("{pending} sends pending")),
            }
        })
        .await;
        for event_id in &cut_off {
            let answer = http.get(format!("{edge}/v1/events/{event_id}")).header("x-api-key", &app.test_key).send().await.expect("event");
            let details: Value = answer.json().await.expect("details");
            let attempts = details["webhook_attempts"].as_array().expect("attempts");
            let statuses: Vec<&str> = attempts.iter().map(|a| a["status"].as_str().unwrap_or_default()).collect();
            assert_eq!(statuses, ["failed", "succeeded"], "{details:#}");
            assert_eq!(attempts[0]["error"], courier_orders::webhooks::attempts::CUT_OFF, "{details:#}");
            assert_eq!(attempts[0]["response_code"], Value::Null);
        }
        assert_eq!(created.len(), 40);
        drop(second);
    }
}
