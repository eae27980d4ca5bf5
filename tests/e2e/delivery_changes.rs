//! Changes after booking (docs/guide.md "Change a delivery"): `PATCH
//! /v1/deliveries/{id}` answers the delivery as it now is and records
//! `delivery.updated` with `changed_fields`; a change of nothing writes
//! nothing; the idempotency key and `If-Match` guard it; what may change
//! depends on the status; refusals name the member; the courier holding the
//! job is told on their assignment stream.

use std::time::Duration;

use courier::app::v1 as apb;
use courier_orders::deliveries::{self, Change};
use courier_orders::lifecycle::Status;
use serde_json::{Value, json};

use crate::couriers::{assign, join, next, next_message};
use crate::deliveries::berlin_delivery;
use crate::harness::{Answer, TestApp, move_delivery, unique_suffix};

/// `PATCH /v1/deliveries/{id}` with `key`, an `Idempotency-Key` when given
/// and each `If-Match` value given.
async fn patch(
    app: &TestApp,
    id: &str,
    key: &str,
    idempotency_key: Option<&str>,
    if_match: &[&str],
    body: &Value,
) -> Answer {
    let mut request = app
        .http
        .patch(app.url(&format!("/v1/deliveries/{id}")))
        .header("x-api-key", key);
    if let Some(idempotency_key) = idempotency_key {
        request = request.header("idempotency-key", idempotency_key);
    }
    for value in if_match {
        request = request.header("if-match", *value);
    }
    app.send(request.json(body)).await
}

/// A change with a fresh idempotency key and no `If-Match`.
async fn change(app: &TestApp, id: &str, body: &Value) -> Answer {
    patch(app, id, &app.test_key, Some(&unique_suffix()), &[], body).await
}

fn id_of(delivery: &Value) -> String {
    delivery["id"].as_str().expect("id").to_owned()
}

