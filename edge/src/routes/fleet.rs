use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::replay_headers;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::fleet::{CreateFleetOrderBody, FleetOrderJson};
use crate::error::ApiError;
use crate::json::JsonBody;

fn missing() -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, "The core answered without a fleet order.")
}

/// `POST /v1/fleet/orders`
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateFleetOrderBody>, ApiError>,
) -> Result<(StatusCode, HeaderMap, Json<FleetOrderJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| Ok(pb::CreateFleetOrderRequest::from(b)));
    let answer = state.core.fleet_orders.clone().create_fleet_order(request).await?;
    let headers = replay_headers(answer.metadata());
    let order = answer.into_inner().fleet_order.ok_or_else(missing)?;
    Ok((StatusCode::CREATED, headers, Json(order.into())))
}

/// `GET /v1/fleet/orders/{id}`
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(fleet_order_id): Path<String>,
) -> Result<Json<FleetOrderJson>, ApiError> {
    let request = ctx.request(pb::GetFleetOrderRequest { fleet_order_id });
    let answer = state.core.fleet_orders.clone().get_fleet_order(request).await?;
    let order = answer.into_inner().fleet_order.ok_or_else(missing)?;
    Ok(Json(order.into()))
}
