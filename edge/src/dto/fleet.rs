//! Fleet order shapes (docs/guide.md "Fleet orders").

use courier::json::{TimeWindowJson, status_name, time_out};
use courier::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{
    ContactBody, ItemBody, TimeWindowBody, WaypointBody, WaypointChangeBody, fixed_member, items_in, not_null, present,
    waypoint_change_in, window_change_in, window_in,
};
use crate::error::ApiError;

/// `POST /v1/fleet/orders` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateFleetOrderRequest)]
pub struct CreateFleetOrderBody {
    pub customer: ContactBody,
    pub pickup: WaypointBody,
    pub dropoff: WaypointBody,
    pub stops: Option<Vec<WaypointBody>>,
    pub vehicle_type_id: String,
    pub items: Option<Vec<ItemBody>>,
    /// The customer's order reference, 1 to 120 characters.
    pub reference: Option<String>,
    /// `YYYY-MM-DD`.
    pub requested_pickup_date: Option<String>,
    /// `HH:MM`.
    pub requested_pickup_time: Option<String>,
    /// IANA time zone of the requested date and time.
    pub customer_timezone: Option<String>,
    pub notes: Option<String>,
    /// When the pickup may happen.
    pub pickup_window: Option<TimeWindowBody>,
    /// When the dropoff is promised.
    pub dropoff_window: Option<TimeWindowBody>,
}

impl TryFrom<CreateFleetOrderBody> for pb::CreateFleetOrderRequest {
    type Error = ApiError;

    fn try_from(b: CreateFleetOrderBody) -> Result<Self, ApiError> {
        Ok(pb::CreateFleetOrderRequest {
            pickup_window: window_in("pickup_window", b.pickup_window)?,
            dropoff_window: window_in("dropoff_window", b.dropoff_window)?,
            customer: Some(b.customer.into()),
            pickup: Some(b.pickup.into()),
            dropoff: Some(b.dropoff.into()),
            stops: b.stops.unwrap_or_default().into_iter().map(Into::into).collect(),
            vehicle_type_id: b.vehicle_type_id,
            items: items_in(b.items),
            reference: b.reference,
            requested_pickup_date: b.requested_pickup_date,
            requested_pickup_time: b.requested_pickup_time,
            customer_timezone: b.customer_timezone,
            notes: b.notes,
        })
    }
}

/// A FleetOrder: every field always present, `null` where unset.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = FleetOrder)]
pub struct FleetOrderJson {
    pub id: String,
    #[schema(value_type = pb::DeliveryStatus)]
    pub status: Option<&'static str>,
    /// The customer's order reference.
    pub reference: Option<String>,
    /// The order's id on the fleet's dispatch board.
    pub order_id: String,
    pub tracking_url: Option<String>,
    /// When the order was received.
    #[schema(format = DateTime)]
    pub created_at: Option<String>,
    /// The order's last change.
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
    /// The order's windows, `null` when none.
    pub pickup_window: Option<TimeWindowJson>,
    pub dropoff_window: Option<TimeWindowJson>,
}

impl From<pb::FleetOrder> for FleetOrderJson {
    fn from(o: pb::FleetOrder) -> Self {
        FleetOrderJson {
            status: status_name(o.status()),
            created_at: time_out(o.created_at.as_ref()),
            updated_at: time_out(o.updated_at.as_ref()),
            id: o.id,
            reference: o.reference,
            order_id: o.order_id,
            tracking_url: o.tracking_url,
            pickup_window: o.pickup_window.map(Into::into),
            dropoff_window: o.dropoff_window.map(Into::into),
        }
    }
}

/// `PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change a fleet
/// order"): an absent member stays as it is; at least one is sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateFleetOrderRequest)]
pub struct UpdateFleetOrderBody {
    /// `null` (or `""`) removes the notes. Until the order ends.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub notes: Option<Option<String>>,
    /// The customer's order reference; `null` (or `""`) removes it. Until
    /// the order ends.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub reference: Option<Option<String>>,
    /// Replaces the customer whole; it cannot be removed. Until the order
    /// ends.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = ContactBody)]
    pub customer: Option<Option<ContactBody>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = WaypointChangeBody)]
    pub pickup: Option<Option<WaypointChangeBody>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = WaypointChangeBody)]
    pub dropoff: Option<Option<WaypointChangeBody>>,
    /// `null` removes the window. Until the goods are picked up; it must
    /// still be reachable.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<TimeWindowBody>)]
    pub dropoff_window: Option<Option<TimeWindowBody>>,
}

/// Members of a FleetOrder (and of a create) that no change can set.
const FIXED: &[&str] = &[
    "id",
    "status",
    "order_id",
    "tracking_url",
    "created_at",
    "updated_at",
    "stops",
    "vehicle_type_id",
    "items",
    "requested_pickup_date",
    "requested_pickup_time",
    "customer_timezone",
    "pickup_window",
];

/// A change's body refusal in the guide's words: a member that is not
/// "unknown" but fixed once the order is placed.
pub fn fixed(error: ApiError) -> ApiError {
    fixed_member(error, FIXED, "once the order is placed")
}

/// The update request for `fleet_order_id`, checked against
/// `if_updated_at` (the `If-Match` header) when given.
pub fn update_request(
    fleet_order_id: String,
    if_updated_at: Option<prost_types::Timestamp>,
    b: UpdateFleetOrderBody,
) -> Result<pb::UpdateFleetOrderRequest, ApiError> {
    let (dropoff_window, clear_dropoff_window) = window_change_in(b.dropoff_window)?;
    Ok(pb::UpdateFleetOrderRequest {
        fleet_order_id,
        notes: b.notes.map(Option::unwrap_or_default),
        reference: b.reference.map(Option::unwrap_or_default),
        customer: not_null(b.customer, "customer", "; send the whole customer to replace it")?.map(Into::into),
        pickup: waypoint_change_in("pickup", b.pickup)?,
        dropoff: waypoint_change_in("dropoff", b.dropoff)?,
        dropoff_window,
        clear_dropoff_window,
        if_updated_at,
    })
}
