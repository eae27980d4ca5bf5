//! A fleet's day as the planner's problem, and its plan back in ours
//! (docs/routing.md "Planned routes"): the drivers on shift, the board
//! orders waiting for the day and those the drivers hold; stops done or
//! under way kept first.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use super::{Pin, PlannedRoute, PlannedStop, Reason, StopKind, Unplanned};
use crate::couriers::shifts::Shift;
use crate::couriers::{self, Courier};
use crate::jobs::{self, Work, route};
use crate::positions;
use crate::{Core, CoreError, CoreResult};
use courier_orders::assignments;
use courier_orders::fleet::FleetOrder;
use courier_orders::routes::plan::HANDLING;
use courier_orders::statuses::Status;
use courier_orders::windows::Window;
use courier_planner as planner;
use courier_pricing::catalog::VehicleType;
use courier_pricing::geo::{self, GeoPoint};
use courier_pricing::routing::DEFAULT_ROAD_FACTOR;

/// A driver on shift, with what they hold and did that day.
pub struct Driver {
    pub courier: Courier,
    pub shift: Shift,
    /// Their open jobs, oldest assignment first.
    pub held: Vec<Work>,
    /// Their jobs delivered since the shift started, oldest first.
    pub delivered: Vec<Work>,
    /// Where they were last seen, if anywhere.
    pub position: Option<GeoPoint>,
}

impl Driver {
    /// Reads what courier `courier` on `shift` holds and did.
    pub async fn read(core: &Core, courier: Courier, shift: Shift) -> CoreResult<Driver> {
        let held = route::held(&core.db, &courier.id).await?;
        let ended = assignments::ended(&core.db, &courier.id, None, 200).await?;
        let ids: Vec<String> = ended
            .iter()
            .rev()
            .filter(|a| a.ended_at.is_some_and(|at| at >= shift.starts_at))
            .map(|a| a.job_id.clone())
            .collect();
        let mut found = jobs::works(&core.db, &ids).await?;
        let delivered = ids
            .iter()
            .filter_map(|id| found.remove(id))
            .filter(|work| work.status() == Status::Delivered)
            .collect();
        let position = positions::latest(core, &courier.id).await?.map(|p| p.point());
        Ok(Driver {
            courier,
            shift,
            held,
            delivered,
            position,
        })
    }
}

/// Whether board order `order` is for `day`: requested for it, or for no
/// day with no window or one open during the drivers' shifts `span`.
pub fn is_for_day(order: &FleetOrder, day: &str, span: (i64, i64)) -> bool {
    match &order.requested_pickup_date {
        Some(requested) => requested == day,
        None => [order.windows.pickup, order.windows.dropoff]
            .into_iter()
            .flatten()
            .all(|Window { start, end }| start < span.1 && end > span.0),
    }
}

/// The places of a problem, numbered as its matrices are: one per
/// position (a shop's many pickups are one place, named as first seen).
#[derive(Default)]
struct Places {
    points: Vec<GeoPoint>,
    addresses: Vec<String>,
    known: HashMap<(u64, u64), usize>,
}

impl Places {
    fn add(&mut self, point: GeoPoint, address: &str) -> usize {
        let key = (point.latitude.to_bits(), point.longitude.to_bits());
        *self.known.entry(key).or_insert_with(|| {
            self.points.push(point);
            self.addresses.push(address.to_owned());
            self.points.len() - 1
        })
    }
}

/// The problem of a day and what is needed to read its plan.
pub struct Day {
    pub problem: planner::Problem,
    places: Places,
    /// The orders no driver on shift can carry, set aside.
    set_aside: Vec<Unplanned>,
    drivers: Vec<Driver>,
}

/// Whether a held job may go to another driver: not yet at its pickup.
/// The others are under way and stay with their driver.
fn movable(work: &Work) -> bool {
    matches!(work.status(), Status::Pending | Status::CourierAssigned)
}

/// The cargo of `work`'s items, in grams and cubic centimetres.
fn load(work: &Work) -> planner::Load {
    let (kg, cm3) = work.load();
    planner::Load {
        weight_grams: (kg * 1000.0).ceil() as i64,
        volume_cm3: cm3.ceil() as i64,
    }
}

fn window(window: Option<Window>) -> Option<planner::Window> {
    window.map(|Window { start, end }| planner::Window { start, end })
}

/// How late after its time a scheduled pickup without a window may be.
const SCHEDULED_SLACK: i64 = 30 * 60 * 1_000_000;

