//! Operations: health and readiness, Prometheus metrics, graceful shutdown,
//! how write transactions share the database.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use courier::logging::{self, LogFormat};

use sea_orm::DbBackend;
use serde_json::json;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, unlimited, wait_until};
use crate::webhooks::{Receiver, Reply, create_endpoint};

/// How long a webhook receiver here takes to answer.
const SLOW: Duration = Duration::from_secs(1);

/// The address of a URL `http://host:port`.
fn address(url: &str) -> &str {
    url.trim_start_matches("http://")
}

/// A front served on its own, as its binary serves it.
#[derive(Clone, Copy, Debug)]
enum Front {
    Console,
    CourierApp,
}

impl Front {
    /// Serves the front, calling the core at `core_url`; its base URL.
    async fn serve(self, core_url: &str) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let router = match self {
            Front::Console => {
                let state =
                    courier_console::ConsoleState::new(core_url, &format!("{url}/console")).expect("console state");
                courier_console::standalone(state, &url)
            }
            Front::CourierApp => {
                let state = courier_app::AppState::new(core_url, &format!("{url}/courier")).expect("app state");
                courier_app::standalone(state, &url)
            }
        };
        tokio::spawn(courier_edge::serve_router(
            router,
            listener,
            Default::default(),
            &url,
            std::future::pending(),
        ));
        url
    }
}

async fn health_client(app: &TestApp) -> HealthClient<tonic::transport::Channel> {
    let channel = tonic::transport::Endpoint::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("core reachable");
    HealthClient::new(channel)
}

/// Log output kept in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// From the first call on, the process logs JSON lines, as the binaries do
/// with `COURIER_LOG_FORMAT=json`, into memory: at `info`, and the core's
/// line per call (at `debug`) too.
fn json_logs() -> &'static Captured {
    static LOGS: OnceLock<Captured> = OnceLock::new();
    LOGS.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        logging::install(LogFormat::Json, move || writer.clone(), false, "info,tower_http=debug");
        captured
    })
}

/// Polls the metrics endpoint until every series in `wanted` appears.
async fn metrics_with(app: &TestApp, wanted: &[&str]) -> String {
    metrics_until(app, |text| {
        let missing: Vec<_> = wanted.iter().filter(|series| !text.contains(*series)).collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!("missing {missing:?}"))
        }
    })
    .await
}

/// Reads the metrics until `ready` accepts them (15 s at most; the
/// failure names what `ready` last said was wrong).
async fn metrics_until(app: &TestApp, ready: impl Fn(&str) -> Result<(), String>) -> String {
    wait_until("the metrics", Duration::from_secs(15), async || {
        let response = app.http.get(&app.metrics_url).send().await.expect("metrics answer");
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().expect("ascii").to_owned();
        assert!(
            content_type.starts_with("application/openmetrics-text"),
            "{content_type}"
        );
        let text = response.text().await.expect("metrics text");
        match ready(&text) {
            Ok(()) => Ok(text),
            Err(why) => Err(format!("{why} in:\n{text}")),
        }
    })
    .await
}

