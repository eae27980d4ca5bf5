//! The edge's one request-size and ambiguity policy, applied to every API
//! request before it is routed, so that nothing reaches the core that its
//! transport would refuse (docs/guide.md "Conventions"):
//!
//! - A declared `Content-Length` over the body limit is `413
//!   request_too_large` at once, without reading the body.
//! - `x-api-key` and `Authorization` longer than [`MAX_CREDENTIAL_BYTES`]
//!   are `401 invalid_api_key`, an `Idempotency-Key` that long is `400
//!   invalid_idempotency_key`: the codes the contract names for them. They
//!   are the headers forwarded to the core, whose HTTP/2 header block they
//!   must fit.
//! - One of them sent twice with different values is ambiguous: `400
//!   invalid_request` naming it (an `x-api-key` beside a bearer token is
//!   not: `x-api-key` is used).
//! - Headers over [`MAX_HEADER_BYTES`] in all are `431 headers_too_large`,
//!   naming the largest.
//!
//! A refused request's connection is closed, so its body is never read.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use courier::errors::ErrorCode;

use crate::context::{self, FORWARDED};
use crate::error::ApiError;
use crate::json::MAX_BODY_BYTES;

/// The longest `x-api-key` or `Authorization` value, in bytes: far above
/// any key (`mm_live_` and 32 characters), far below what the core's
/// transport takes.
pub const MAX_CREDENTIAL_BYTES: usize = 1024;

/// All header names and values of a request together, in bytes.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Refuses what the policy refuses; passes the rest on.
pub async fn enforce(request: Request, next: Next) -> Response {
    match refusal(request.headers()) {
        Some(error) => {
            let mut response = error.into_response();
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
        None => next.run(request).await,
    }
}

fn refusal(headers: &HeaderMap) -> Option<ApiError> {
    for (name, _) in FORWARDED {
        if let Some(error) = forwarded_refusal(headers, name) {
            return Some(error);
        }
    }
    if let Some(error) = oversize_headers(headers) {
        return Some(error);
    }
    let declared = headers.get(header::CONTENT_LENGTH)?;
    // The HTTP server refuses a malformed or conflicting length itself.
    let length = declared.to_str().ok()?.trim().parse::<u64>().ok()?;
    (length > MAX_BODY_BYTES as u64).then(|| {
        ApiError::new(
            ErrorCode::RequestTooLarge,
            format!("The request body must be at most {MAX_BODY_BYTES} bytes (Content-Length is {length})."),
        )
    })
}

/// The refusal of forwarded header `name`: too long, or sent twice with
/// different values.
fn forwarded_refusal(headers: &HeaderMap, name: &str) -> Option<ApiError> {
    let values: Vec<&HeaderValue> = headers.get_all(name).iter().collect();
    let shown = context::display_name(name);
    if let Some(long) = values.iter().find(|value| value.len() > MAX_CREDENTIAL_BYTES) {
        let what = if name == "idempotency-key" {
            format!(
                "{shown} must be at most {} characters",
                courier::limits::IDEMPOTENCY_KEY.max
            )
        } else {
            format!("{shown} is longer than any API key")
        };
        let message = format!("{what} (got {} bytes).", long.len());
        return Some(ApiError::at(context::refusal_code(name), shown, message));
    }
    let differs = values.windows(2).any(|pair| pair[0] != pair[1]);
    differs.then(|| {
        ApiError::invalid(
            shown,
            format!(
                "{shown} is sent {} times with different values; send it once.",
                values.len()
            ),
        )
    })
}

/// `431` when the headers together exceed [`MAX_HEADER_BYTES`], naming the
/// largest.
fn oversize_headers(headers: &HeaderMap) -> Option<ApiError> {
    let size = |(name, value): (&header::HeaderName, &HeaderValue)| name.as_str().len() + value.len();
    let total: usize = headers.iter().map(size).sum();
    if total <= MAX_HEADER_BYTES {
        return None;
    }
    let (largest, _) = headers.iter().max_by_key(|&pair| size(pair))?;
    Some(ApiError::at(
        ErrorCode::HeadersTooLarge,
        largest.as_str(),
        format!(
            "The request's headers take {total} bytes; at most {MAX_HEADER_BYTES} are accepted. The largest is {largest}."
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, String)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).expect("value"));
        }
        map
    }

    fn refused(pairs: &[(&'static str, String)]) -> Option<(ErrorCode, Option<String>)> {
        refusal(&headers(pairs)).map(|error| (error.code, error.param))
    }

    #[test]
    fn each_forwarded_header_has_its_own_code_when_too_long() {
        let long = "k".repeat(MAX_CREDENTIAL_BYTES + 1);
        assert_eq!(
            refused(&[("x-api-key", long.clone())]),
            Some((ErrorCode::InvalidApiKey, Some("x-api-key".into())))
        );
        assert_eq!(
            refused(&[("authorization", format!("Bearer {long}"))]),
            Some((ErrorCode::InvalidApiKey, Some("Authorization".into())))
        );
        assert_eq!(
            refused(&[("idempotency-key", "i".repeat(300_000))]),
            Some((ErrorCode::InvalidIdempotencyKey, Some("Idempotency-Key".into())))
        );
        assert_eq!(refused(&[("x-api-key", "k".repeat(MAX_CREDENTIAL_BYTES))]), None);
    }

    #[test]
    fn a_header_sent_twice_is_refused_only_when_the_values_differ() {
        let key = |k: &str| ("x-api-key", k.to_owned());
        assert_eq!(
            refused(&[key("mm_test_a"), key("mm_live_b")]),
            Some((ErrorCode::InvalidRequest, Some("x-api-key".into())))
        );
        assert_eq!(refused(&[key("mm_test_a"), key("mm_test_a")]), None);
        // The contract's two schemes side by side: x-api-key is used.
        assert_eq!(
            refused(&[key("mm_test_a"), ("authorization", "Bearer mm_test_b".into())]),
            None
        );
        let idempotency = |k: &str| ("idempotency-key", k.to_owned());
        assert_eq!(
            refused(&[idempotency("one"), idempotency("two")]),
            Some((ErrorCode::InvalidRequest, Some("Idempotency-Key".into())))
        );
    }

    #[test]
    fn large_headers_and_declared_bodies_are_refused() {
        assert_eq!(
            refused(&[("x-a", "a".repeat(1000)), ("cookie", "c".repeat(MAX_HEADER_BYTES))]),
            Some((ErrorCode::HeadersTooLarge, Some("cookie".into())))
        );
        assert_eq!(
            refused(&[("content-length", "2147483648".into())]),
            Some((ErrorCode::RequestTooLarge, None))
        );
        assert_eq!(refused(&[("content-length", MAX_BODY_BYTES.to_string())]), None);
    }
}
