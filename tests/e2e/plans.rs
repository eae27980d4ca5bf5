//! Planned routes (docs/routing.md "Planned routes") over gRPC: a fleet's
//! three drivers on shift and thirty board orders planned, every order in
//! one route with its pickup first and the times in order; published, each
//! driver's app shows their route in the plan's order; planned again after
//! a driver did two stops, those stay first in their route, done; the
//! platform's scheduled deliveries of an area planned for its couriers on
//! shift and published.

use std::collections::HashMap;
use std::time::Duration;

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use serde_json::json;

use crate::couriers::{App, couriers, join, refusal};
use crate::fleet::{create, fleet, minimal_order};
use crate::harness::{TestApp, wait_until};
use crate::quotes::place;

const DAY_MICROS: i64 = 86_400_000_000;

/// The core's day, as `YYYY-MM-DD`, and its time now.
fn today(app: &TestApp) -> (String, i64) {
    let now = app.core.clock.now_micros();
    let day = courier::time::from_micros(now).format("%Y-%m-%d").to_string();
    (day, now)
}

/// A shift of `courier` from now to ten hours on, from and back to a depot
/// at Alexanderplatz.
async fn shift(app: &TestApp, courier: &App, day: &str, now: i64) -> ipb::Shift {
    couriers(app)
        .await
        .set_shift(app.admin_request(ipb::SetShiftRequest {
            courier_id: courier.courier.id.clone(),
            day: day.into(),
            start_time: Some(courier::time::micros_to_proto(now)),
            end_time: Some(courier::time::micros_to_proto(now + 10 * 3_600_000_000)),
            start_place: Some(ipb::ShiftPlace {
                address: "Depot, Alexanderplatz".into(),
                latitude: 52.5219,
                longitude: 13.4132,
            }),
            end_place: None,
            rest_minutes: Some(30),
        }))
        .await
        .expect("shift")
        .into_inner()
        .shift
        .expect("shift")
}

/// Thirty board orders of the fleet of `key`: from five shops to homes
/// around them, in cargo bike size (a car serves them).
async fn orders(app: &TestApp, key: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..30 {
        let shop = (52.50 + 0.01 * (i % 5) as f64, 13.38 + 0.012 * (i % 5) as f64);
        let home = (
            shop.0 + 0.004 * ((i * 7) % 5) as f64 - 0.008,
            shop.1 + 0.005 * ((i * 3) % 5) as f64 - 0.01,
        );
        let mut body = minimal_order();
        body["pickup"] = place(&format!("Shop {}", i % 5), shop.0, shop.1);
        body["dropoff"] = place(&format!("Home {i}"), home.0, home.1);
        body["reference"] = json!(format!("P-{i}"));
        let order = create(app, key, &body).await;
        ids.push(order["order_id"].as_str().expect("order id").to_owned());
    }
    ids
}

async fn plan_routes(app: &TestApp, workspace_id: &str, day: &str) -> ipb::RoutePlan {
    app.dispatch()
        .await
        .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest {
            workspace_id: workspace_id.into(),
            day: day.into(),
            courier_ids: Vec::new(),
            budget_seconds: 2,
            area_id: String::new(),
            pins: Vec::new(),
        }))
        .await
        .expect("plan")
        .into_inner()
        .plan
        .expect("plan")
}

/// A route's stops as (order, kind), without rests.
fn stops_of(route: &ipb::PlannedRoute) -> Vec<(String, ipb::planned_stop::Kind)> {
    route
        .stops
        .iter()
        .filter(|stop| stop.kind() != ipb::planned_stop::Kind::Rest)
        .map(|stop| (stop.order_id.clone(), stop.kind()))
        .collect()
}

/// Every order in exactly one route, its pickup (done or planned) before
/// its dropoff, the planned stops' times in order and within the shift.
fn assert_sound(plan: &ipb::RoutePlan, orders: &[String]) {
    use ipb::planned_stop::Kind;
    let mut seen: HashMap<String, String> = HashMap::new();
    for route in &plan.routes {
        let stops = stops_of(route);
        for (i, (order, kind)) in stops.iter().enumerate() {
            if *kind == Kind::Pickup {
                let dropoff = stops.iter().position(|(o, k)| o == order && *k == Kind::Dropoff);
                assert!(
                    dropoff.is_some_and(|d| d > i),
                    "{order}: pickup without a later dropoff"
                );
                let earlier = seen.insert(order.clone(), route.courier_id.clone());
                assert!(earlier.is_none(), "{order} in two routes");
            }
        }
        let times: Vec<i64> = route
            .stops
            .iter()
            .filter(|stop| !stop.done)
            .map(|stop| stop.arrive_time.as_ref().expect("a time").seconds)
            .collect();
        assert!(
            times.windows(2).all(|pair| pair[0] <= pair[1]),
            "times in order: {times:?}"
        );
        let end = route.end_time.as_ref().expect("end").seconds;
        assert!(times.iter().all(|&t| t <= end), "within the route");
    }
    for order in orders {
        assert!(seen.contains_key(order), "{order} planned: {:?}", plan.unplanned);
    }
    assert!(plan.unplanned.is_empty(), "{:?}", plan.unplanned);
}

