//! The test-mode courier simulator, and the live courier-search timeout.
//!
//! Its schedule is the `next_step_at` column of each delivery, so it survives
//! restarts. Each step claims one due delivery in its own transaction
//! (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has a single writer) and
//! moves it with a compare-and-set, so several core replicas never step a
//! delivery twice.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::deliveries::{self, Change, Courier, CourierLocation, CourierVehicle, Delivery, TestScenario};
use crate::lifecycle::{self, CancellationReason, Status};
use crate::proofs::{self, Checkpoint};
use crate::{CoreResult, Orders, returns};
use courier_identity::auth::Mode;
use courier_store::db::WriteTransaction;
use courier_store::runner::{Done, Runner};

/// Runs until `stop` fires, stepping every due delivery: one at a time,
/// again at once while one was due.
pub async fn run(orders: Orders, stop: CancellationToken) {
    let poll = (orders.config.simulator_step / 4).clamp(Duration::from_millis(10), Duration::from_millis(500));
    Runner::every(poll).run(&stop, move || step(orders.clone())).await
}

async fn step(orders: Orders) -> CoreResult<Done> {
    Ok(if step_one(&orders).await? {
        Done::More
    } else {
        Done::Idle
    })
}

/// Claims and steps one due delivery; `false` when none is due.
pub async fn step_one(orders: &Orders) -> CoreResult<bool> {
    let now = orders.clock.now_micros();
    let tx = orders.begin().await?;
    let Some((delivery, due)) = deliveries::claim_due_step(&tx, now).await? else {
        tx.rollback().await?;
        return Ok(false);
    };
    orders.metrics.simulator_step(now - due);
    let moved = match delivery.mode {
        Mode::Test => step_test(orders, &tx, &delivery, now).await?,
        Mode::Live => search_timed_out(orders, &tx, &delivery, now).await?,
    };
    tx.commit().await?;
    if moved {
        orders.changes.publish(&delivery.id);
    }
    Ok(true)
}

/// A live delivery still `pending` at its deadline: `no_courier_found`.
async fn search_timed_out(orders: &Orders, tx: &WriteTransaction, delivery: &Delivery, now: i64) -> CoreResult<bool> {
    if delivery.status != Status::Pending {
        set_next_step(orders, tx, &delivery.id, None).await?;
        return Ok(false);
    }
    let change = Change::default().cancelled(CancellationReason::NoCourierFound, now);
    let moved = lifecycle::advance(orders, tx, delivery, Status::Cancelled, change, now).await?;
    Ok(moved.is_some())
}

