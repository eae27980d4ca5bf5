//! Deliveries: create with idempotency, get, list with page tokens, cancel
//! (docs/guide.md "Deliveries", "Delivery states", "Idempotency").

use std::collections::HashSet;

use courier::internal::v1 as admin_pb;
use courier::v1::Mode;
use courier_orders::deliveries::Change;
use courier_orders::lifecycle::Status;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::harness::{TestApp, move_delivery, together, unique_suffix};
use crate::quotes::{alexanderplatz, kreuzberg, place};

fn contact(name: &str) -> Value {
    json!({ "name": name, "phone": "+49 30 1234567" })
}

/// A valid delivery request inside Berlin.
pub fn berlin_delivery() -> Value {
    let mut pickup = alexanderplatz();
    pickup["contact"] = contact("Ana Sender");
    let mut dropoff = kreuzberg();
    dropoff["contact"] = json!({ "name": "Rui Receiver", "phone": "+49 151 2345678", "email": "rui@example.com" });
    dropoff["instructions"] = json!("Ring twice");
    json!({ "pickup": pickup, "dropoff": dropoff, "vehicle_type_id": "cargo_bike" })
}

const DELIVERY_FIELDS: [&str; 35] = [
    "id",
    "status",
    "mode",
    "external_id",
    "quote_id",
    "amount_cents",
    "currency",
    "tax_behavior",
    "breakdown",
    "pickup",
    "dropoff",
    "stops",
    "vehicle_type_id",
    "notes",
    "scheduled_at",
    "proof_of_delivery",
    "tracking_available_at",
    "tracking_url",
    "courier",
    "created_at",
    "updated_at",
    "cancelled_at",
    "cancellation_reason",
    "delivered_at",
    "pickup_window",
    "dropoff_window",
    "pickup_eta",
    "dropoff_eta",
    "batching",
    "notifications",
    "dropoff_pin",
    "undeliverable_action",
    "return_of",
    "return_delivery_id",
    "tip_cents",
];

