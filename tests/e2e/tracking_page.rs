//! The public tracking page, `GET /t/{token}` (docs/guide.md "Tracking"):
//! keyless HTML with the status, courier and route, and nothing of the
//! contacts.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use courier::app::v1 as apb;
use courier_orders::deliveries::{Change, Courier, CourierLocation, CourierVehicle};
use courier_orders::lifecycle::Status;
use serde_json::{Value, json};

use crate::browser::Driver;
use crate::deliveries::berlin_delivery;
use crate::harness::{Backend, TestApp, move_delivery, unique_suffix, wait_until};

/// A live delivery (the simulator leaves it alone) with notes and contacts.
async fn delivery(app: &TestApp) -> Value {
    let mut body = berlin_delivery();
    body["notes"] = json!("Fragile: glass vase");
    body["stops"] = json!([{ "address": "Rosenthaler Str. 40, 10178 Berlin", "latitude": 52.5255, "longitude": 13.4020,
        "contact": { "name": "Stella Stop", "phone": "+49 30 7654321" } }]);
    app.create_delivery(&app.live_key, &body).await
}

fn token(delivery: &Value) -> String {
    let url = delivery["tracking_url"].as_str().expect("tracking_url");
    url.rsplit('/').next().expect("token").to_owned()
}

/// Assigns a courier as dispatch would: status, courier and tracking.
async fn assign_courier(app: &TestApp, id: &str) {
    let now = app.clock.now_micros();
    let courier = Courier {
        id: None,
        name: Some("Lena Vogel".into()),
        photo_url: None,
        rating: Some(4.8),
        vehicle: Some(CourierVehicle {
            make: Some("Urban Arrow".into()),
            model: Some("Cargo L".into()),
            color: Some("green".into()),
            license_plate: Some("B-MM 4711".into()),
            photo_url: None,
        }),
        location: Some(CourierLocation {
            latitude: 52.5190,
            longitude: 13.4100,
            recorded_at: Some(now),
        }),
    };
    let change = Change::default()
        .courier(courier)
        .tracking_opens(now)
        .pickup_eta(Some(now + 7 * 60_000_000));
    let moved = move_delivery(&app.core, id, Status::Pending, Status::CourierAssigned, change).await;
    assert!(moved);
}

/// Contact data and other private fields that must never show on the page.
const PRIVATE: [&str; 10] = [
    "Ana Sender",
    "Rui Receiver",
    "Stella Stop",
    "+49",
    "rui@example.com",
    "Ring twice",
    "Fragile",
    "Alexanderplatz",
    "Oranienstra",
    "Vogel",
];

e2e! {
    async fn the_page_shows_status_courier_and_route_but_no_contacts(app: TestApp) {
        let created = delivery(&app).await;
        let path = format!("/t/{}", token(&created));
        let answer = app.send(app.http.get(app.url(&path))).await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(answer.header("cache-control"), Some("no-store"));
        let csp = answer.header("content-security-policy").expect("csp");
        assert!(csp.starts_with("default-src 'none'") && csp.contains("style-src 'unsafe-inline'"), "{csp}");
        assert_eq!(answer.header("referrer-policy"), Some("no-referrer"));
        let html = answer.body.as_str().expect("html");
        assert!(html.contains("Finding a courier"), "{html}");
        assert!(html.contains("name=\"viewport\"") && html.contains("http-equiv=\"refresh\""));
        assert!(html.contains("<svg") && html.contains("Berlin"));
        for private in PRIVATE {
            assert!(!html.contains(private), "{private} shown on the page");
        }

        assign_courier(&app, created["id"].as_str().expect("id")).await;
        let html = app.send(app.http.get(app.url(&path))).await.body.as_str().expect("html").to_owned();
        assert!(html.contains("Courier on the way to pickup"), "{html}");
        assert!(html.contains(">Lena<") && html.contains("Green Urban Arrow Cargo L · B-MM 4711"), "{html}");
        assert!(html.contains("id=\"courier-position\"") && html.contains("in about 7 min"), "{html}");
        for private in PRIVATE {
            assert!(!html.contains(private), "{private} shown on the page");
        }

        // Cancelled: the position goes, the plate is masked.
        let cancel = app.post(&format!("/v1/deliveries/{}/cancel", created["id"].as_str().expect("id")), &app.live_key, &json!({})).await;
        assert_eq!(cancel.status, 200, "{:#}", cancel.body);
        let html = app.send(app.http.get(app.url(&path))).await.body.as_str().expect("html").to_owned();
        assert!(html.contains(">Cancelled<") && html.contains("*******11") && !html.contains("courier-position"), "{html}");
    }

    async fn a_picked_up_delivery_s_page_shows_the_dropoff_eta_before_any_position(app: TestApp) {
        // A courier of the platform takes a live delivery and picks it up
        // without having reported a single position: the ETA must not wait
        // for one.
        let created = delivery(&app).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let path = format!("/t/{}", token(&created));
        let kim = crate::couriers::join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        crate::couriers::assign(&app, &id, &kim.courier.id).await.expect("assign");
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("pick up");

        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), &app.live_key).await;
        assert_eq!(tracking.body["status"], "picked_up", "{:#}", tracking.body);
        assert!(tracking.body["eta"]["dropoff_at"].is_string(), "a dropoff ETA: {:#}", tracking.body);
        let html = app.send(app.http.get(app.url(&path))).await.body.as_str().expect("html").to_owned();
        assert!(html.contains("<h1 id=\"status\">Picked up</h1>"), "{html}");
        assert!(html.contains("id=\"eta\"") && html.contains("Estimated arrival") && html.contains("in about "), "{html}");

        // Setting off without a position to compute a new one keeps it.
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        let html = app.send(app.http.get(app.url(&path))).await.body.as_str().expect("html").to_owned();
        assert!(html.contains("<h1 id=\"status\">On the way</h1>"), "{html}");
        assert!(html.contains("id=\"eta\"") && html.contains("Estimated arrival"), "{html}");
    }

    async fn an_unknown_token_is_a_friendly_404_page(app: TestApp) {
        for token in ["doesnotexist0000000000000000000000", "x%3Cscript%3E"] {
            let answer = app.send(app.http.get(app.url(&format!("/t/{token}")))).await;
            assert_eq!(answer.status, 404);
            assert_eq!(answer.header("content-type"), Some("text/html; charset=utf-8"));
            assert_eq!(answer.header("cache-control"), Some("no-store"));
            let html = answer.body.as_str().expect("html");
            assert!(html.contains("Tracking link not found") && !html.contains("<script"), "{html}");
        }
    }
}

