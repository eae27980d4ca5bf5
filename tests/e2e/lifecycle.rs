//! The test-mode courier simulator (docs/guide.md "Delivery states"): the
//! default run, each scenario's ending, a restart in the middle, and two
//! cores on one PostgreSQL database stepping each delivery exactly once.

use std::time::Duration;

use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::harness::{Backend, TestApp, together, wait_until};
use crate::proofs::pod_workspace;

/// How long a whole simulated run may take with the tests' 50 ms step.
pub const RUN_LIMIT: Duration = Duration::from_secs(30);

/// The events of a default run, oldest first, as `(type, data.status)`.
pub fn default_run() -> Vec<(String, String)> {
    [
        ("delivery.created", "pending"),
        ("delivery.courier_assigned", "courier_assigned"),
        ("delivery.courier_arrived", "at_pickup"),
        ("delivery.status_updated", "picked_up"),
        ("delivery.status_updated", "in_transit"),
        ("delivery.eta_updated", "in_transit"),
        ("delivery.status_updated", "at_dropoff"),
        ("delivery.pod_submitted", "at_dropoff"),
        ("delivery.delivered", "delivered"),
    ]
    .iter()
    .map(|(t, s)| (t.to_string(), s.to_string()))
    .collect()
}

fn with_scenario(scenario: &str) -> Value {
    let mut body = berlin_delivery();
    body["test_scenario"] = json!(scenario);
    body
}

e2e! {
    async fn the_default_run_passes_every_status_and_ends_delivered(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({
            "pickup": { "photos": 1, "sender_name": true },
            "dropoff": { "photos": 2, "signature": true, "recipient_name": true, "barcode": true, "age_check": true }
        });
        let created = app.create_delivery(&pod.test_key, &body).await;
        let id = created["id"].as_str().expect("id");
        assert_eq!(created["status"], "pending");

        // While it runs, tracking opens with the courier and its position.
        let assigned_or_later = wait_until(format!("{id} assigned a courier"), RUN_LIMIT, async || {
            let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), &pod.test_key).await;
            assert_eq!(tracking.status, 200, "{:#}", tracking.body);
            if tracking.body["status"] != "pending" { Ok(tracking.body) } else { Err(tracking.body) }
        })
        .await;
        assert!(assigned_or_later["tracking_available_at"].is_string(), "{assigned_or_later:#}");
        assert!(assigned_or_later["courier"]["name"].is_string());
        assert!(assigned_or_later["courier"]["location"]["latitude"].is_f64());
        assert!(assigned_or_later["eta"]["dropoff_at"].is_string());

        let delivered = app.wait_for_status(&pod.test_key, id, "delivered", RUN_LIMIT).await;
        assert!(delivered["delivered_at"].is_string());
        assert!(delivered["cancelled_at"].is_null());
        let courier = &delivered["courier"];
        assert!(courier["photo_url"].as_str().expect("photo").starts_with("data:image/svg+xml"));
        assert!(courier["rating"].is_f64());
        let plate = courier["vehicle"]["license_plate"].as_str().expect("plate");
        assert!(plate.starts_with("***") && plate.chars().filter(|c| *c != '*').count() == 2, "masked: {plate}");

        assert_eq!(app.delivery_events(&pod.test_key, id).await, default_run());

        // The generated proof satisfies the rules and downloads.
        let pod_answer = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &pod.test_key).await;
        assert_eq!(pod_answer.status, 200, "{:#}", pod_answer.body);
        let checkpoints = pod_answer.body["checkpoints"].as_array().expect("checkpoints");
        assert_eq!(checkpoints.len(), 2);
        let dropoff = &checkpoints[1];
        assert_eq!(dropoff["kind"], "dropoff");
        let kinds: Vec<&str> = dropoff["artifacts"].as_array().expect("artifacts").iter().map(|a| a["kind"].as_str().unwrap_or_default()).collect();
        assert_eq!(kinds, ["photo", "photo", "signature"]);
        let url = dropoff["artifacts"][0]["download_url"].as_str().expect("url");
        let file = app.http.get(url).send().await.expect("download");
        assert_eq!(file.status(), 200);
        assert!(file.bytes().await.expect("bytes").starts_with(b"\x89PNG"));

        // Ended: the tracking endpoint shows the final state, no ETA moves.
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), &pod.test_key).await;
        assert_eq!(tracking.body["status"], "delivered");
        assert_eq!(tracking.body["tracking_url"], delivered["tracking_url"]);
    }

    async fn each_scenario_ends_with_its_reason(app: TestApp) {
        let cases = [
            ("no_courier_found", "no_courier_found", "pending"),
            ("courier_cancelled", "cancelled_by_maxmove", "courier_assigned"),
            ("pickup_no_show", "pickup_no_show", "at_pickup"),
            ("delivery_failed", "cancelled_by_maxmove", "at_dropoff"),
        ];
        let mut ids = Vec::new();
        for (scenario, _, _) in cases {
            let created = app.create_delivery(&app.test_key, &with_scenario(scenario)).await;
            ids.push(created["id"].as_str().expect("id").to_owned());
        }
        for (id, (scenario, reason, last_status)) in ids.iter().zip(cases) {
            let ended = app.wait_for_status(&app.test_key, id, "cancelled", RUN_LIMIT).await;
            assert_eq!(ended["cancellation_reason"], reason, "{scenario}");
            assert!(ended["cancelled_at"].is_string());
            assert!(ended["delivered_at"].is_null());
            let events = app.delivery_events(&app.test_key, id).await;
            let (last, before) = events.split_last().expect("events");
            assert_eq!(last, &("delivery.cancelled".to_owned(), "cancelled".to_owned()), "{scenario}");
            assert_eq!(before.last().map(|e| e.1.as_str()), Some(last_status), "{scenario}: {events:?}");
            assert_eq!(before, &default_run()[..before.len()], "{scenario}");
        }
    }
}

