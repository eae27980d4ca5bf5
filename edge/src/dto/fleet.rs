//! Fleet order shapes (docs/guide.md "Fleet orders").

use courier::json::{TimeWindowJson, status_name, time_out};
use courier::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{ContactBody, ItemBody, TimeWindowBody, WaypointBody, items_in, window_in};
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