async fn set_next_step(orders: &Orders, tx: &WriteTransaction, id: &str, at: Option<i64>) -> CoreResult<()> {
    deliveries::update(orders, tx, id, None, Change::default().next_step(at)).await?;
    Ok(())
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

/// One simulator step of a test delivery: the next status, or the ending its
/// `test_scenario` asks for.
async fn step_test(orders: &Orders, tx: &WriteTransaction, d: &Delivery, now: i64) -> CoreResult<bool> {
    let step = micros(orders.config.simulator_step);
    let next = Change::default().next_step(Some(now + step));
    let scenario = d.test_scenario;
    let cancel = |reason| (Status::Cancelled, Change::default().cancelled(reason, now));
    let (to, change) = match d.status {
        Status::Pending if scenario == Some(TestScenario::NoCourierFound) => cancel(CancellationReason::NoCourierFound),
        Status::Pending => {
            let courier = simulated_courier(d, now);
            (
                Status::CourierAssigned,
                next.courier(courier)
                    .tracking_opens(now)
                    .pickup_eta(Some(now + step))
                    .dropoff_eta(Some(now + 5 * step)),
            )
        }
        Status::CourierAssigned if scenario == Some(TestScenario::CourierCancelled) => {
            cancel(CancellationReason::CancelledByMaxmove)
        }
        Status::CourierAssigned => (Status::AtPickup, next.courier(courier_at(d, 0.0, now))),
        Status::AtPickup if scenario == Some(TestScenario::PickupNoShow) => cancel(CancellationReason::PickupNoShow),
        Status::AtPickup => {
            lifecycle::submit_proof(orders, tx, d, proofs::sample_submission(d, Checkpoint::Pickup), now)
                .await?
                .recorded()?;
            (Status::PickedUp, next)
        }
        Status::PickedUp => {
            // At the dropoff a step from now, not before its window opens;
            // late on purpose in the `delayed` scenario.
            let arrives = match scenario {
                Some(TestScenario::Delayed) => d.promised_by.unwrap_or(now) + LATE_BY,
                _ => (now + step).max(d.windows.dropoff.map_or(now, |w| w.start)),
            };
            let change = Change::default()
                .next_step(Some(arrives))
                .courier(courier_at(d, 0.5, now))
                .dropoff_eta(Some(arrives + step));
            let Some(moved) = lifecycle::advance(orders, tx, d, Status::InTransit, change, now).await? else {
                return Ok(false);
            };
            // Reported after the move's own events, as a courier's ETA would be.
            let after = now + lifecycle::events_for(Status::InTransit).len() as i64;
            lifecycle::at_risk(orders, tx, &moved, arrives + step, after).await?;
            return Ok(true);
        }
        Status::InTransit => (
            Status::AtDropoff,
            next.courier(courier_at(d, 1.0, now)).dropoff_eta(Some(now)),
        ),
        Status::AtDropoff if scenario == Some(TestScenario::DeliveryFailed) => {
            cancel(CancellationReason::CancelledByMaxmove)
        }
        Status::AtDropoff if scenario == Some(TestScenario::Returned) => {
            let change = returns::failed_handover(d, now);
            let Some(failed) = lifecycle::advance(orders, tx, d, Status::Cancelled, change, now).await? else {
                return Ok(false);
            };
            returns::book(orders, tx, &failed, now).await?;
            return Ok(true);
        }
        Status::AtDropoff if !proofs::is_submitted(tx, &d.id, Checkpoint::Dropoff).await? => {
            // Proof first (its own step and event), the handover next.
            lifecycle::submit_proof(orders, tx, d, proofs::sample_submission(d, Checkpoint::Dropoff), now)
                .await?
                .recorded()?;
            set_next_step(orders, tx, &d.id, Some(now + step)).await?;
            return Ok(true);
        }
        Status::AtDropoff => (Status::Delivered, Change::default().delivered(d, now)),
        Status::Delivered | Status::Cancelled => {
            set_next_step(orders, tx, &d.id, None).await?;
            return Ok(false);
        }
    };
    Ok(lifecycle::advance(orders, tx, d, to, change, now).await?.is_some())
}

/// How late the `delayed` scenario's courier reaches the dropoff, after
/// the promised time.
const LATE_BY: i64 = 5 * 60 * 1_000_000;

const COURIER_NAMES: [&str; 8] = ["Lena", "Jonas", "Mia", "Noah", "Emma", "Paul", "Sofia", "Malik"];

/// A stable pseudo-random number for a delivery (its id's bytes).
fn seed(d: &Delivery) -> usize {
    d.id.bytes()
        .fold(7usize, |acc, b| acc.wrapping_mul(31).wrapping_add(b as usize))
}

/// The simulated courier of a test delivery, starting a little way from the
/// pickup.
fn simulated_courier(d: &Delivery, now: i64) -> Courier {
    let n = seed(d);
    let (make, model) = match d.vehicle_type_id.as_str() {
        "bicycle" => ("Bianchi", "Via Nirone"),
        "cargo_bike" => ("Urban Arrow", "Cargo L"),
        "car" => ("Volkswagen", "ID.3"),
        "small_van" => ("Volkswagen", "Caddy"),
        _ => ("Mercedes-Benz", "Sprinter"),
    };
    let colors = ["blue", "white", "black", "green", "red"];
    let name = COURIER_NAMES[n % COURIER_NAMES.len()];
    let initial = name.chars().next().unwrap_or('C');
    Courier {
        id: None,
        name: Some(name.to_owned()),
        photo_url: Some(avatar(initial)),
        rating: Some(4.5 + (n % 6) as f64 / 10.0),
        vehicle: Some(CourierVehicle {
            make: Some(make.to_owned()),
            model: Some(model.to_owned()),
            color: Some(colors[n % colors.len()].to_owned()),
            license_plate: Some(format!("B-MM {}", 1000 + n % 9000)),
            photo_url: None,
        }),
        location: Some(CourierLocation {
            latitude: d.route.pickup.latitude + 0.004,
            longitude: d.route.pickup.longitude - 0.004,
            recorded_at: Some(now),
        }),
    }
}

/// An inline SVG avatar (no third-party resource).
fn avatar(initial: char) -> String {
    let svg = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='64' height='64'><circle cx='32' cy='32' r='32' fill='%232f6fde'/><text x='32' y='42' font-size='28' text-anchor='middle' fill='white' font-family='sans-serif'>{initial}</text></svg>"
    );
    format!("data:image/svg+xml;utf8,{svg}")
}

/// The courier with its location `fraction` of the way along the route.
fn courier_at(d: &Delivery, fraction: f64, now: i64) -> Courier {
    let mut courier = d.courier.clone().unwrap_or_else(|| simulated_courier(d, now));
    let (latitude, longitude) = point_along(d, fraction);
    courier.location = Some(CourierLocation {
        latitude,
        longitude,
        recorded_at: Some(now),
    });
    courier
}

/// The point `fraction` (0..=1) of the way along pickup → stops → dropoff,
/// counting legs equally.
fn point_along(d: &Delivery, fraction: f64) -> (f64, f64) {
    let mut points = vec![(d.route.pickup.latitude, d.route.pickup.longitude)];
    points.extend(d.route.stops.iter().map(|s| (s.latitude, s.longitude)));
    points.push((d.route.dropoff.latitude, d.route.dropoff.longitude));
    let legs = (points.len() - 1) as f64;
    let position = fraction.clamp(0.0, 1.0) * legs;
    let leg = (position.floor() as usize).min(points.len() - 2);
    let t = position - leg as f64;
    let (a, b) = (points[leg], points[leg + 1]);
    (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
}
