use axum::Json;
use axum::extract::State;
use courier::v1::ListVehicleTypesRequest;

use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::vehicle_types::VehicleTypeListJson;
use crate::error::ApiError;

/// List vehicle types
///
/// The vehicle types, their cargo limits and the extras each offers; the ids
/// are the values of `vehicle_type_id`. Works with every valid key.
#[utoipa::path(
    get,
    path = "/v1/vehicle-types",
    operation_id = "listVehicleTypes",
    tag = "Vehicle types",
    responses((status = 200, description = "The vehicle types.", body = VehicleTypeListJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn list(State(state): State<EdgeState>, ctx: CallContext) -> Result<Json<VehicleTypeListJson>, ApiError> {
    let mut client = state.core.vehicle_types.clone();
    let answer = client
        .list_vehicle_types(ctx.request(ListVehicleTypesRequest {}))
        .await?;
    Ok(Json(answer.into_inner().into()))
}
