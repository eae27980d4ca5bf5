//! The `/v1` routes. Each handler converts its JSON to a request message,
//! calls the core with the caller's context, and converts the answer back.
//! Routes that take an API key are rate-limited per key; the keyless ones
//! (capability links, documentation, health) are not.

pub(crate) mod couriers;
pub(crate) mod deliveries;
mod docs;
pub(crate) mod events;
pub(crate) mod fleet;
pub mod health;
pub(crate) mod notifications;
pub(crate) mod proofs;
pub(crate) mod quotes;
mod tracking_page;
mod unsubscribe_page;
pub(crate) mod vehicle_types;
pub(crate) mod webhooks;

use axum::http::{HeaderMap, HeaderValue, Method, Uri};
use axum::routing::{get, patch, post};
use axum::{Router, middleware as axum_middleware};
use courier::errors::ErrorCode;

use crate::EdgeState;
use crate::error::ApiError;
use crate::{middleware, ratelimit, request_policy};

pub fn router(state: EdgeState) -> Router {
    let keyed = Router::new()
        .route("/v1/vehicle-types", get(vehicle_types::list))
        .route("/v1/quotes", post(quotes::create))
        .route("/v1/deliveries", post(deliveries::create).get(deliveries::list))
        .route("/v1/deliveries/batch", post(deliveries::batch))
        .route(
            "/v1/deliveries/{delivery_id}",
            get(deliveries::get).patch(deliveries::update),
        )
        .route("/v1/deliveries/{delivery_id}/cancel", post(deliveries::cancel))
        .route("/v1/deliveries/{delivery_id}/redeliver", post(deliveries::redeliver))
        .route(
            "/v1/deliveries/{delivery_id}/proof-of-delivery",
            get(proofs::proof_of_delivery),
        )
        .route("/v1/deliveries/{delivery_id}/tracking", get(deliveries::tracking))
        .route("/v1/deliveries/{delivery_id}/notifications", get(notifications::list))
        .route("/v1/webhooks", post(webhooks::create).get(webhooks::list))
        .route(
            "/v1/webhooks/{webhook_id}",
            patch(webhooks::update).delete(webhooks::delete),
        )
        .route("/v1/webhooks/{webhook_id}/test", post(webhooks::test))
        .route("/v1/webhooks/{webhook_id}/replay", post(webhooks::replay))
        .route("/v1/fleet/orders", post(fleet::create))
        .route(
            "/v1/fleet/orders/{fleet_order_id}",
            get(fleet::get).patch(fleet::update),
        )
        .route("/v1/events", get(events::list))
        .route("/v1/events/stream", get(events::stream))
        .route("/v1/events/{event_id}", get(events::get))
        .route_layer(axum_middleware::from_fn_with_state(state.clone(), ratelimit::limit));
    let keyless = Router::new()
        .route("/v1/proof-files/{artifact_id}", get(proofs::file))
        .route("/v1/courier-photos/{courier_id}", get(couriers::photo))
        .route("/t/{token}", get(tracking_page::page))
        .route("/v1/notifications/sms/status", post(notifications::sms_status))
        .route("/v1/notifications/sms/inbound", post(notifications::sms_inbound))
        .route(
            "/v1/notifications/unsubscribe/{token}",
            get(unsubscribe_page::page).post(unsubscribe_page::unsubscribe),
        )
        .route("/v1/docs/errors", get(docs::errors))
        .route("/v1/openapi.json", get(docs::openapi))
        .route("/v1/docs", get(docs::reference))
        .route("/v1/docs/", get(docs::reference))
        .route("/v1/docs/{*asset}", get(docs::reference_asset))
        .merge(health::router(state.core.channel.clone(), &state.base_url));
    keyed
        .merge(keyless)
        .fallback(unknown_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(axum_middleware::from_fn(request_policy::enforce))
        .layer(axum_middleware::from_fn_with_state(state.clone(), middleware::finish))
        .with_state(state)
}

async fn unknown_route(method: Method, uri: Uri) -> ApiError {
    ApiError::new(ErrorCode::NotFound, format!("No route {method} {}.", uri.path()))
}

async fn wrong_method(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} does not take {method}.", uri.path()),
    )
}

/// `Idempotent-Replayed: true` on a create the core answered from its
/// idempotency store.
fn replay_headers(metadata: &tonic::metadata::MetadataMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if metadata.get(courier::metadata::IDEMPOTENT_REPLAYED).is_some() {
        headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    headers
}
