//! `GET /v1/deliveries/{id}/tracking` (docs/guide.md "Tracking").

use courier::json::{CourierJson, status_name, time_out};
use courier::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TrackingEta)]
pub struct EtaJson {
    #[schema(value_type = Option<String>, format = DateTime)]
    pub pickup_at: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub dropoff_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DeliveryTracking)]
pub struct TrackingJson {
    pub delivery_id: String,
    #[schema(value_type = pb::DeliveryStatus)]
    pub status: Option<&'static str>,
    /// From this time `courier.location` is filled.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub tracking_available_at: Option<String>,
    pub tracking_url: Option<String>,
    pub courier: Option<CourierJson>,
    pub eta: EtaJson,
    /// How many of the courier's stops come before this delivery's dropoff
    /// (a courier may carry several deliveries at once); `null` before a
    /// courier has it and once it ended.
    pub stops_before_dropoff: Option<i32>,
}

impl From<pb::DeliveryTracking> for TrackingJson {
    fn from(t: pb::DeliveryTracking) -> Self {
        let eta = t.eta.unwrap_or_default();
        TrackingJson {
            status: status_name(t.status()),
            delivery_id: t.delivery_id,
            tracking_available_at: time_out(t.tracking_available_at.as_ref()),
            tracking_url: t.tracking_url,
            courier: t.courier.map(CourierJson::from),
            stops_before_dropoff: t.stops_before_dropoff,
            eta: EtaJson {
                pickup_at: time_out(eta.pickup_at.as_ref()),
                dropoff_at: time_out(eta.dropoff_at.as_ref()),
            },
        }
    }
}
