//! Automatic dispatch, with couriers driven through the courier app's API:
//! the nearest courier is offered a job first, a decline or an expiry sends
//! it to the next, a cancelled delivery's offer is withdrawn, waiting
//! deliveries and free couriers are matched jointly, a bicycle is never
//! offered a van's job, a delivery nobody takes is cancelled
//! `no_courier_found`, and two replicas give every delivery to exactly one
//! courier, one of them killed with SIGKILL mid-run.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::v1 as pb;
use courier_orders::assignments::entity as assignment;
use courier_store::config::DispatchMode;
use sea_orm::EntityTrait;
use serde_json::json;

use crate::couriers::{App, at, file, join, next, png, proof, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::{Backend, TestApp, together, unique_suffix, wait_until};
use crate::webhook_crash::CoreProcess;

/// The demo delivery's pickup (Alexanderplatz).
pub const PICKUP: (f64, f64) = (52.5219, 13.4132);
/// About one kilometre of latitude.
pub const KM: f64 = 0.009;
/// The jobs a car carries at once (the catalogue's `max_jobs`).
const CAR_MAX_JOBS: usize = 5;

/// A courier online at `km_north` of the pickup, watching their stream
/// (its snapshot read).
pub async fn online_at(
    app: &TestApp,
    name: &str,
    km_north: f64,
    vehicle: &str,
) -> (App, tonic::Streaming<apb::WatchAssignmentsResponse>) {
    let email = format!("{}@example.com", name.to_lowercase().replace(' ', "."));
    let courier = join(app, "", name, &email, vehicle).await;
    let mut client = courier.client.clone();
    client
        .set_availability(courier.request(apb::SetAvailabilityRequest {
            availability: apb::Availability::Online as i32,
        }))
        .await
        .expect("online");
    let position = apb::ReportLocationsRequest {
        positions: vec![at(app, PICKUP.0 + km_north * KM, PICKUP.1)],
    };
    client
        .report_locations(courier.request(tokio_stream::iter([position])))
        .await
        .expect("position");
    let mut stream = client
        .watch_assignments(courier.request(apb::WatchAssignmentsRequest::default()))
        .await
        .expect("watch")
        .into_inner();
    assert!(matches!(next(&mut stream).await.update, Some(Update::Snapshot(_))));
    (courier, stream)
}

fn offer_of(message: apb::WatchAssignmentsResponse) -> apb::Offer {
    match message.update {
        Some(Update::Offer(offer)) => offer,
        other => panic!("expected an offer, got {other:?}"),
    }
}

fn withdrawal_of(message: apb::WatchAssignmentsResponse) -> apb::Withdrawal {
    match message.update {
        Some(Update::Withdrawal(withdrawal)) => withdrawal,
        other => panic!("expected a withdrawal, got {other:?}"),
    }
}

fn delivery_at(km_north: f64, vehicle: &str) -> serde_json::Value {
    let mut body = berlin_delivery();
    body["pickup"]["latitude"] = json!(PICKUP.0 + km_north * KM);
    body["vehicle_type_id"] = json!(vehicle);
    body
}

/// The open offers, job → courier.
async fn open_offers(app: &TestApp) -> HashMap<String, String> {
    courier_orders::assignments::offers::open(&app.core.db)
        .await
        .expect("offers")
        .into_iter()
        .map(|o| (o.job_id, o.courier_id))
        .collect()
}

e2e! {
    with |config| {
        config.dispatch = DispatchMode::Auto;
        config.offer_timeout = Duration::from_secs(2);
    };

    async fn the_nearest_courier_is_offered_first_then_the_next_after_a_decline_or_an_expiry(app: TestApp) {
        let (near, mut near_stream) = online_at(&app, "Near Courier", 1.0, "car").await;
        let (mid, mut mid_stream) = online_at(&app, "Mid Courier", 3.0, "car").await;
        let (far, mut far_stream) = online_at(&app, "Far Courier", 6.0, "car").await;
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();

        let first = offer_of(next(&mut near_stream).await);
        let job = first.job.as_ref().expect("job");
        assert_eq!(job.id, id);
        assert!(job.pickup.as_ref().expect("pickup").contact.as_ref().expect("contact").phone.is_empty(), "no phone numbers before accepting");
        assert!(first.minutes_to_pickup >= 1 && first.distance_to_pickup_km < 1.5, "{first:?}");
        near.client.clone().decline_offer(near.request(apb::DeclineOfferRequest { offer_id: first.id.clone() })).await.expect("decline");

        let second = offer_of(next(&mut mid_stream).await);
        assert_eq!(second.job.as_ref().expect("job").id, id);
        // Mid lets it expire: withdrawn from their app, offered to Far.
        let expired = withdrawal_of(next(&mut mid_stream).await);
        assert_eq!((expired.reason(), expired.offer_id.as_deref()), (apb::WithdrawalReason::OfferExpired, Some(second.id.as_str())));
        let third = offer_of(next(&mut far_stream).await);
        let status = mid.client.clone().accept_offer(mid.request(apb::AcceptOfferRequest { offer_id: second.id.clone() })).await.expect_err("expired");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "offer_expired", None));
        let status = near.client.clone().accept_offer(near.request(apb::AcceptOfferRequest { offer_id: first.id.clone() })).await.expect_err("declined");
        assert_eq!(refusal(&status).1, "conflict");

        let mut far_client = far.client.clone();
        let accepted = far_client.accept_offer(far.request(apb::AcceptOfferRequest { offer_id: third.id.clone() })).await.expect("accept").into_inner().job.expect("job");
        assert_eq!((accepted.status(), accepted.active), (pb::DeliveryStatus::CourierAssigned, true));
        assert!(!accepted.pickup.as_ref().expect("pickup").contact.as_ref().expect("contact").phone.is_empty(), "phone numbers once accepted");
        far_client.accept_offer(far.request(apb::AcceptOfferRequest { offer_id: third.id.clone() })).await.expect("accepting again answers the job");
        let seen = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
        assert_eq!((seen.body["status"].as_str(), seen.body["courier"]["name"].as_str()), (Some("courier_assigned"), Some("Far")));
        let offered = app.metric(&app.metrics_url, "courier_dispatch_offers_total", "result=\"offered\"").await;
        assert_eq!(offered, 3.0);
        // Nobody else hears of the job again.
        assert!(open_offers(&app).await.is_empty());

        // Taken back from Far by a dispatcher: offered to nobody passed over,
        // and the dispatcher sees who was, and why.
        let request = app.dispatch_request(courier::internal::v1::UnassignJobRequest { job_id: id.clone() });
        app.dispatch().await.unassign_job(request).await.expect("unassign");
        // (After the job as accepted.)
        while !matches!(next(&mut far_stream).await.update, Some(Update::Withdrawal(w)) if w.job_id == id) {}
        // A round of the test's own (the background one may hold the lock).
        let round = wait_until("a round not locked out", Duration::from_secs(5), async || {
            courier_core::auto_dispatch::round(&app.core).await.expect("round").ok_or("locked")
        })
        .await;
        assert_eq!(round.offered, 0, "{round:?}");
        assert!(open_offers(&app).await.is_empty(), "not offered again to Far, nor to those who passed");
        crate::console_couriers::console_user(&app, "ops@example.com", None).await;
        let ops = crate::console_pages::sign_in(&app, "ops@example.com").await;
        let dispatch = app.url("/console/ops/dispatch");
        for page in [dispatch.clone(), format!("{dispatch}/{id}")] {
            let (status, page, _) = crate::console_pages::get(&ops, &page).await;
            assert_eq!(status, 200, "{page}");
            let (near_line, mid_line, far_line) = (
                page.find("Declined by Near Courier").unwrap_or_else(|| panic!("the decline: {page}")),
                page.find("Mid Courier let the offer expire").unwrap_or_else(|| panic!("the expiry: {page}")),
                page.find("Taken back from Far Courier").unwrap_or_else(|| panic!("the unassign: {page}")),
            );
            assert!(near_line < mid_line && mid_line < far_line, "oldest first: {page}");
        }
        // A dispatcher may still give it to Far by hand.
        crate::couriers::assign(&app, &id, &far.courier.id).await.expect("assigned by hand");
    }

    async fn a_cancelled_deliverys_offer_is_withdrawn_at_once(app: TestApp) {
        let (courier, mut stream) = online_at(&app, "Kim Courier", 1.0, "car").await;
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let offer = offer_of(next(&mut stream).await);
        let cancelled = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        let withdrawn = withdrawal_of(next(&mut stream).await);
        assert_eq!((withdrawn.job_id.as_str(), withdrawn.reason()), (id.as_str(), apb::WithdrawalReason::OfferWithdrawn));
        let status = courier.client.clone().accept_offer(courier.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect_err("withdrawn");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "offer_withdrawn", None));
    }

    async fn a_delivery_nobody_takes_is_cancelled_no_courier_found(app: TestApp) {
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        app.clock.advance(Duration::from_secs(31 * 60));
        let ended = app.wait_for_status(&app.live_key, &id, "cancelled", Duration::from_secs(10)).await;
        assert_eq!(ended["cancellation_reason"], "no_courier_found");
    }
}