async fn event_types(app: &TestApp, delivery_id: &str) -> Vec<String> {
    use courier_orders::events::entity;
    let mut rows = entity::Entity::find()
        .filter(entity::Column::DeliveryId.eq(delivery_id))
        .all(&app.core.db)
        .await
        .expect("events");
    rows.sort_by_key(|r| r.created_at);
    rows.into_iter().map(|r| r.r#type).collect()
}

async fn count_deliveries(app: &TestApp) -> i64 {
    stored_text(app, "SELECT CAST(COUNT(*) AS TEXT) FROM deliveries")
        .await
        .and_then(|n| n.parse().ok())
        .expect("count")
}

/// The first column of the first row `sql` reads, as text. The deliveries
/// table is the core's own; tests read it in SQL, as an operator would.
async fn stored_text(app: &TestApp, sql: &str) -> Option<String> {
    let backend = app.core.db.get_database_backend();
    let row = app
        .core
        .db
        .query_one_raw(sea_orm::Statement::from_string(backend, sql))
        .await
        .expect("query")?;
    row.try_get_by_index::<Option<String>>(0).expect("text column")
}

/// Moves a delivery along the state machine as a dispatcher would.
async fn force_status(app: &TestApp, id: &str, path: &[Status]) {
    for pair in path.windows(2) {
        let moved = move_delivery(&app.core, id, pair[0], pair[1], Change::default()).await;
        assert!(moved, "{:?} -> {:?}", pair[0], pair[1]);
    }
}

// These tests move deliveries themselves (or need them to stay put), so
// the simulator's first step is an hour away.
e2e! {
    with |config| config.simulator_step = std::time::Duration::from_secs(3600);

    async fn create_answers_a_complete_delivery(app: TestApp) {
        let answer = app.post_idempotent("/v1/deliveries", &app.test_key, "k1", &berlin_delivery()).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        let d = &answer.body;
        let keys: HashSet<&str> = d.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(keys, DELIVERY_FIELDS.into_iter().collect::<HashSet<_>>());
        assert!(d["id"].as_str().expect("id").starts_with("del_"));
        assert_eq!((d["status"].as_str(), d["mode"].as_str()), (Some("pending"), Some("test")));
        assert_eq!(d["tax_behavior"], "inclusive");
        assert_eq!(d["currency"], "EUR");
        assert!(d["tracking_url"].as_str().expect("url").starts_with(&format!("{}/t/", app.base_url)));
        assert_eq!(d["proof_of_delivery"], json!({
            "pickup": {"photos": 1, "signature": false, "sender_name": false, "barcode": false},
            "dropoff": {"photos": 1, "signature": false, "recipient_name": false, "barcode": false, "age_check": false, "leave_at_door": false, "pin": false}
        }));
        assert_eq!(d["dropoff"]["contact"]["email"], "rui@example.com");
        assert!(d["pickup"]["contact"]["email"].is_null());
        assert!(d["courier"].is_null() && d["cancelled_at"].is_null() && d["cancellation_reason"].is_null());
        assert!(d["external_id"].is_null() && d["quote_id"].is_null() && d["notes"].is_null());
        let b = &d["breakdown"];
        let extras: i64 = b["extras"].as_array().expect("extras").iter().map(|e| e["amount_cents"].as_i64().expect("c")).sum();
        assert_eq!(d["amount_cents"].as_i64(), Some(b["route_cents"].as_i64().expect("r") + extras - b["discount_cents"].as_i64().expect("d") + b["service_fee_cents"].as_i64().expect("f")));
        assert_eq!(event_types(&app, d["id"].as_str().expect("id")).await, ["delivery.created"]);

        let got = app.get(&format!("/v1/deliveries/{}", d["id"].as_str().expect("id")), &app.test_key).await;
        assert_eq!(got.status, 200);
        assert_eq!(&got.body, d);
    }

    async fn idempotency_key_rules(app: TestApp) {
        let body = berlin_delivery();
        let answer = app.post("/v1/deliveries", &app.test_key, &body).await;
        answer.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        let answer = app.post_idempotent("/v1/deliveries", &app.test_key, &"k".repeat(256), &body).await;
        answer.assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));
        let long = "k".repeat(255);
        let first = app.post_idempotent("/v1/deliveries", &app.test_key, &long, &body).await;
        assert_eq!(first.status, 201);
        assert_eq!(first.header("idempotent-replayed"), None);

        // Same key, same body (other key order and spacing): the first answer, byte for byte.
        let reordered: Value = serde_json::from_str(&serde_json::to_string_pretty(&body).expect("json")).expect("json");
        let request = app.http.post(app.url("/v1/deliveries")).header("x-api-key", &app.test_key).header("idempotency-key", &long)
            .header("content-type", "application/json")
            .body(format!("  {{ \"vehicle_type_id\": \"cargo_bike\", \"dropoff\": {}, \"pickup\": {} }}", reordered["dropoff"], reordered["pickup"]));
        let replay = app.send(request).await;
        assert_eq!(replay.status, 201);
        assert_eq!(replay.header("idempotent-replayed"), Some("true"));
        assert_eq!(replay.body, first.body);
        let raw = |response: &crate::harness::Answer| serde_json::to_string(&response.body).expect("json");
        assert_eq!(raw(&replay), raw(&first));
        assert_eq!(count_deliveries(&app).await, 1);

        // Same key, different body.
        let mut other = body.clone();
        other["notes"] = json!("different");
        let answer = app.post_idempotent("/v1/deliveries", &app.test_key, &long, &other).await;
        answer.assert_error(409, "idempotency_key_reused", Some("Idempotency-Key"));

        // The same key in the other mode is another key.
        let live = app.post_idempotent("/v1/deliveries", &app.live_key, &long, &body).await;
        assert_eq!(live.status, 201);
        assert_ne!(live.body["id"], first.body["id"]);

        // A refusal (4xx) is stored and replayed with the first request id.
        let mut bad = body.clone();
        bad["notes"] = json!("n".repeat(2001));
        let refused = app.post_idempotent("/v1/deliveries", &app.test_key, "bad-notes", &bad).await;
        refused.assert_error(400, "invalid_request", Some("notes"));
        let again = app.post_idempotent("/v1/deliveries", &app.test_key, "bad-notes", &bad).await;
        assert_eq!((again.status, again.header("idempotent-replayed")), (400, Some("true")));
        assert_eq!(again.body, refused.body);

        // Keys are kept 24 hours.
        app.clock.advance(std::time::Duration::from_secs(24 * 3600 + 1));
        let later = app.post_idempotent("/v1/deliveries", &app.test_key, &long, &body).await;
        assert_eq!((later.status, later.header("idempotent-replayed")), (201, None));
        assert_ne!(later.body["id"], first.body["id"]);
        let purged = courier_orders::idempotency::purge_expired(&app.core.writer, app.clock.now_micros()).await.expect("purge");
        assert!(purged >= 2, "purged {purged}");
    }

    async fn concurrent_identical_creates_make_one_delivery(app: TestApp) {
        let body = berlin_delivery();
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let (http, url, key, body) = (app.http.clone(), app.url("/v1/deliveries"), app.test_key.clone(), body.clone());
            tasks.push(tokio::spawn(async move {
                let response = http.post(url).header("x-api-key", key).header("idempotency-key", "same-key").json(&body).send().await.expect("sent");
                let status = response.status().as_u16();
                (status, response.json::<Value>().await.expect("json"))
            }));
        }
        let mut ids = HashSet::new();
        for task in tasks {
            let (status, body) = task.await.expect("task");
            match status {
                201 => { ids.insert(body["id"].as_str().expect("id").to_owned()); }
                409 => assert_eq!(body["error"]["code"], "request_in_progress", "{body:#}"),
                other => panic!("unexpected {other}: {body:#}"),
            }
        }
        assert_eq!(ids.len(), 1);
        assert_eq!(count_deliveries(&app).await, 1);
    }

    // Creates arriving together share one transaction (group commit); each
    // keeps its own answer, and one refused create does not take the others
    // with it.
    async fn concurrent_creates_keep_their_own_answers(app: TestApp) {
        let send = |n: usize| {
            let (http, url, key) = (app.http.clone(), app.url("/v1/deliveries"), app.test_key.clone());
            let mut body = berlin_delivery();
            // Three creates want the same external_id: one gets it.
            body["external_id"] = json!(if n.is_multiple_of(10) { "shared".to_owned() } else { format!("order-{n}") });
            async move {
                let response = http.post(url).header("x-api-key", key).header("idempotency-key", format!("together-{n}")).json(&body).send().await.expect("sent");
                let replayed = response.headers().get("idempotent-replayed").is_some();
                (response.status().as_u16(), replayed, response.json::<Value>().await.expect("json"))
            }
        };
        let first: Vec<_> = together((0..30).map(send)).await;
        let created: Vec<&Value> = first.iter().filter(|(status, ..)| *status == 201).map(|(_, _, body)| body).collect();
        assert_eq!(created.len(), 28, "{first:#?}");
        for (status, replayed, body) in &first {
            assert!(!replayed);
            if *status == 409 {
                assert_eq!(body["error"]["code"], "duplicate_external_id", "{body:#}");
            }
        }
        let ids: HashSet<&str> = created.iter().map(|d| d["id"].as_str().expect("id")).collect();
        assert_eq!(ids.len(), 28);
        assert_eq!(count_deliveries(&app).await, 28);
        for id in &ids {
            assert_eq!(event_types(&app, id).await, ["delivery.created"]);
        }
        // Every key answers again as it first did.
        let again: Vec<_> = together((0..30).map(send)).await;
        for ((status, _, body), (status_again, replayed, body_again)) in first.iter().zip(&again) {
            assert_eq!((status, true), (status_again, *replayed));
            if *status == 201 {
                assert_eq!(body, body_again);
            } else {
                assert_eq!(body["error"], body_again["error"]);
            }
        }
        assert_eq!(count_deliveries(&app).await, 28);
    }

    async fn a_crash_after_commit_is_recovered_by_retrying(app: TestApp) {
        app.core.faults.fail_after_commit.store(true, std::sync::atomic::Ordering::SeqCst);
        let body = berlin_delivery();
        let first = app.post_idempotent("/v1/deliveries", &app.test_key, "crash", &body).await;
        assert_eq!(first.status, 500, "{:#}", first.body);
        let retry = app.post_idempotent("/v1/deliveries", &app.test_key, "crash", &body).await;
        assert_eq!((retry.status, retry.header("idempotent-replayed")), (201, Some("true")));
        assert_eq!(count_deliveries(&app).await, 1);
        assert_eq!(event_types(&app, retry.body["id"].as_str().expect("id")).await, ["delivery.created"]);
    }

    async fn field_rules(app: TestApp) {
        let app = &app;
        let check = |param: &'static str| move |answer: crate::harness::Answer| answer.assert_error(400, "invalid_request", Some(param));
        let post = |body: Value| async move { app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &body).await };
        let mut body = berlin_delivery();
        body["pickup"].as_object_mut().expect("o").remove("contact");
        check("pickup.contact")(post(body).await);
        let mut body = berlin_delivery();
        body["dropoff"]["contact"]["phone"] = json!("12345");
        check("dropoff.contact.phone")(post(body).await);
        let mut body = berlin_delivery();
        body["dropoff"]["contact"]["name"] = json!("");
        check("dropoff.contact.name")(post(body).await);
        let mut body = berlin_delivery();
        body["dropoff"]["contact"]["email"] = json!("not-an-email");
        check("dropoff.contact.email")(post(body).await);
        let mut body = berlin_delivery();
        body["dropoff"]["instructions"] = json!("i".repeat(501));
        check("dropoff.instructions")(post(body).await);
        let mut body = berlin_delivery();
        body["dropoff"]["instructions"] = json!("i".repeat(500));
        body["stops"] = json!([place("Potsdamer Platz 1, 10785 Berlin", 52.5096, 13.3759)]);
        assert_eq!(post(body).await.status, 201, "stops need no contact");
        let mut body = berlin_delivery();
        body["notes"] = json!("n".repeat(2000));
        body["external_id"] = json!("e".repeat(128));
        assert_eq!(post(body.clone()).await.status, 201);
        body["external_id"] = json!("e".repeat(129));
        check("external_id")(post(body.clone()).await);
        body["external_id"] = json!("");
        check("external_id")(post(body).await);

        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({"dropoff": {"leave_at_door": true, "age_check": true}});
        check("proof_of_delivery.dropoff.leave_at_door")(post(body.clone()).await);
        body["proof_of_delivery"] = json!({"pickup": {"photos": 0}});
        check("proof_of_delivery.pickup.photos")(post(body.clone()).await);
        body["proof_of_delivery"] = json!({"dropoff": {"photos": 11}});
        check("proof_of_delivery.dropoff.photos")(post(body.clone()).await);
        body["proof_of_delivery"] = json!({"dropoff": {"signatur": true}});
        check("proof_of_delivery.dropoff.signatur")(post(body.clone()).await);
        body["proof_of_delivery"] = json!({"pickup": {"photos": 10, "barcode": true}, "dropoff": {"leave_at_door": true, "signature": true}});
        let created = post(body).await;
        assert_eq!(created.status, 201);
        assert_eq!(created.body["proof_of_delivery"]["pickup"], json!({"photos": 10, "signature": false, "sender_name": false, "barcode": true}));
        assert_eq!(created.body["proof_of_delivery"]["dropoff"]["leave_at_door"], true);
        assert_eq!(created.body["proof_of_delivery"]["dropoff"]["photos"], 1);

        let mut body = berlin_delivery();
        body["test_scenario"] = json!("pickup_no_show");
        assert_eq!(post(body.clone()).await.status, 201);
        let live = app.post_idempotent("/v1/deliveries", &app.live_key, &unique_suffix(), &body).await;
        live.assert_error(400, "invalid_request", Some("test_scenario"));
        body["test_scenario"] = json!("meteor_strike");
        check("test_scenario")(post(body).await);
        let mut body = berlin_delivery();
        body["batching"] = json!("sometimes");
        check("batching")(post(body).await);

        let mut body = berlin_delivery();
        body["pickup"] = json!({"address": "Rue de Rivoli 1, Paris", "latitude": 48.8566, "longitude": 2.3522, "contact": contact("A")});
        post(body).await.assert_error(400, "service_area_unavailable", Some("pickup"));
    }

    async fn external_id_is_unique_per_workspace_and_mode(app: TestApp) {
        let mut body = berlin_delivery();
        body["external_id"] = json!("order-42");
        let first = app.create_delivery(&app.test_key, &body).await;
        assert_eq!(first["external_id"], "order-42");
        let dup = app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &body).await;
        dup.assert_error(409, "duplicate_external_id", Some("external_id"));
        app.create_delivery(&app.live_key, &body).await;
        let other = app.create_workspace(admin_pb::WorkspaceKind::Business, Default::default()).await;
        let other_key = app.create_key(&other, Mode::Test, &[]).await;
        app.create_delivery(&other_key, &body).await;
        let listed = app.get("/v1/deliveries?external_id=order-42", &app.test_key).await;
        assert_eq!(listed.body["deliveries"].as_array().expect("list").len(), 1);
    }

    async fn quote_locks_the_price(app: TestApp) {
        let app = &app;
        let quote_body = json!({"pickup": alexanderplatz(), "dropoff": kreuzberg(), "vehicle_type_id": "cargo_bike"});
        let quote = app.post("/v1/quotes", &app.test_key, &quote_body).await.body;
        let mut body = berlin_delivery();
        body["quote_id"] = quote["id"].clone();
        let delivery = app.create_delivery(&app.test_key, &body).await;
        assert_eq!(delivery["quote_id"], quote["id"]);
        assert_eq!(delivery["amount_cents"], quote["amount_cents"]);
        assert_eq!(delivery["breakdown"], quote["breakdown"]);
        // A quote may be used again while valid.
        app.create_delivery(&app.test_key, &body).await;

        let post = |body: Value| async move { app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &body).await };
        let mut moved = body.clone();
        moved["dropoff"]["latitude"] = json!(52.5011);
        post(moved).await.assert_error(400, "quote_mismatch", Some("dropoff"));
        let mut vehicle = body.clone();
        vehicle["vehicle_type_id"] = json!("car");
        post(vehicle).await.assert_error(400, "quote_mismatch", Some("vehicle_type_id"));
        let mut extras = body.clone();
        extras["extras"] = json!([{"extra_id": "cooling_box"}]);
        post(extras).await.assert_error(400, "quote_mismatch", Some("extras"));
        let mut scheduled = body.clone();
        scheduled["scheduled_at"] = json!(courier::time::format_rfc3339(app.clock.now() + chrono::Duration::hours(2)));
        post(scheduled).await.assert_error(400, "quote_mismatch", Some("scheduled_at"));
        // Contacts, instructions and notes are not part of the route.
        let mut notes = body.clone();
        notes["notes"] = json!("Fragile");
        notes["dropoff"]["instructions"] = json!("Back door");
        assert_eq!(post(notes).await.status, 201);

        let mut unknown = body.clone();
        unknown["quote_id"] = json!("quo_doesnotexist");
        post(unknown).await.assert_error(400, "quote_not_found", Some("quote_id"));
        let live = app.post_idempotent("/v1/deliveries", &app.live_key, &unique_suffix(), &body).await;
        live.assert_error(400, "quote_not_found", Some("quote_id"));

        app.clock.advance(std::time::Duration::from_secs(301));
        post(body).await.assert_error(400, "quote_expired", Some("quote_id"));
    }

    async fn live_creates_pass_the_billing_checks_in_order(app: TestApp) {
        let billing = |enabled, limit| admin_pb::BillingState { invoice_billing_enabled: enabled, credit_limit_cents: limit, ..Default::default() };
        let body = berlin_delivery();
        let disabled = app.create_workspace_with(admin_pb::WorkspaceKind::Business, Default::default(), billing(false, 1_000_000)).await;
        let key = app.create_key(&disabled, Mode::Live, &[]).await;
        let answer = app.post_idempotent("/v1/deliveries", &key, "b1", &body).await;
        answer.assert_error(403, "invoice_billing_not_enabled", None);
        // Not stored: after approval the same key runs again.
        assert_eq!(app.post("/v1/quotes", &key, &json!({"pickup": alexanderplatz(), "dropoff": kreuzberg(), "vehicle_type_id": "car"})).await.status, 201);
        let test_key = app.create_key(&disabled, Mode::Test, &[]).await;
        app.create_delivery(&test_key, &body).await;

        // An overdue statement (402 invoice_statement_overdue): tests/e2e/billing.rs.

        let first = app.create_delivery(&app.live_key, &body).await;
        let price = first["amount_cents"].as_i64().expect("price");
        let tight = app.create_workspace_with(admin_pb::WorkspaceKind::Business, Default::default(), billing(true, 2 * price)).await;
        let key = app.create_key(&tight, Mode::Live, &[]).await;
        let one = app.create_delivery(&key, &body).await;
        app.create_delivery(&key, &body).await;
        app.post_idempotent("/v1/deliveries", &key, "b3", &body).await.assert_error(402, "invoice_credit_limit_exceeded", None);
        // A cancelled delivery no longer counts against the limit.
        let cancelled = app.post(&format!("/v1/deliveries/{}/cancel", one["id"].as_str().expect("id")), &key, &json!({})).await;
        assert_eq!(cancelled.status, 200);
        app.create_delivery(&key, &body).await;
    }

    async fn concurrent_live_creates_never_share_the_last_credit(app: TestApp) {
        let body = berlin_delivery();
        let price = app.create_delivery(&app.live_key, &body).await["amount_cents"].as_i64().expect("price");
        let billing = admin_pb::BillingState { invoice_billing_enabled: true, credit_limit_cents: 3 * price, ..Default::default() };
        let workspace = app.create_workspace_with(admin_pb::WorkspaceKind::Business, Default::default(), billing).await;
        let key = app.create_key(&workspace, Mode::Live, &[]).await;
        let mut tasks = Vec::new();
        for n in 0..8 {
            let (http, url, key, body) = (app.http.clone(), app.url("/v1/deliveries"), key.clone(), body.clone());
            tasks.push(tokio::spawn(async move {
                let response = http.post(url).header("x-api-key", key).header("idempotency-key", format!("credit-{n}")).json(&body).send().await.expect("sent");
                let status = response.status().as_u16();
                (status, response.json::<Value>().await.expect("json"))
            }));
        }
        let mut created = Vec::new();
        for task in tasks {
            let (status, body) = task.await.expect("task");
            match status {
                201 => created.push(body["id"].as_str().expect("id").to_owned()),
                402 => assert_eq!(body["error"]["code"], "invoice_credit_limit_exceeded", "{body:#}"),
                other => panic!("unexpected {other}: {body:#}"),
            }
        }
        assert_eq!(created.len(), 3, "exactly the credit limit's worth of deliveries");
        // Cancelling gives the credit back, once.
        let cancelled = app.post(&format!("/v1/deliveries/{}/cancel", created[0]), &key, &json!({})).await;
        assert_eq!(cancelled.status, 200);
        app.create_delivery(&key, &body).await;
        app.post_idempotent("/v1/deliveries", &key, "credit-after", &body).await.assert_error(402, "invoice_credit_limit_exceeded", None);
    }

    async fn modes_and_workspaces_never_see_each_other(app: TestApp) {
        let test = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let live = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let other = app.create_workspace(admin_pb::WorkspaceKind::Business, Default::default()).await;
        let other_key = app.create_key(&other, Mode::Test, &[]).await;
        for (id, key) in [(&test["id"], &app.live_key), (&live["id"], &app.test_key), (&test["id"], &other_key)] {
            let path = format!("/v1/deliveries/{}", id.as_str().expect("id"));
            app.get(&path, key).await.assert_error(404, "not_found", None);
            app.post(&format!("{path}/cancel"), key, &json!({})).await.assert_error(404, "not_found", None);
        }
        app.get("/v1/deliveries/del_unknown", &app.test_key).await.assert_error(404, "not_found", None);
        let listed = app.get("/v1/deliveries", &app.live_key).await;
        let ids: Vec<&Value> = listed.body["deliveries"].as_array().expect("list").iter().map(|d| &d["id"]).collect();
        assert_eq!(ids, [&live["id"]]);
        let listed = app.get("/v1/deliveries", &other_key).await;
        assert!(listed.body["deliveries"].as_array().expect("list").is_empty());
        assert!(listed.body["next_page_token"].is_null());
    }

    async fn list_pages_newest_first_without_repeats(app: TestApp) {
        let mut created = Vec::new();
        for _ in 0..7 {
            created.push(app.create_delivery(&app.test_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned());
        }
        let mut seen = Vec::new();
        let mut path = "/v1/deliveries?limit=3".to_owned();
        loop {
            let page = app.get(&path, &app.test_key).await;
            assert_eq!(page.status, 200, "{:#}", page.body);
            assert!(page.body["deliveries"].as_array().expect("list").len() <= 3);
            seen.extend(page.body["deliveries"].as_array().expect("list").iter().map(|d| d["id"].as_str().expect("id").to_owned()));
            // Deliveries created while paging appear before the cursor, never in later pages.
            app.create_delivery(&app.test_key, &berlin_delivery()).await;
            match page.body["next_page_token"].as_str() {
                Some(token) => path = format!("/v1/deliveries?limit=3&page_token={token}"),
                None => break,
            }
        }
        let expected: Vec<String> = created.iter().rev().cloned().collect();
        assert_eq!(seen, expected);

        for limit in ["0", "101", "x", "-1"] {
            app.get(&format!("/v1/deliveries?limit={limit}"), &app.test_key).await.assert_error(400, "invalid_request", Some("limit"));
        }
        assert_eq!(app.get("/v1/deliveries?limit=100", &app.test_key).await.body["deliveries"].as_array().expect("l").len(), 10);
        app.get("/v1/deliveries?colour=red", &app.test_key).await.assert_error(400, "invalid_request", Some("colour"));
        app.get("/v1/deliveries?status=lost", &app.test_key).await.assert_error(400, "invalid_request", Some("status"));
        app.get("/v1/deliveries?created_after=yesterday", &app.test_key).await.assert_error(400, "invalid_request", Some("created_after"));
    }

    async fn page_tokens_are_bound_to_filters_and_mode(app: TestApp) {
        let app = &app;
        for _ in 0..3 {
            app.create_delivery(&app.test_key, &berlin_delivery()).await;
            app.create_delivery(&app.live_key, &berlin_delivery()).await;
        }
        let page = app.get("/v1/deliveries?limit=1&status=pending", &app.test_key).await;
        let token = page.body["next_page_token"].as_str().expect("token").to_owned();
        assert_eq!(app.get(&format!("/v1/deliveries?limit=1&status=pending&page_token={token}"), &app.test_key).await.status, 200);
        // A different page size keeps the filters.
        assert_eq!(app.get(&format!("/v1/deliveries?limit=2&status=pending&page_token={token}"), &app.test_key).await.status, 200);
        let invalid = |path: String, key: String| async move {
            app.get(&path, &key).await.assert_error(400, "invalid_page_token", Some("page_token"));
        };
        invalid(format!("/v1/deliveries?limit=1&page_token={token}"), app.test_key.clone()).await;
        invalid(format!("/v1/deliveries?limit=1&status=cancelled&page_token={token}"), app.test_key.clone()).await;
        invalid(format!("/v1/deliveries?limit=1&status=pending&page_token={token}"), app.live_key.clone()).await;
        let mut tampered = token.clone().into_bytes();
        tampered[2] = if tampered[2] == b'A' { b'B' } else { b'A' };
        invalid(format!("/v1/deliveries?status=pending&page_token={}", String::from_utf8(tampered).expect("utf8")), app.test_key.clone()).await;
        invalid("/v1/deliveries?page_token=forged.token".into(), app.test_key.clone()).await;
    }

    async fn list_filters(app: TestApp) {
        let first = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let second = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        app.post(&format!("/v1/deliveries/{}/cancel", first["id"].as_str().expect("id")), &app.test_key, &json!({})).await;
        let ids = |answer: crate::harness::Answer| -> Vec<String> {
            answer.body["deliveries"].as_array().expect("list").iter().map(|d| d["id"].as_str().expect("id").to_owned()).collect()
        };
        assert_eq!(ids(app.get("/v1/deliveries?status=cancelled", &app.test_key).await), [first["id"].as_str().expect("id")]);
        assert_eq!(ids(app.get("/v1/deliveries?status=pending", &app.test_key).await), [second["id"].as_str().expect("id")]);
        let boundary = second["created_at"].as_str().expect("created").to_owned();
        let encoded = boundary.replace(':', "%3A");
        assert_eq!(ids(app.get(&format!("/v1/deliveries?created_after={encoded}"), &app.test_key).await), [second["id"].as_str().expect("id")]);
        assert_eq!(ids(app.get(&format!("/v1/deliveries?created_before={encoded}"), &app.test_key).await), [first["id"].as_str().expect("id")]);
    }

    async fn cancel_follows_the_state_machine(app: TestApp) {
        let d = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = d["id"].as_str().expect("id");
        let answer = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({"reason": "kaboom"})).await;
        answer.assert_error(400, "invalid_request", Some("reason"));
        let cancelled = app.send(app.http.post(app.url(&format!("/v1/deliveries/{id}/cancel"))).header("x-api-key", &app.test_key)).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        assert_eq!(cancelled.body["status"], "cancelled");
        assert_eq!(cancelled.body["cancellation_reason"], "cancelled_by_you");
        assert!(cancelled.body["cancelled_at"].is_string());
        let cancel_reason = stored_text(&app, &format!("SELECT cancel_reason FROM deliveries WHERE id = '{id}'")).await;
        assert_eq!(cancel_reason.as_deref(), Some("other"));
        assert_eq!(event_types(&app, id).await, ["delivery.created", "delivery.cancelled"]);
        app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({})).await.assert_error(409, "conflict", None);

        for (path, reason) in [(&[Status::Pending, Status::CourierAssigned][..], "booked_by_mistake"), (&[Status::Pending, Status::CourierAssigned, Status::AtPickup][..], "waited_too_long")] {
            let d = app.create_delivery(&app.test_key, &berlin_delivery()).await;
            let id = d["id"].as_str().expect("id");
            force_status(&app, id, path).await;
            let answer = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({"reason": reason})).await;
            assert_eq!((answer.status, answer.body["status"].as_str()), (200, Some("cancelled")));
        }

        let picked = [Status::Pending, Status::CourierAssigned, Status::AtPickup, Status::PickedUp, Status::InTransit, Status::AtDropoff, Status::Delivered];
        for end in 3..picked.len() {
            let d = app.create_delivery(&app.test_key, &berlin_delivery()).await;
            let id = d["id"].as_str().expect("id");
            force_status(&app, id, &picked[..=end]).await;
            let answer = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({})).await;
            let code = if picked[end] == Status::Delivered { "conflict" } else { "not_cancellable" };
            answer.assert_error(409, code, None);
            let now = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
            assert_eq!(now.body["status"], picked[end].as_str());
        }
    }

    async fn cancel_racing_a_pickup_never_cancels_picked_up_goods(app: TestApp) {
        for _ in 0..10 {
            let d = app.create_delivery(&app.test_key, &berlin_delivery()).await;
            let id = d["id"].as_str().expect("id").to_owned();
            force_status(&app, &id, &[Status::Pending, Status::CourierAssigned, Status::AtPickup]).await;
            let (core, mover_id) = (app.core.clone(), id.clone());
            let pickup = tokio::spawn(async move { move_delivery(&core, &mover_id, Status::AtPickup, Status::PickedUp, Change::default()).await });
            let cancel = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({})).await;
            let picked_up = pickup.await.expect("task");
            let status = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body["status"].as_str().expect("s").to_owned();
            if picked_up {
                cancel.assert_error(409, "not_cancellable", None);
                assert_eq!(status, "picked_up");
            } else {
                assert_eq!(cancel.status, 200);
                assert_eq!(status, "cancelled");
            }
        }
    }
}

