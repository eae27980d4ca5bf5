//! Proof of delivery: the keyed read (`GET /v1/deliveries/{id}/proof-of-delivery`)
//! and the keyless signed download links it hands out
//! (`GET /v1/proof-files/{artifact_id}?expires=…&signature=…`).

use axum::Json;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::proofs::ProofOfDeliveryJson;
use crate::error::ApiError;
use crate::path_id::PathId;

/// Get the proof of delivery
///
/// The submitted checkpoints with their files. Every read issues fresh
/// `download_url`s, each valid 15 minutes.
#[utoipa::path(
    get,
    path = "/v1/deliveries/{deliveryId}/proof-of-delivery",
    operation_id = "getProofOfDelivery",
    tag = "Deliveries",
    params(("deliveryId" = String, Path, description = "The delivery's id (`del_…`).")),
    responses((status = 200, description = "The proof of delivery.", body = ProofOfDeliveryJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn proof_of_delivery(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
) -> Result<Json<ProofOfDeliveryJson>, ApiError> {
    let request = ctx.request_for(delivery_id, |PathId(delivery_id)| {
        Ok(pb::GetProofOfDeliveryRequest { delivery_id })
    });
    let answer = state.core.tracking.clone().get_proof_of_delivery(request).await?;
    let proof = answer.into_inner().proof_of_delivery.ok_or_else(|| {
        ApiError::new(
            ErrorCode::UpstreamError,
            "The core answered without a proof of delivery.",
        )
    })?;
    Ok(Json(proof.into()))
}

/// Download a proof file
///
/// The target of a `download_url`: the file as an attachment. Needs no API
/// key; the signed, 15-minute link is the capability. The core checks the
/// signature and expiry; errors are in the public JSON shape.
#[utoipa::path(
    get,
    path = "/v1/proof-files/{artifactId}",
    operation_id = "downloadProofFile",
    tag = "Deliveries",
    params(
        ("artifactId" = String, Path, description = "The file's id, as in the `download_url`."),
        ("expires" = i64, Query, description = "Unix seconds, as in the `download_url`."),
        ("signature" = String, Query, description = "As in the `download_url`."),
    ),
    responses((status = 200, description = "The file's bytes, with its content type.",
        content_type = "application/octet-stream",
        headers(("Content-Disposition" = String, description = "`attachment` with the file name.")))),
)]
pub async fn file(
    State(state): State<EdgeState>,
    ctx: CallContext,
    PathId(artifact_id): PathId,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let query = parse_query(query.as_deref())?;
    let expires = query
        .get("expires")
        .ok_or_else(|| ApiError::invalid("expires", "The link lacks expires; use the download_url as given."))?
        .parse::<i64>()
        .map_err(|_| ApiError::invalid("expires", "expires must be unix seconds, as in the download_url."))?;
    let signature = query
        .get("signature")
        .ok_or_else(|| ApiError::invalid("signature", "The link lacks signature; use the download_url as given."))?
        .clone();
    let request = ctx.request(pb::GetProofFileRequest {
        artifact_id,
        expires,
        signature,
    });
    let file = state.core.public.clone().get_proof_file(request).await?.into_inner();
    let content_type = HeaderValue::from_str(&file.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    let disposition = HeaderValue::from_str(&content_disposition(&file.file_name))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    let mut response = Response::new(Body::from(file.content));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type);
    headers.insert(header::CONTENT_DISPOSITION, disposition);
    // The link is a short-lived capability: no shared caches, and never
    // render an uploaded file as active content on this origin.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    Ok(response)
}

/// What RFC 5987 leaves unencoded in a `filename*` (its `attr-char`).
const RFC_5987_ENCODED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// `attachment` with an ASCII `filename` fallback and the exact name as
/// RFC 5987 `filename*`.
fn content_disposition(name: &str) -> String {
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(name, RFC_5987_ENCODED);
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispositions_quote_safely() {
        assert_eq!(
            content_disposition("pickup photo.png"),
            "attachment; filename=\"pickup photo.png\"; filename*=UTF-8''pickup%20photo.png"
        );
        assert_eq!(
            content_disposition("Grüße \"x\".pdf"),
            "attachment; filename=\"Gr__e _x_.pdf\"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22x%22.pdf"
        );
    }
}