e2e! {
    async fn the_core_health_command_probes_grpc_health(app: TestApp) {
        let mut app = app;
        let core = address(&app.grpc_url).to_owned();
        let probe = |addr: String| async move { courier_server::serving::probe(&addr, Duration::from_secs(2)).await };
        probe(core.clone()).await.expect("a serving core");
        // A listen address on every interface means this machine.
        let port = core.rsplit(':').next().expect("port");
        probe(format!("0.0.0.0:{port}")).await.expect("the unspecified host is this machine");
        probe("not an address".to_owned()).await.expect_err("refused");
        app.shutdown().await;
        let stopped = probe(core).await.expect_err("a stopped core");
        assert!(stopped.contains("cannot connect"), "{stopped}");
    }

    async fn health_and_readiness(app: TestApp) {
        let alive = app.send(app.http.get(app.url("/healthz"))).await;
        assert_eq!((alive.status, alive.body.clone()), (200, json!({ "status": "ok" })));
        let ready = app.send(app.http.get(app.url("/readyz"))).await;
        assert_eq!((ready.status, ready.body.clone()), (200, json!({ "status": "ready" })));

        // The core reports every service, and itself as a whole, SERVING.
        let mut health = health_client(&app).await;
        for service in ["", "courier.v1.DeliveryService", "courier.v1.WebhookService", "courier.internal.v1.DispatchService"] {
            let answer = health
                .check(HealthCheckRequest { service: service.into() })
                .await
                .expect("health answer");
            assert_eq!(answer.get_ref().status(), ServingStatus::Serving, "{service:?}");
        }

        // An edge whose core cannot be reached is alive but not ready.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let nowhere = format!("http://{}", closed.local_addr().expect("addr"));
        drop(closed);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let lonely_url = format!("http://{}", listener.local_addr().expect("addr"));
        let lonely = courier_edge::EdgeState::new(
            courier_edge::CoreClients::connect_lazy(&nowhere).expect("channel"),
            &lonely_url,
            &unlimited(),
        )
        .expect("edge state");
        tokio::spawn(courier_edge::serve(lonely, listener, Default::default(), std::future::pending()));
        let alive = app.send(app.http.get(format!("{lonely_url}/healthz"))).await;
        assert_eq!(alive.status, 200);
        let started = Instant::now();
        let unready = app.send(app.http.get(format!("{lonely_url}/readyz"))).await;
        unready.assert_error(503, "service_unavailable", None);
        assert!(started.elapsed() < Duration::from_secs(3), "readyz took {:?}", started.elapsed());

        // The console and the courier app on their own (as `courier-console`
        // and `courier-app` serve them) answer the same, with a core and
        // without one.
        for (core, ready) in [(app.grpc_url.clone(), true), (nowhere, false)] {
            for front in [Front::Console, Front::CourierApp] {
                let url = front.serve(&core).await;
                let alive = app.send(app.http.get(format!("{url}/healthz"))).await;
                assert_eq!((alive.status, alive.body.clone()), (200, json!({ "status": "ok" })), "{front:?}");
                let answer = app.send(app.http.get(format!("{url}/readyz"))).await;
                if ready {
                    assert_eq!((answer.status, answer.body.clone()), (200, json!({ "status": "ready" })), "{front:?}");
                } else {
                    answer.assert_error(503, "service_unavailable", None);
                }
            }
        }
    }

    async fn metrics_name_routes_codes_and_workers(app: TestApp) {
        let receiver = Receiver::start().await;
        create_endpoint(&app, &app.test_key, &receiver.url, json!([])).await;
        assert_eq!(app.get("/v1/vehicle-types", &app.test_key).await.status, 200);
        app.get("/v1/deliveries/dlv_unknown", &app.test_key)
            .await
            .assert_error(404, "not_found", None);
        app.get("/no/such/route", &app.test_key).await.assert_error(404, "not_found", None);
        // A test delivery: its events go to the receiver, the simulator steps it.
        app.create_delivery(&app.test_key, &berlin_delivery()).await;
        receiver.wait_for(1, Duration::from_secs(10)).await;

        let text = metrics_with(&app, &[
            r#"courier_edge_http_requests_total{method="GET",route="/v1/vehicle-types",status="200",code=""} 1"#,
            r#"courier_edge_http_requests_total{method="GET",route="/v1/deliveries/{delivery_id}",status="404",code="not_found"} 1"#,
            r#"courier_edge_http_requests_total{method="GET",route="unmatched",status="404",code="not_found"} 1"#,
            r#"courier_edge_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/deliveries",status="201",code=""} 1"#,
            r#"courier_core_grpc_requests_total{method="/courier.v1.DeliveryService/GetDelivery",code="NotFound"} 1"#,
            r#"courier_core_grpc_requests_total{method="/courier.v1.VehicleTypeService/ListVehicleTypes",code="Ok"} 1"#,
            r#"courier_core_grpc_request_duration_seconds_count{method="/courier.v1.DeliveryService/CreateDelivery",code="Ok"} 1"#,
            r#"courier_webhook_attempts_total{result="succeeded"}"#,
            "courier_webhook_queue_depth ",
            "courier_simulator_lag_seconds_count ",
        ]).await;
        // Raw paths never become series.
        assert!(!text.contains("dlv_unknown") && !text.contains("/no/such/route"));
        assert!(text.trim_end().ends_with("# EOF"));
        // The webhook can arrive before the simulator's first step.
        metrics_until(&app, |text| {
            let stepped = text
                .lines()
                .find_map(|line| line.strip_prefix("courier_simulator_lag_seconds_count "))
                .and_then(|count| count.trim().parse::<u64>().ok());
            match stepped {
                Some(count) if count > 0 => Ok(()),
                _ => Err("no simulator step measured".to_owned()),
            }
        })
        .await;
    }

    async fn shutdown_lets_requests_in_flight_finish(app: TestApp) {
        let mut app = app;
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(200).after(SLOW));
        let (webhook_id, _) = create_endpoint(&app, &app.test_key, &receiver.url, json!([])).await;

        let mut health = health_client(&app).await;
        let mut watch = health
            .watch(HealthCheckRequest { service: String::new() })
            .await
            .expect("watch")
            .into_inner();
        let first = watch.message().await.expect("watch answer").expect("status");
        assert_eq!(first.status(), ServingStatus::Serving);

        // A slow request: the core sends a sample event to the slow receiver.
        let in_flight = tokio::spawn(
            app.http
                .post(app.url(&format!("/v1/webhooks/{webhook_id}/test")))
                .header("x-api-key", &app.test_key)
                .json(&json!({}))
                .send(),
        );
        receiver.wait_for(1, Duration::from_secs(5)).await;
        let (edge, core) = (address(&app.base_url).to_owned(), address(&app.grpc_url).to_owned());

        let health_turns = async move {
            let next = watch.message().await.expect("watch answer").expect("status");
            assert_eq!(next.status(), ServingStatus::NotServing);
            // An open stream would hold the server until the grace period.
            drop((watch, health));
        };
        let started = Instant::now();
        let ((), answer, ()) = tokio::join!(app.shutdown(), in_flight, health_turns);
        let answer = answer.expect("request task").expect("full answer");
        assert_eq!(answer.status(), 200);
        let body: serde_json::Value = answer.json().await.expect("JSON body");
        assert_eq!((body["succeeded"].as_bool(), body["response_code"].as_i64()), (Some(true), Some(200)));
        assert!(started.elapsed() < SLOW * 5, "shutdown took {:?}", started.elapsed());

        for address in [edge, core] {
            assert!(tokio::net::TcpStream::connect(&address).await.is_err(), "{address} still accepts");
        }
    }

    async fn shutdown_lets_webhook_sends_finish(app: TestApp) {
        let mut app = app;
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(200).after(SLOW));
        create_endpoint(&app, &app.test_key, &receiver.url, json!(["delivery.created"])).await;
        app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let sending = receiver.wait_for(1, Duration::from_secs(10)).await;

        app.shutdown().await;
        // Every send that started was recorded as an attempt, none started after.
        let received = receiver.received();
        assert_eq!(received.len(), sending.len(), "a send started after the shutdown");
        for request in &received {
            let attempts = courier_orders::webhooks::attempts::of_event(&app.core.db, request.header("x-event-id"))
                .await
                .expect("attempts");
            assert_eq!(attempts.len(), 1, "{attempts:?}");
            assert_eq!(
                (attempts[0].status, attempts[0].response_code),
                (courier_orders::webhooks::attempts::AttemptStatus::Succeeded, Some(200))
            );
        }
    }

    async fn shutdown_gives_rows_claimed_ahead_back_to_the_queue(app: TestApp) {
        use courier_orders::webhooks::entity::webhook_delivery::{Column, Entity};
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};

        let mut app = app;
        let receiver = Receiver::start().await;
        // Slow enough that no send ends before the shutdown, inside the
        // dispatcher's 5-second receiver timeout.
        receiver.always(Reply::status(200).after(Duration::from_secs(4)));
        create_endpoint(&app, &app.test_key, &receiver.url, json!(["delivery.created"])).await;
        // More events than the endpoint's sends in flight (32): the others
        // are claimed ahead and wait in the dispatcher.
        const EVENTS: u64 = 40;
        for _ in 0..EVENTS {
            app.create_delivery(&app.test_key, &berlin_delivery()).await;
        }
        wait_until(format!("all {EVENTS} queue rows claimed"), Duration::from_secs(3), async || {
            let claimed = Entity::find()
                .filter(Column::ClaimToken.is_not_null())
                .count(&app.core.db)
                .await
                .expect("claimed rows");
            if claimed == EVENTS { Ok(()) } else { Err(format!("{claimed} claimed")) }
        })
        .await;

        app.shutdown().await;
        assert_eq!(receiver.received().len(), 32, "only the sends in flight were made");
        let now = app.clock.now_micros();
        let rows = Entity::find().all(&app.core.db).await.expect("queue rows");
        let released: Vec<_> = rows.iter().filter(|row| row.state == "pending").collect();
        assert_eq!(released.len(), 8, "{rows:?}");
        for row in rows.iter() {
            assert_eq!(row.claim_token, None, "{row:?}");
        }
        for row in released {
            assert!(row.next_attempt_at <= now, "a released row waits for its lease: {row:?}");
            assert_eq!(row.attempts, 0, "{row:?}");
        }
    }

    async fn every_log_line_of_a_request_carries_its_id(app: TestApp) {
        let logs = json_logs();
        let answer = app.get("/v1/deliveries/dlv_unknown", &app.test_key).await;
        answer.assert_error(404, "not_found", None);
        let request_id = answer.header("request-id").expect("request id").to_owned();

        let lines = wait_until(format!("edge and core lines of {request_id}"), Duration::from_secs(5), async || {
            let text = String::from_utf8(logs.0.lock().expect("lock").clone()).expect("UTF-8 logs");
            let lines: Vec<serde_json::Value> = text
                .lines()
                .filter(|line| line.contains(&request_id))
                .map(|line| serde_json::from_str(line).expect("a JSON log line"))
                .collect();
            let side = |span: &str| lines.iter().any(|line| line["span"]["name"] == span);
            if side("http") && side("grpc") { Ok(lines) } else { Err(format!("{lines:#?}")) }
        })
        .await;
        for line in &lines {
            assert_eq!(line["span"]["request_id"], request_id.as_str(), "{line}");
            assert!(line["level"].is_string() && line["message"].is_string(), "{line}");
        }
        let messages: Vec<_> = lines.iter().filter_map(|line| line["message"].as_str()).collect();
        assert!(messages.contains(&"request refused") && messages.contains(&"request"), "{messages:?}");
    }
}

e2e! {
    async fn write_transactions_take_turns_on_sqlite_only(app: TestApp) {
        let first = app.core.begin().await.expect("first transaction");
        let core = app.core.clone();
        let mut second = tokio::spawn(async move { core.begin().await });
        let began_meanwhile = tokio::time::timeout(Duration::from_millis(200), &mut second).await.ok();
        match app.core.writer.get_database_backend() {
            DbBackend::Sqlite => assert!(
                began_meanwhile.is_none(),
                "a second SQLite write began while the first was open"
            ),
            _ => assert!(began_meanwhile.is_some(), "PostgreSQL write transactions take no turns"),
        }
        first.commit().await.expect("first commits");
        let second = match began_meanwhile {
            Some(joined) => joined,
            None => tokio::time::timeout(Duration::from_secs(5), second)
                .await
                .expect("the second begins once the first ended"),
        }
        .expect("joined")
        .expect("second transaction");
        second.rollback().await.expect("second rolls back");
    }
}
