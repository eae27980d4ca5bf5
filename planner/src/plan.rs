//! What a plan answers: one route per driver used, the orders that fit no
//! route with the reason, and what the solver spent.

use std::time::Duration;

/// What a driver does at a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopKind {
    Pickup,
    Dropoff,
    /// The driver's break (no order).
    Rest,
}

/// One stop of a route: arrival (waiting included until `starts_at`),
/// the handling, departure.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// The order, `None` for a rest.
    pub order_id: Option<String>,
    pub kind: StopKind,
    pub place: usize,
    pub arrives_at: i64,
    /// When the handling starts: the window's start when the driver is
    /// early.
    pub starts_at: i64,
    pub leaves_at: i64,
}

/// A driver's route: their stops in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub driver_id: String,
    pub stops: Vec<Stop>,
    pub starts_at: i64,
    pub ends_at: i64,
    pub driving_seconds: i64,
    pub metres: i64,
}

/// Why an order fits no route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unfit {
    /// No driver on shift can make its windows.
    Window,
    /// Too heavy or too large for every vehicle, or every vehicle full.
    Capacity,
    /// No driver's vehicle type may carry it.
    VehicleType,
    /// No route leads to one of its places.
    Unreachable,
    /// No driver on shift at all.
    NoDriver,
    /// The solver found no place for it in its time and named no rule.
    NotFound,
}

/// An order left out of every route.
#[derive(Clone, Debug, PartialEq)]
pub struct Unplanned {
    pub order_id: String,
    pub reason: Unfit,
}

/// A plan: routes by driver (only drivers used), unplanned orders, totals.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub routes: Vec<Route>,
    pub unplanned: Vec<Unplanned>,
    /// The solver's cost of the plan (its objective after drivers used).
    pub cost: f64,
    pub solved_in: Duration,
}

impl Plan {
    pub fn drivers_used(&self) -> usize {
        self.routes.len()
    }
}