/// Delivery `id`'s events, newest first, as the events API lists them.
async fn events_of(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let answer = app.get(&format!("/v1/events?delivery_id={id}&limit=100"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["events"].as_array().expect("events").clone()
}

/// Moves delivery `id` along `path` as a dispatcher would.
async fn force_status(app: &TestApp, id: &str, path: &[Status]) {
    for pair in path.windows(2) {
        let moved = move_delivery(&app.core, id, pair[0], pair[1], Change::default()).await;
        assert!(moved, "{:?} -> {:?}", pair[0], pair[1]);
    }
}

/// An RFC 3339 time `minutes` from now, in whole seconds.
fn in_minutes(app: &TestApp, minutes: i64) -> String {
    use chrono::SubsecRound;
    courier::time::format_rfc3339(app.clock.now().trunc_subsecs(0) + chrono::Duration::minutes(minutes))
}

fn time(value: &Value) -> chrono::DateTime<chrono::Utc> {
    let text = value.as_str().unwrap_or_else(|| panic!("a date-time, got {value}"));
    chrono::DateTime::parse_from_rfc3339(text).expect("RFC 3339").to_utc()
}

fn window(app: &TestApp, from: i64, to: i64) -> Value {
    json!({ "start": in_minutes(app, from), "end": in_minutes(app, to) })
}

e2e! {
    with |config| config.simulator_step = Duration::from_secs(3600);

    async fn a_change_answers_the_delivery_and_records_delivery_updated(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let body = json!({
            "notes": "Leave with the concierge.",
            "dropoff": { "contact": { "name": "Ida Concierge", "phone": "+49 30 7654321" }, "instructions": "Concierge desk." },
        });
        let answer = change(&app, &id, &body).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let changed = &answer.body;
        assert_eq!(changed["notes"], "Leave with the concierge.");
        assert_eq!(changed["dropoff"]["contact"], json!({ "name": "Ida Concierge", "phone": "+49 30 7654321", "email": null }));
        assert_eq!(changed["dropoff"]["instructions"], "Concierge desk.");
        assert_eq!(changed["pickup"], created["pickup"]);
        assert_eq!(changed["dropoff"]["address"], created["dropoff"]["address"]);
        assert_eq!((&changed["status"], &changed["amount_cents"]), (&created["status"], &created["amount_cents"]));
        assert!(time(&changed["updated_at"]) > time(&created["updated_at"]), "{} after {}", changed["updated_at"], created["updated_at"]);
        let got = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(&got.body, changed);

        let events = events_of(&app, &app.test_key, &id).await;
        let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().expect("type")).collect();
        assert_eq!(types, ["delivery.updated", "delivery.created"]);
        assert_eq!(events[0]["data"]["changed_fields"], json!(["notes", "dropoff.contact", "dropoff.instructions"]));
        assert_eq!(events[0]["data"]["notes"], "Leave with the concierge.");
        assert!(events[1]["data"].get("changed_fields").is_none(), "only delivery.updated names changed fields");
        let event = app.get(&format!("/v1/events/{}", events[0]["id"].as_str().expect("id")), &app.test_key).await;
        assert_eq!(event.body["data"]["changed_fields"], events[0]["data"]["changed_fields"]);
        let filtered = app.get(&format!("/v1/events?delivery_id={id}&type=delivery.updated"), &app.test_key).await;
        assert_eq!(filtered.body["events"].as_array().map(Vec::len), Some(1), "{:#}", filtered.body);

        // The same values again change nothing: the delivery as it is, no event.
        let again = change(&app, &id, &body).await;
        assert_eq!(again.status, 200, "{:#}", again.body);
        assert_eq!(&again.body, changed);
        assert_eq!(events_of(&app, &app.test_key, &id).await.len(), 2);

        // null removes a text; a contact is replaced whole.
        let cleared = change(&app, &id, &json!({ "notes": null, "dropoff": { "instructions": "" }, "pickup": { "contact": { "name": "Ana Sender", "phone": "+49 30 1234567", "email": "ana@example.com" } } })).await;
        assert_eq!(cleared.status, 200, "{:#}", cleared.body);
        assert!(cleared.body["notes"].is_null() && cleared.body["dropoff"]["instructions"].is_null(), "{:#}", cleared.body);
        assert_eq!(cleared.body["pickup"]["contact"]["email"], "ana@example.com");
        let events = events_of(&app, &app.test_key, &id).await;
        assert_eq!(events[0]["data"]["changed_fields"], json!(["notes", "pickup.contact", "dropoff.instructions"]));
    }

    async fn a_new_dropoff_window_moves_the_promise(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let booked = deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery");
        let new_window = window(&app, 120, 180);
        let answer = change(&app, &id, &json!({ "dropoff_window": new_window })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        for end in ["start", "end"] {
            assert_eq!(time(&answer.body["dropoff_window"][end]), time(&new_window[end]), "{end}");
        }
        let moved = deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery");
        let end = moved.windows.dropoff.expect("window").end;
        assert_eq!(moved.promised_by, Some(end), "the window's end is the promise");
        assert_ne!(booked.promised_by, moved.promised_by);
        let events = events_of(&app, &app.test_key, &id).await;
        assert_eq!(events[0]["data"]["changed_fields"], json!(["dropoff_window"]));

        // Removed, the promise is the plan's again, as at booking.
        let answer = change(&app, &id, &json!({ "dropoff_window": null })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert!(answer.body["dropoff_window"].is_null());
        let removed = deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery");
        assert_eq!(removed.promised_by, booked.promised_by);

        // A window the goods cannot reach in time is refused.
        let minutes = booked.duration_min;
        let late = change(&app, &id, &json!({ "dropoff_window": window(&app, minutes - 20, minutes - 2) })).await;
        late.assert_error(400, "window_not_feasible", Some("dropoff_window"));
        let short = change(&app, &id, &json!({ "dropoff_window": window(&app, 60, 70) })).await;
        short.assert_error(400, "invalid_request", Some("dropoff_window.end"));
        let half = change(&app, &id, &json!({ "dropoff_window": { "start": in_minutes(&app, 60) } })).await;
        half.assert_error(400, "invalid_request", Some("dropoff_window.end"));
    }

    async fn a_change_is_idempotent(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let body = json!({ "notes": "Side door." });
        let first = patch(&app, &id, &app.test_key, Some("change-1"), &[], &body).await;
        assert_eq!((first.status, first.header("idempotent-replayed")), (200, None), "{:#}", first.body);
        let replayed = patch(&app, &id, &app.test_key, Some("change-1"), &[], &body).await;
        assert_eq!((replayed.status, replayed.header("idempotent-replayed")), (200, Some("true")));
        assert_eq!(replayed.body, first.body);
        assert_eq!(events_of(&app, &app.test_key, &id).await.len(), 2, "one delivery.updated");

        let other = patch(&app, &id, &app.test_key, Some("change-1"), &[], &json!({ "notes": "Back door." })).await;
        other.assert_error(409, "idempotency_key_reused", Some("Idempotency-Key"));
        let keyless = patch(&app, &id, &app.test_key, None, &[], &body).await;
        keyless.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        let long = patch(&app, &id, &app.test_key, Some(&"k".repeat(256)), &[], &body).await;
        long.assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));

        // Keys are scoped by endpoint: a create's key is free for a change.
        let create_key = unique_suffix();
        let second = app.post_idempotent("/v1/deliveries", &app.test_key, &create_key, &berlin_delivery()).await;
        assert_eq!(second.status, 201, "{:#}", second.body);
        let changed = patch(&app, &id_of(&second.body), &app.test_key, Some(&create_key), &[], &body).await;
        assert_eq!((changed.status, changed.header("idempotent-replayed")), (200, None), "{:#}", changed.body);
    }

    async fn if_match_refuses_a_change_made_against_a_stale_read(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let read = created["updated_at"].as_str().expect("updated_at").to_owned();
        let first = patch(&app, &id, &app.test_key, Some("if-1"), &[&read], &json!({ "notes": "One." })).await;
        assert_eq!(first.status, 200, "{:#}", first.body);
        let now = first.body["updated_at"].as_str().expect("updated_at").to_owned();

        // Stale: refused, and not kept under the key, so the corrected
        // retry with the same key goes through.
        let stale = patch(&app, &id, &app.test_key, Some("if-2"), &[&read], &json!({ "notes": "Two." })).await;
        stale.assert_error(412, "precondition_failed", Some("If-Match"));
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(unchanged.body["notes"], "One.");
        let quoted = format!("\"{now}\"");
        let retried = patch(&app, &id, &app.test_key, Some("if-2"), &[&quoted], &json!({ "notes": "Two." })).await;
        assert_eq!((retried.status, retried.header("idempotent-replayed")), (200, None), "{:#}", retried.body);
        assert_eq!(retried.body["notes"], "Two.");

        // `*` changes whatever the delivery is now.
        let any = patch(&app, &id, &app.test_key, Some("if-3"), &["*"], &json!({ "notes": "Three." })).await;
        assert_eq!(any.status, 200, "{:#}", any.body);

        let malformed = patch(&app, &id, &app.test_key, Some("if-4"), &["yesterday"], &json!({ "notes": "Four." })).await;
        malformed.assert_error(400, "invalid_request", Some("If-Match"));
        let current = any.body["updated_at"].as_str().expect("updated_at").to_owned();
        let twice = patch(&app, &id, &app.test_key, Some("if-5"), &[&current, &read], &json!({ "notes": "Five." })).await;
        twice.assert_error(400, "invalid_request", Some("If-Match"));
        let same_twice = patch(&app, &id, &app.test_key, Some("if-6"), &[&current, &current], &json!({ "notes": "Six." })).await;
        assert_eq!(same_twice.status, 200, "{:#}", same_twice.body);
    }

    async fn two_changes_at_once_against_one_read_let_one_win_and_tell_the_other(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let read = created["updated_at"].as_str().expect("updated_at").to_owned();
        let sent = ["Left.", "Right."].map(|notes| {
            let (app_url, key, read) = (app.url(&format!("/v1/deliveries/{id}")), app.test_key.clone(), read.clone());
            let http = app.http.clone();
            async move {
                let request = http.patch(app_url).header("x-api-key", key).header("idempotency-key", format!("race-{notes}")).header("if-match", read);
                let response = request.json(&json!({ "notes": notes })).send().await.expect("answer");
                let status = response.status().as_u16();
                (status, response.json::<Value>().await.expect("json"))
            }
        });
        let answers = crate::harness::together(sent.into_iter()).await;
        let won: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 200).map(|(_, body)| body).collect();
        let lost: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 412).map(|(_, body)| body).collect();
        assert_eq!((won.len(), lost.len()), (1, 1), "{answers:#?}");
        let winner = won[0];
        assert_eq!(lost[0]["error"]["code"], "precondition_failed");
        let message = lost[0]["error"]["message"].as_str().expect("message");
        let new_updated_at = winner["updated_at"].as_str().expect("updated_at");
        assert!(message.contains(new_updated_at), "the loser is told the new updated_at {new_updated_at}: {message}");
        let now = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body;
        assert_eq!(now["notes"], winner["notes"]);
        let updates = events_of(&app, &app.test_key, &id).await.into_iter().filter(|e| e["type"] == "delivery.updated").count();
        assert_eq!(updates, 1, "one change, one event");
    }

    async fn what_may_change_depends_on_the_status(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        force_status(&app, &id, &[Status::Pending, Status::CourierAssigned]).await;
        let answer = change(&app, &id, &json!({ "dropoff_window": window(&app, 120, 180) })).await;
        assert_eq!(answer.status, 200, "before pickup: {:#}", answer.body);

        force_status(&app, &id, &[Status::CourierAssigned, Status::AtPickup, Status::PickedUp]).await;
        let refused = change(&app, &id, &json!({ "notes": "Fine.", "dropoff_window": window(&app, 150, 200) })).await;
        refused.assert_error(409, "not_editable", Some("dropoff_window"));
        assert!(refused.body["error"]["message"].as_str().is_some_and(|m| m.contains("picked_up")), "{:#}", refused.body);
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert!(unchanged.body["notes"].is_null(), "nothing of a refused change is written");
        // The window sent as it is changes nothing, so it is no refusal.
        let same = change(&app, &id, &json!({ "notes": "Fine.", "dropoff_window": answer.body["dropoff_window"] })).await;
        assert_eq!(same.status, 200, "{:#}", same.body);

        force_status(&app, &id, &[Status::PickedUp, Status::InTransit, Status::AtDropoff]).await;
        let contact = change(&app, &id, &json!({ "dropoff": { "contact": { "name": "Neighbour", "phone": "+49 30 5555555" } } })).await;
        assert_eq!(contact.status, 200, "at the dropoff: {:#}", contact.body);

        force_status(&app, &id, &[Status::AtDropoff, Status::Delivered]).await;
        change(&app, &id, &json!({ "notes": "Too late." })).await.assert_error(409, "not_editable", Some("notes"));
        change(&app, &id, &json!({ "dropoff": { "instructions": "Too late." } })).await.assert_error(409, "not_editable", Some("dropoff.instructions"));
        let same = change(&app, &id, &json!({ "notes": "Fine." })).await;
        assert_eq!(same.status, 200, "a member sent as it is: {:#}", same.body);

        let cancelled = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let cancelled_id = id_of(&cancelled);
        let answer = app.post(&format!("/v1/deliveries/{cancelled_id}/cancel"), &app.test_key, &json!({})).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        change(&app, &cancelled_id, &json!({ "pickup": { "contact": { "name": "Someone", "phone": "+49 30 1111111" } } })).await
            .assert_error(409, "not_editable", Some("pickup.contact"));
        let types: Vec<String> = events_of(&app, &app.test_key, &cancelled_id).await.iter().map(|e| e["type"].as_str().unwrap_or_default().to_owned()).collect();
        assert!(!types.contains(&"delivery.updated".to_owned()), "{types:?}");
    }

    async fn refusals_name_the_member(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let cases = [
            (json!({ "notez": "x" }), "notez", "notez is not a known field."),
            (json!({ "status": "delivered" }), "status", "status cannot be changed after booking."),
            (json!({ "amount_cents": 1 }), "amount_cents", "amount_cents cannot be changed after booking."),
            (json!({ "stops": [] }), "stops", "stops cannot be changed after booking."),
            (json!({ "pickup": { "address": null } }), "pickup.address", ""),
            (json!({ "pickup": { "address": "" } }), "pickup.address", ""),
            (json!({ "dropoff": { "latitude": 91 } }), "dropoff.latitude", ""),
            (json!({ "dropoff": { "longitude": "east" } }), "dropoff.longitude", ""),
            (json!({ "accept_amount_cents": -1 }), "accept_amount_cents", ""),
            (json!({ "accept_amount_cents": 9.5 }), "accept_amount_cents", ""),
            (json!({ "dropoff": { "floor": 3 } }), "dropoff.floor", "dropoff.floor is not a known field."),
            (json!({}), "body", ""),
            (json!({ "pickup": {} }), "body", ""),
            (json!({ "pickup": { "contact": null } }), "pickup.contact", ""),
            (json!({ "dropoff": null }), "dropoff", ""),
            (json!({ "notes": 5 }), "notes", "notes must be a string."),
            (json!({ "notes": "n".repeat(2001) }), "notes", ""),
            (json!({ "dropoff": { "contact": { "name": "Rui", "phone": "call me" } } }), "dropoff.contact.phone", ""),
            (json!({ "dropoff": { "contact": { "name": "Rui" } } }), "dropoff.contact.phone", ""),
            (json!({ "dropoff_window": "soon" }), "dropoff_window", ""),
        ];
        for (body, param, message) in cases {
            let answer = change(&app, &id, &body).await;
            answer.assert_error(400, "invalid_request", Some(param));
            if !message.is_empty() {
                assert_eq!(answer.body["error"]["message"], message, "{body}");
            }
        }
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(unchanged.body, created, "no refusal wrote anything");
        assert_eq!(events_of(&app, &app.test_key, &id).await.len(), 1);
    }

    async fn a_moved_dropoff_is_priced_again_and_needs_the_new_total(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let before = created["amount_cents"].as_i64().expect("amount");
        let booked = deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery");
        let tempelhof = json!({ "dropoff": { "address": "Tempelhofer Damm 1, 12101 Berlin", "latitude": 52.473, "longitude": 13.403 } });

        // Without the new total: refused with it, nothing written, and the
        // refusal is not kept under the key.
        let refused = patch(&app, &id, &app.test_key, Some("move-1"), &[], &tempelhof).await;
        refused.assert_error(409, "price_changed", Some("accept_amount_cents"));
        let total = refused.body["error"]["amount_cents"].as_i64().expect("the new total");
        assert!(total > before, "a longer route costs more: {total} after {before}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body, created);
        let mut wrong = tempelhof.clone();
        wrong["accept_amount_cents"] = json!(before);
        let again = patch(&app, &id, &app.test_key, Some("move-1"), &[], &wrong).await;
        again.assert_error(409, "price_changed", Some("accept_amount_cents"));
        assert_eq!(again.body["error"]["amount_cents"], total);

        let mut accepted = tempelhof.clone();
        accepted["accept_amount_cents"] = json!(total);
        let moved = patch(&app, &id, &app.test_key, Some("move-1"), &[], &accepted).await;
        assert_eq!((moved.status, moved.header("idempotent-replayed")), (200, None), "{:#}", moved.body);
        assert_eq!(moved.body["amount_cents"], total);
        assert_eq!(moved.body["dropoff"]["address"], "Tempelhofer Damm 1, 12101 Berlin");
        assert_eq!((&moved.body["dropoff"]["latitude"], &moved.body["dropoff"]["longitude"]), (&json!(52.473), &json!(13.403)));
        assert_eq!(moved.body["dropoff"]["contact"], created["dropoff"]["contact"], "members not sent stay");
        assert_ne!(moved.body["breakdown"], created["breakdown"]);
        let stored = deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery");
        assert!(stored.duration_min > booked.duration_min, "{} after {}", stored.duration_min, booked.duration_min);
        assert!(stored.distance_km > booked.distance_km);
        let events = events_of(&app, &app.test_key, &id).await;
        assert_eq!(events[0]["type"], "delivery.updated");
        assert_eq!(
            events[0]["data"]["changed_fields"],
            json!(["dropoff.address", "dropoff.latitude", "dropoff.longitude", "amount_cents"])
        );
        let replayed = patch(&app, &id, &app.test_key, Some("move-1"), &[], &accepted).await;
        assert_eq!((replayed.status, replayed.header("idempotent-replayed")), (200, Some("true")));
        assert_eq!(replayed.body, moved.body);

        // The address alone is a text: no new price, no total needed.
        let renamed = change(&app, &id, &json!({ "dropoff": { "address": "Tempelhofer Damm 1, Hinterhaus" } })).await;
        assert_eq!(renamed.status, 200, "{:#}", renamed.body);
        assert_eq!(renamed.body["amount_cents"], total);
        assert_eq!(events_of(&app, &app.test_key, &id).await[0]["data"]["changed_fields"], json!(["dropoff.address"]));

        // The total alone is checked: the right one changes nothing.
        let checked = change(&app, &id, &json!({ "accept_amount_cents": total })).await;
        assert_eq!(checked.status, 200, "{:#}", checked.body);
        assert_eq!(checked.body, renamed.body);
        let stale = change(&app, &id, &json!({ "accept_amount_cents": before })).await;
        stale.assert_error(409, "price_changed", Some("accept_amount_cents"));
        assert_eq!(stale.body["error"]["amount_cents"], total);

        // Back where it was booked: the booked price again.
        let back = json!({ "dropoff": { "latitude": created["dropoff"]["latitude"], "longitude": created["dropoff"]["longitude"] }, "accept_amount_cents": before });
        let answer = change(&app, &id, &back).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert_eq!(answer.body["amount_cents"], before);

        // Outside every service area: refused, naming the place.
        let hamburg = change(&app, &id, &json!({ "dropoff": { "latitude": 53.55, "longitude": 9.99 } })).await;
        assert_eq!(hamburg.status, 400, "{:#}", hamburg.body);
        assert_eq!(hamburg.body["error"]["code"], "service_area_unavailable");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body["amount_cents"], before);
    }

    async fn places_change_until_the_courier_gets_there(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let nearby = |end: &str, of: &Value| {
            let latitude = of[end]["latitude"].as_f64().expect("latitude") + 0.001;
            json!({ end: { "latitude": latitude } })
        };
        // The pickup moves while nobody has the job; then no more.
        let pickup = change(&app, &id, &nearby("pickup", &created)).await;
        let total = pickup.body["error"]["amount_cents"].clone();
        let mut body = nearby("pickup", &created);
        if pickup.status == 409 {
            body["accept_amount_cents"] = total;
        }
        let answer = change(&app, &id, &body).await;
        assert_eq!(answer.status, 200, "pending: {:#}", answer.body);
        force_status(&app, &id, &[Status::Pending, Status::CourierAssigned]).await;
        change(&app, &id, &nearby("pickup", &answer.body)).await.assert_error(409, "not_editable", Some("pickup.latitude"));
        change(&app, &id, &json!({ "pickup": { "address": "Elsewhere 1" } })).await.assert_error(409, "not_editable", Some("pickup.address"));

        // The dropoff moves until the courier is there.
        force_status(&app, &id, &[Status::CourierAssigned, Status::AtPickup, Status::PickedUp, Status::InTransit]).await;
        let renamed = change(&app, &id, &json!({ "dropoff": { "address": "Oranienstraße 25, Seitenflügel" } })).await;
        assert_eq!(renamed.status, 200, "in transit: {:#}", renamed.body);
        force_status(&app, &id, &[Status::InTransit, Status::AtDropoff]).await;
        change(&app, &id, &nearby("dropoff", &renamed.body)).await.assert_error(409, "not_editable", Some("dropoff.latitude"));
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!(unchanged.body["dropoff"], renamed.body["dropoff"]);
    }

    async fn a_repriced_live_delivery_moves_its_credit(app: TestApp) {
        let price = app.create_delivery(&app.test_key, &berlin_delivery()).await["amount_cents"].as_i64().expect("amount");
        let workspace = crate::billing::billed_workspace(&app, price + 100, 14).await;
        let created = app.create_delivery(&workspace.live_key, &berlin_delivery()).await;
        let id = id_of(&created);
        assert_eq!(crate::billing::billing_state(&app, &workspace.id).await.open_amount_cents, price);
        let far = json!({ "dropoff": { "latitude": 52.40, "longitude": 13.60 } });
        let refused = patch(&app, &id, &workspace.live_key, Some("far-1"), &[], &far).await;
        refused.assert_error(409, "price_changed", Some("accept_amount_cents"));
        let total = refused.body["error"]["amount_cents"].as_i64().expect("total");
        assert!(total > price + 100, "a route beyond the credit: {total}");
        let mut accepted = far.clone();
        accepted["accept_amount_cents"] = json!(total);
        let over = patch(&app, &id, &workspace.live_key, Some("far-1"), &[], &accepted).await;
        over.assert_error(402, "invoice_credit_limit_exceeded", None);
        assert_eq!(crate::billing::billing_state(&app, &workspace.id).await.open_amount_cents, price);
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &workspace.live_key).await.body["amount_cents"], price);

        // Closer: cheaper, and the difference is given back.
        let near = json!({ "dropoff": { "latitude": 52.515, "longitude": 13.415 } });
        let cheaper = patch(&app, &id, &workspace.live_key, Some("near-1"), &[], &near).await;
        cheaper.assert_error(409, "price_changed", Some("accept_amount_cents"));
        let lower = cheaper.body["error"]["amount_cents"].as_i64().expect("total");
        assert!(lower < price, "{lower} before {price}");
        let mut accepted = near.clone();
        accepted["accept_amount_cents"] = json!(lower);
        let answer = patch(&app, &id, &workspace.live_key, Some("near-1"), &[], &accepted).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert_eq!(crate::billing::billing_state(&app, &workspace.id).await.open_amount_cents, lower);
        let cancelled = app.post(&format!("/v1/deliveries/{id}/cancel"), &workspace.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        assert_eq!(crate::billing::billing_state(&app, &workspace.id).await.open_amount_cents, 0, "the cancel gives back the total as changed");
    }

    async fn another_workspace_or_mode_sees_no_delivery(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let body = json!({ "notes": "Mine." });
        patch(&app, &id, &app.live_key, Some("other-1"), &[], &body).await.assert_error(404, "not_found", None);
        let plan = courier::internal::v1::Plan { api_access: true, ..Default::default() };
        let workspace = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, plan).await;
        let stranger = app.create_key(&workspace, courier::v1::Mode::Test, &[]).await;
        patch(&app, &id, &stranger, Some("other-2"), &[], &body).await.assert_error(404, "not_found", None);
        patch(&app, "del_unknown", &app.test_key, Some("other-3"), &[], &body).await.assert_error(404, "not_found", None);
        let reader = app.create_key(&app.workspace_id, courier::v1::Mode::Test, &["deliveries:read"]).await;
        patch(&app, &id, &reader, Some("other-4"), &[], &body).await.assert_error(403, "permission_denied", None);
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert!(unchanged.body["notes"].is_null());
    }

    async fn the_courier_holding_the_job_gets_it_as_it_now_is(app: TestApp) {
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let mut stream = client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        assert!(matches!(next(&mut stream).await.update, Some(apb::watch_assignments_response::Update::Snapshot(_))));
        assign(&app, &id, &kim.courier.id).await.expect("assign");
        let given = next(&mut stream).await;
        assert!(given.changed_fields.is_empty(), "{given:?}");

        let answer = patch(&app, &id, &app.live_key, Some("held-1"), &[], &json!({ "notes": "Gate code 4711.", "dropoff": { "instructions": "Back yard." } })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let pushed = next(&mut stream).await;
        let Some(apb::watch_assignments_response::Update::Job(job)) = &pushed.update else {
            panic!("expected the job, got {pushed:?}");
        };
        assert_eq!(job.id, id);
        assert_eq!(job.notes.as_deref(), Some("Gate code 4711."));
        assert_eq!(job.dropoff.as_ref().and_then(|d| d.instructions.as_deref()), Some("Back yard."));
        assert_eq!(pushed.changed_fields, ["notes", "dropoff.instructions"]);
        let route = next_message(&mut stream).await;
        assert!(matches!(route.update, Some(apb::watch_assignments_response::Update::Route(_))), "{route:?}");

        // A new window: the job as it now is, its route planned again.
        let answer = patch(&app, &id, &app.live_key, Some("held-2"), &[], &json!({ "dropoff_window": window(&app, 90, 150) })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let pushed = next(&mut stream).await;
        let Some(apb::watch_assignments_response::Update::Job(job)) = &pushed.update else {
            panic!("expected the job, got {pushed:?}");
        };
        assert!(job.dropoff_window.is_some(), "{job:?}");
        assert_eq!(pushed.changed_fields, ["dropoff_window"]);

        // A moved dropoff: the job with its new place.
        let moved = json!({ "dropoff": { "address": "Tempelhofer Damm 1", "latitude": 52.473, "longitude": 13.403 } });
        let priced = patch(&app, &id, &app.live_key, Some("held-move"), &[], &moved).await;
        priced.assert_error(409, "price_changed", Some("accept_amount_cents"));
        let mut accepted = moved.clone();
        accepted["accept_amount_cents"] = priced.body["error"]["amount_cents"].clone();
        let answer = patch(&app, &id, &app.live_key, Some("held-move"), &[], &accepted).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let pushed = loop {
            let message = next(&mut stream).await;
            if matches!(message.update, Some(apb::watch_assignments_response::Update::Job(_))) {
                break message;
            }
        };
        let Some(apb::watch_assignments_response::Update::Job(job)) = &pushed.update else {
            unreachable!("matched above");
        };
        assert_eq!(job.dropoff.as_ref().map(|d| (d.address.as_str(), d.latitude)), Some(("Tempelhofer Damm 1", 52.473)));
        assert_eq!(pushed.changed_fields, ["dropoff.address", "dropoff.latitude", "dropoff.longitude", "amount_cents"]);

        // A change of nothing is not pushed: nothing names a changed
        // member before the cancel's withdrawal (moved ETAs may come first).
        let same = patch(&app, &id, &app.live_key, Some("held-3"), &[], &json!({ "notes": "Gate code 4711." })).await;
        assert_eq!(same.status, 200, "{:#}", same.body);
        let cancelled = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        loop {
            let message = next(&mut stream).await;
            assert!(message.changed_fields.is_empty(), "{message:?}");
            if matches!(message.update, Some(apb::watch_assignments_response::Update::Withdrawal(_))) {
                break;
            }
        }
    }
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(200);

    async fn test_deliveries_change_while_the_simulator_moves_them(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = id_of(&created);
        let answer = change(&app, &id, &json!({ "notes": "Simulated.", "dropoff": { "instructions": "Any door." } })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let delivered = app.wait_for_status(&app.test_key, &id, "delivered", Duration::from_secs(20)).await;
        assert_eq!(delivered["notes"], "Simulated.");
        assert_eq!(delivered["dropoff"]["instructions"], "Any door.");
        change(&app, &id, &json!({ "notes": "After." })).await.assert_error(409, "not_editable", Some("notes"));
        let types: Vec<String> = events_of(&app, &app.test_key, &id).await.iter().map(|e| e["type"].as_str().unwrap_or_default().to_owned()).collect();
        assert_eq!(types.iter().filter(|t| *t == "delivery.updated").count(), 1, "{types:?}");
    }
}
