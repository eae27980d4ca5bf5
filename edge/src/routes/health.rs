//! `GET /healthz` (the process answers) and `GET /readyz` (the core answers
//! its gRPC health check in time): keyless, not rate-limited.

use std::time::Duration;

use axum::extract::State;
use axum::{Extension, Json};
use courier::errors::ErrorCode;
use serde_json::{Value, json};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;

use crate::EdgeState;
use crate::error::ApiError;
use crate::middleware::RequestId;

/// How long the core gets to answer the readiness check.
const READY_TIMEOUT: Duration = Duration::from_secs(1);

pub async fn alive() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

pub async fn ready(
    State(state): State<EdgeState>,
    Extension(request_id): Extension<RequestId>,
) -> Result<Json<Value>, ApiError> {
    let mut health = state.core.health.clone();
    // "" asks about the core as a whole.
    let mut request = tonic::Request::new(HealthCheckRequest { service: String::new() });
    if let Ok(value) = request_id.0.parse() {
        request.metadata_mut().insert(courier::metadata::REQUEST_ID, value);
    }
    let check = health.check(request);
    match tokio::time::timeout(READY_TIMEOUT, check).await {
        Ok(Ok(answer)) if answer.get_ref().status() == ServingStatus::Serving => Ok(Json(json!({ "status": "ready" }))),
        Ok(Ok(_)) => Err(ApiError::new(ErrorCode::ServiceUnavailable, "The core is not serving.")),
        Ok(Err(status)) => {
            tracing::warn!(grpc_code = ?status.code(), message = %status.message(), "core health check failed");
            Err(ApiError::new(
                ErrorCode::ServiceUnavailable,
                "The core is not reachable.",
            ))
        }
        Err(_) => Err(ApiError::new(
            ErrorCode::ServiceUnavailable,
            "The core did not answer its health check in time.",
        )),
    }
}
