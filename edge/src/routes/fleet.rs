use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::replay_headers;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::fleet::{self, CreateFleetOrderBody, FleetOrderJson, UpdateFleetOrderBody};
use crate::error::ApiError;
use crate::json::JsonBody;
use crate::path_id::PathId;

fn missing() -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, "The core answered without a fleet order.")
}

/// Create a fleet order
///
/// Puts an order of the fleet's own customer on its dispatch board. Fleet
/// workspaces with order intake only, with a live key.
#[utoipa::path(
    post,
    path = "/v1/fleet/orders",
    operation_id = "createFleetOrder",
    tag = "Fleet orders",
    params(
        ("Idempotency-Key" = String, Header,
            description = "Required. At most 255 characters; scope: workspace, mode and endpoint; kept 24 hours."),
    ),
    request_body = CreateFleetOrderBody,
    responses((status = 201, description = "The fleet order, on the dispatch board.", body = FleetOrderJson,
        headers(("Idempotent-Replayed" = String, description = "`true` when the answer is replayed for a retried key.")))),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateFleetOrderBody>, ApiError>,
) -> Result<(StatusCode, HeaderMap, Json<FleetOrderJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| pb::CreateFleetOrderRequest::try_from(b));
    let answer = state.core.fleet_orders.clone().create_fleet_order(request).await?;
    let headers = replay_headers(answer.metadata());
    let order = answer.into_inner().fleet_order.ok_or_else(missing)?;
    Ok((StatusCode::CREATED, headers, Json(order.into())))
}

/// Retrieve a fleet order
#[utoipa::path(
    get,
    path = "/v1/fleet/orders/{fleetOrderId}",
    operation_id = "getFleetOrder",
    tag = "Fleet orders",
    params(("fleetOrderId" = String, Path, description = "The fleet order's id (`flo_…`).")),
    responses((status = 200, description = "The fleet order as it is now.", body = FleetOrderJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    fleet_order_id: Result<PathId, ApiError>,
) -> Result<Json<FleetOrderJson>, ApiError> {
    let request = ctx.request_for(fleet_order_id, |PathId(fleet_order_id)| {
        Ok(pb::GetFleetOrderRequest { fleet_order_id })
    });
    let answer = state.core.fleet_orders.clone().get_fleet_order(request).await?;
    let order = answer.into_inner().fleet_order.ok_or_else(missing)?;
    Ok(Json(order.into()))
}

/// Change a fleet order
///
/// Sets the notes, the reference, the customer, the pickup's and dropoff's
/// contact, instructions, address and position (the pickup's until a
/// driver is assigned, the dropoff's until the driver is there), and the
/// dropoff window (until the goods are picked up); absent members stay as
/// they are. Nothing is priced. The driver holding the order gets it as it
/// now is. A retry with the same `Idempotency-Key` and body replays the
/// first answer.
#[utoipa::path(
    patch,
    path = "/v1/fleet/orders/{fleetOrderId}",
    operation_id = "updateFleetOrder",
    tag = "Fleet orders",
    params(
        ("fleetOrderId" = String, Path, description = "The fleet order's id (`flo_…`)."),
        ("Idempotency-Key" = String, Header,
            description = "Required. At most 255 characters; scope: workspace, mode and endpoint; kept 24 hours."),
        ("If-Match" = Option<String>, Header,
            description = "Optional. The order's `updated_at` as last read: an order changed since is refused with `412 precondition_failed` (not kept under the key). `*` changes it whatever it is now."),
    ),
    request_body = UpdateFleetOrderBody,
    responses((status = 200, description = "The fleet order as it now is.", body = FleetOrderJson,
        headers(("Idempotent-Replayed" = String, description = "`true` when the answer is replayed for a retried key.")))),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn update(
    State(state): State<EdgeState>,
    ctx: CallContext,
    headers: HeaderMap,
    fleet_order_id: Result<PathId, ApiError>,
    body: Result<JsonBody<UpdateFleetOrderBody>, ApiError>,
) -> Result<(HeaderMap, Json<FleetOrderJson>), ApiError> {
    let parsed = fleet_order_id.and_then(|id| {
        Ok((
            id,
            super::deliveries::if_match_in(&headers)?,
            body.map_err(fleet::fixed)?,
        ))
    });
    let request = ctx.request_for(parsed, |(PathId(fleet_order_id), if_updated_at, JsonBody(b))| {
        fleet::update_request(fleet_order_id, if_updated_at, b)
    });
    let answer = state.core.fleet_orders.clone().update_fleet_order(request).await?;
    let headers = replay_headers(answer.metadata());
    let order = answer.into_inner().fleet_order.ok_or_else(missing)?;
    Ok((headers, Json(order.into())))
}
