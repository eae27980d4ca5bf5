//! The dispatch map as its watchers see it, with no rule that reads it:
//! the shared reads the core holds name these.

use std::collections::BTreeMap;

use chrono_tz::Tz;
use courier_pricing::geo::GeoPoint;

use courier_orders::assignments::model::PassReason;
use courier_orders::routes::StopKind;
use courier_orders::statuses::Status;

/// The map as read once: couriers and jobs by id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map {
    pub couriers: BTreeMap<String, MapCourier>,
    pub jobs: BTreeMap<String, MapJob>,
}

/// An online courier on the map (or one gone offline with a job in hand).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapCourier {
    pub courier_id: String,
    pub name: String,
    pub vehicle_type_id: String,
    /// The last reported position; `None` before the first.
    pub position: Option<MapPosition>,
    /// The first job they hold.
    pub job_id: Option<String>,
    /// Every job they hold, oldest first.
    pub job_ids: Vec<String>,
    /// Their route: the stops of those jobs in the order kept.
    pub route: Vec<MapStop>,
    /// The job offered to them, not yet answered.
    pub offered_job_id: Option<String>,
    pub offline: bool,
    /// Suspended with a job in hand, not yet taken back.
    pub suspended: bool,
    pub phone: Option<String>,
}

/// A stop of a courier's route.
#[derive(Clone, Debug, PartialEq)]
pub struct MapStop {
    pub job_id: String,
    pub kind: StopKind,
    pub point: GeoPoint,
}

/// Where a courier was, and when (unix micros).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapPosition {
    pub point: GeoPoint,
    pub recorded_at: i64,
}

/// A job waiting (perhaps offered) or under way (held by `courier_id`).
#[derive(Clone, Debug, PartialEq)]
pub struct MapJob {
    pub job_id: String,
    pub status: Status,
    pub pickup: GeoPoint,
    pub dropoff: GeoPoint,
    pub pickup_address: String,
    pub dropoff_address: String,
    pub vehicle_type_id: String,
    pub created_at: i64,
    pub courier_id: Option<String>,
    pub offer: Option<MapOffer>,
    /// A waiting job's couriers automatic dispatch passes over, oldest first.
    pub passed_over: Vec<MapPassedOver>,
    /// The dropoff promised, when there is one, and how it stands.
    pub promise: Option<MapPromise>,
    /// Wrong dropoff PINs blocked the handover: a dispatcher resets the
    /// count or the courier reports the handover failed.
    pub handover_blocked: bool,
}

/// A job's promised dropoff (docs/guide.md "Windows"): a dispatcher sees
/// the jobs that will break it, or have, first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapPromise {
    pub promised_by: i64,
    /// The dropoff expected now (planned, or the courier's ETA); `None`
    /// where no one estimates it (board orders).
    pub dropoff_eta: Option<i64>,
    /// Reported at risk (`delivery.delayed`).
    pub at_risk: bool,
}

/// A waiting job's open offer.
#[derive(Clone, Debug, PartialEq)]
pub struct MapOffer {
    pub courier_id: String,
    pub expires_at: i64,
}

/// A courier passed over for a job, named: they may be off the map.
#[derive(Clone, Debug, PartialEq)]
pub struct MapPassedOver {
    pub courier_id: String,
    pub courier_name: String,
    pub reason: PassReason,
    pub at: i64,
}

/// A service area's outline, from the catalogue.
#[derive(Clone, Debug, PartialEq)]
pub struct MapArea {
    pub id: String,
    pub name: String,
    pub time_zone: Tz,
    pub outline: Vec<GeoPoint>,
}

/// What a watcher is sent: the whole map (`snapshot`, with the areas), or
/// the couriers and jobs new or changed and the ids of those that left.
#[derive(Clone, Debug, PartialEq)]
pub struct MapUpdate {
    pub snapshot: bool,
    pub couriers: Vec<MapCourier>,
    pub jobs: Vec<MapJob>,
    pub removed_courier_ids: Vec<String>,
    pub removed_job_ids: Vec<String>,
    pub areas: Vec<MapArea>,
}
