//! Runs around every request: assigns the request id, logs and counts the
//! request, and renders errors in the public shape with `request_id` and
//! `doc_url`.

use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use rand::RngExt;
use tracing::Instrument;

use crate::EdgeState;
use crate::error::{self, ApiError};
use crate::metrics::Answered;

/// The request id of the current request, `req_…`.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

pub(crate) fn new_request_id() -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    let suffix: String = (0..22)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("req_{suffix}")
}

pub async fn finish(State(state): State<EdgeState>, mut request: Request, next: Next) -> Response {
    // The server gives each request its id (`serving`); a router served
    // otherwise gets one here.
    let request_id = match request.extensions().get::<RequestId>() {
        Some(RequestId(id)) => id.clone(),
        None => {
            let id = new_request_id();
            request.extensions_mut().insert(RequestId(id.clone()));
            id
        }
    };
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let route = request.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned());
    let span = tracing::info_span!("http", request_id = %request_id, %method, %path);
    let started = Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;

    let mut code = None;
    if let Some(api_error) = render_error(&mut response, &request_id, &state.base_url) {
        code = Some(api_error.code.as_str());
        span.in_scope(|| tracing::info!(code = api_error.code.as_str(), param = ?api_error.param, "request refused"));
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", value);
    }
    let elapsed = started.elapsed();
    state.metrics.answered(Answered {
        method: method.as_str(),
        route: route.as_deref(),
        status: response.status().as_u16(),
        code,
        elapsed,
    });
    span.in_scope(|| {
        tracing::info!(
            status = response.status().as_u16(),
            latency_ms = elapsed.as_millis() as u64,
            "request"
        )
    });
    response
}

/// Renders the [`ApiError`] an answer carries, if any, as its body in the
/// public shape (quoting `request_id`, or the first request's on a replayed
/// refusal); returns it.
pub(crate) fn render_error(response: &mut Response, request_id: &str, base_url: &str) -> Option<ApiError> {
    let api_error = response.extensions_mut().remove::<ApiError>()?;
    let quoted_id = api_error.replayed_request_id.as_deref().unwrap_or(request_id);
    let body = error::body(&api_error, quoted_id, base_url);
    if api_error.replayed_request_id.is_some() {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    // Serialising plain strings cannot fail; an empty body would still
    // carry the status and the `Request-Id` header.
    *response.body_mut() = Body::from(serde_json::to_vec(&body).unwrap_or_default());
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    Some(api_error)
}