// The list is served by `deliveries_listing` in key order, with no sort of
// the workspace's rows, even before the database has statistics of them
// (the uniqueness index of external ids once won that choice on PostgreSQL
// and sorted the whole workspace for every page).
e2e! {
    async fn the_list_reads_the_listing_index_without_sorting(app: TestApp) {
        use sea_orm::{ConnectionTrait, DbBackend, Statement};
        let body = berlin_delivery();
        for _ in 0..120 {
            app.create_delivery(&app.live_key, &body).await;
        }
        let backend = app.core.db.get_database_backend();
        let query = format!(
            "SELECT * FROM deliveries WHERE workspace_id = '{}' AND mode = 'live' ORDER BY created_at DESC, id DESC LIMIT 21",
            app.workspace_id
        );
        let explain = match backend {
            DbBackend::Postgres => format!("EXPLAIN {query}"),
            _ => format!("EXPLAIN QUERY PLAN {query}"),
        };
        let rows = app.core.db.query_all_raw(Statement::from_string(backend, explain)).await.expect("explain");
        let plan: Vec<String> = rows
            .iter()
            .map(|row| {
                let column = if backend == DbBackend::Postgres { "QUERY PLAN" } else { "detail" };
                row.try_get::<String>("", column).expect("plan line")
            })
            .collect();
        let plan = plan.join("\n");
        assert!(plan.contains("deliveries_listing"), "{plan}");
        assert!(!plan.contains("Sort") && !plan.contains("TEMP B-TREE"), "no sort of the workspace's rows: {plan}");
    }
}

