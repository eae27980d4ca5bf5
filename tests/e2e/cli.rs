//! The integrators' `courier` binary (README, "For integrators"), run as a
//! process against the test app: `listen` forwarding every event signed
//! (checked with the core's Standard Webhooks verifier) and resuming after
//! the stream is cut, printing a test delivery's SMS as they land in the
//! test inbox, `trigger`, the deliveries commands with a saved key, and its
//! errors.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, unique_suffix, wait_until};
use crate::lifecycle::{RUN_LIMIT, default_run};
use crate::webhooks::{Received, Receiver};

/// The built `courier` binary, beside the test binary's directory
/// (`cargo test --workspace` builds it for the CLI's own tests; alone:
/// `cargo build -p courier-cli`).
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(|deps| deps.parent()).expect("target directory");
    let path = dir.join(format!("courier{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: cargo build -p courier-cli",
        path.display()
    );
    path
}

/// A configuration directory of this test's own.
fn config_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("courier-cli-{}", unique_suffix()));
    std::fs::create_dir_all(&dir).expect("config dir");
    dir
}

/// `courier` with the app's base URL, `key` and `config`, nothing from the
/// environment.
fn courier(base_url: &str, key: Option<&str>, config: &PathBuf) -> Command {
    let mut command = Command::new(binary());
    command
        .env_clear()
        .arg("--base-url")
        .arg(base_url)
        .arg("--config-dir")
        .arg(config)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    if let Some(key) = key {
        command.arg("--api-key").arg(key);
    }
    command
}

/// Exit status, stdout and stderr of a finished command.
async fn output(mut command: Command, args: &[&str]) -> (i32, String, String) {
    let output = tokio::time::timeout(RUN_LIMIT, command.args(args).output())
        .await
        .expect("courier finished within the run limit")
        .expect("courier ran");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A long-running `courier` whose output lines are collected as they come.
struct Running {
    /// Kept for its lifetime: dropping it ends the process.
    _process: Child,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Running {
    fn start(mut command: Command, args: &[&str]) -> Running {
        let mut child = command
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("courier started");
        let collect = |pipe: Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>| {
            let lines = Arc::new(Mutex::new(Vec::new()));
            let sink = lines.clone();
            tokio::spawn(async move {
                let Some(pipe) = pipe else { return };
                let mut reader = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = reader.next_line().await {
                    sink.lock().expect("lines").push(line);
                }
            });
            lines
        };
        let stdout = collect(child.stdout.take().map(|p| Box::new(p) as _));
        let stderr = collect(child.stderr.take().map(|p| Box::new(p) as _));
        Running {
            _process: child,
            stdout,
            stderr,
        }
    }

    fn stdout(&self) -> Vec<String> {
        self.stdout.lock().expect("lines").clone()
    }

    fn stderr(&self) -> Vec<String> {
        self.stderr.lock().expect("lines").clone()
    }

    /// The first stdout line starting with `prefix`, the rest of it.
    async fn line_after(&self, prefix: &str) -> String {
        wait_until(format!("a line `{prefix}…` from courier"), RUN_LIMIT, async || {
            self.stdout()
                .iter()
                .find_map(|line| line.strip_prefix(prefix).map(str::to_owned))
                .ok_or_else(|| format!("stdout {:?}, stderr {:?}", self.stdout(), self.stderr()))
        })
        .await
    }
}

/// A TCP proxy to `target` whose open connections can be cut at once.
struct CuttingProxy {
    url: String,
    connections: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl CuttingProxy {
    async fn start(target: &str) -> CuttingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let target = target.trim_start_matches("http://").trim_end_matches('/').to_owned();
        let connections: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let open = connections.clone();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let target = target.clone();
                let connection = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                open.lock().expect("connections").push(connection);
            }
        });
        CuttingProxy { url, connections }
    }

    /// Drops every open connection (both sides see it closed).
    fn cut(&self) -> usize {
        let connections: Vec<_> = self.connections.lock().expect("connections").drain(..).collect();
        let open = connections.iter().filter(|c| !c.is_finished()).count();
        for connection in connections {
            connection.abort();
        }
        open
    }
}