/// The courier's route as their app shows it: (order, kind).
async fn app_route(courier: &App) -> Vec<(String, ipb::planned_stop::Kind)> {
    crate::batching::route_of(courier)
        .await
        .into_iter()
        .map(|stop| (stop.job_id.clone(), kind_of(stop.kind())))
        .collect()
}

fn kind_of(kind: apb::StopKind) -> ipb::planned_stop::Kind {
    match kind {
        apb::StopKind::Pickup => ipb::planned_stop::Kind::Pickup,
        _ => ipb::planned_stop::Kind::Dropoff,
    }
}

/// The courier does one stop of their route: the moves of a pickup (at the
/// pickup, picked up) or of a dropoff (under way, at the dropoff, handed
/// over).
async fn do_stop(courier: &App, order_id: &str, kind: ipb::planned_stop::Kind) {
    let mut client = courier.client.clone();
    let job_id = order_id.to_owned();
    if kind == ipb::planned_stop::Kind::Pickup {
        client
            .arrive_at_pickup(courier.request(apb::ArriveAtPickupRequest { job_id: job_id.clone() }))
            .await
            .expect("arrive at pickup");
        client
            .pick_up(courier.request(apb::PickUpRequest { job_id }))
            .await
            .expect("pick up");
    } else {
        client
            .start_transit(courier.request(apb::StartTransitRequest { job_id: job_id.clone() }))
            .await
            .expect("under way");
        client
            .arrive_at_dropoff(courier.request(apb::ArriveAtDropoffRequest { job_id: job_id.clone() }))
            .await
            .expect("arrive at dropoff");
        client
            .complete_handover(courier.request(apb::CompleteHandoverRequest { job_id }))
            .await
            .expect("handed over");
    }
}

