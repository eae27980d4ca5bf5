//! Several jobs per courier (docs/guide.md "Several jobs per courier"),
//! couriers driven through the courier app's API: a car courier holding a
//! job is offered a second whose pickup is on the way, never one that
//! would break the first's window, make a late job later or ride alone; a bicycle
//! holds two jobs at most and never more than its weight on board; the
//! route is planned again when a job is cancelled and when the courier
//! takes a stop out of order, with ETAs in route order; tracking's
//! `stops_before_dropoff` counts down.

use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::v1 as pb;
use courier_store::config::DispatchMode;
use serde_json::{Value, json};

use crate::auto_dispatch::{KM, PICKUP, online_at};
use crate::couriers::{App, assign, file, next, next_message, png, proof, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, wait_until};

/// A delivery from `from` to `to` (latitude, longitude), by `vehicle`.
fn trip(from: (f64, f64), to: (f64, f64), vehicle: &str) -> Value {
    let mut body = berlin_delivery();
    body["pickup"]["latitude"] = json!(from.0);
    body["pickup"]["longitude"] = json!(from.1);
    body["dropoff"]["latitude"] = json!(to.0);
    body["dropoff"]["longitude"] = json!(to.1);
    body["vehicle_type_id"] = json!(vehicle);
    body
}

/// The berlin delivery's dropoff (Oranienstraße).
const DROPOFF: (f64, f64) = (52.5010, 13.4190);

/// The courier's route, as the app's API answers it.
pub async fn route_of(courier: &App) -> Vec<apb::RouteStop> {
    courier
        .client
        .clone()
        .get_route(courier.request(apb::GetRouteRequest {}))
        .await
        .expect("route")
        .into_inner()
        .route
        .expect("a route")
        .stops
}

/// The route's stops as (job, kind).
fn stops(route: &[apb::RouteStop]) -> Vec<(String, apb::StopKind)> {
    route.iter().map(|s| (s.job_id.clone(), s.kind())).collect()
}

/// Every pickup before its dropoff, and the ETAs in route order.
fn assert_well_ordered(route: &[apb::RouteStop]) {
    for (i, stop) in route.iter().enumerate() {
        if stop.kind() == apb::StopKind::Dropoff {
            let pickup = route
                .iter()
                .position(|s| s.job_id == stop.job_id && s.kind() == apb::StopKind::Pickup);
            assert!(pickup.is_none_or(|p| p < i), "a pickup after its dropoff: {route:?}");
        }
    }
    let etas: Vec<i64> = route.iter().map(|s| s.eta.as_ref().expect("an ETA").seconds).collect();
    assert!(
        etas.windows(2).all(|pair| pair[0] <= pair[1]),
        "ETAs in route order: {etas:?}"
    );
}

