use axum::Json;
use axum::extract::State;
use courier::v1::ListVehicleTypesRequest;

use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::vehicle_types::VehicleTypeListJson;
use crate::error::ApiError;

/// `GET /v1/vehicle-types`
pub async fn list(State(state): State<EdgeState>, ctx: CallContext) -> Result<Json<VehicleTypeListJson>, ApiError> {
    let mut client = state.core.vehicle_types.clone();
    let answer = client
        .list_vehicle_types(ctx.request(ListVehicleTypesRequest {}))
        .await?;
    Ok(Json(answer.into_inner().into()))
}
