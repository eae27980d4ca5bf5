//! The planner on generated fleet days, each plan checked by rules of our
//! own rather than the solver's: every order once, pickups first and by the
//! same driver, windows, loads, shifts, travel times.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::*;

const MINUTE: i64 = 60 * 1_000_000;
/// 2027-01-01 08:00 UTC.
const DAY_START: i64 = 1_798_790_400 * 1_000_000;
const BIKE: Capacity = Capacity {
    weight_grams: 20_000,
    volume_cm3: 60_000,
    max_jobs: 3,
};

/// Places on a 6 × 6 km grid (place 0 the depot in the middle), driven
/// at 20 km/h along the straight line × 1.3.
fn city(places: usize) -> Matrix {
    let point = |i: usize| -> (f64, f64) {
        if i == 0 {
            return (3000.0, 3000.0);
        }
        let (a, b) = ((i * 7919) % 6000, (i * 104_729) % 6000);
        (a as f64, b as f64)
    };
    let mut seconds = Vec::with_capacity(places * places);
    let mut metres = Vec::with_capacity(places * places);
    for from in 0..places {
        for to in 0..places {
            let ((x1, y1), (x2, y2)) = (point(from), point(to));
            let road = 1.3 * ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt();
            metres.push(road.round() as i64);
            seconds.push((road / (20_000.0 / 3600.0)).round() as i64);
        }
    }
    Matrix::new(places, seconds, metres).expect("a square matrix")
}

fn driver(id: &str, capacity: Capacity) -> Driver {
    Driver {
        id: id.to_owned(),
        vehicle_type: "bicycle".to_owned(),
        capacity,
        profile: "bicycle".to_owned(),
        start_place: 0,
        start_at: DAY_START,
        end_place: 0,
        end_at: DAY_START + 10 * 60 * MINUTE,
        rest: None,
        carrying: Vec::new(),
        keeps: Vec::new(),
    }
}

fn visit(place: usize, window: Option<(i64, i64)>) -> Visit {
    Visit {
        place,
        handling_seconds: 180,
        window: window.map(|(from, to)| Window {
            start: DAY_START + from * MINUTE,
            end: DAY_START + to * MINUTE,
        }),
    }
}

/// `count` orders between generated places, every third with a dropoff
/// window somewhere in the day.
fn orders(count: usize) -> Vec<Order> {
    (0..count)
        .map(|i| {
            let window = (i % 3 == 0).then(|| {
                let from = (i as i64 * 37) % 420;
                (from, from + 120)
            });
            Order {
                id: format!("ord_{i}"),
                pickup: Some(visit(1 + (2 * i) % 60, None)),
                dropoff: visit(2 + (2 * i + 1) % 60, window),
                load: Load {
                    weight_grams: 1_000 + (i as i64 % 5) * 1_500,
                    volume_cm3: 5_000,
                },
                vehicle_types: Vec::new(),
            }
        })
        .collect()
}

fn problem(orders: Vec<Order>, drivers: Vec<Driver>) -> Problem {
    Problem {
        orders,
        drivers,
        travel: BTreeMap::from([("bicycle".to_owned(), city(64))]),
        minimise: Minimise::Time,
    }
}

fn solved(problem: &Problem, budget: Duration) -> Plan {
    let plan = solve(problem, budget, Arc::new(AtomicBool::new(false))).expect("a plan");
    check(problem, &plan);
    plan
}