// A slower step, so that a test can act between two steps.
e2e! {
    with |config| config.simulator_step = Duration::from_millis(400);

    async fn a_test_delivery_cancels_before_pickup_only(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id");
        app.wait_for_status(&app.test_key, id, "courier_assigned", RUN_LIMIT).await;
        let cancelled = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({})).await;
        // A step may land in between; both are before pickup.
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        assert_eq!(cancelled.body["cancellation_reason"], "cancelled_by_you");

        // A witness booked after the cancel: once the simulator has moved it
        // three steps, it has had every chance to step the cancelled one.
        let witness = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let witness = witness["id"].as_str().expect("id");
        app.wait_for_status(&app.test_key, witness, "picked_up", RUN_LIMIT).await;
        let after = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(after.body["status"], "cancelled", "the simulator leaves a cancelled delivery alone");

        app.post(&format!("/v1/deliveries/{witness}/cancel"), &app.test_key, &json!({}))
            .await
            .assert_error(409, "not_cancellable", None);
        app.wait_for_status(&app.test_key, witness, "delivered", RUN_LIMIT).await;
    }

    // A read answers what was committed before it began, or later: reads
    // racing the simulator's writes never see a delivery go back (on
    // SQLite they are answered from the delivery cache when they can).
    async fn reads_never_go_back_while_the_delivery_moves(app: TestApp) {
        const ORDER: [&str; 7] = ["pending", "courier_assigned", "at_pickup", "picked_up", "in_transit", "at_dropoff", "delivered"];
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let path = format!("/v1/deliveries/{}", created["id"].as_str().expect("id"));
        let mut reached = 0;
        wait_until(format!("{path} delivered"), RUN_LIMIT, async || {
            let reads = together((0..4).map(|_| {
                let (http, url, key) = (app.http.clone(), app.url(&path), app.test_key.clone());
                async move {
                    let body: Value = http.get(url).header("x-api-key", key).send().await.expect("sent").json().await.expect("json");
                    let status = body["status"].as_str().expect("status").to_owned();
                    ORDER.iter().position(|s| *s == status).expect("a status of the default run")
                }
            }))
            .await;
            let earliest = reads.iter().copied().min().unwrap_or_default();
            assert!(earliest >= reached, "read {} after {} had been read", ORDER[earliest], ORDER[reached]);
            reached = reads.into_iter().max().unwrap_or(reached);
            if reached == ORDER.len() - 1 { Ok(()) } else { Err(ORDER[reached]) }
        })
        .await;
    }

    async fn a_restarted_core_continues_the_simulation(app: TestApp) {
        let mut app = app;
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        app.wait_for_status(&app.test_key, &id, "courier_assigned", RUN_LIMIT).await;
        app.restart_core().await;
        app.wait_for_status(&app.test_key, &id, "delivered", RUN_LIMIT).await;
        assert_eq!(app.delivery_events(&app.test_key, &id).await, default_run());
    }
}

/// Replicas share a PostgreSQL database: two cores' simulators step each
/// delivery exactly once. (A SQLite database is served by one process,
/// `db::ServeLock`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_cores_on_one_postgres_step_each_delivery_once() {
    crate::harness::limited(async {
        let step = |config: &mut courier_store::config::CoreConfig| config.simulator_step = Duration::from_millis(100);
        let Some(app) = TestApp::spawn_with(Backend::Postgres, step).await else {
            return;
        };
        // A second core (own simulator and workers) on the same database.
        let second = courier_server::serving::open_core((*app.core.config).clone(), app.clock.clone())
            .await
            .expect("second core");
        let stop = tokio_util::sync::CancellationToken::new();
        let mut workers = courier_server::workers::spawn(&second, &stop, courier_server::workers::Role::All);

        let mut ids = Vec::new();
        for _ in 0..6 {
            let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
            ids.push(created["id"].as_str().expect("id").to_owned());
        }
        for id in &ids {
            app.wait_for_status(&app.test_key, id, "delivered", RUN_LIMIT).await;
            assert_eq!(app.delivery_events(&app.test_key, id).await, default_run(), "{id}");
        }
        stop.cancel();
        while workers.join_next().await.is_some() {}
    })
    .await;
}