/// When `work` may be picked up: its pickup window or, for a delivery
/// scheduled without one, from its time to [`SCHEDULED_SLACK`] after.
fn pickup_window(work: &Work) -> Option<planner::Window> {
    match (work.windows().pickup, work) {
        (Some(pickup), _) => window(Some(pickup)),
        (None, Work::Delivery(delivery)) => delivery.scheduled_at.map(|at| planner::Window {
            start: at,
            end: at + SCHEDULED_SLACK,
        }),
        (None, Work::FleetOrder(_)) => None,
    }
}

impl Day {
    /// The problem of `drivers` and the waiting `orders` (board orders or
    /// live deliveries) at `now`: each
    /// driver from their shift's start (or, once it started, from where
    /// they are now) to its end, carrying the jobs they picked up;
    /// their jobs not yet picked up may go to anyone.
    pub async fn new(core: &Core, drivers: Vec<Driver>, orders: Vec<Work>, pins: &[Pin], now: i64) -> CoreResult<Day> {
        let handling = HANDLING / 1_000_000;
        let mut places = Places::default();
        let mut vehicles: BTreeMap<String, &VehicleType> = BTreeMap::new();
        let mut planned_drivers = Vec::new();
        let mut works = orders;
        for driver in &drivers {
            let vehicle = core
                .catalog
                .vehicle_type(&driver.courier.vehicle.vehicle_type_id)
                .ok_or_else(|| {
                    CoreError::Internal(format!("courier {} drives an unknown vehicle", driver.courier.id))
                })?;
            vehicles.insert(vehicle.id.clone(), vehicle);
            let started = now > driver.shift.starts_at;
            let start_place = match driver.position.filter(|_| started) {
                Some(point) => places.add(point, "where the driver is"),
                None => places.add(driver.shift.start.point, &driver.shift.start.address),
            };
            let end_place = places.add(driver.shift.end.point, &driver.shift.end.address);
            let start_at = driver.shift.starts_at.max(now);
            let mut carrying = Vec::new();
            for work in &driver.held {
                if movable(work) {
                    works.push(work.clone());
                } else {
                    carrying.push(work.id().to_owned());
                }
            }
            let (rest_from, rest_to) = driver.shift.rest_window();
            planned_drivers.push(planner::Driver {
                id: driver.courier.id.clone(),
                vehicle_type: vehicle.id.clone(),
                capacity: planner::Capacity {
                    weight_grams: (vehicle.max_weight_kg * 1000.0) as i64,
                    volume_cm3: vehicle.cargo_volume_cm3() as i64,
                    max_jobs: i64::from(vehicle.max_jobs),
                },
                profile: vehicle.id.clone(),
                start_place,
                start_at,
                end_place,
                end_at: driver.shift.ends_at.max(start_at),
                rest: driver
                    .shift
                    .rest_minutes
                    .filter(|_| rest_to > start_at)
                    .map(|minutes| planner::Rest {
                        window: planner::Window {
                            start: rest_from.max(start_at),
                            end: rest_to,
                        },
                        seconds: i64::from(minutes) * 60,
                    }),
                carrying,
                keeps: pins
                    .iter()
                    .filter(|pin| pin.courier_id == driver.courier.id)
                    .map(|pin| pin.order_id.clone())
                    .collect(),
            });
        }
        let mut set_aside = Vec::new();
        let mut planned_orders = Vec::new();
        for work in &works {
            let serving: Vec<String> = vehicles
                .values()
                .filter(|vehicle| vehicle.can_serve(work.vehicle_type_id()))
                .map(|vehicle| vehicle.id.clone())
                .collect();
            if serving.is_empty() {
                set_aside.push(Unplanned {
                    order_id: work.id().to_owned(),
                    reason: Reason::VehicleType,
                });
                continue;
            }
            let (pickup, dropoff) = work.ends();
            let windows = work.windows();
            planned_orders.push(planner::Order {
                id: work.id().to_owned(),
                pickup: Some(planner::Visit {
                    place: places.add(pickup.point(), &pickup.address),
                    handling_seconds: handling,
                    window: pickup_window(work),
                }),
                dropoff: planner::Visit {
                    place: places.add(dropoff.point(), &dropoff.address),
                    handling_seconds: handling,
                    window: window(windows.dropoff),
                },
                load: load(work),
                vehicle_types: serving,
            });
        }
        for driver in &drivers {
            for work in driver.held.iter().filter(|w| !movable(w)) {
                let (_, dropoff) = work.ends();
                planned_orders.push(planner::Order {
                    id: work.id().to_owned(),
                    pickup: None,
                    dropoff: planner::Visit {
                        place: places.add(dropoff.point(), &dropoff.address),
                        handling_seconds: handling,
                        window: window(work.windows().dropoff),
                    },
                    load: load(work),
                    vehicle_types: Vec::new(),
                });
            }
        }
        let metres = distances(&places.points);
        let mut travel = BTreeMap::new();
        for (id, vehicle) in vehicles {
            travel.insert(id, matrix(core, &places.points, vehicle, metres.clone()).await?);
        }
        Ok(Day {
            problem: planner::Problem {
                orders: planned_orders,
                drivers: planned_drivers,
                travel,
                minimise: planner::Minimise::Time,
            },
            places,
            set_aside,
            drivers,
        })
    }

