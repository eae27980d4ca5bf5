use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use crate::EdgeState;
use crate::context::CallContext;
use courier::json::DeliveryJson;

use crate::dto::deliveries::{self, CancelDeliveryBody, CreateDeliveryBody, DeliveryListJson};
use crate::dto::tracking::TrackingJson;
use crate::error::ApiError;
use crate::json::{JsonBody, OptionalJsonBody};

fn missing(what: &str) -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, format!("The core answered without a {what}."))
}

/// `POST /v1/deliveries`
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateDeliveryBody>, ApiError>,
) -> Result<(StatusCode, HeaderMap, Json<DeliveryJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| pb::CreateDeliveryRequest::try_from(b));
    let answer = state.core.deliveries.clone().create_delivery(request).await?;
    let headers = super::replay_headers(answer.metadata());
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok((StatusCode::CREATED, headers, Json(delivery.into())))
}

/// `GET /v1/deliveries/{id}`
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(delivery_id): Path<String>,
) -> Result<Json<DeliveryJson>, ApiError> {
    let request = ctx.request(pb::GetDeliveryRequest { delivery_id });
    let answer = state.core.deliveries.clone().get_delivery(request).await?;
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok(Json(delivery.into()))
}

/// `GET /v1/deliveries/{id}/tracking`
pub async fn tracking(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(delivery_id): Path<String>,
) -> Result<Json<TrackingJson>, ApiError> {
    let request = ctx.request(pb::GetDeliveryTrackingRequest { delivery_id });
    let answer = state.core.tracking.clone().get_delivery_tracking(request).await?;
    let tracking = answer.into_inner().tracking.ok_or_else(|| missing("tracking"))?;
    Ok(Json(tracking.into()))
}

/// `GET /v1/deliveries`
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> Result<Json<DeliveryListJson>, ApiError> {
    let parsed = parse_query(query.as_deref()).and_then(|q| deliveries::list_request(&q));
    let request = ctx.request_for(parsed, Ok);
    let answer = state.core.deliveries.clone().list_deliveries(request).await?;
    Ok(Json(answer.into_inner().into()))
}

/// `POST /v1/deliveries/{id}/cancel`
pub async fn cancel(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(delivery_id): Path<String>,
    body: Result<OptionalJsonBody<CancelDeliveryBody>, ApiError>,
) -> Result<Json<DeliveryJson>, ApiError> {
    let request = ctx.request_for(body, |OptionalJsonBody(b)| {
        Ok(pb::CancelDeliveryRequest {
            delivery_id,
            reason: deliveries::cancel_reason_in(b.reason) as i32,
        })
    });
    let answer = state.core.deliveries.clone().cancel_delivery(request).await?;
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok(Json(delivery.into()))
}

/// A query string as name → value; a repeated name is refused.
pub fn parse_query(query: Option<&str>) -> Result<HashMap<String, String>, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or(""))
        .map_err(|_| ApiError::invalid("query", "The query string is malformed."))?;
    let mut map = HashMap::with_capacity(pairs.len());
    for (name, value) in pairs {
        if map.contains_key(&name) {
            return Err(ApiError::invalid(
                name.clone(),
                format!("{name} is given more than once."),
            ));
        }
        map.insert(name, value);
    }
    Ok(map)
}