// Requests for the same page at the same time share one read
// (`shared_reads`), yet each request's page was read after it arrived:
// every client finds the delivery it created just before asking. (The
// core's unit tests hold a read open to pin that rule down; this checks it
// over the wire, on both databases.)
e2e! {
    async fn a_page_asked_for_at_once_holds_what_each_asker_created(app: TestApp) {
        let asked_before = app.metric(&app.metrics_url, "courier_core_list_page_requests_total", "").await;
        let ask = |_: usize| {
            let (http, base, key) = (app.http.clone(), app.url(""), app.test_key.clone());
            async move {
                let mut missing = Vec::new();
                for _ in 0..5 {
                    let created: Value = http.post(format!("{base}/v1/deliveries")).header("x-api-key", &key).header("idempotency-key", unique_suffix()).json(&berlin_delivery()).send().await.expect("sent").json().await.expect("json");
                    let id = created["id"].as_str().unwrap_or_else(|| panic!("created: {created:#}")).to_owned();
                    let page: Value = http.get(format!("{base}/v1/deliveries?limit=100")).header("x-api-key", &key).send().await.expect("sent").json().await.expect("json");
                    let listed = page["deliveries"].as_array().expect("a page");
                    if !listed.iter().any(|delivery| delivery["id"] == id.as_str()) {
                        missing.push(id);
                    }
                }
                missing
            }
        };
        let missing: Vec<String> = together((0..24).map(ask)).await.into_iter().flatten().collect();
        assert!(missing.is_empty(), "created, then not on the first page asked for after: {missing:?}");
        let asked = app.metric(&app.metrics_url, "courier_core_list_page_requests_total", "").await;
        let reads = app.metric(&app.metrics_url, "courier_core_list_page_reads_total", "").await;
        assert!(asked - asked_before >= 120.0, "every page counted: {asked_before}, then {asked}");
        assert!(reads <= asked, "a page is read at most once per request: {reads} reads, {asked} pages");
    }
}