/// Whether `request` verifies with `secret` by the core's own Standard
/// Webhooks verifier.
fn verified(secret: &str, request: &Received) -> bool {
    courier_orders::webhooks::signature::verify(
        secret,
        request.header("webhook-id"),
        request.header("webhook-timestamp"),
        request.header("webhook-signature"),
        &request.body,
        chrono::Utc::now().timestamp(),
        300,
    )
}

/// The events of delivery `id` as the list shows them, oldest first.
async fn listed_events(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let answer = app.get(&format!("/v1/events?delivery_id={id}&limit=100"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    let mut events = answer.body["events"].as_array().expect("events").clone();
    events.reverse();
    events
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(400);

    async fn listen_forwards_every_event_signed_and_resumes_after_a_cut(app: TestApp) {
        let receiver = Receiver::start().await;
        let proxy = CuttingProxy::start(&app.base_url).await;
        let config = config_dir();
        let listen = Running::start(
            courier(&proxy.url, Some(&app.test_key), &config),
            &["listen", "--forward-to", &receiver.url],
        );
        let secret = listen.line_after("Webhook signing secret: ").await;
        assert!(secret.starts_with("whsec_"), "{secret}");

        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        // Mid-delivery (a 400 ms step), the connection drops.
        receiver.wait_for(3, RUN_LIMIT).await;
        assert!(proxy.cut() >= 1, "the stream's connection was open");
        app.wait_for_status(&app.test_key, &id, "delivered", RUN_LIMIT).await;
        let received = wait_until("the delivered event forwarded", RUN_LIMIT, async || {
            let received = receiver.received();
            if received.last().is_some_and(|r| r.json()["type"] == "delivery.delivered") {
                Ok(received)
            } else {
                Err(format!("{} forwarded; stderr {:?}", received.len(), listen.stderr()))
            }
        })
        .await;

        // Every event once, in order, the body as the API shows the event,
        // each accepted by a Standard Webhooks verifier with the printed secret.
        let listed = listed_events(&app, &app.test_key, &id).await;
        let bodies: Vec<Value> = received.iter().map(Received::json).collect();
        assert_eq!(bodies, listed);
        let summary: Vec<(String, String)> = bodies
            .iter()
            .map(|e| (e["type"].as_str().unwrap_or_default().to_owned(), e["data"]["status"].as_str().unwrap_or_default().to_owned()))
            .collect();
        assert_eq!(summary, default_run());
        for request in &received {
            assert!(verified(&secret, request), "signature of {}", request.header("webhook-id"));
            assert_eq!(request.header("webhook-id"), request.json()["id"].as_str().unwrap_or_default());
        }
        assert!(listen.stderr().iter().any(|line| line.contains("reconnecting")), "{:?}", listen.stderr());
        wait_until("a line per forwarded event", RUN_LIMIT, async || {
            let lines = listen.stdout().into_iter().filter(|line| line.contains("-->")).collect::<Vec<_>>();
            if lines.len() == received.len() { Ok(lines) } else { Err(format!("{lines:?}")) }
        })
        .await
        .iter()
        .zip(&bodies)
        .for_each(|(line, event)| {
            assert!(line.contains(event["id"].as_str().unwrap_or_default()) && line.contains("[200]") && line.ends_with(" ms"), "{line}");
        });
        // The test delivery's SMS to its recipient as they landed in the test
        // inbox, each once, under the event that fired it (`courier_assigned`
        // and `delivered` may be held by quiet hours, `arriving` never is).
        let stdout = wait_until("the delivered SMS printed", RUN_LIMIT, async || {
            let stdout = listen.stdout();
            if stdout.iter().any(|line| line.starts_with("  sms → +49********78 [delivered] ")) {
                Ok(stdout)
            } else {
                Err(format!("{stdout:?}"))
            }
        })
        .await;
        let line_of = |start: &str| -> usize {
            let found: Vec<usize> = (0..stdout.len()).filter(|i| stdout[*i].contains(start)).collect();
            assert_eq!(found.len(), 1, "{start}: {stdout:?}");
            found[0]
        };
        let sms = |trigger: &str| line_of(&format!("  sms → +49********78 [{trigger}] "));
        assert!(line_of("--> delivery.courier_assigned") < sms("courier_assigned"), "{stdout:?}");
        assert!(line_of("--> delivery.courier_arrived") < sms("arriving"), "{stdout:?}");
        assert!(line_of("--> delivery.delivered") < sms("delivered"), "{stdout:?}");
        assert!(stdout[sms("arriving")].starts_with("  sms → +49********78 [arriving] sent: \"E2E workspace: "), "{stdout:?}");
        assert_eq!(stdout.iter().filter(|line| line.starts_with("  ")).count(), 3, "{stdout:?}");

        // The secret is the machine's: kept (0600) and printed again.
        let kept = std::fs::read_to_string(config.join("listen-secret")).expect("secret file");
        assert_eq!(kept.trim(), secret);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(config.join("listen-secret")).expect("metadata").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = Running::start(
            courier(&app.base_url, Some(&app.test_key), &config),
            &["listen", "--forward-to", &receiver.url],
        );
        assert_eq!(again.line_after("Webhook signing secret: ").await, secret);
    }

    async fn trigger_prints_the_scenario_events_in_order(app: TestApp) {
        let config = config_dir();
        let (status, stdout, stderr) =
            output(courier(&app.base_url, Some(&app.test_key), &config), &["--json", "trigger", "pickup_no_show"]).await;
        assert_eq!(status, 0, "{stderr}");
        let printed: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).expect("an event per line")).collect();
        let id = printed[0]["data"]["id"].as_str().expect("delivery id");
        assert_eq!(printed, listed_events(&app, &app.test_key, id).await);
        let types: Vec<&str> = printed.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect();
        assert_eq!(
            types,
            ["delivery.created", "delivery.courier_assigned", "delivery.courier_arrived", "delivery.cancelled"]
        );
        assert_eq!(printed[3]["data"]["cancellation_reason"], "pickup_no_show");

        // The text form: a line per event, in order.
        let (status, stdout, stderr) =
            output(courier(&app.base_url, Some(&app.test_key), &config), &["trigger", "no_courier_found"]).await;
        assert_eq!(status, 0, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(lines[0].starts_with("Booked test delivery del_"), "{stdout}");
        assert!(lines[1].contains("delivery.created") && lines[1].contains("pending"), "{stdout}");
        assert!(lines[2].contains("delivery.cancelled") && lines[2].contains("cancelled"), "{stdout}");
        assert_eq!(lines.len(), 3, "{stdout}");
    }
}

e2e! {
    async fn deliveries_commands_with_a_saved_key(app: TestApp) {
        let config = config_dir();
        let (status, stdout, stderr) = output(
            courier(&app.base_url, None, &config),
            &["login", "--api-key", &app.live_key],
        )
        .await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.starts_with("Key checked and saved to "), "{stdout}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(config.join("credentials.json")).expect("saved").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // From here on the saved key and base URL: no flags. (A live key: a
        // test delivery would run to its end before the cancel.)
        let saved = |args: &[&str]| {
            let mut command = Command::new(binary());
            command.env_clear().arg("--config-dir").arg(&config).stdin(Stdio::null()).kill_on_drop(true);
            let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
            async move {
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                output(command, &refs).await
            }
        };

        let place = [
            "--pickup-address", "Alexanderplatz 1, 10178 Berlin", "--pickup-lat", "52.5219", "--pickup-lng", "13.4132",
            "--dropoff-address", "Oranienstraße 25, 10999 Berlin", "--dropoff-lat", "52.501", "--dropoff-lng", "13.419",
            "--vehicle", "cargo_bike",
        ];
        let (status, stdout, stderr) = saved(&[&["--json", "quote"][..], &place].concat()).await;
        assert_eq!(status, 0, "{stderr}");
        let quote: Value = serde_json::from_str(&stdout).expect("quote JSON");
        let quote_id = quote["id"].as_str().expect("quote id");

        // Windows as START/END; the quote shows its planned dropoff against it.
        let at = |minutes: i64| courier::time::format_rfc3339(app.clock.now() + chrono::Duration::minutes(minutes));
        let window = format!("{}/{}", at(60), at(120));
        let (status, stdout, stderr) = saved(&[&["quote"][..], &place, &["--dropoff-window", &window]].concat()).await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.lines().any(|l| l.trim_start().starts_with("dropoff ") && l.contains("(window ")), "{stdout}");
        let (status, _, stderr) = saved(&[&["quote"][..], &place, &["--dropoff-window", "this afternoon"]].concat()).await;
        assert_eq!(status, 2, "a usage error: {stderr}");
        assert!(stderr.contains("START/END"), "{stderr}");

        // A create from flags: its idempotency key is made and printed.
        let contacts = ["--pickup-name", "Ana", "--pickup-phone", "+49 30 1234567", "--dropoff-name", "Rui", "--dropoff-phone", "+49 151 2345678"];
        let (status, stdout, stderr) = saved(&[&["--json", "deliveries", "create", "--quote-id", quote_id][..], &place, &contacts].concat()).await;
        assert_eq!(status, 0, "{stderr}");
        let created: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        let id = created["id"].as_str().expect("id").to_owned();
        assert_eq!(created["quote_id"], quote_id);
        let idempotency_key = stderr.lines().find_map(|l| l.strip_prefix("Idempotency-Key: ")).expect("printed key").to_owned();

        // The same create from a file with that key is the same delivery.
        let file = config.join("delivery.json");
        let body = json!({
            "pickup": { "address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.5219, "longitude": 13.4132, "contact": { "name": "Ana", "phone": "+49 30 1234567" } },
            "dropoff": { "address": "Oranienstraße 25, 10999 Berlin", "latitude": 52.501, "longitude": 13.419, "contact": { "name": "Rui", "phone": "+49 151 2345678" } },
            "vehicle_type_id": "cargo_bike",
            "quote_id": quote_id,
        });
        std::fs::write(&file, body.to_string()).expect("file");
        let file_arg = file.to_str().expect("path");
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "create", "--file", file_arg, "--idempotency-key", &idempotency_key]).await;
        assert_eq!(status, 0, "{stderr}");
        let replayed: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        assert_eq!(replayed["id"], created["id"]);
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "create", "--file", file_arg]).await;
        assert_eq!(status, 0, "{stderr}");
        let other: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        assert_ne!(other["id"], created["id"]);

        let (status, stdout, stderr) = saved(&["deliveries", "get", &id]).await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.starts_with(&format!("{id}  ")), "{stdout}");
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "list", "--limit", "2"]).await;
        assert_eq!(status, 0, "{stderr}");
        let page: Value = serde_json::from_str(&stdout).expect("list JSON");
        let listed: Vec<&Value> = page["deliveries"].as_array().expect("deliveries").iter().map(|d| &d["id"]).collect();
        assert_eq!(listed, [&other["id"], &created["id"]]);
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "update", &id, "--notes", "Side door.", "--dropoff-instructions", "Ring twice."]).await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stderr.contains("Idempotency-Key: "), "{stderr}");
        let changed: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        assert_eq!((changed["notes"].as_str(), changed["dropoff"]["instructions"].as_str()), (Some("Side door."), Some("Ring twice.")));
        let stale = created["updated_at"].as_str().expect("updated_at");
        let (status, _, stderr) = saved(&["deliveries", "update", &id, "--notes", "Front door.", "--if-match", stale]).await;
        assert_eq!(status, 1);
        assert!(stderr.lines().any(|line| line.starts_with("error: precondition_failed: ")), "{stderr}");
        // A moved dropoff: refused with the new total, then accepted.
        let (status, _, stderr) = saved(&["deliveries", "update", &id, "--dropoff-position", "52.473,13.403"]).await;
        assert_eq!(status, 1);
        let refusal = stderr.lines().find(|line| line.starts_with("error: price_changed: ")).unwrap_or_else(|| panic!("{stderr}"));
        let total: String = refusal.split("accept_amount_cents: ").nth(1).expect("the total").chars().take_while(char::is_ascii_digit).collect();
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "update", &id, "--dropoff-position", "52.473,13.403", "--dropoff-address", "Tempelhofer Damm 1", "--accept-amount-cents", &total]).await;
        assert_eq!(status, 0, "{stderr}");
        let moved: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        assert_eq!((moved["amount_cents"].to_string(), moved["dropoff"]["address"].as_str()), (total, Some("Tempelhofer Damm 1")));
        let (status, _, stderr) = saved(&["deliveries", "update", &id, "--dropoff-position", "north"]).await;
        assert_eq!(status, 2, "{stderr}");
        let (status, stdout, stderr) = saved(&["deliveries", "cancel", &id, "--reason", "no_longer_needed"]).await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.contains("cancelled") && stdout.contains("cancelled_by_you"), "{stdout}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "cancelled");
        // Its notifications: none, no courier ever took it.
        let (status, stdout, stderr) = saved(&["deliveries", "notifications", &id]).await;
        assert_eq!(status, 0, "{stderr}");
        assert_eq!(stdout.trim(), "No notifications.");
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "notifications", &id]).await;
        assert_eq!(status, 0, "{stderr}");
        assert_eq!(serde_json::from_str::<Value>(&stdout).expect("list JSON"), json!({ "notifications": [], "next_page_token": null }));

        // A refusal: the contract's code, message and request id.
        let (status, _, stderr) = saved(&["deliveries", "cancel", &id]).await;
        assert_eq!(status, 1);
        assert!(stderr.starts_with("error: conflict: ") && stderr.contains("[request req_"), "{stderr}");

        // Booked again: a new delivery with its own reference; a bad window is a usage error.
        let (status, stdout, stderr) = saved(&["--json", "deliveries", "redeliver", &id, "--external-id", "cli-second-try"]).await;
        assert_eq!(status, 0, "{stderr}");
        assert!(stderr.starts_with("Idempotency-Key: "), "{stderr}");
        let again: Value = serde_json::from_str(&stdout).expect("delivery JSON");
        assert_ne!(again["id"].as_str(), Some(id.as_str()));
        assert_eq!((&again["status"], &again["external_id"]), (&json!("pending"), &json!("cli-second-try")));
        let (status, _, stderr) = saved(&["deliveries", "redeliver", &id, "--dropoff-window", "soon"]).await;
        assert_eq!(status, 2, "{stderr}");
        let (status, _, stderr) = saved(&["deliveries", "redeliver", again["id"].as_str().expect("id")]).await;
        assert_eq!(status, 1);
        assert!(stderr.contains("\nerror: not_redeliverable: "), "{stderr}");
    }

    async fn deliveries_batch_books_a_file_and_names_each_refusal(app: TestApp) {
        let config = config_dir();
        let file = config.join("batch.json");
        let item = |key: &str| {
            let mut item = crate::deliveries::berlin_delivery();
            item["idempotency_key"] = json!(format!("{key}-{}", unique_suffix()));
            item
        };
        let mut bad = item("bad");
        bad["pickup"]["latitude"] = json!(95.0);
        std::fs::write(&file, json!({ "deliveries": [item("first"), bad, item("third")] }).to_string()).expect("batch file");
        let args = ["deliveries", "batch", file.to_str().expect("path")];
        let (status, stdout, stderr) = output(courier(&app.base_url, Some(&app.test_key), &config), &args).await;
        assert_eq!(status, 0, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines[0], "2 of 3 created", "{stdout}");
        assert!(lines[1].starts_with("0  del_") && lines[3].starts_with("2  del_"), "{stdout}");
        assert!(lines[2].starts_with("1  invalid_request  deliveries.1.pickup.latitude: "), "{stdout}");
        // Sent again: the same deliveries, from their keys.
        let (status, again, stderr) = output(courier(&app.base_url, Some(&app.test_key), &config), &args).await;
        assert_eq!((status, again.as_str()), (0, stdout.as_str()), "{stderr}");
    }

    async fn deliveries_import_checks_books_and_names_each_mistake_by_line_and_column(app: TestApp) {
        let config = config_dir();
        let suffix = unique_suffix();
        // A spreadsheet's file: its own headers, semicolons, decimal commas.
        let header = "Order;Sender;Sender phone;Pickup;Pickup lat;Pickup lng;Recipient;Mobile;Address;Lat;Lng;Vehicle";
        let row = |order: &str, lat: &str, vehicle: &str| {
            format!("{order}-{suffix};Ana;+49 30 1234567;Alexanderplatz 1;52,5219;13,4132;Rui;+49 151 2345678;Oranienstr. 25;{lat};13,4190;{vehicle}")
        };
        let text = [header.to_owned(), row("a", "52,5010", "cargo_bike"), row("b", "north", "cargo_bike"), row("c", "52,5010", "rocket"), row("d", "52,5010", "car")].join("\n");
        let file = config.join("orders.csv");
        std::fs::write(&file, text).expect("csv file");
        let file = file.to_str().expect("path");
        let result = config.join("result.csv");
        let courier = || courier(&app.base_url, Some(&app.test_key), &config);

        // Our phone column is named otherwise: the import names what is missing.
        let (status, _, stderr) = output(courier(), &["deliveries", "import", file, "--dry-run"]).await;
        assert_eq!(status, 2, "{stderr}");
        assert!(stderr.contains("dropoff_phone") && stderr.contains("Mobile"), "{stderr}");

        let map = ["--map", "dropoff_phone=Mobile"];
        let (status, stdout, stderr) = output(courier(), &[&["deliveries", "import", file, "--dry-run"][..], &map].concat()).await;
        assert_eq!(status, 1, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(lines[0].starts_with("2 of 4 rows ready to book for ") && lines[0].ends_with(" EUR, 2 with problems; nothing was booked."), "{stdout}");
        assert_eq!(lines[1], "Line 3: Lat: \"north\" is not a number.", "{stdout}");
        assert!(lines[2].starts_with("Line 4: Vehicle: "), "{stdout}");
        let listed = app.get(&format!("/v1/deliveries?external_id=a-{suffix}"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"], json!([]), "a dry run books nothing");

        let import = [&["deliveries", "import", file, "--result", result.to_str().expect("path")][..], &map].concat();
        let (status, stdout, stderr) = output(courier(), &import).await;
        assert_eq!(status, 1, "{stderr}");
        assert!(stdout.starts_with("2 of 4 rows booked, 2 refused."), "{stdout}");
        assert!(stderr.contains("2 rows were refused"), "{stderr}");
        let written = std::fs::read_to_string(&result).expect("result file");
        let rows: Vec<&str> = written.lines().collect();
        assert_eq!(rows[0], "line,idempotency_key,result,delivery_id,status,amount_cents,currency,problems");
        assert!(rows[1].starts_with("2,csv-") && rows[1].contains(",created,del_"), "{written}");
        assert!(rows[2].starts_with("3,csv-") && rows[2].contains(",refused,"), "{written}");
        let listed = app.get(&format!("/v1/deliveries?external_id=a-{suffix}"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"].as_array().expect("list").len(), 1);

        // Imported again, the same rows answer the same deliveries.
        let (_, _, stderr) = output(courier(), &import).await;
        assert_eq!(std::fs::read_to_string(&result).expect("result file"), written, "{stderr}");
        let listed = app.get(&format!("/v1/deliveries?external_id=a-{suffix}"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"].as_array().expect("list").len(), 1, "booked once");

        let (status, example, _) = output(courier(), &["deliveries", "import", "--example"]).await;
        assert_eq!((status, example.lines().next()), (0, courier_import::EXAMPLE.lines().next()));
    }

    async fn cli_errors_are_clear(app: TestApp) {
        let config = config_dir();
        let (status, _, stderr) =
            output(courier(&app.base_url, Some("mm_test_wrong"), &config), &["deliveries", "list"]).await;
        assert_eq!(status, 1);
        assert!(stderr.starts_with("error: invalid_api_key: ") && stderr.contains("[request req_"), "{stderr}");
        let (status, _, stderr) = output(
            courier(&app.base_url, Some("mm_test_wrong"), &config),
            &["listen", "--forward-to", "http://localhost:3000/hooks"],
        )
        .await;
        assert_eq!(status, 1);
        assert!(stderr.starts_with("error: invalid_api_key: "), "{stderr}");

        // Nothing listens on a port just freed.
        let closed = TcpListener::bind("127.0.0.1:0").await.expect("bind").local_addr().expect("addr");
        let unreachable = format!("http://{closed}");
        let (status, _, stderr) = output(courier(&unreachable, Some(&app.test_key), &config), &["events", "tail"]).await;
        assert_eq!(status, 1);
        assert!(stderr.starts_with(&format!("error: cannot reach the Courier API at {unreachable}: ")), "{stderr}");

        let (status, _, stderr) = output(
            courier(&app.base_url, Some(&app.test_key), &config),
            &["listen", "--forward-to", "https://example.com/hooks"],
        )
        .await;
        assert_eq!(status, 2);
        assert!(stderr.contains("is not on this machine") && stderr.contains("--allow-remote"), "{stderr}");

        let (status, _, stderr) = output(courier(&app.base_url, None, &config), &["deliveries", "list"]).await;
        assert_eq!(status, 2);
        assert!(stderr.contains("no API key"), "{stderr}");
    }
}
