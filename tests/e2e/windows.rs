//! Promised times (docs/guide.md "Windows"): the window rules on quotes,
//! deliveries and fleet orders at the edge and over gRPC, the planned ETAs
//! inside the windows, dispatch in time for a pickup window, a delivery at
//! risk reported once, the simulator keeping (or, asked to, breaking) the
//! promise, and the `promise` filter.

use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::v1 as pb;
use courier_store::config::DispatchMode;
use serde_json::{Value, json};

use crate::auto_dispatch::{KM, PICKUP, online_at};
use crate::couriers::{at, next};
use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, unique_suffix, wait_until};
use crate::quotes::berlin_quote;
use crate::webhooks::{Receiver, create_endpoint, signature_is_valid};

const RUN_LIMIT: Duration = Duration::from_secs(20);

/// `minutes` from now on the test clock, in whole seconds (the API keeps
/// microseconds; a whole second reads back as written).
fn minutes_ahead(app: &TestApp, minutes: i64) -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound;
    app.clock.now().trunc_subsecs(0) + chrono::Duration::minutes(minutes)
}

/// An RFC 3339 time `minutes` from now on the test clock.
fn in_minutes(app: &TestApp, minutes: i64) -> String {
    courier::time::format_rfc3339(minutes_ahead(app, minutes))
}

fn window(app: &TestApp, from: i64, to: i64) -> Value {
    json!({ "start": in_minutes(app, from), "end": in_minutes(app, to) })
}

fn time(value: &Value) -> chrono::DateTime<chrono::Utc> {
    let text = value.as_str().unwrap_or_else(|| panic!("a date-time, got {value}"));
    chrono::DateTime::parse_from_rfc3339(text).expect("RFC 3339").to_utc()
}

fn id_of(delivery: &Value) -> String {
    delivery["id"].as_str().expect("id").to_owned()
}

/// Each refused body: what changed, the code and the member named.
fn refusals(app: &TestApp) -> Vec<(&'static str, Value, &'static str, &'static str)> {
    let day = 24 * 60;
    vec![
        (
            "shorter than 15 minutes",
            json!({ "pickup_window": window(app, 30, 44) }),
            "invalid_request",
            "pickup_window.end",
        ),
        (
            "end before start",
            json!({ "pickup_window": window(app, 60, 30) }),
            "invalid_request",
            "pickup_window.end",
        ),
        (
            "longer than 12 hours",
            json!({ "dropoff_window": window(app, 60, 60 + 12 * 60 + 1) }),
            "invalid_request",
            "dropoff_window.end",
        ),
        (
            "ended",
            json!({ "dropoff_window": window(app, -60, -1) }),
            "invalid_request",
            "dropoff_window.end",
        ),
        (
            "more than 30 days ahead",
            json!({ "pickup_window": window(app, 30 * day + 1, 30 * day + 60) }),
            "invalid_request",
            "pickup_window.start",
        ),
        (
            "no end",
            json!({ "pickup_window": { "start": in_minutes(app, 30) } }),
            "invalid_request",
            "pickup_window.end",
        ),
        (
            "not a date-time",
            json!({ "pickup_window": { "start": "at two", "end": in_minutes(app, 60) } }),
            "invalid_request",
            "pickup_window.start",
        ),
        (
            "an unknown member",
            json!({ "pickup_window": { "start": in_minutes(app, 30), "end": in_minutes(app, 60), "middle": in_minutes(app, 45) } }),
            "invalid_request",
            "pickup_window.middle",
        ),
        (
            "with scheduled_at",
            json!({ "pickup_window": window(app, 30, 60), "scheduled_at": in_minutes(app, 45) }),
            "invalid_request",
            "pickup_window",
        ),
        // The route takes minutes; a dropoff window closing 2 minutes after
        // the pickup window opens cannot be met.
        (
            "not reachable",
            json!({ "pickup_window": window(app, 30, 60), "dropoff_window": window(app, 17, 32) }),
            "window_not_feasible",
            "dropoff_window",
        ),
    ]
}