async fn stops_before_dropoff(app: &TestApp, id: &str) -> Value {
    let answer = app.get(&format!("/v1/deliveries/{id}/tracking"), &app.live_key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["stops_before_dropoff"].clone()
}

fn id_of(delivery: &Value) -> String {
    delivery["id"].as_str().expect("id").to_owned()
}

/// At the pickup, the proof in, the goods on board.
async fn pick_up(courier: &App, id: &str) {
    let mut client = courier.client.clone();
    client
        .arrive_at_pickup(courier.request(apb::ArriveAtPickupRequest { job_id: id.into() }))
        .await
        .expect("arrive");
    let photo = proof(
        id,
        pb::CheckpointKind::Pickup,
        vec![file(pb::ArtifactKind::Photo, "p.png", png(1))],
        "",
    );
    client.submit_proof(courier.request(photo)).await.expect("pickup proof");
    client
        .pick_up(courier.request(apb::PickUpRequest { job_id: id.into() }))
        .await
        .expect("pick up");
}

/// A round of the test's own (the background one may hold the lock).
async fn round(app: &TestApp) -> courier_core::auto_dispatch::Round {
    wait_until("a round not locked out", Duration::from_secs(5), async || {
        courier_core::auto_dispatch::round(&app.core)
            .await
            .expect("round")
            .ok_or("locked")
    })
    .await
}

async fn offered(app: &TestApp, job_id: &str) -> Option<String> {
    courier_orders::assignments::offers::open(&app.core.db)
        .await
        .expect("offers")
        .into_iter()
        .find(|offer| offer.job_id == job_id)
        .map(|offer| offer.courier_id)
}

e2e! {
    with |config| {
        config.dispatch = DispatchMode::Auto;
        config.offer_timeout = Duration::from_secs(60);
    };

    async fn a_car_courier_is_offered_a_job_on_the_way_and_none_that_breaks_a_promise(app: TestApp) {
        let (car, mut stream) = online_at(&app, "Cara Car", 0.0, "car").await;
        // The first job must be dropped off within 20 minutes.
        let now = app.clock.now();
        let mut first = trip(PICKUP, DROPOFF, "cargo_bike");
        first["dropoff_window"] = json!({
            "start": (now - chrono::Duration::minutes(1)).to_rfc3339(),
            "end": (now + chrono::Duration::minutes(20)).to_rfc3339(),
        });
        let first = id_of(&app.create_delivery(&app.live_key, &first).await);
        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        assert!(offer.route.is_none() && offer.added_minutes.is_none(), "a first job is no insertion: {offer:?}");
        car.client.clone().accept_offer(car.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept");
        assert_eq!(stops_before_dropoff(&app, &first).await, json!(1), "its own pickup first");

        // The other way: any place for it makes the first late, or it waits too long.
        let north = id_of(&app.create_delivery(&app.live_key, &trip((PICKUP.0 + 4.0 * KM, PICKUP.1), (PICKUP.0 + 8.0 * KM, PICKUP.1), "cargo_bike")).await);
        // On the way, but booked to ride alone.
        let mut alone = trip((52.5110, 13.4160), (52.5020, 13.4185), "cargo_bike");
        alone["batching"] = json!("never");
        let alone = id_of(&app.create_delivery(&app.live_key, &alone).await);
        assert_eq!(stops_before_dropoff(&app, &north).await, Value::Null, "no courier yet");
        // On the way: picked up between the first's ends, dropped off near its dropoff.
        let on_the_way = id_of(&app.create_delivery(&app.live_key, &trip((52.5110, 13.4160), (52.5020, 13.4185), "cargo_bike")).await);

        let second = loop {
            match next(&mut stream).await.update {
                Some(Update::Offer(offer)) => break offer,
                Some(Update::Job(_)) => {}
                other => panic!("expected an offer, got {other:?}"),
            }
        };
        assert_eq!(second.job.as_ref().expect("job").id, on_the_way, "only the job on the way is offered");
        let proposed = second.route.as_ref().expect("the route with it").stops.clone();
        assert_eq!(proposed.len(), 4, "{proposed:?}");
        assert!(proposed.iter().any(|s| s.job_id == first) && proposed.iter().any(|s| s.job_id == on_the_way));
        assert_well_ordered(&proposed);
        let added = second.added_minutes.expect("what it adds");
        assert!((6..=12).contains(&added), "two stops' handling and a small detour: {added} min");
        let unaccepted = proposed.iter().find(|s| s.job_id == on_the_way).expect("its stop");
        assert!(unaccepted.place.as_ref().and_then(|p| p.contact.as_ref()).is_none_or(|c| c.phone.is_empty()), "no phone numbers before accepting");
        // A dispatcher choosing by hand sees Cara with what the job adds.
        let request = app.dispatch_request(courier::internal::v1::RankCouriersRequest { job_id: on_the_way.clone() });
        let ranked = app.dispatch().await.rank_couriers(request).await.expect("rank").into_inner().couriers;
        assert_eq!(ranked.len(), 1, "{ranked:?}");
        assert_eq!((ranked[0].courier_id.as_str(), ranked[0].jobs_held), (car.courier.id.as_str(), 1));
        assert_eq!(ranked[0].added_seconds.map(|s| (s + 59) / 60), Some(added));
        car.client.clone().accept_offer(car.request(apb::AcceptOfferRequest { offer_id: second.id })).await.expect("accept the second");

        // A route message follows the job's change.
        let route = loop {
            if let Some(Update::Route(route)) = next_message(&mut stream).await.update {
                break route.stops;
            }
        };
        assert_eq!(stops(&route), stops(&route_of(&car).await));
        assert_well_ordered(&route);
        let dropoff_of = |job: &str| route.iter().position(|s| s.job_id == job && s.kind() == apb::StopKind::Dropoff).expect("a dropoff");
        assert_eq!(stops_before_dropoff(&app, &first).await, json!(dropoff_of(&first)));
        assert_eq!(stops_before_dropoff(&app, &on_the_way).await, json!(dropoff_of(&on_the_way)));
        // The first's promise still holds on the route.
        let first_dropoff = route[dropoff_of(&first)].eta.as_ref().expect("eta").seconds;
        assert!(first_dropoff <= (now + chrono::Duration::minutes(20)).timestamp(), "{route:?}");

        // Neither the job the other way nor the one riding alone goes to Cara.
        let done = round(&app).await;
        assert_eq!(done.offered, 0, "{done:?}");
        assert_eq!((offered(&app, &north).await, offered(&app, &alone).await), (None, None));
        let jobs = car.client.clone().list_jobs(car.request(apb::ListJobsRequest::default())).await.expect("jobs").into_inner().jobs;
        assert_eq!(jobs.len(), 2);
    }

    async fn no_job_is_inserted_that_makes_a_late_job_later(app: TestApp) {
        // Pia is 12 km away: the first job's dropoff, when she takes it, is
        // already past its promise (booked now: pickup planned in 10 minutes).
        let (pia, mut stream) = online_at(&app, "Pia Far", 12.0, "car").await;
        let first = id_of(&app.create_delivery(&app.live_key, &trip(PICKUP, DROPOFF, "cargo_bike")).await);
        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        assert_eq!(offer.job.as_ref().expect("job").id, first);
        pia.client.clone().accept_offer(pia.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept");

        // On her way, a few minutes more: within COURIER_BATCH_MAX_DELAY,
        // and its own promise would hold, but the first would be later still.
        let on_the_way = trip((PICKUP.0 + 6.0 * KM, PICKUP.1), (PICKUP.0 + 5.5 * KM, PICKUP.1), "cargo_bike");
        let on_the_way = id_of(&app.create_delivery(&app.live_key, &on_the_way).await);
        let done = round(&app).await;
        assert_eq!(done.offered, 0, "{done:?}");
        assert_eq!(offered(&app, &on_the_way).await, None);
        assert_eq!(stops(&route_of(&pia).await).len(), 2, "only the first job's stops");
    }

    async fn a_route_is_planned_again_when_a_job_is_cancelled_or_a_stop_taken_out_of_order(app: TestApp) {
        let (olli, mut stream) = online_at(&app, "Olli Order", 0.0, "car").await;
        let near = id_of(&app.create_delivery(&app.live_key, &trip((52.5200, 13.4140), DROPOFF, "car")).await);
        let further = id_of(&app.create_delivery(&app.live_key, &trip((52.5150, 13.4160), (52.5030, 13.4185), "car")).await);
        let cancelled = id_of(&app.create_delivery(&app.live_key, &trip((52.5180, 13.4150), (52.5040, 13.4180), "car")).await);
        for id in [&near, &further, &cancelled] {
            assign(&app, id, &olli.courier.id).await.expect("room in a car");
        }
        let route = route_of(&olli).await;
        assert_eq!(route.len(), 6, "{route:?}");
        assert_well_ordered(&route);

        // Cancelled by the client: its stops leave the route, and the app hears it.
        let answer = app.post(&format!("/v1/deliveries/{cancelled}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let route = loop {
            // (After the routes of the assignments.)
            if let Some(Update::Route(route)) = next_message(&mut stream).await.update
                && !route.stops.iter().any(|s| s.job_id == cancelled)
                && route.stops.iter().any(|s| s.job_id == further)
            {
                break route.stops;
            }
        };
        assert_eq!(route.len(), 4, "{route:?}");
        assert_eq!(stops(&route), stops(&route_of(&olli).await));
        assert_eq!(stops_before_dropoff(&app, &cancelled).await, Value::Null, "ended");

        // Olli goes to the pickup the route puts second: it comes first, the
        // rest is planned from there.
        let second = route.iter().skip(1).find(|s| s.kind() == apb::StopKind::Pickup).expect("another pickup").job_id.clone();
        let other = if second == near { further.clone() } else { near.clone() };
        let before = stops_before_dropoff(&app, &second).await.as_u64().expect("a count");
        olli.client.clone().arrive_at_pickup(olli.request(apb::ArriveAtPickupRequest { job_id: second.clone() })).await.expect("arrive");
        let route = route_of(&olli).await;
        assert_eq!((route[0].job_id.as_str(), route[0].kind()), (second.as_str(), apb::StopKind::Pickup), "{route:?}");
        assert_well_ordered(&route);
        assert_eq!(route.len(), 4);
        // Picked up: one stop fewer before its dropoff, and on through the rest.
        pick_up(&olli, &second).await;
        let after = stops_before_dropoff(&app, &second).await.as_u64().expect("a count");
        assert!(after < before, "counts down: {before} then {after}");
        let route = route_of(&olli).await;
        assert_eq!(route.len(), 3);
        assert_well_ordered(&route);
        pick_up(&olli, &other).await;
        let route = route_of(&olli).await;
        assert_eq!(route.iter().map(|s| s.kind()).collect::<Vec<_>>(), [apb::StopKind::Dropoff; 2]);
        let counts = (stops_before_dropoff(&app, &near).await, stops_before_dropoff(&app, &further).await);
        assert!(counts == (json!(0), json!(1)) || counts == (json!(1), json!(0)), "{counts:?}");

        // Olli picks the later dropoff to go first.
        let later = route[1].job_id.clone();
        let chosen = olli.client.clone().choose_next_stop(olli.request(apb::ChooseNextStopRequest { job_id: later.clone(), kind: apb::StopKind::Dropoff as i32 })).await.expect("choose").into_inner().route.expect("route").stops;
        assert_eq!(chosen[0].job_id, later);
        assert_eq!(stops(&chosen), stops(&route_of(&olli).await), "kept");
        assert_eq!(stops_before_dropoff(&app, &later).await, json!(0));
        // A stop of no job of theirs, or a pickup done, is refused.
        let status = olli.client.clone().choose_next_stop(olli.request(apb::ChooseNextStopRequest { job_id: cancelled.clone(), kind: apb::StopKind::Dropoff as i32 })).await.expect_err("not theirs");
        assert_eq!(refusal(&status).1, "not_found");
        let status = olli.client.clone().choose_next_stop(olli.request(apb::ChooseNextStopRequest { job_id: later.clone(), kind: apb::StopKind::Pickup as i32 })).await.expect_err("done");
        assert_eq!(refusal(&status).1, "conflict");
    }

    async fn a_bicycle_holds_two_jobs_at_most_and_never_more_than_its_weight(app: TestApp) {
        let (bo, _stream) = online_at(&app, "Bo Bike", 0.0, "bicycle").await;
        let heavy = |from: (f64, f64), to: (f64, f64)| {
            let mut body = trip(from, to, "bicycle");
            body["items"] = json!([{ "description": "Box", "quantity": 1, "weight_kg": 6.0, "length_cm": 30.0, "width_cm": 20.0, "height_cm": 20.0 }]);
            body
        };
        let first = id_of(&app.create_delivery(&app.live_key, &heavy(PICKUP, DROPOFF)).await);
        let second = id_of(&app.create_delivery(&app.live_key, &heavy((52.5150, 13.4160), (52.5030, 13.4185))).await);
        let third = id_of(&app.create_delivery(&app.live_key, &trip((52.5150, 13.4160), (52.5030, 13.4185), "bicycle")).await);
        assign(&app, &first, &bo.courier.id).await.expect("a first job");
        assign(&app, &second, &bo.courier.id).await.expect("a second, after the first's dropoff");
        // 6 + 6 kg exceed the bicycle's 10 kg: the second is picked up only
        // once the first is dropped off.
        let route = stops(&route_of(&bo).await);
        assert_eq!(route, [
            (first.clone(), apb::StopKind::Pickup),
            (first.clone(), apb::StopKind::Dropoff),
            (second.clone(), apb::StopKind::Pickup),
            (second.clone(), apb::StopKind::Dropoff),
        ]);
        let status = assign(&app, &third, &bo.courier.id).await.expect_err("a third");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "courier_unavailable", Some("courier_id".into())));
        assert!(status.message().contains("holds 2 jobs"), "{}", status.message());
        // Automatic dispatch offers it to Bo neither.
        let done = round(&app).await;
        assert_eq!((done.offered, offered(&app, &third).await), (0, None), "{done:?}");
    }
}

e2e! {
    with |config| config.dispatch = DispatchMode::External;

    async fn each_service_areas_round_holds_its_own_lock(app: TestApp) {
        use sea_orm::{ConnectionTrait, DbBackend, Statement};
        // Amsterdam's Dam square and Centraal station.
        const DAM: (f64, f64) = (52.3731, 4.8926);
        const CENTRAAL: (f64, f64) = (52.3791, 4.9003);
        let (berliner, _berlin_stream) = online_at(&app, "Ben Berlin", 0.5, "car").await;
        let amsterdammer = crate::couriers::join(&app, "", "Ada Amsterdam", "ada@example.com", "car").await;
        let mut client = amsterdammer.client.clone();
        client.set_availability(amsterdammer.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        let position = apb::ReportLocationsRequest { positions: vec![crate::couriers::at(&app, DAM.0, DAM.1)] };
        client.report_locations(amsterdammer.request(tokio_stream::iter([position]))).await.expect("position");
        let berlin = id_of(&app.create_delivery(&app.live_key, &trip(PICKUP, DROPOFF, "car")).await);
        let amsterdam = id_of(&app.create_delivery(&app.live_key, &trip(DAM, CENTRAAL, "car")).await);
        if app.core.db.get_database_backend() != DbBackend::Postgres {
            // One core does it all: both areas in one round.
            let done = round(&app).await;
            assert_eq!(done.offered, 2, "{done:?}");
            return;
        }
        // Another replica's round of Berlin is under way (its lock held):
        // Amsterdam's round runs meanwhile, Berlin's waits its turn.
        let other = app.core.begin().await.expect("a transaction");
        let lock = courier_core::auto_dispatch::Partition::area("berlin").lock();
        other
            .execute_raw(Statement::from_sql_and_values(DbBackend::Postgres, "SELECT pg_advisory_xact_lock($1)", [lock.into()]))
            .await
            .expect("Berlin's lock");
        let done = courier_core::auto_dispatch::round(&app.core).await.expect("round");
        assert_eq!(done, None, "Berlin's round was locked out");
        assert_eq!(offered(&app, &amsterdam).await, Some(amsterdammer.courier.id.clone()));
        assert_eq!(offered(&app, &berlin).await, None);
        drop(other);
        round(&app).await;
        assert_eq!(offered(&app, &berlin).await, Some(berliner.courier.id.clone()));
    }
}