    /// The routes and the orders left out of the plan `solved` of this
    /// day, as kept.
    pub fn plan(self, solved: planner::Plan) -> (Vec<PlannedRoute>, Vec<Unplanned>) {
        let drivers: HashMap<&str, &Driver> = self.drivers.iter().map(|d| (d.courier.id.as_str(), d)).collect();
        let place = |index: usize| {
            (
                self.places.addresses.get(index).cloned().unwrap_or_default(),
                self.places
                    .points
                    .get(index)
                    .copied()
                    .unwrap_or(GeoPoint::new(0.0, 0.0)),
            )
        };
        let routes = solved
            .routes
            .iter()
            .filter_map(|route| {
                let driver = drivers.get(route.driver_id.as_str())?;
                let mut stops = done_stops(driver);
                stops.extend(route.stops.iter().map(|stop| {
                    let (address, point) = place(stop.place);
                    PlannedStop {
                        kind: match stop.kind {
                            planner::StopKind::Pickup => StopKind::Pickup,
                            planner::StopKind::Dropoff => StopKind::Dropoff,
                            planner::StopKind::Rest => StopKind::Rest,
                        },
                        order_id: stop.order_id.clone(),
                        address,
                        point,
                        arrives_at: Some(stop.arrives_at),
                        starts_at: Some(stop.starts_at),
                        leaves_at: Some(stop.leaves_at),
                        done: false,
                    }
                }));
                let problem_driver = self.problem.drivers.iter().find(|d| d.id == route.driver_id)?;
                Some(PlannedRoute {
                    courier_id: driver.courier.id.clone(),
                    courier_name: driver.courier.name.clone(),
                    stops,
                    starts_at: route.starts_at,
                    ends_at: route.ends_at,
                    driving_seconds: route.driving_seconds,
                    metres: route.metres,
                    start: place(problem_driver.start_place).1,
                    end: place(problem_driver.end_place).1,
                })
            })
            .collect();
        let unplanned = self
            .set_aside
            .into_iter()
            .chain(solved.unplanned.into_iter().map(|unplanned| Unplanned {
                order_id: unplanned.order_id,
                reason: match unplanned.reason {
                    planner::Unfit::Window => Reason::Window,
                    planner::Unfit::Capacity => Reason::Capacity,
                    planner::Unfit::VehicleType => Reason::VehicleType,
                    planner::Unfit::Unreachable => Reason::Unreachable,
                    planner::Unfit::NoDriver => Reason::NoDriver,
                    planner::Unfit::NotFound => Reason::NoRoom,
                },
            }))
            .collect();
        (routes, unplanned)
    }
}

/// The stops `driver` did that day, or is at: each delivered job's two,
/// then the pickups of the jobs they carry.
fn done_stops(driver: &Driver) -> Vec<PlannedStop> {
    let stop = |work: &Work, kind: StopKind| {
        let (pickup, dropoff) = work.ends();
        let waypoint = if kind == StopKind::Pickup { pickup } else { dropoff };
        PlannedStop {
            kind,
            order_id: Some(work.id().to_owned()),
            address: waypoint.address.clone(),
            point: waypoint.point(),
            arrives_at: None,
            starts_at: None,
            leaves_at: None,
            done: true,
        }
    };
    let mut stops = Vec::new();
    for work in &driver.delivered {
        stops.push(stop(work, StopKind::Pickup));
        stops.push(stop(work, StopKind::Dropoff));
    }
    for work in driver.held.iter().filter(|w| !movable(w)) {
        stops.push(stop(work, StopKind::Pickup));
    }
    stops
}

/// Places per side of one ask of the routing provider: OSRM's table
/// answers at most 100 locations unless told otherwise
/// (`--max-table-size`), and a refusal would count against the circuit
/// breaker dispatch relies on.
const TABLE_BLOCK: usize = 50;

