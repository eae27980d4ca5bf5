//! `GET /v1/deliveries/{id}/tracking` (contract 4.8, DECISIONS "Tracking
//! response").

use courier::json::{CourierJson, status_name, time_out};
use courier::v1 as pb;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct EtaJson {
    pub pickup_at: Option<String>,
    pub dropoff_at: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct TrackingJson {
    pub delivery_id: String,
    pub status: Option<&'static str>,
    pub tracking_available_at: Option<String>,
    pub tracking_url: Option<String>,
    pub courier: Option<CourierJson>,
    pub eta: EtaJson,
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
            eta: EtaJson {
                pickup_at: time_out(eta.pickup_at.as_ref()),
                dropoff_at: time_out(eta.dropoff_at.as_ref()),
            },
        }
    }
}
