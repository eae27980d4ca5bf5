//! A fleet order changed by the fleet's customer (docs/guide.md "Change a
//! fleet order"): what may change in which status, members fixed once the
//! order is placed, `If-Match`, idempotency, other workspaces, and the
//! driver holding the order told what changed.

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::v1::DeliveryStatus;
use serde_json::{Value, json};

use crate::couriers::{assign, join, next};
use crate::fleet::{create, fleet, full_order, minimal_order, move_to};
use crate::harness::{Answer, TestApp, unique_suffix};

/// `PATCH /v1/fleet/orders/{id}` with `key`, an `Idempotency-Key` and each
/// `If-Match` value given.
async fn patch(app: &TestApp, id: &str, key: &str, idempotency_key: &str, if_match: &[&str], body: &Value) -> Answer {
    let mut request = app
        .http
        .patch(app.url(&format!("/v1/fleet/orders/{id}")))
        .header("x-api-key", key)
        .header("idempotency-key", idempotency_key);
    for value in if_match {
        request = request.header("if-match", *value);
    }
    app.send(request.json(body)).await
}

async fn board_order(app: &TestApp, order_id: &str) -> ipb::BoardOrder {
    let request = app.dispatch_request(ipb::GetBoardOrderRequest {
        order_id: order_id.into(),
    });
    app.dispatch()
        .await
        .get_board_order(request)
        .await
        .expect("board order")
        .into_inner()
        .order
        .expect("order")
}

async fn move_along(app: &TestApp, order_id: &str, path: &[DeliveryStatus]) {
    for status in path {
        app.dispatch()
            .await
            .move_board_order(app.dispatch_request(move_to(order_id, *status)))
            .await
            .expect("move");
    }
}

fn ids(order: &Value) -> (String, String) {
    (
        order["id"].as_str().expect("id").to_owned(),
        order["order_id"].as_str().expect("order_id").to_owned(),
    )
}