/// Distances between `points` as the offline router estimates them, the
/// same for every vehicle (the plan's figures, not its objective).
fn distances(points: &[GeoPoint]) -> Vec<i64> {
    points
        .iter()
        .flat_map(|from| {
            points
                .iter()
                .map(|to| (geo::distance_km(*from, *to) * DEFAULT_ROAD_FACTOR * 1000.0).round() as i64)
        })
        .collect()
}

/// Driving times between `points` for `vehicle` (the routing provider's,
/// asked block by block; a pair without a road a day's drive), beside
/// `metres`.
async fn matrix(
    core: &Core,
    points: &[GeoPoint],
    vehicle: &VehicleType,
    metres: Vec<i64>,
) -> CoreResult<planner::Matrix> {
    const NO_ROAD: i64 = 86_400;
    let n = points.len();
    let mut seconds = vec![NO_ROAD; n * n];
    for (i, sources) in points.chunks(TABLE_BLOCK).enumerate() {
        for (j, destinations) in points.chunks(TABLE_BLOCK).enumerate() {
            let block = core.router.durations(sources, destinations, vehicle).await;
            for (row, cells) in block.iter().enumerate() {
                for (column, cell) in cells.iter().enumerate() {
                    if let Some(driving) = cell {
                        seconds[(i * TABLE_BLOCK + row) * n + j * TABLE_BLOCK + column] = driving.round() as i64;
                    }
                }
            }
        }
    }
    planner::Matrix::new(n, seconds, metres)
        .map_err(|error| CoreError::Internal(format!("the routing provider's matrix: {error}")))
}

/// Drivers of `shifts`, read with what they hold: the active couriers,
/// in the shifts' order.
pub async fn drivers(core: &Core, shifts: Vec<Shift>) -> CoreResult<Vec<Driver>> {
    let ids: Vec<String> = shifts.iter().map(|s| s.courier_id.clone()).collect();
    let mut found: HashMap<String, Courier> = couriers::get_many(&core.db, ids)
        .await?
        .into_iter()
        .map(|c| (c.id.clone(), c))
        .collect();
    let mut drivers = Vec::new();
    for shift in shifts {
        let Some(courier) = found.remove(&shift.courier_id) else {
            continue;
        };
        if courier.status == couriers::Status::Active {
            drivers.push(Driver::read(core, courier, shift).await?);
        }
    }
    Ok(drivers)
}

/// `invalid_request` naming `pins` unless each pins an order of the day
/// (waiting, or held and not yet at its pickup) to one of `drivers` whose
/// vehicle serves it, once.
pub fn check_pins(core: &Core, pins: &[Pin], drivers: &[Driver], orders: &[Work]) -> CoreResult<()> {
    let mut pinned = std::collections::HashSet::new();
    for pin in pins {
        let vehicle_type = orders
            .iter()
            .find(|o| o.id() == pin.order_id)
            .map(Work::vehicle_type_id)
            .or_else(|| {
                drivers
                    .iter()
                    .flat_map(|d| &d.held)
                    .find(|w| w.id() == pin.order_id && movable(w))
                    .map(Work::vehicle_type_id)
            })
            .ok_or_else(|| {
                CoreError::invalid(
                    "pins",
                    format!("Order {} is not one this day's plan can move.", pin.order_id),
                )
            })?;
        let driver = drivers.iter().find(|d| d.courier.id == pin.courier_id).ok_or_else(|| {
            CoreError::invalid("pins", format!("{} is not a driver on shift that day.", pin.courier_id))
        })?;
        let serves = core
            .catalog
            .vehicle_type(&driver.courier.vehicle.vehicle_type_id)
            .is_some_and(|vehicle| vehicle.can_serve(vehicle_type));
        if !serves {
            return Err(CoreError::invalid(
                "pins",
                format!("{}'s vehicle cannot carry order {}.", driver.courier.name, pin.order_id),
            ));
        }
        if !pinned.insert(pin.order_id.as_str()) {
            return Err(CoreError::invalid(
                "pins",
                format!("Order {} is pinned twice.", pin.order_id),
            ));
        }
    }
    Ok(())
}

/// The solver's time budget of `seconds` (0: 10 s).
pub fn budget(seconds: i32) -> CoreResult<Duration> {
    match seconds {
        0 => Ok(Duration::from_secs(10)),
        1..=60 => Ok(Duration::from_secs(seconds as u64)),
        _ => Err(CoreError::invalid(
            "budget_seconds",
            "The time budget is 1 to 60 seconds (0 for 10).",
        )),
    }
}
