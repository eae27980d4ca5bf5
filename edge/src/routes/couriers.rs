//! The keyless link to a courier's photo that a delivery's
//! `courier.photo_url` holds (`GET /v1/courier-photos/{courier_id}?signature=…`).

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::error::ApiError;
use crate::path_id::PathId;

/// Get a courier's photo
///
/// The target of a delivery's `courier.photo_url`: the courier's photo
/// (JPEG or PNG). Needs no API key; the signed link is the capability. It
/// does not expire, and stops working when the courier's photo is replaced.
#[utoipa::path(
    get,
    path = "/v1/courier-photos/{courierId}",
    operation_id = "getCourierPhoto",
    tag = "Deliveries",
    params(
        ("courierId" = String, Path, description = "As in the `photo_url`."),
        ("signature" = String, Query, description = "As in the `photo_url`."),
    ),
    responses((status = 200, description = "The photo's bytes (JPEG or PNG), with its content type.",
        content_type = "application/octet-stream")),
)]
pub async fn photo(
    State(state): State<EdgeState>,
    ctx: CallContext,
    PathId(courier_id): PathId,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let signature = parse_query(query.as_deref())?
        .remove("signature")
        .ok_or_else(|| ApiError::invalid("signature", "The link lacks signature; use the photo_url as given."))?;
    let request = ctx.request(pb::GetCourierPhotoRequest { courier_id, signature });
    let photo = state.core.public.clone().get_courier_photo(request).await?.into_inner();
    let content_type = HeaderValue::from_str(&photo.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    let mut response = Response::new(Body::from(photo.content));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type);
    // A link names one photo for good (a new photo gets a new link), so
    // browsers may keep it; shared caches may not, as it is a capability.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=86400"),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    Ok(response)
}
