//! Delivering again (docs/guide.md "Deliver again"): `POST
//! /v1/deliveries/{id}/redeliver` books a cancelled delivery as a new one
//! with the original's places, goods and proof, priced afresh, times,
//! `external_id` and `test_scenario` its own; under its own idempotency
//! scope; any other status is `409 not_redeliverable`; bad bodies change
//! nothing.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Answer, TestApp, unique_suffix};
use crate::lifecycle::RUN_LIMIT;

fn id_of(delivery: &Value) -> String {
    delivery["id"].as_str().expect("id").to_owned()
}

async fn redeliver(app: &TestApp, key: &str, id: &str, idempotency_key: &str, body: &Value) -> Answer {
    app.post_idempotent(&format!("/v1/deliveries/{id}/redeliver"), key, idempotency_key, body)
        .await
}

/// An RFC 3339 time `minutes` from now, in whole seconds.
fn in_minutes(app: &TestApp, minutes: i64) -> String {
    use chrono::SubsecRound;
    courier::time::format_rfc3339(app.clock.now().trunc_subsecs(0) + chrono::Duration::minutes(minutes))
}

/// A delivery with everything a redelivery copies, and a window and an
/// `external_id` it does not.
fn full_delivery(app: &TestApp) -> Value {
    let mut body = crate::deliveries::berlin_delivery();
    body["stops"] = json!([{ "address": "Torstraße 1, 10119 Berlin", "latitude": 52.5290, "longitude": 13.4010 }]);
    body["items"] = json!([{ "description": "Box", "quantity": 2, "weight_kg": 1.5, "length_cm": 30, "width_cm": 20, "height_cm": 20 }]);
    body["external_id"] = json!(format!("order-{}", unique_suffix()));
    body["notes"] = json!("Fragile, keep upright");
    body["proof_of_delivery"] = json!({ "dropoff": { "signature": true, "photos": 2 } });
    body["batching"] = json!("never");
    body["undeliverable_action"] = json!("dispose");
    body["dropoff_window"] = json!({ "start": in_minutes(app, 60), "end": in_minutes(app, 120) });
    body
}

/// The members a redelivery keeps from its original.
const COPIED: [&str; 9] = [
    "pickup",
    "dropoff",
    "stops",
    "vehicle_type_id",
    "notes",
    "proof_of_delivery",
    "batching",
    "notifications",
    "undeliverable_action",
];