e2e! {
    async fn a_fleet_day_is_planned_published_and_planned_again(app: TestApp) {
        let (workspace, key) = fleet(&app, true).await;
        let (day, now) = today(&app);
        let mut drivers = Vec::new();
        for name in ["Ada", "Ben", "Cem"] {
            let driver = join(&app, &workspace, &format!("{name} Driver"), &format!("{}@plans.example.com", name.to_lowercase()), "car").await;
            shift(&app, &driver, &day, now).await;
            drivers.push(driver);
        }
        let listed = couriers(&app).await
            .list_shifts(app.admin_request(ipb::ListShiftsRequest { workspace_id: workspace.clone(), day: day.clone() }))
            .await.expect("shifts").into_inner().shifts;
        assert_eq!(listed.len(), 3);
        assert!(listed.iter().all(|s| s.rest_minutes == Some(30) && s.end_place == s.start_place && !s.courier_name.is_empty()));
        let order_ids = orders(&app, &key).await;

        let plan = plan_routes(&app, &workspace, &day).await;
        assert_eq!(plan.state(), ipb::route_plan::State::Proposed);
        assert!(plan.plan_id.starts_with("pln_"));
        assert_sound(&plan, &order_ids);
        assert!(plan.solve_duration.as_ref().is_some_and(|d| d.seconds <= 3), "{:?}", plan.solve_duration);
        // A proposal changes nothing.
        let board = courier_orders::fleet::pending_orders(&app.core.db, &workspace, 100).await.expect("board");
        assert_eq!(board.len(), 30);

        // A dispatcher moves an order to another driver by hand: a new
        // proposal with the order in that driver's route.
        let moved_order = stops_of(&plan.routes[0])[0].0.clone();
        let other = drivers.iter().find(|d| d.courier.id != plan.routes[0].courier_id).expect("another driver");
        let pin = ipb::PlanPin { order_id: moved_order.clone(), courier_id: other.courier.id.clone() };
        let moved = app.dispatch().await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest {
                workspace_id: workspace.clone(),
                day: day.clone(),
                courier_ids: Vec::new(),
                budget_seconds: 1,
                area_id: String::new(),
                pins: vec![pin.clone()],
            }))
            .await.expect("plan with a pin").into_inner().plan.expect("plan");
        assert_sound(&moved, &order_ids);
        assert_eq!(moved.pins, vec![pin]);
        let theirs = moved.routes.iter().find(|r| r.courier_id == other.courier.id).expect("their route");
        assert!(stops_of(theirs).iter().any(|(order, _)| *order == moved_order));

        // Each driver watches their assignments; publishing gives them
        // their orders, and their route in the plan's order.
        let mut streams = Vec::new();
        for driver in &drivers {
            let stream = driver.client.clone()
                .watch_assignments(driver.request(apb::WatchAssignmentsRequest::default()))
                .await.expect("watch").into_inner();
            streams.push(stream);
        }
        let published = app.dispatch().await
            .publish_plan(app.dispatch_request(ipb::PublishPlanRequest { plan_id: plan.plan_id.clone() }))
            .await.expect("publish").into_inner().plan.expect("plan");
        assert_eq!(published.state(), ipb::route_plan::State::Published);
        assert!(published.publish_time.is_some());
        let by_courier: HashMap<&str, &ipb::PlannedRoute> = plan.routes.iter().map(|r| (r.courier_id.as_str(), r)).collect();
        for (driver, stream) in drivers.iter().zip(streams.iter_mut()) {
            let Some(route) = by_courier.get(driver.courier.id.as_str()) else { continue };
            let expected = stops_of(route);
            assert_eq!(app_route(driver).await, expected, "{}'s app route", driver.courier.name);
            // Their stream brings the route too.
            tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    let message = crate::couriers::next_message(stream).await;
                    if let Some(apb::watch_assignments_response::Update::Route(shown)) = message.update {
                        let shown: Vec<_> = shown.stops.iter().map(|s| (s.job_id.clone(), kind_of(s.kind()))).collect();
                        if shown == expected {
                            return;
                        }
                    }
                }
            }).await.expect("the route on the stream");
        }
        let board = courier_orders::fleet::pending_orders(&app.core.db, &workspace, 100).await.expect("board");
        assert!(board.is_empty(), "every order given to a driver");

        // Publishing again answers the plan; the audit log has both steps.
        let again = app.dispatch().await
            .publish_plan(app.dispatch_request(ipb::PublishPlanRequest { plan_id: plan.plan_id.clone() }))
            .await.expect("publish again").into_inner().plan.expect("plan");
        assert_eq!(again.publish_time, published.publish_time);
        let (audit, _) = courier_identity::audit::page(&app.core, 50, None).await.expect("audit");
        for action in ["plan.create", "plan.publish", "shift.set"] {
            assert!(audit.iter().any(|entry| entry.action == action), "{action} audited");
        }

        // The busiest driver does their first two stops; planned again,
        // those stay first in their route, done, and nothing else moves
        // their orders under way.
        let route = plan.routes.iter().max_by_key(|r| r.stops.len()).expect("a route");
        let driver = drivers.iter().find(|d| d.courier.id == route.courier_id).expect("driver");
        let done: Vec<_> = stops_of(route).into_iter().take(2).collect();
        for (order, kind) in &done {
            do_stop(driver, order, *kind).await;
        }
        let replanned = plan_routes(&app, &workspace, &day).await;
        assert_sound(&replanned, &order_ids);
        let again = replanned.routes.iter().find(|r| r.courier_id == route.courier_id).expect("their route");
        assert_eq!(stops_of(again)[..2], done[..], "the done stops first");
        assert!(again.stops[..2].iter().all(|s| s.done) && again.stops[2..].iter().all(|s| !s.done));

        // The earlier plan is superseded once this one is published.
        app.dispatch().await
            .publish_plan(app.dispatch_request(ipb::PublishPlanRequest { plan_id: replanned.plan_id.clone() }))
            .await.expect("publish the new plan");
        let old = app.dispatch().await
            .get_plan(app.dispatch_request(ipb::GetPlanRequest { plan_id: plan.plan_id.clone() }))
            .await.expect("get").into_inner().plan.expect("plan");
        assert_eq!(old.state(), ipb::route_plan::State::Superseded);
        let refused = app.dispatch().await
            .publish_plan(app.dispatch_request(ipb::PublishPlanRequest { plan_id: plan.plan_id.clone() }))
            .await.expect_err("superseded");
        assert_eq!(refusal(&refused).1, "conflict");
        wait_until("the routes kept", Duration::from_secs(5), async || {
            let shown = app_route(driver).await;
            let expected: Vec<_> = stops_of(again).into_iter().skip(2).collect();
            if shown == expected { Ok(()) } else { Err(format!("{shown:?}")) }
        }).await;
    }

    async fn plans_and_shifts_refuse_what_is_wrong(app: TestApp) {
        let (workspace, _) = fleet(&app, true).await;
        let (day, now) = today(&app);
        let driver = join(&app, &workspace, "Dee Driver", "dee@plans.example.com", "car").await;
        let good = ipb::SetShiftRequest {
            courier_id: driver.courier.id.clone(),
            day: day.clone(),
            start_time: Some(courier::time::micros_to_proto(now)),
            end_time: Some(courier::time::micros_to_proto(now + 3_600_000_000)),
            start_place: Some(ipb::ShiftPlace { address: "Depot".into(), latitude: 52.52, longitude: 13.41 }),
            end_place: None,
            rest_minutes: None,
        };
        let cases = [
            (ipb::SetShiftRequest { day: "2026-13-01".into(), ..good.clone() }, "day"),
            (ipb::SetShiftRequest { end_time: Some(courier::time::micros_to_proto(now - 1)), ..good.clone() }, "end_time"),
            (ipb::SetShiftRequest { end_time: Some(courier::time::micros_to_proto(now + DAY_MICROS)), ..good.clone() }, "end_time"),
            (ipb::SetShiftRequest { start_time: Some(courier::time::micros_to_proto(now + 3 * DAY_MICROS)), end_time: Some(courier::time::micros_to_proto(now + 3 * DAY_MICROS + 1)), ..good.clone() }, "start_time"),
            (ipb::SetShiftRequest { start_place: Some(ipb::ShiftPlace { address: String::new(), latitude: 91.0, longitude: 0.0 }), ..good.clone() }, "start_place.latitude"),
            (ipb::SetShiftRequest { rest_minutes: Some(45), ..good.clone() }, "rest_minutes"),
            (ipb::SetShiftRequest { start_place: None, ..good.clone() }, "start_place"),
        ];
        for (request, param) in cases {
            let refused = couriers(&app).await.set_shift(app.admin_request(request)).await.expect_err(param);
            assert_eq!(refusal(&refused), (tonic::Code::InvalidArgument, "invalid_request", Some(param.to_owned())));
        }
        let shifts = couriers(&app).await
            .list_shifts(app.admin_request(ipb::ListShiftsRequest { workspace_id: workspace.clone(), day: day.clone() }))
            .await.expect("shifts").into_inner().shifts;
        assert!(shifts.is_empty(), "nothing set by a refusal");

        // Set twice: one shift, the second's times.
        couriers(&app).await.set_shift(app.admin_request(good.clone())).await.expect("set");
        let later = ipb::SetShiftRequest { end_time: Some(courier::time::micros_to_proto(now + 2 * 3_600_000_000)), ..good };
        let shift = couriers(&app).await.set_shift(app.admin_request(later)).await.expect("set again").into_inner().shift.expect("shift");
        let shifts = couriers(&app).await
            .list_shifts(app.admin_request(ipb::ListShiftsRequest { workspace_id: workspace.clone(), day: day.clone() }))
            .await.expect("shifts").into_inner().shifts;
        assert_eq!(shifts, vec![shift.clone()]);

        let plan = |budget_seconds: i32, day: &str, courier_ids: Vec<String>| ipb::PlanRoutesRequest {
            workspace_id: workspace.clone(),
            day: day.into(),
            courier_ids,
            budget_seconds,
            area_id: String::new(),
            pins: Vec::new(),
        };
        for (request, param) in [
            (plan(61, &day, vec![]), "budget_seconds"),
            (plan(2, "tomorrow", vec![]), "day"),
            (plan(2, &day, vec!["cou_nobody".into()]), "courier_ids"),
            (ipb::PlanRoutesRequest { pins: vec![ipb::PlanPin { order_id: "ord_nothing".into(), courier_id: driver.courier.id.clone() }], ..plan(2, &day, vec![]) }, "pins"),
        ] {
            let refused = app.dispatch().await.plan_routes(app.dispatch_request(request)).await.expect_err(param);
            assert_eq!(refusal(&refused), (tonic::Code::InvalidArgument, "invalid_request", Some(param.to_owned())));
        }
        let refused = app.dispatch().await
            .get_plan(app.dispatch_request(ipb::GetPlanRequest { plan_id: "pln_nothing".into() }))
            .await.expect_err("unknown plan");
        assert_eq!(refusal(&refused).1, "not_found");

        // An order for a vehicle no driver on shift has: unplanned, with
        // its reason.
        let (_, key) = (workspace.clone(), app.create_key(&workspace, courier::v1::Mode::Live, &[]).await);
        let mut van_order = minimal_order();
        van_order["vehicle_type_id"] = json!("large_van");
        let order = create(&app, &key, &van_order).await;
        let planned = app.dispatch().await.plan_routes(app.dispatch_request(plan(1, &day, vec![]))).await.expect("plan").into_inner().plan.expect("plan");
        let van_order_id = order["order_id"].as_str().expect("id").to_owned();
        assert_eq!(planned.unplanned, vec![ipb::UnplannedOrder {
            order_id: van_order_id.clone(),
            reason: ipb::unplanned_order::Reason::VehicleType as i32,
        }]);
        // Nor can a dispatcher's hand put it in a car.
        let pin = ipb::PlanPin { order_id: van_order_id, courier_id: driver.courier.id.clone() };
        let refused = app.dispatch().await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest { pins: vec![pin], ..plan(1, &day, vec![]) }))
            .await.expect_err("a van's order pinned to a car");
        assert_eq!(refusal(&refused), (tonic::Code::InvalidArgument, "invalid_request", Some("pins".to_owned())));

        couriers(&app).await.delete_shift(app.admin_request(ipb::DeleteShiftRequest { shift_id: shift.shift_id.clone() })).await.expect("delete");
        let refused = couriers(&app).await.delete_shift(app.admin_request(ipb::DeleteShiftRequest { shift_id: shift.shift_id })).await.expect_err("gone");
        assert_eq!(refusal(&refused).1, "not_found");
    }

    async fn operators_plan_an_areas_scheduled_deliveries_for_platform_couriers(app: TestApp) {
        let (day, now) = today(&app);
        let mut couriers = Vec::new();
        for name in ["Kai", "Lou"] {
            let courier = join(&app, "", &format!("{name} Courier"), &format!("{}@platform.example.com", name.to_lowercase()), "car").await;
            shift(&app, &courier, &day, now).await;
            couriers.push(courier);
        }
        // Six live deliveries scheduled three hours on (dispatch offers
        // them half an hour before), one booked for now (not the plan's).
        let at = courier::time::from_micros(now + 3 * 3_600_000_000).to_rfc3339();
        let mut ids = Vec::new();
        for i in 0..6 {
            let mut body = crate::deliveries::berlin_delivery();
            body["scheduled_at"] = json!(at);
            body["dropoff"]["latitude"] = json!(52.49 + 0.004 * f64::from(i));
            let delivery = app.create_delivery(&app.live_key, &body).await;
            ids.push(delivery["id"].as_str().expect("id").to_owned());
        }
        let plan = app.dispatch().await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest {
                workspace_id: String::new(),
                area_id: "berlin".into(),
                day: day.clone(),
                courier_ids: Vec::new(),
                budget_seconds: 1,
                pins: Vec::new(),
            }))
            .await.expect("a platform plan").into_inner().plan.expect("plan");
        assert_eq!((plan.workspace_id.as_str(), plan.area_id.as_str()), ("", "berlin"));
        assert_sound(&plan, &ids);
        for route in &plan.routes {
            for stop in route.stops.iter().filter(|s| s.kind() == ipb::planned_stop::Kind::Pickup) {
                let time = stop.start_time.as_ref().expect("a time").seconds * 1_000_000;
                assert!(time >= now + 3 * 3_600_000_000 - 1_000_000, "not picked up before its time");
            }
        }
        app.dispatch().await
            .publish_plan(app.dispatch_request(ipb::PublishPlanRequest { plan_id: plan.plan_id.clone() }))
            .await.expect("publish");
        for id in &ids {
            let delivery = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
            assert_eq!(delivery.body["status"], "courier_assigned", "{:#}", delivery.body);
            assert!(delivery.body["courier"]["name"].is_string(), "{:#}", delivery.body);
        }
        for courier in &couriers {
            if let Some(route) = plan.routes.iter().find(|r| r.courier_id == courier.courier.id) {
                assert_eq!(app_route(courier).await, stops_of(route));
            }
        }

        // A platform plan names an area of the catalogue; a fleet's, none.
        let refused = app.dispatch().await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest { area_id: "atlantis".into(), day: day.clone(), ..Default::default() }))
            .await.expect_err("no such area");
        assert_eq!(refusal(&refused), (tonic::Code::InvalidArgument, "invalid_request", Some("area_id".to_owned())));
        let (fleet_id, _) = fleet(&app, true).await;
        let refused = app.dispatch().await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest { workspace_id: fleet_id, area_id: "berlin".into(), day, ..Default::default() }))
            .await.expect_err("a fleet with an area");
        assert_eq!(refusal(&refused), (tonic::Code::InvalidArgument, "invalid_request", Some("area_id".to_owned())));
    }
}