e2e! {
    async fn the_customer_changes_an_order_until_its_status_forbids_each_member(app: TestApp) {
        let (_, key) = fleet(&app, true).await;
        let created = create(&app, &key, &full_order()).await;
        let (id, order_id) = ids(&created);
        let read = created["updated_at"].as_str().expect("updated_at").to_owned();

        let body = json!({
            "notes": "Call on arrival.",
            "reference": "SO-2002",
            "customer": { "name": "Lea Kundin", "phone": "+49 30 1111111" },
            "dropoff": { "instructions": "Back yard.", "address": "Oranienstraße 26, 10999 Berlin", "latitude": 52.5011, "longitude": 13.4191 },
            "pickup": { "instructions": null }
        });
        let answer = patch(&app, &id, &key, "change-1", &[&read], &body).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert_eq!(answer.body["reference"], "SO-2002");
        assert_ne!(answer.body["updated_at"], created["updated_at"]);
        let board = board_order(&app, &order_id).await;
        assert_eq!(board.notes.as_deref(), Some("Call on arrival."));
        assert_eq!(board.customer.as_ref().map(|c| (c.phone.as_str(), c.email.is_none())), Some(("+49 30 1111111", true)), "replaced whole");
        let dropoff = board.dropoff.as_ref().expect("dropoff");
        assert_eq!((dropoff.instructions.as_deref(), dropoff.address.as_str(), dropoff.latitude), (Some("Back yard."), "Oranienstraße 26, 10999 Berlin", 52.5011));
        assert!(board.pickup.as_ref().expect("pickup").instructions.is_none(), "removed");
        // Replayed under its key; the same body against the read now stale
        // under a new key is refused (412), changing nothing.
        let replay = patch(&app, &id, &key, "change-1", &[&read], &body).await;
        assert_eq!((replay.status, replay.header("idempotent-replayed")), (200, Some("true")));
        patch(&app, &id, &key, "change-2", &[&read], &json!({ "notes": "Other." })).await.assert_error(412, "precondition_failed", Some("If-Match"));
        assert_eq!(board_order(&app, &order_id).await.notes.as_deref(), Some("Call on arrival."));
        // A change that changes nothing answers the order as it is.
        let same = patch(&app, &id, &key, "change-3", &[], &json!({ "notes": "Call on arrival." })).await;
        assert_eq!((same.status, &same.body["updated_at"]), (200, &answer.body["updated_at"]), "{:#}", same.body);

        // A driver is assigned: the pickup's place is fixed now.
        move_along(&app, &order_id, &[DeliveryStatus::CourierAssigned]).await;
        let moved_pickup = json!({ "pickup": { "latitude": 52.5220 } });
        patch(&app, &id, &key, "change-4", &[], &moved_pickup).await.assert_error(409, "not_editable", Some("pickup.latitude"));
        let window = json!({ "dropoff_window": null });
        assert_eq!(patch(&app, &id, &key, "change-5", &[], &window).await.status, 200, "no window to remove: nothing changes");
        // Picked up: the dropoff window is fixed; at the dropoff, its place.
        move_along(&app, &order_id, &[DeliveryStatus::AtPickup, DeliveryStatus::PickedUp]).await;
        let start = app.clock.now() + chrono::Duration::hours(2);
        let late = json!({ "dropoff_window": { "start": start.to_rfc3339(), "end": (start + chrono::Duration::hours(1)).to_rfc3339() } });
        patch(&app, &id, &key, "change-6", &[], &late).await.assert_error(409, "not_editable", Some("dropoff_window"));
        move_along(&app, &order_id, &[DeliveryStatus::InTransit, DeliveryStatus::AtDropoff]).await;
        let moved_dropoff = json!({ "dropoff": { "address": "Somewhere else" } });
        patch(&app, &id, &key, "change-7", &[], &moved_dropoff).await.assert_error(409, "not_editable", Some("dropoff.address"));
        let instructions = json!({ "dropoff": { "instructions": "Ring twice." } });
        assert_eq!(patch(&app, &id, &key, "change-8", &[], &instructions).await.status, 200);
        // Ended: nothing changes any more.
        move_along(&app, &order_id, &[DeliveryStatus::Delivered]).await;
        patch(&app, &id, &key, "change-9", &[], &json!({ "notes": "Late." })).await.assert_error(409, "not_editable", Some("notes"));
        assert_eq!(board_order(&app, &order_id).await.notes.as_deref(), Some("Call on arrival."));
    }

    async fn members_fixed_once_placed_other_workspaces_and_bad_bodies_are_refused(app: TestApp) {
        let (_, key) = fleet(&app, true).await;
        let (_, stranger) = fleet(&app, true).await;
        let created = create(&app, &key, &minimal_order()).await;
        let (id, order_id) = ids(&created);
        for (body, param, says) in [
            (json!({ "stops": [] }), "stops", "cannot be changed once the order is placed"),
            (json!({ "vehicle_type_id": "car" }), "vehicle_type_id", "cannot be changed once the order is placed"),
            (json!({ "requested_pickup_date": "2026-12-24" }), "requested_pickup_date", "cannot be changed once the order is placed"),
            (json!({ "tip_cents": 100 }), "tip_cents", "not a known field"),
            (json!({}), "body", "at least one member"),
            (json!({ "customer": null }), "customer", "whole customer"),
            (json!({ "customer": { "name": "Lea", "phone": "call me" } }), "customer.phone", ""),
            (json!({ "reference": "x".repeat(121) }), "reference", ""),
            (json!({ "notes": "a\u{0}b" }), "notes", ""),
            (json!({ "dropoff": { "latitude": 95.0 } }), "dropoff.latitude", ""),
            (json!({ "dropoff": null }), "dropoff", ""),
        ] {
            let answer = patch(&app, &id, &key, &unique_suffix(), &[], &body).await;
            answer.assert_error(400, "invalid_request", Some(param));
            let message = answer.body["error"]["message"].as_str().expect("message");
            assert!(message.contains(says), "{param}: {message}");
        }
        let body = json!({ "notes": "Mine." });
        patch(&app, &id, &stranger, "other-1", &[], &body).await.assert_error(404, "not_found", None);
        patch(&app, "flo_unknown", &key, "other-2", &[], &body).await.assert_error(404, "not_found", None);
        patch(&app, &id, &app.live_key, "other-3", &[], &body).await.assert_error(403, "fleet_key_required", None);
        let missing = app.send(app.http.patch(app.url(&format!("/v1/fleet/orders/{id}"))).header("x-api-key", &key).json(&body)).await;
        missing.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        assert!(board_order(&app, &order_id).await.notes.is_none(), "nothing changed");
    }

    async fn the_driver_holding_the_order_gets_it_as_it_now_is(app: TestApp) {
        let (workspace, key) = fleet(&app, true).await;
        let created = create(&app, &key, &minimal_order()).await;
        let (id, order_id) = ids(&created);
        let dara = join(&app, &workspace, "Dara Driver", "dara@example.com", "car").await;
        let mut client = dara.client.clone();
        let mut stream = client.watch_assignments(dara.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        assert!(matches!(next(&mut stream).await.update, Some(apb::watch_assignments_response::Update::Snapshot(_))));
        assign(&app, &order_id, &dara.courier.id).await.expect("assign");
        next(&mut stream).await;

        let answer = patch(&app, &id, &key, "held-1", &[], &json!({ "notes": "Gate code 4711.", "dropoff": { "instructions": "Back yard." } })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let pushed = next(&mut stream).await;
        let Some(apb::watch_assignments_response::Update::Job(job)) = &pushed.update else {
            panic!("expected the job, got {pushed:?}");
        };
        assert_eq!(job.id, order_id);
        assert_eq!(job.notes.as_deref(), Some("Gate code 4711."));
        assert_eq!(job.dropoff.as_ref().and_then(|d| d.instructions.as_deref()), Some("Back yard."));
        assert_eq!(pushed.changed_fields, ["notes", "dropoff.instructions"]);
    }
}