/// The rules every plan keeps, checked on the plan itself.
fn check(problem: &Problem, plan: &Plan) {
    let orders: HashMap<&str, &Order> = problem.orders.iter().map(|o| (o.id.as_str(), o)).collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for unplanned in &plan.unplanned {
        *seen.entry(unplanned.order_id.as_str()).or_default() += 1;
    }
    for route in &plan.routes {
        let driver = problem
            .drivers
            .iter()
            .find(|d| d.id == route.driver_id)
            .expect("a route of a driver in the problem");
        let matrix = &problem.travel[&driver.profile];
        let mut on_board: Vec<&Order> = driver.carrying.iter().map(|id| orders[id.as_str()]).collect();
        let (mut place, mut free_at) = (driver.start_place, route.starts_at);
        assert!(
            route.starts_at >= driver.start_at,
            "{} leaves before the shift",
            driver.id
        );
        for stop in &route.stops {
            if stop.kind == StopKind::Rest {
                // Taken where the last stop was: it delays what follows.
                free_at += stop.leaves_at - stop.starts_at;
                continue;
            }
            assert!(
                stop.arrives_at + 1_000_000 >= free_at + matrix.seconds(place, stop.place) * 1_000_000,
                "{}: at {:?} sooner than the drive allows",
                driver.id,
                stop.order_id
            );
            place = stop.place;
            free_at = stop.leaves_at;
            let Some(id) = stop.order_id.as_deref() else {
                continue;
            };
            let order = orders[id];
            let visit = match stop.kind {
                StopKind::Pickup => {
                    *seen.entry(id).or_default() += 1;
                    on_board.push(order);
                    order.pickup.as_ref().expect("a pickup of an order not on board")
                }
                _ => {
                    if order.pickup.is_none() {
                        *seen.entry(id).or_default() += 1;
                        assert!(
                            driver.carrying.iter().any(|c| c == id),
                            "{id} dropped by another driver"
                        );
                    }
                    let before = on_board.len();
                    on_board.retain(|o| o.id != id);
                    assert_eq!(on_board.len() + 1, before, "{id} dropped off before its pickup");
                    &order.dropoff
                }
            };
            assert_eq!(stop.place, visit.place, "{id} served at its own place");
            if let Some(window) = visit.window {
                assert!(
                    stop.starts_at >= window.start && stop.starts_at <= window.end,
                    "{id} served at {} outside its window {window:?}",
                    stop.starts_at
                );
            }
            let weight: i64 = on_board.iter().map(|o| o.load.weight_grams).sum();
            let volume: i64 = on_board.iter().map(|o| o.load.volume_cm3).sum();
            assert!(
                weight <= driver.capacity.weight_grams
                    && volume <= driver.capacity.volume_cm3
                    && on_board.len() as i64 <= driver.capacity.max_jobs,
                "{}: over the vehicle's limits after {id}",
                driver.id
            );
        }
        assert!(on_board.is_empty(), "{} ends with orders on board", driver.id);
        assert!(route.ends_at <= driver.end_at, "{} ends past the shift", driver.id);
    }
    for order in &problem.orders {
        assert_eq!(
            seen.get(order.id.as_str()),
            Some(&1),
            "{} placed once, or listed unplanned",
            order.id
        );
    }
}

#[test]
fn windows_loads_and_shifts_hold_in_a_fleet_day() {
    let drivers = (0..3).map(|i| driver(&format!("drv_{i}"), BIKE)).collect();
    let problem = problem(orders(30), drivers);
    let plan = solved(&problem, Duration::from_secs(2));
    assert!(
        plan.unplanned.is_empty(),
        "a day with room for all: {:?}",
        plan.unplanned
    );
    assert!(plan.drivers_used() <= 3);
}

#[test]
fn fewer_drivers_when_fewer_are_needed() {
    let drivers = (0..6).map(|i| driver(&format!("drv_{i}"), BIKE)).collect();
    let problem = problem(orders(8), drivers);
    let plan = solved(&problem, Duration::from_secs(2));
    assert!(plan.unplanned.is_empty());
    assert_eq!(plan.drivers_used(), 1, "eight orders fit one driver's day");
}

#[test]
fn an_order_that_fits_nowhere_comes_back_with_its_reason() {
    let mut orders = orders(6);
    orders[1].load.weight_grams = 50_000;
    orders[2].vehicle_types = vec!["large_van".to_owned()];
    // A window that closed before the shift began.
    orders[3].dropoff.window = Some(Window {
        start: DAY_START - 120 * MINUTE,
        end: DAY_START - 60 * MINUTE,
    });
    let problem = problem(orders, vec![driver("drv_0", BIKE)]);
    let plan = solved(&problem, Duration::from_secs(1));
    let reasons: HashMap<&str, Unfit> = plan.unplanned.iter().map(|u| (u.order_id.as_str(), u.reason)).collect();
    assert_eq!(
        reasons,
        HashMap::from([
            ("ord_1", Unfit::Capacity),
            ("ord_2", Unfit::VehicleType),
            ("ord_3", Unfit::Window)
        ])
    );
}

