//! What a plan is asked for: the orders to place, the drivers on shift and
//! the travel between their places (docs/routing.md "Planned routes"). All
//! times are microseconds since the Unix epoch, as everywhere in the core;
//! the solver works in whole seconds.

use std::collections::{BTreeMap, HashSet};

use crate::error::PlanError;

/// Travel between the places of one vehicle type, from one routing-provider
/// matrix: row `from`, column `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    places: usize,
    seconds: Vec<i64>,
    metres: Vec<i64>,
}

impl Matrix {
    /// A matrix of `places` places, row by row; both lists hold
    /// `places × places` entries.
    pub fn new(places: usize, seconds: Vec<i64>, metres: Vec<i64>) -> Result<Matrix, PlanError> {
        let cells = places.saturating_mul(places);
        if seconds.len() != cells || metres.len() != cells {
            return Err(PlanError::Invalid(format!(
                "a matrix of {places} places holds {cells} travel times and distances, not {} and {}",
                seconds.len(),
                metres.len()
            )));
        }
        if seconds.iter().chain(&metres).any(|&value| value < 0) {
            return Err(PlanError::Invalid(
                "travel times and distances are never negative".into(),
            ));
        }
        Ok(Matrix {
            places,
            seconds,
            metres,
        })
    }

    pub fn places(&self) -> usize {
        self.places
    }

    pub fn seconds(&self, from: usize, to: usize) -> i64 {
        self.seconds[from * self.places + to]
    }

    pub fn metres(&self, from: usize, to: usize) -> i64 {
        self.metres[from * self.places + to]
    }
}

/// A span of time, `start` to `end` inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub end: i64,
}

/// A place an order's courier stops at, the time spent there (parking,
/// the walk, the handover) and when they may arrive.
#[derive(Clone, Debug, PartialEq)]
pub struct Visit {
    pub place: usize,
    pub handling_seconds: i64,
    pub window: Option<Window>,
}

/// What an order takes of a vehicle while on board; each order counts
/// one against the vehicle's `max_jobs` besides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Load {
    pub weight_grams: i64,
    pub volume_cm3: i64,
}

/// An order to place: its pickup and dropoff, or only its dropoff when a
/// driver carries it already (`Driver::carrying`).
#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub id: String,
    /// `None` for an order on board: the driver carrying it delivers it.
    pub pickup: Option<Visit>,
    pub dropoff: Visit,
    pub load: Load,
    /// The vehicle types that may carry it; every type when empty.
    pub vehicle_types: Vec<String>,
}

/// What a vehicle holds at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    pub weight_grams: i64,
    pub volume_cm3: i64,
    pub max_jobs: i64,
}

/// A break the driver starts inside `window`, where their last stop was
/// (none when their route ends before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rest {
    pub window: Window,
    pub seconds: i64,
}

/// A driver on shift: where and when the part of their day still to plan
/// starts (the shift's start, or where the stops they are pinned to
/// leave them), where and by when the shift ends, their vehicle, and the
/// orders on board.
#[derive(Clone, Debug, PartialEq)]
pub struct Driver {
    pub id: String,
    pub vehicle_type: String,
    pub capacity: Capacity,
    /// Travel for this driver: the key of `Problem::travel`.
    pub profile: String,
    pub start_place: usize,
    pub start_at: i64,
    pub end_place: usize,
    pub end_at: i64,
    pub rest: Option<Rest>,
    /// Orders on board (picked up): their dropoffs stay with this driver.
    pub carrying: Vec<String>,
    /// Orders not yet picked up that go to this driver whatever costs
    /// less (a dispatcher's choice): both their stops in this route.
    pub keeps: Vec<String>,
}

/// What a plan minimises once every order it can place is placed and as
/// few drivers as possible are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Minimise {
    /// Total time on the road and at stops: a fleet's day.
    Time,
    /// Total distance: how the published benchmarks' best plans are scored.
    Distance,
}

/// The orders and drivers of one plan, and the travel between their
/// places per profile (a vehicle type's matrix).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub orders: Vec<Order>,
    pub drivers: Vec<Driver>,
    pub travel: BTreeMap<String, Matrix>,
    pub minimise: Minimise,
}

impl Problem {
    /// Every reference in the problem points at something in it, and every
    /// span is the right way round.
    pub fn check(&self) -> Result<(), PlanError> {
        let invalid = |why: String| Err(PlanError::Invalid(why));
        let mut ids = HashSet::new();
        for order in &self.orders {
            if !ids.insert(order.id.as_str()) {
                return invalid(format!("order {} is listed twice", order.id));
            }
            for visit in order.pickup.iter().chain([&order.dropoff]) {
                if visit.handling_seconds < 0 {
                    return invalid(format!("order {}: handling takes no negative time", order.id));
                }
                if visit.window.is_some_and(|w| w.end < w.start) {
                    return invalid(format!("order {}: a window ends before it starts", order.id));
                }
            }
            if order.load.weight_grams < 0 || order.load.volume_cm3 < 0 {
                return invalid(format!("order {}: its load is never negative", order.id));
            }
        }
        let mut drivers = HashSet::new();
        let mut carried = HashSet::new();
        for driver in &self.drivers {
            if !drivers.insert(driver.id.as_str()) {
                return invalid(format!("driver {} is listed twice", driver.id));
            }
            let Some(matrix) = self.travel.get(&driver.profile) else {
                return invalid(format!(
                    "driver {}: no travel for profile {}",
                    driver.id, driver.profile
                ));
            };
            if driver.end_at < driver.start_at {
                return invalid(format!("driver {}: the shift ends before it starts", driver.id));
            }
            if [driver.start_place, driver.end_place]
                .iter()
                .any(|&place| place >= matrix.places())
            {
                return invalid(format!("driver {}: a place outside the matrix", driver.id));
            }
            for id in &driver.keeps {
                let order = self.orders.iter().find(|order| &order.id == id);
                if order.is_none_or(|order| order.pickup.is_none()) || !carried.insert(id.as_str()) {
                    return invalid(format!(
                        "driver {}: keeps {id}, which is not an order to pick up kept by one driver",
                        driver.id
                    ));
                }
            }
            for id in &driver.carrying {
                let order = self.orders.iter().find(|order| &order.id == id);
                if order.is_none_or(|order| order.pickup.is_some()) || !carried.insert(id.as_str()) {
                    return invalid(format!(
                        "driver {}: carries {id}, which is not an order on board of one driver",
                        driver.id
                    ));
                }
            }
        }
        for order in &self.orders {
            if order.pickup.is_none() && !carried.contains(order.id.as_str()) {
                return invalid(format!("order {} has no pickup and no driver carrying it", order.id));
            }
            for matrix in self.travel.values() {
                let places = order.pickup.iter().chain([&order.dropoff]).map(|visit| visit.place);
                if places.into_iter().any(|place| place >= matrix.places()) {
                    return invalid(format!("order {}: a place outside the matrix", order.id));
                }
            }
        }
        Ok(())
    }
}