fn merged(mut body: Value, change: &Value) -> Value {
    for (name, value) in change.as_object().expect("object") {
        body[name] = value.clone();
    }
    body
}

async fn count_deliveries(app: &TestApp) -> usize {
    let listed = app.get("/v1/deliveries?limit=100", &app.test_key).await;
    listed.body["deliveries"].as_array().expect("list").len()
}

async fn events_of(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let answer = app.get(&format!("/v1/events?delivery_id={id}&limit=100"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    let mut events = answer.body["events"].as_array().expect("events").clone();
    events.reverse();
    events
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().expect("type")).collect()
}

async fn listed(app: &TestApp, key: &str, query: &str) -> Vec<String> {
    let answer = app.get(&format!("/v1/deliveries?{query}"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["deliveries"]
        .as_array()
        .expect("list")
        .iter()
        .map(id_of)
        .collect()
}

e2e! {
    async fn every_window_rule_is_a_400_naming_the_member_and_nothing_is_stored(app: TestApp) {
        for (case, change, code, param) in refusals(&app) {
            let quote = app.post("/v1/quotes", &app.test_key, &merged(berlin_quote(), &change)).await;
            quote.assert_error(400, code, Some(param));
            assert!(quote.body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{case}");
            let delivery = app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &merged(berlin_delivery(), &change)).await;
            delivery.assert_error(400, code, Some(param));
            let (_, fleet_key) = crate::fleet::fleet(&app, true).await;
            let order = app.post_idempotent("/v1/fleet/orders", &fleet_key, &unique_suffix(), &merged(crate::fleet::minimal_order(), &change)).await;
            if case == "with scheduled_at" {
                // Fleet orders take no scheduled_at at all.
                order.assert_error(400, "invalid_request", Some("scheduled_at"));
            } else {
                order.assert_error(400, code, Some(param));
            }
        }
        assert_eq!(count_deliveries(&app).await, 0, "nothing stored");
        app.get("/v1/deliveries?promise=soon", &app.test_key).await.assert_error(400, "invalid_request", Some("promise"));
    }

    async fn windows_are_answered_with_the_planned_etas_inside_them(app: TestApp) {
        let windows = json!({ "pickup_window": window(&app, 60, 120), "dropoff_window": window(&app, 90, 180) });
        let quote = app.post("/v1/quotes", &app.test_key, &merged(berlin_quote(), &windows)).await;
        assert_eq!(quote.status, 201, "{:#}", quote.body);
        let quote = quote.body;
        assert_eq!((&quote["pickup_window"], &quote["dropoff_window"]), (&windows["pickup_window"], &windows["dropoff_window"]));
        // Planned: the pickup as its window opens, the dropoff not before its own.
        assert_eq!(time(&quote["pickup_eta"]), time(&windows["pickup_window"]["start"]));
        assert_eq!(time(&quote["dropoff_eta"]), time(&windows["dropoff_window"]["start"]));

        let mut body = merged(berlin_delivery(), &windows);
        body["vehicle_type_id"] = json!("car");
        body["quote_id"] = quote["id"].clone();
        let delivery = app.create_delivery(&app.test_key, &body).await;
        let id = id_of(&delivery);
        for answer in [delivery.clone(), app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body] {
            assert_eq!((&answer["pickup_window"], &answer["dropoff_window"]), (&windows["pickup_window"], &windows["dropoff_window"]));
            assert_eq!((&answer["pickup_eta"], &answer["dropoff_eta"]), (&quote["pickup_eta"], &quote["dropoff_eta"]));
        }
        let page = app.get("/v1/deliveries?limit=1", &app.test_key).await.body;
        assert_eq!(page["deliveries"][0]["dropoff_window"], windows["dropoff_window"]);
        let created = &events_of(&app, &app.test_key, &id).await[0];
        assert_eq!((created["type"].as_str(), &created["data"]["pickup_window"]), (Some("delivery.created"), &windows["pickup_window"]));

        // The quote locks its windows.
        let post = |body: Value| { let app = &app; async move { app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &body).await } };
        let mut moved = body.clone();
        moved["pickup_window"] = window(&app, 61, 120);
        post(moved).await.assert_error(400, "quote_mismatch", Some("pickup_window"));
        let mut dropped = body.clone();
        dropped.as_object_mut().expect("object").remove("dropoff_window");
        post(dropped).await.assert_error(400, "quote_mismatch", Some("dropoff_window"));

        // Without windows, an immediate delivery is planned a courier's
        // approach after booking, the dropoff a route later.
        let plain = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        assert!(plain["pickup_window"].is_null() && plain["dropoff_window"].is_null());
        assert_eq!(time(&plain["pickup_eta"]), time(&plain["created_at"]) + chrono::Duration::minutes(10));
        assert!(time(&plain["dropoff_eta"]) > time(&plain["pickup_eta"]));

        // Fleet orders keep and answer their windows.
        let (_, fleet_key) = crate::fleet::fleet(&app, true).await;
        let order = crate::fleet::create(&app, &fleet_key, &merged(crate::fleet::minimal_order(), &windows)).await;
        assert_eq!((&order["pickup_window"], &order["dropoff_window"]), (&windows["pickup_window"], &windows["dropoff_window"]));
        let read = app.get(&format!("/v1/fleet/orders/{}", id_of(&order)), &fleet_key).await.body;
        assert_eq!(read["dropoff_window"], windows["dropoff_window"]);
    }

    async fn the_window_rules_hold_over_grpc(app: TestApp) {
        use pb::quote_service_client::QuoteServiceClient;
        use pb::delivery_service_client::DeliveryServiceClient;
        let stamp = |minutes: i64| courier::time::to_proto(minutes_ahead(&app, minutes));
        let waypoint = |lat: f64, lng: f64| pb::Waypoint { address: "Somewhere 1, Berlin".into(), latitude: lat, longitude: lng, contact: None, instructions: None };
        let quote = |pickup: Option<pb::TimeWindow>, dropoff: Option<pb::TimeWindow>| {
            let mut request = tonic::Request::new(pb::CreateQuoteRequest {
                pickup: Some(waypoint(52.5219, 13.4132)),
                dropoff: Some(waypoint(52.5010, 13.4190)),
                vehicle_type_id: "car".into(),
                pickup_window: pickup,
                dropoff_window: dropoff,
                ..Default::default()
            });
            request.metadata_mut().insert("x-api-key", app.test_key.parse().expect("metadata"));
            request
        };
        let refusal = |status: tonic::Status| {
            let (code, param) = courier::errors::from_status(&status);
            (status.code(), code.as_str(), param)
        };
        let mut quotes = QuoteServiceClient::connect(app.grpc_url.clone()).await.expect("connect");
        let short = pb::TimeWindow { start: Some(stamp(30)), end: Some(stamp(40)) };
        let status = quotes.create_quote(quote(Some(short), None)).await.expect_err("too short");
        assert_eq!(refusal(status), (tonic::Code::InvalidArgument, "invalid_request", Some("pickup_window.end".to_owned())));
        let open_ended = pb::TimeWindow { start: Some(stamp(30)), end: None };
        let status = quotes.create_quote(quote(None, Some(open_ended))).await.expect_err("no end");
        assert_eq!(refusal(status).2.as_deref(), Some("dropoff_window.end"));
        let pickup = pb::TimeWindow { start: Some(stamp(30)), end: Some(stamp(60)) };
        let closing = pb::TimeWindow { start: Some(stamp(17)), end: Some(stamp(32)) };
        let status = quotes.create_quote(quote(Some(pickup), Some(closing))).await.expect_err("not reachable");
        assert_eq!(refusal(status), (tonic::Code::InvalidArgument, "window_not_feasible", Some("dropoff_window".to_owned())));
        let dropoff = pb::TimeWindow { start: Some(stamp(45)), end: Some(stamp(90)) };
        let answered = quotes.create_quote(quote(Some(pickup), Some(dropoff))).await.expect("a quote").into_inner().quote.expect("quote");
        assert_eq!((answered.pickup_window, answered.dropoff_window), (Some(pickup), Some(dropoff)));
        assert_eq!(answered.pickup_eta, pickup.start);

        let mut deliveries = DeliveryServiceClient::connect(app.grpc_url.clone()).await.expect("connect");
        let contact = Some(pb::Contact { name: "Ana Sender".into(), phone: "+49 30 1234567".into(), email: None });
        let mut request = tonic::Request::new(pb::CreateDeliveryRequest {
            pickup: Some(pb::Waypoint { contact: contact.clone(), ..waypoint(52.5219, 13.4132) }),
            dropoff: Some(pb::Waypoint { contact, ..waypoint(52.5010, 13.4190) }),
            vehicle_type_id: "car".into(),
            scheduled_at: Some(stamp(40)),
            pickup_window: Some(pickup),
            ..Default::default()
        });
        request.metadata_mut().insert("x-api-key", app.test_key.parse().expect("metadata"));
        request.metadata_mut().insert("idempotency-key", unique_suffix().parse().expect("metadata"));
        let status = deliveries.create_delivery(request).await.expect_err("both");
        assert_eq!(refusal(status), (tonic::Code::InvalidArgument, "invalid_request", Some("pickup_window".to_owned())));
        assert_eq!(count_deliveries(&app).await, 0);
    }
}

// A quick simulator, so that a test delivery's run takes a moment between
// the clock's moves.
e2e! {
    with |config| config.simulator_step = Duration::from_millis(100);

    async fn a_test_delivery_waits_for_its_pickup_window_and_meets_its_dropoff_window(app: TestApp) {
        let windows = json!({ "pickup_window": window(&app, 30, 60), "dropoff_window": window(&app, 50, 90) });
        let promised = app.create_delivery(&app.test_key, &merged(berlin_delivery(), &windows)).await;
        let id = id_of(&promised);
        // A delivery without windows booked after it runs to its end
        // meanwhile; the promised one waits for its window.
        let witness = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        app.wait_for_status(&app.test_key, &id_of(&witness), "delivered", RUN_LIMIT).await;
        let waiting = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body;
        assert_eq!(waiting["status"], "pending");

        app.clock.advance(Duration::from_secs(30 * 60));
        app.wait_for_status(&app.test_key, &id, "in_transit", RUN_LIMIT).await;
        // In transit, it is not at the dropoff before its window opens.
        let witness = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        app.wait_for_status(&app.test_key, &id_of(&witness), "delivered", RUN_LIMIT).await;
        let on_the_way = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body;
        assert_eq!(on_the_way["status"], "in_transit");
        assert!(time(&on_the_way["dropoff_eta"]) >= time(&windows["dropoff_window"]["start"]));

        app.clock.advance(Duration::from_secs(20 * 60));
        let delivered = app.wait_for_status(&app.test_key, &id, "delivered", RUN_LIMIT).await;
        let at = time(&delivered["delivered_at"]);
        assert!(time(&windows["dropoff_window"]["start"]) <= at && at <= time(&windows["dropoff_window"]["end"]), "{delivered:#}");
        let events = events_of(&app, &app.test_key, &id).await;
        let arrived = events.iter().find(|e| e["type"] == "delivery.courier_arrived").expect("arrived");
        assert!(time(&arrived["created_at"]) >= time(&windows["pickup_window"]["start"]));
        assert!(!types(&events).contains(&"delivery.delayed"), "{:?}", types(&events));
        assert!(!listed(&app, &app.test_key, "promise=late").await.contains(&id));
    }

    async fn the_delayed_scenario_runs_late_with_one_delivery_delayed(app: TestApp) {
        // An endpoint subscribed to the new type alone hears of it, signed.
        let receiver = Receiver::start().await;
        let (_, secret) = create_endpoint(&app, &app.test_key, &receiver.url, json!(["delivery.delayed"])).await;
        let mut body = merged(berlin_delivery(), &json!({ "dropoff_window": window(&app, 20, 60) }));
        body["test_scenario"] = json!("delayed");
        let created = app.create_delivery(&app.test_key, &body).await;
        let id = id_of(&created);
        let delayed = wait_until(format!("{id} delayed"), RUN_LIMIT, async || {
            let events = events_of(&app, &app.test_key, &id).await;
            events.iter().find(|e| e["type"] == "delivery.delayed").cloned().ok_or_else(|| types(&events).join(", "))
        })
        .await;
        // The new ETA is in the event, past the window's end.
        assert!(time(&delayed["data"]["dropoff_eta"]) > time(&body["dropoff_window"]["end"]), "{delayed:#}");
        assert_eq!(delayed["data"]["status"], "in_transit");
        assert_eq!(listed(&app, &app.test_key, "promise=at_risk").await, [id.as_str()]);
        let sent = receiver.wait_for(1, RUN_LIMIT).await;
        let hook = sent[0].json();
        assert_eq!((hook["type"].as_str(), hook["id"].as_str(), hook["data"]["id"].as_str()), (Some("delivery.delayed"), delayed["id"].as_str(), Some(id.as_str())));
        assert!(signature_is_valid(&secret, &sent[0]));

        app.clock.advance(Duration::from_secs(70 * 60));
        app.wait_for_status(&app.test_key, &id, "delivered", RUN_LIMIT).await;
        let events = events_of(&app, &app.test_key, &id).await;
        assert_eq!(types(&events).iter().filter(|t| **t == "delivery.delayed").count(), 1, "{:?}", types(&events));
        assert_eq!(listed(&app, &app.test_key, "promise=late").await, [id.as_str()]);
        assert!(listed(&app, &app.test_key, "promise=at_risk").await.is_empty());
        assert_eq!(receiver.received().len(), 1, "only the subscribed type, once");
    }
}

e2e! {
    with |config| {
        config.dispatch = DispatchMode::Auto;
        config.offer_timeout = Duration::from_secs(2);
    };

    async fn a_live_delivery_with_a_pickup_window_is_offered_in_time_for_it_not_before(app: TestApp) {
        let (courier, mut stream) = online_at(&app, "Wanda Window", 1.0, "car").await;
        let body = merged(berlin_delivery(), &json!({ "pickup_window": window(&app, 60, 120) }));
        let created = app.create_delivery(&app.live_key, &body).await;
        let id = id_of(&created);
        let opens = time(&body["pickup_window"]["start"]);
        // The courier search runs 30 minutes from the window's start.
        let stored = courier_orders::deliveries::find(&app.core.db, &id).await.expect("read").expect("stored");
        assert_eq!(stored.next_step_at, Some((opens + chrono::Duration::minutes(30)).timestamp_micros()));

        let fresh_position = async || {
            let position = apb::ReportLocationsRequest { positions: vec![at(&app, PICKUP.0 + KM, PICKUP.1)] };
            courier.client.clone().report_locations(courier.request(tokio_stream::iter([position]))).await.expect("position");
        };
        for minutes_before in [45, 15] {
            let until = opens - chrono::Duration::minutes(minutes_before);
            app.clock.advance((until - app.clock.now()).to_std().expect("ahead"));
            fresh_position().await;
            // On PostgreSQL the dispatcher's own round may hold the lock.
            let round = wait_until("a round", RUN_LIMIT, async || match courier_core::auto_dispatch::round(&app.core).await {
                Ok(Some(round)) => Ok(round),
                other => Err(format!("{other:?}")),
            })
            .await;
            assert_eq!(round.offered, 0, "{minutes_before} minutes before the window: {round:?}");
        }
        // A kilometre takes a car a few minutes: offered by the time the
        // window opens, for a pickup inside it.
        app.clock.advance((opens - app.clock.now()).to_std().expect("ahead"));
        fresh_position().await;
        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        assert_eq!(offer.job.as_ref().map(|j| j.id.as_str()), Some(id.as_str()));
        assert!(offer.minutes_to_pickup >= 1, "{offer:?}");
        let job = courier.client.clone().accept_offer(courier.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept").into_inner().job.expect("job");
        assert_eq!(job.status(), pb::DeliveryStatus::CourierAssigned);
        // The courier's app shows the window they are to keep.
        assert_eq!(job.pickup_window.and_then(|w| w.start).map(|t| t.seconds), Some(opens.timestamp()));
        let read = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert!(time(&read["pickup_eta"]) >= opens && time(&read["pickup_eta"]) <= time(&body["pickup_window"]["end"]), "{read:#}");
    }

    async fn a_courier_who_stalls_makes_the_delivery_delayed_exactly_once(app: TestApp) {
        let (courier, mut stream) = online_at(&app, "Stan Still", 1.0, "car").await;
        let body = merged(berlin_delivery(), &json!({ "dropoff_window": window(&app, 15, 45) }));
        let created = app.create_delivery(&app.live_key, &body).await;
        let id = id_of(&created);
        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        courier.client.clone().accept_offer(courier.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept");
        let report = async || {
            let position = apb::ReportLocationsRequest { positions: vec![at(&app, PICKUP.0 + KM, PICKUP.1)] };
            courier.client.clone().report_locations(courier.request(tokio_stream::iter([position]))).await.expect("position");
        };
        // Still a kilometre away from the pickup 40 minutes later: the
        // dropoff cannot make the window's end.
        app.clock.advance(Duration::from_secs(40 * 60));
        report().await;
        wait_until(format!("{id} at risk"), RUN_LIMIT, async || {
            let events = events_of(&app, &app.live_key, &id).await;
            if types(&events).contains(&"delivery.delayed") { Ok(()) } else { Err(types(&events).join(", ")) }
        })
        .await;
        // Later still: the ETA moves on, the delivery is not reported again.
        app.clock.advance(Duration::from_secs(20 * 60));
        report().await;
        let now = app.clock.now().timestamp_micros();
        wait_until(format!("{id} pickup ETA after the stall"), RUN_LIMIT, async || {
            let stored = courier_orders::deliveries::find(&app.core.db, &id).await.expect("read").expect("stored");
            if stored.pickup_eta.is_some_and(|eta| eta >= now) { Ok(()) } else { Err(format!("{:?}", stored.pickup_eta)) }
        })
        .await;
        let events = events_of(&app, &app.live_key, &id).await;
        assert_eq!(types(&events).iter().filter(|t| **t == "delivery.delayed").count(), 1, "{:?}", types(&events));
        let delayed = events.iter().find(|e| e["type"] == "delivery.delayed").expect("delayed");
        assert!(time(&delayed["data"]["dropoff_eta"]) > time(&body["dropoff_window"]["end"]), "{delayed:#}");
        assert_eq!(listed(&app, &app.live_key, "promise=at_risk").await, [id.as_str()]);
        assert_eq!(app.metric(&app.metrics_url, "courier_deliveries_delayed_total", "mode=\"live\"").await, 1.0);

        // The dispatch page flags it, with how late.
        crate::console_couriers::console_user(&app, "ops@example.com", None).await;
        let ops = crate::console_pages::sign_in(&app, "ops@example.com").await;
        let (status, page, _) = crate::console_pages::get(&ops, &app.url("/console/ops/dispatch")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Stan Still") && page.contains("<strong class=\"flag flag-at-risk\">At risk: about"), "{page}");
    }
}
