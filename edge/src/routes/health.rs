//! `GET /healthz` (the process answers) and `GET /readyz` (the core answers
//! its gRPC health check in time): keyless, not rate-limited. The edge, the
//! standalone console and the standalone courier app all serve these routes
//! ([`router`]), which render their errors in the public shape themselves so
//! that any server can carry them.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::{Next, from_fn_with_state};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Json, Router};
use courier::errors::ErrorCode;
use serde_json::{Value, json};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::error::ApiError;
use crate::middleware::{self, RequestId};

/// How long the core gets to answer the readiness check.
const READY_TIMEOUT: Duration = Duration::from_secs(1);

/// `/healthz` and `/readyz`, checking the core behind `channel`; `base_url`
/// is the public API's, for the `doc_url` of errors.
pub fn router<S: Clone + Send + Sync + 'static>(channel: Channel, base_url: &str) -> Router<S> {
    let base_url: Arc<str> = base_url.trim_end_matches('/').into();
    Router::new()
        .route("/healthz", get(alive))
        .route("/readyz", get(ready))
        .with_state(HealthClient::new(channel))
        .layer(from_fn_with_state(base_url, answer_errors))
}

/// Gives the request its id if the server has not, and renders a refusal in
/// the public shape quoting it.
async fn answer_errors(State(base_url): State<Arc<str>>, mut request: Request, next: Next) -> Response {
    let request_id = match request.extensions().get::<RequestId>() {
        Some(RequestId(id)) => id.clone(),
        None => {
            let id = middleware::new_request_id();
            request.extensions_mut().insert(RequestId(id.clone()));
            id
        }
    };
    let mut response = next.run(request).await;
    middleware::render_error(&mut response, &request_id, &base_url);
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", value);
    }
    response
}

async fn alive() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

async fn ready(
    State(mut health): State<HealthClient<Channel>>,
    Extension(request_id): Extension<RequestId>,
) -> Result<Json<Value>, ApiError> {
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