e2e! {
    async fn the_open_page_follows_the_delivery_in_place(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let created = delivery(&app).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = crate::couriers::join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        crate::couriers::assign(&app, &id, &kim.courier.id).await.expect("assign");

        // The recipient opens the link on a phone.
        let phone = driver.phone().await;
        phone.open(created["tracking_url"].as_str().expect("tracking_url")).await;
        assert_eq!(phone.text("#status").await, "Courier on the way to pickup");
        // A mark on this page: a reload (or a new page) would lose it.
        phone.client.execute("window.__same = 1", vec![]).await.expect("mark the page");

        // The courier arrives at the pickup; the page's updater (every 15 s)
        // swaps the new status in.
        let mut client = kim.client.clone();
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        wait_until("the status to change on the open page", Duration::from_secs(45), async || {
            match phone.text("#status").await {
                status if status == "Courier at pickup" => Ok(()),
                status => Err(status),
            }
        })
        .await;
        let same = phone.client.execute("return window.__same === 1", vec![]).await.expect("read the mark");
        assert_eq!(same, Value::Bool(true), "the page was updated in place, not reloaded");
        assert_eq!(phone.client.title().await.expect("title"), "Delivery: Courier at pickup");
        phone.accessible().await;
        phone.close().await;
    }
}

/// Runs `command` to completion; fails after `limit`, killing it and the
/// processes it started (its own process group).
async fn run_with_timeout(mut command: Command, limit: Duration) -> std::process::Output {
    let child = command
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let group = format!("-{}", child.id());
    let mut output = tokio::task::spawn_blocking(move || child.wait_with_output());
    if let Ok(output) = tokio::time::timeout(limit, &mut output).await {
        return output.expect("chromium task").expect("output");
    }
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(Stdio::null())
        .status();
    let output = output.await.expect("chromium task").expect("output");
    panic!(
        "chromium did not finish in {limit:?}; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A real browser renders the page (no script, no network beyond the page)
/// and shows the status and courier. Runs once, on SQLite: the browser is
/// what is under test here, not the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headless_browser_renders_the_tracking_page() {
    crate::harness::limited(async {
        const CHROMIUM: &str = "/usr/bin/chromium";
        if !std::path::Path::new(CHROMIUM).exists() {
            assert!(
                std::env::var("COURIER_TEST_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
                "COURIER_TEST_REQUIRE_CHROMIUM=1 but {CHROMIUM} is missing"
            );
            eprintln!("{CHROMIUM} not found; headless-browser test skipped (install chromium to run it)");
            return;
        }
        let app = TestApp::spawn(Backend::Sqlite).await.expect("app");
        let created = delivery(&app).await;
        assign_courier(&app, created["id"].as_str().expect("id")).await;
        let url = app.url(&format!("/t/{}", token(&created)));
        let profile = std::env::temp_dir().join(format!("courier-e2e-chromium-{}", unique_suffix()));
        let mut command = Command::new(CHROMIUM);
        command.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ]);
        command.arg(format!("--user-data-dir={}", profile.display()));
        command.args(["--dump-dom", &url]);
        let output = run_with_timeout(command, Duration::from_secs(90)).await;
        let _ = std::fs::remove_dir_all(&profile);
        let dom = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "chromium failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            dom.contains("Courier on the way to pickup"),
            "status missing from DOM: {dom}"
        );
        assert!(dom.contains("Lena"), "courier name missing from DOM: {dom}");
        assert!(
            dom.contains("courier-position"),
            "route drawing missing from DOM: {dom}"
        );
        for private in PRIVATE {
            assert!(!dom.contains(private), "{private} shown on the page");
        }
    })
    .await;
}