e2e! {
    async fn waiting_deliveries_and_free_couriers_are_matched_jointly(app: TestApp) {
        // Two kilometres apart: A's pickup, then B's to the north. X waits
        // between them (1 km from each), Y 3 km south of A. First come
        // would give A to X (1 km) and B to Y (5 km); jointly A goes to Y
        // (3 km) and B to X (1 km).
        let a = app.create_delivery(&app.live_key, &delivery_at(0.0, "cargo_bike")).await;
        let b = app.create_delivery(&app.live_key, &delivery_at(2.0, "cargo_bike")).await;
        let (x, _x_stream) = online_at(&app, "Xena Courier", 1.0, "car").await;
        let (y, _y_stream) = online_at(&app, "Yusuf Courier", -3.0, "car").await;
        let round = courier_core::auto_dispatch::round(&app.core).await.expect("round").expect("the round ran");
        assert_eq!((round.waiting, round.free_couriers, round.offered), (Some(2), 2, 2));
        let offers = open_offers(&app).await;
        assert_eq!(offers[a["id"].as_str().expect("id")], y.courier.id);
        assert_eq!(offers[b["id"].as_str().expect("id")], x.courier.id);
    }

    async fn a_fleet_with_automatic_dispatch_offers_its_board_orders_to_its_drivers(app: TestApp) {
        let plan = |auto_dispatch| courier::internal::v1::Plan { api_access: true, fleet_order_intake: true, auto_dispatch, ..Default::default() };
        let auto = app.create_workspace(courier::internal::v1::WorkspaceKind::Fleet, plan(true)).await;
        let manual = app.create_workspace(courier::internal::v1::WorkspaceKind::Fleet, plan(false)).await;
        let mut orders = Vec::new();
        for fleet in [&auto, &manual] {
            let key = app.create_key(fleet, pb::Mode::Live, &[]).await;
            orders.push(crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await["order_id"].as_str().expect("order").to_owned());
        }
        // A platform courier right at the pickup is never offered a board order.
        let (_platform, _platform_stream) = online_at(&app, "Pat Platform", 0.0, "car").await;
        let mut drivers = Vec::new();
        for (fleet, name) in [(&auto, "Ada Auto"), (&manual, "Max Manual")] {
            let driver = join(&app, fleet, name, &format!("{}@example.com", name.to_lowercase().replace(' ', ".")), "cargo_bike").await;
            let mut client = driver.client.clone();
            client.set_availability(driver.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
            let position = apb::ReportLocationsRequest { positions: vec![at(&app, PICKUP.0 + KM, PICKUP.1)] };
            client.report_locations(driver.request(tokio_stream::iter([position]))).await.expect("position");
            drivers.push(driver);
        }
        courier_core::auto_dispatch::round(&app.core).await.expect("round");
        let offers = open_offers(&app).await;
        assert_eq!(offers.len(), 1, "{offers:?}");
        assert_eq!(offers.get(&orders[0]), Some(&drivers[0].courier.id));
        let mut stream = drivers[0].client.clone().watch_assignments(drivers[0].request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        let snapshot = match next(&mut stream).await.update {
            Some(Update::Snapshot(snapshot)) => snapshot,
            other => panic!("expected a snapshot, got {other:?}"),
        };
        let offer = snapshot.offer.expect("the open offer in the snapshot");
        assert_eq!(offer.job.as_ref().map(|j| j.kind()), Some(apb::JobKind::FleetOrder));
        let job = drivers[0].client.clone().accept_offer(drivers[0].request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept").into_inner().job.expect("job");
        assert_eq!((job.id.as_str(), job.status()), (orders[0].as_str(), pb::DeliveryStatus::CourierAssigned));
    }

    async fn a_bicycle_courier_is_never_offered_a_van_delivery(app: TestApp) {
        let van = app.create_delivery(&app.live_key, &delivery_at(0.0, "small_van")).await;
        let (_cyclist, _stream) = online_at(&app, "Bo Bike", 0.5, "bicycle").await;
        let round = courier_core::auto_dispatch::round(&app.core).await.expect("round").expect("the round ran");
        assert_eq!((round.waiting, round.free_couriers, round.offered), (Some(1), 1, 0));
        let (driver, _driver_stream) = online_at(&app, "Vic Van", 5.0, "large_van").await;
        courier_core::auto_dispatch::round(&app.core).await.expect("round");
        assert_eq!(open_offers(&app).await.get(van["id"].as_str().expect("id")), Some(&driver.courier.id));
    }
}

/// A courier who takes every offer and carries each job to its end, until
/// `carried` (by every courier) reaches `total`; how many they carried.
/// Their open jobs never exceed their car's five.
async fn carry_everything(
    app: &TestApp,
    courier: App,
    mut stream: tonic::Streaming<apb::WatchAssignmentsResponse>,
    carried: &AtomicUsize,
    total: usize,
) -> usize {
    let mut client = courier.client.clone();
    let mut mine = 0;
    while carried.load(Ordering::SeqCst) < total {
        let message = match tokio::time::timeout(Duration::from_secs(1), stream.message()).await {
            Ok(Ok(Some(message))) => message,
            Err(_) => continue,
            Ok(ended) => panic!("{}: the assignment stream ended: {ended:?}", courier.courier.id),
        };
        let Some(Update::Offer(offer)) = message.update else {
            continue;
        };
        let Ok(job) = client
            .accept_offer(courier.request(apb::AcceptOfferRequest { offer_id: offer.id }))
            .await
        else {
            continue;
        };
        let id = job.into_inner().job.expect("job").id;
        let open = client
            .list_jobs(courier.request(apb::ListJobsRequest::default()))
            .await
            .expect("open jobs")
            .into_inner()
            .jobs;
        assert!(
            open.len() <= CAR_MAX_JOBS && open.iter().any(|j| j.id == id),
            "{} holds at most {CAR_MAX_JOBS} jobs, this one among them: {open:?}",
            courier.courier.id
        );
        client
            .arrive_at_pickup(courier.request(apb::ArriveAtPickupRequest { job_id: id.clone() }))
            .await
            .expect("arrive");
        let photo = |checkpoint, n| {
            proof(
                &id,
                checkpoint,
                vec![file(pb::ArtifactKind::Photo, "p.png", png(n))],
                "",
            )
        };
        client
            .submit_proof(courier.request(photo(pb::CheckpointKind::Pickup, 1)))
            .await
            .expect("pickup proof");
        client
            .pick_up(courier.request(apb::PickUpRequest { job_id: id.clone() }))
            .await
            .expect("pick up");
        client
            .start_transit(courier.request(apb::StartTransitRequest { job_id: id.clone() }))
            .await
            .expect("transit");
        client
            .arrive_at_dropoff(courier.request(apb::ArriveAtDropoffRequest { job_id: id.clone() }))
            .await
            .expect("at dropoff");
        client
            .submit_proof(courier.request(photo(pb::CheckpointKind::Dropoff, 2)))
            .await
            .expect("dropoff proof");
        client
            .complete_handover(courier.request(apb::CompleteHandoverRequest { job_id: id }))
            .await
            .expect("handover");
        mine += 1;
        carried.fetch_add(1, Ordering::SeqCst);
        // Still at the pickup area, so the next offer may come.
        let position = apb::ReportLocationsRequest {
            positions: vec![at(app, PICKUP.0, PICKUP.1)],
        };
        client
            .report_locations(courier.request(tokio_stream::iter([position])))
            .await
            .expect("position");
    }
    mine
}

/// Books a delivery through the edge at `base_url` (a replica's).
async fn create_through(app: &TestApp, base_url: &str) -> serde_json::Value {
    let answer = app
        .send(
            app.http
                .post(format!("{base_url}/v1/deliveries"))
                .header("x-api-key", &app.live_key)
                .header("idempotency-key", unique_suffix())
                .json(&berlin_delivery()),
        )
        .await;
    assert_eq!(answer.status, 201, "{:#}", answer.body);
    answer.body
}

/// Two cores dispatch together, the second a process of its own; it is
/// killed with SIGKILL while deliveries wait and offers are out. Couriers
/// follow the first core; deliveries are booked through both until the
/// kill, then through the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_give_every_delivery_to_exactly_one_courier_when_one_is_killed() {
    crate::harness::limited(async {
        const DELIVERIES: usize = 200;
        const COURIERS: usize = 50;
        let Some(app) = TestApp::spawn_with(Backend::Postgres, |config| {
            config.dispatch = DispatchMode::Auto;
            config.offer_timeout = Duration::from_secs(5);
        })
        .await
        else {
            return;
        };
        let second = CoreProcess::start(&app, &[("COURIER_DISPATCH", "auto"), ("COURIER_OFFER_TIMEOUT", "5s")]);
        let second_edge = crate::hostile::edge_for(&second.grpc_url, Default::default()).await;
        let mut couriers = Vec::new();
        for n in 0..COURIERS {
            couriers.push(online_at(&app, &format!("Courier {n}"), (n % 10) as f64 * 0.5, "car").await);
        }
        let app = Arc::new(app);
        let carried = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = couriers
            .into_iter()
            .map(|(courier, stream)| {
                let (app, carried) = (app.clone(), carried.clone());
                tokio::spawn(async move { carry_everything(&app, courier, stream, &carried, DELIVERIES).await })
            })
            .collect();

        let half = DELIVERIES / 2;
        let mut created = together((0..half).map(|n| {
            let (app, second_edge) = (app.clone(), second_edge.clone());
            async move {
                let base_url = if n % 2 == 0 { app.base_url.clone() } else { second_edge };
                create_through(&app, &base_url).await
            }
        }))
        .await;
        // Mid-run: some carried, more waiting or offered.
        wait_until(
            "a quarter of the deliveries carried",
            Duration::from_secs(60),
            async || {
                let done = carried.load(Ordering::SeqCst);
                if done >= DELIVERIES / 4 {
                    Ok(())
                } else {
                    Err(format!("{done} carried"))
                }
            },
        )
        .await;
        second.kill();
        created.extend(
            together((half..DELIVERIES).map(|_| {
                let app = app.clone();
                async move { app.create_delivery(&app.live_key, &berlin_delivery()).await }
            }))
            .await,
        );

        let mut total = 0;
        for worker in workers {
            total += worker.await.expect("courier");
        }
        assert_eq!(total, DELIVERIES, "every delivery carried once");
        for delivery in &created {
            let id = delivery["id"].as_str().expect("id");
            let events = app.delivery_events(&app.live_key, id).await;
            let assigned = events.iter().filter(|(t, _)| t == "delivery.courier_assigned").count();
            assert_eq!(assigned, 1, "{id}: {events:?}");
            assert_eq!(events.last().map(|(t, _)| t.as_str()), Some("delivery.delivered"));
        }
        // One hold per delivery; a courier never holds more than their car
        // carries.
        let holds = assignment::Entity::find().all(&app.core.db).await.expect("assignments");
        assert_eq!(holds.len(), DELIVERIES);
        let mut by_courier: HashMap<&str, Vec<&assignment::Model>> = HashMap::new();
        for hold in &holds {
            by_courier.entry(hold.courier_id.as_str()).or_default().push(hold);
        }
        for (courier, held) in by_courier {
            for hold in &held {
                let at_once = held
                    .iter()
                    .filter(|other| {
                        other.assigned_at <= hold.assigned_at
                            && other.ended_at.expect("every job ended") > hold.assigned_at
                    })
                    .count();
                assert!(
                    at_once <= CAR_MAX_JOBS,
                    "{courier} held {at_once} jobs at once: {held:?}"
                );
            }
        }
        wait_until("no open offer left", Duration::from_secs(5), async || {
            let open = open_offers(&app).await.len();
            if open == 0 {
                Ok(())
            } else {
                Err(format!("{open} open offers"))
            }
        })
        .await;
    })
    .await;
}
