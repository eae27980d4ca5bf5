//! What a fleet order is, with no rule that reads or writes it: the wire's
//! answers name these, below the module's rules.

use serde::{Deserialize, Serialize};

use crate::statuses::Status;
use crate::validate::{ContactInput, WaypointInput};
use crate::windows::Windows;
use courier_pricing::items::ItemInput;

/// Waypoints and items as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderRoute {
    pub pickup: WaypointInput,
    pub dropoff: WaypointInput,
    pub stops: Vec<WaypointInput>,
    pub items: Option<Vec<ItemInput>>,
}

/// A fleet order, as the public API and the dispatch board know it.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetOrder {
    pub id: String,
    pub order_id: String,
    pub workspace_id: String,
    pub status: Status,
    pub reference: Option<String>,
    pub customer: ContactInput,
    pub route: OrderRoute,
    pub vehicle_type_id: String,
    pub requested_pickup_date: Option<String>,
    pub requested_pickup_time: Option<String>,
    pub customer_timezone: Option<String>,
    pub notes: Option<String>,
    /// The promised times (docs/guide.md "Windows").
    pub windows: Windows,
    pub created_at: i64,
    pub updated_at: i64,
}