#[test]
fn an_order_on_board_stays_with_its_driver_when_planned_again() {
    let drivers = vec![driver("drv_0", BIKE), driver("drv_1", BIKE)];
    let first = problem(orders(10), drivers);
    let plan = solved(&first, Duration::from_secs(1));
    // The first driver made their first stop, a pickup: planning again
    // starts where it left them, with the order on board.
    let route = &plan.routes[0];
    let done = &route.stops[0];
    assert_eq!(done.kind, StopKind::Pickup, "a route starts empty-handed");
    let id = done.order_id.clone().expect("an order's stop");
    let mut again = first.clone();
    let at = again.orders.iter().position(|o| o.id == id).expect("the order");
    again.orders[at].pickup = None;
    let driver = again
        .drivers
        .iter_mut()
        .find(|d| d.id == route.driver_id)
        .expect("the route's driver");
    driver.start_place = done.place;
    driver.start_at = done.leaves_at;
    driver.carrying.push(id.clone());
    let replanned = solved(&again, Duration::from_secs(1));
    let theirs = replanned
        .routes
        .iter()
        .find(|r| r.driver_id == route.driver_id)
        .expect("the driver still has a route");
    assert!(theirs.stops.iter().any(|s| s.order_id.as_deref() == Some(id.as_str())));
}

#[test]
fn an_order_kept_with_a_driver_by_hand_goes_to_them() {
    let drivers = vec![driver("drv_0", BIKE), driver("drv_1", BIKE)];
    let first = problem(orders(10), drivers);
    let plan = solved(&first, Duration::from_secs(1));
    // An order of the first route, given by hand to the other driver.
    let route = &plan.routes[0];
    let id = route.stops[0].order_id.clone().expect("an order's stop");
    let other = if route.driver_id == "drv_0" { "drv_1" } else { "drv_0" };
    let mut moved = first.clone();
    let driver = moved
        .drivers
        .iter_mut()
        .find(|d| d.id == other)
        .expect("the other driver");
    driver.keeps.push(id.clone());
    let replanned = solved(&moved, Duration::from_secs(1));
    let theirs = replanned
        .routes
        .iter()
        .find(|r| r.driver_id == other)
        .expect("the other driver has a route");
    let stops: Vec<StopKind> = theirs
        .stops
        .iter()
        .filter(|s| s.order_id.as_deref() == Some(id.as_str()))
        .map(|s| s.kind)
        .collect();
    assert_eq!(stops, [StopKind::Pickup, StopKind::Dropoff]);
    // Kept by two drivers, or without a pickup: refused.
    let mut twice = moved.clone();
    twice.drivers[0].keeps = vec![id.clone()];
    twice.drivers[1].keeps = vec![id];
    assert!(matches!(twice.check(), Err(PlanError::Invalid(_))));
}

#[test]
fn a_rest_is_taken_inside_its_window() {
    let mut bike = driver("drv_0", BIKE);
    bike.rest = Some(Rest {
        window: Window {
            start: DAY_START + 120 * MINUTE,
            end: DAY_START + 180 * MINUTE,
        },
        seconds: 30 * 60,
    });
    let problem = problem(orders(12), vec![bike]);
    let plan = solved(&problem, Duration::from_secs(1));
    let rest = plan.routes[0]
        .stops
        .iter()
        .find(|s| s.kind == StopKind::Rest)
        .expect("the route rests");
    assert!(rest.starts_at >= DAY_START + 120 * MINUTE && rest.starts_at <= DAY_START + 180 * MINUTE);
    assert_eq!(rest.leaves_at - rest.starts_at, 30 * MINUTE);
}

#[test]
fn a_problem_that_contradicts_itself_is_refused() {
    let mut orders = orders(2);
    orders[0].dropoff.place = 500;
    let refused = solve(
        &problem(orders, vec![driver("drv_0", BIKE)]),
        Duration::from_secs(1),
        Arc::new(AtomicBool::new(false)),
    );
    assert!(matches!(refused, Err(PlanError::Invalid(why)) if why.contains("outside the matrix")));
    assert!(Matrix::new(2, vec![0; 3], vec![0; 4]).is_err());
}

#[tokio::test]
async fn cancelling_stops_the_solver_well_inside_its_budget() {
    let drivers = (0..4).map(|i| driver(&format!("drv_{i}"), BIKE)).collect();
    let problem = problem(orders(60), drivers);
    let cancel = CancellationToken::new();
    let started = Instant::now();
    let planning = tokio::spawn(plan(problem.clone(), Duration::from_secs(120), cancel.clone()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    cancel.cancel();
    let plan = tokio::time::timeout(Duration::from_secs(20), planning)
        .await
        .expect("the solver stopped")
        .expect("the planning task")
        .expect("the best plan so far");
    assert!(started.elapsed() < Duration::from_secs(20));
    check(&problem, &plan);
}