e2e! {
    with |config| config.simulator_step = Duration::from_secs(3600);

    async fn a_cancelled_delivery_is_booked_again_as_a_new_one(app: TestApp) {
        let original = app.create_delivery(&app.test_key, &full_delivery(&app)).await;
        let id = id_of(&original);
        let cancelled = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.test_key, &json!({ "reason": "change_details" })).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);

        let key = unique_suffix();
        let first = redeliver(&app, &app.test_key, &id, &key, &json!({})).await;
        assert_eq!(first.status, 201, "{:#}", first.body);
        assert_eq!(first.header("idempotent-replayed"), None);
        let again = &first.body;
        let again_id = id_of(again);
        assert_ne!(again_id, id);
        assert_eq!(again["status"], "pending");
        for member in COPIED {
            assert_eq!(again[member], original[member], "{member}");
        }
        // Times, external_id and test_scenario are the new delivery's own.
        for member in ["external_id", "scheduled_at", "pickup_window", "dropoff_window"] {
            assert!(again[member].is_null(), "{member}: {}", again[member]);
        }
        assert!(again["amount_cents"].as_i64().is_some_and(|cents| cents > 0), "{:#}", again);
        assert_ne!(again["tracking_url"], original["tracking_url"]);
        let events = app.delivery_events(&app.test_key, &again_id).await;
        assert_eq!(events, [("delivery.created".to_owned(), "pending".to_owned())]);
        // The original stays cancelled, as it was.
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(unchanged.body, cancelled.body);

        // A retry answers the same new delivery; the key with another body is refused.
        let replay = redeliver(&app, &app.test_key, &id, &key, &json!({})).await;
        assert_eq!((replay.status, replay.header("idempotent-replayed")), (201, Some("true")));
        assert_eq!(&replay.body, again);
        redeliver(&app, &app.test_key, &id, &key, &json!({ "external_id": "other" }))
            .await
            .assert_error(409, "idempotency_key_reused", Some("Idempotency-Key"));
        // The create's key scope is not this endpoint's.
        let create = app.post_idempotent("/v1/deliveries", &app.test_key, &key, &crate::deliveries::berlin_delivery()).await;
        assert_eq!((create.status, create.header("idempotent-replayed")), (201, None), "{:#}", create.body);

        // Delivered again with its own times and reference; a body without
        // the optional members is allowed too.
        let window = json!({ "start": in_minutes(&app, 90), "end": in_minutes(&app, 180) });
        let body = json!({ "dropoff_window": window, "external_id": "order-second-try" });
        let second = redeliver(&app, &app.test_key, &id, &unique_suffix(), &body).await;
        assert_eq!(second.status, 201, "{:#}", second.body);
        assert_eq!((&second.body["dropoff_window"], &second.body["external_id"]), (&window, &json!("order-second-try")));
        let empty = app
            .send(app.http.post(app.url(&format!("/v1/deliveries/{id}/redeliver"))).header("x-api-key", &app.test_key).header("idempotency-key", unique_suffix()))
            .await;
        assert_eq!(empty.status, 201, "{:#}", empty.body);
        let list = app.get("/v1/deliveries?limit=100", &app.test_key).await;
        assert_eq!(list.body["deliveries"].as_array().map(Vec::len), Some(5), "{:#}", list.body);
    }

    async fn refused_redeliveries_name_the_cause_and_store_nothing(app: TestApp) {
        let pending = id_of(&app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await);
        let cancelled = id_of(&app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await);
        let answer = app.post(&format!("/v1/deliveries/{cancelled}/cancel"), &app.test_key, &json!({})).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let path = format!("/v1/deliveries/{cancelled}/redeliver");

        redeliver(&app, &app.test_key, &pending, &unique_suffix(), &json!({})).await.assert_error(409, "not_redeliverable", None);
        redeliver(&app, &app.test_key, "del_unknown", &unique_suffix(), &json!({})).await.assert_error(404, "not_found", None);
        // Another mode's delivery is not there.
        redeliver(&app, &app.live_key, &cancelled, &unique_suffix(), &json!({})).await.assert_error(404, "not_found", None);
        app.post(&path, &app.test_key, &json!({})).await.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        let in_the_past = json!({ "start": in_minutes(&app, -120), "end": in_minutes(&app, -60) });
        for (body, code, param) in [
            (json!({ "pickup": { "address": "Elsewhere" } }), "invalid_request", "pickup"),
            (json!({ "vehicle_type_id": "van" }), "invalid_request", "vehicle_type_id"),
            (json!({ "external_id": 7 }), "invalid_request", "external_id"),
            (json!({ "external_id": "a\u{0}b" }), "invalid_request", "external_id"),
            (json!({ "external_id": "x".repeat(300) }), "invalid_request", "external_id"),
            (json!({ "scheduled_at": "tomorrow" }), "invalid_request", "scheduled_at"),
            (json!({ "dropoff_window": { "start": "2026-12-01T10:00:00Z" } }), "invalid_request", "dropoff_window.end"),
            (json!({ "dropoff_window": in_the_past }), "invalid_request", "dropoff_window.end"),
            (json!({ "scheduled_at": in_minutes(&app, 30), "pickup_window": { "start": in_minutes(&app, 30), "end": in_minutes(&app, 60) } }), "invalid_request", "pickup_window"),
            (json!({ "test_scenario": "exploded" }), "invalid_request", "test_scenario"),
            (json!([]), "invalid_request", "body"),
        ] {
            let answer = redeliver(&app, &app.test_key, &cancelled, &unique_suffix(), &body).await;
            answer.assert_error(400, code, Some(param));
        }
        let cut = app.http.post(app.url(&path)).header("x-api-key", &app.test_key).header("idempotency-key", unique_suffix())
            .header("content-type", "application/json").body(r#"{"external_id":"#);
        app.send(cut).await.assert_error(400, "invalid_request", Some("body"));
        app.post_idempotent("/v1/deliveries/del_%00/redeliver", &app.test_key, &unique_suffix(), &json!({}))
            .await
            .assert_error(400, "invalid_request", Some("delivery_id"));

        let list = app.get("/v1/deliveries?limit=100", &app.test_key).await;
        assert_eq!(list.body["deliveries"].as_array().map(Vec::len), Some(2), "nothing stored: {:#}", list.body);

        // A live delivery is delivered again live, where no scenario is chosen.
        let live = id_of(&app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await);
        let answer = app.post(&format!("/v1/deliveries/{live}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        redeliver(&app, &app.live_key, &live, &unique_suffix(), &json!({ "test_scenario": "delayed" }))
            .await
            .assert_error(400, "invalid_request", Some("test_scenario"));
        let again = redeliver(&app, &app.live_key, &live, &unique_suffix(), &json!({})).await;
        assert_eq!((again.status, &again.body["mode"]), (201, &json!("live")), "{:#}", again.body);
    }
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(200);

    async fn a_failed_test_delivery_is_delivered_on_the_second_try(app: TestApp) {
        let mut body = crate::deliveries::berlin_delivery();
        body["test_scenario"] = json!("delivery_failed");
        let id = id_of(&app.create_delivery(&app.test_key, &body).await);
        // Still under way: not yet.
        let early = redeliver(&app, &app.test_key, &id, &unique_suffix(), &json!({})).await;
        early.assert_error(409, "not_redeliverable", None);
        let failed = app.wait_for_status(&app.test_key, &id, "cancelled", RUN_LIMIT).await;
        assert_eq!(failed["cancellation_reason"], "cancelled_by_maxmove");

        let again = redeliver(&app, &app.test_key, &id, &unique_suffix(), &json!({})).await;
        assert_eq!(again.status, 201, "{:#}", again.body);
        // The failed run's scenario stays with it: the new one runs to delivered.
        app.wait_for_status(&app.test_key, &id_of(&again.body), "delivered", RUN_LIMIT).await;
        let scenario = redeliver(&app, &app.test_key, &id, &unique_suffix(), &json!({ "test_scenario": "no_courier_found" })).await;
        assert_eq!(scenario.status, 201, "{:#}", scenario.body);
        let ended = app.wait_for_status(&app.test_key, &id_of(&scenario.body), "cancelled", RUN_LIMIT).await;
        assert_eq!(ended["cancellation_reason"], "no_courier_found");
    }
}
