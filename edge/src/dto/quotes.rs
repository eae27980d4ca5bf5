use courier::v1 as pb;
use serde::{Deserialize, Serialize};

use courier::json::{BreakdownJson, TaxBehavior, TimeWindowJson, time_out};
use utoipa::ToSchema;

use super::common::{AddressBody, ItemBody, SelectedExtraBody, TimeWindowBody, items_in, time_in, window_in};
use crate::error::ApiError;

/// `POST /v1/quotes` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateQuoteRequest)]
pub struct CreateQuoteBody {
    pub pickup: AddressBody,
    pub dropoff: AddressBody,
    pub stops: Option<Vec<AddressBody>>,
    pub vehicle_type_id: String,
    pub extras: Option<Vec<SelectedExtraBody>>,
    pub items: Option<Vec<ItemBody>>,
    /// Pickup time, 1 minute to 30 days ahead; omit for immediate.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub scheduled_at: Option<String>,
    /// When the pickup may happen; not with `scheduled_at`.
    pub pickup_window: Option<TimeWindowBody>,
    /// When the dropoff is promised.
    pub dropoff_window: Option<TimeWindowBody>,
}

impl TryFrom<CreateQuoteBody> for pb::CreateQuoteRequest {
    type Error = ApiError;

    fn try_from(b: CreateQuoteBody) -> Result<Self, ApiError> {
        Ok(pb::CreateQuoteRequest {
            scheduled_at: time_in("scheduled_at", b.scheduled_at.as_deref())?,
            pickup: Some(b.pickup.into()),
            dropoff: Some(b.dropoff.into()),
            stops: b.stops.unwrap_or_default().into_iter().map(Into::into).collect(),
            vehicle_type_id: b.vehicle_type_id,
            extras: b.extras.unwrap_or_default().into_iter().map(Into::into).collect(),
            items: items_in(b.items),
            pickup_window: window_in("pickup_window", b.pickup_window)?,
            dropoff_window: window_in("dropoff_window", b.dropoff_window)?,
        })
    }
}

/// A price for a route, valid 5 minutes in the key's mode.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Quote)]
pub struct QuoteJson {
    pub id: String,
    pub amount_cents: i64,
    pub currency: String,
    pub tax_behavior: TaxBehavior,
    pub breakdown: BreakdownJson,
    pub distance_km: Option<f64>,
    pub duration_min: i64,
    #[schema(value_type = String, format = DateTime)]
    pub valid_until: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Option<String>,
    /// The windows of the request, `null` when none.
    pub pickup_window: Option<TimeWindowJson>,
    pub dropoff_window: Option<TimeWindowJson>,
    /// When the dispatcher would plan the pickup and the dropoff if the
    /// delivery were booked now, inside the windows.
    #[schema(value_type = String, format = DateTime)]
    pub pickup_eta: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub dropoff_eta: Option<String>,
}

impl From<pb::Quote> for QuoteJson {
    fn from(q: pb::Quote) -> Self {
        QuoteJson {
            valid_until: time_out(q.valid_until.as_ref()),
            created_at: time_out(q.created_at.as_ref()),
            pickup_eta: time_out(q.pickup_eta.as_ref()),
            dropoff_eta: time_out(q.dropoff_eta.as_ref()),
            pickup_window: q.pickup_window.map(Into::into),
            dropoff_window: q.dropoff_window.map(Into::into),
            id: q.id,
            amount_cents: q.amount_cents,
            currency: q.currency,
            tax_behavior: TaxBehavior::Inclusive,
            breakdown: q.breakdown.unwrap_or_default().into(),
            distance_km: q.distance_km,
            duration_min: q.duration_min,
        }
    }
}
