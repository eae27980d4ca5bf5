//! The per-request context handlers forward to the core: the caller's key
//! headers and the request id, as gRPC metadata.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use courier::errors::ErrorCode;
use courier::metadata;
use tonic::metadata::MetadataValue;

use crate::error::ApiError;
use crate::middleware::RequestId;

/// Headers that travel to the core with every call.
#[derive(Clone, Debug)]
pub struct CallContext {
    pub request_id: String,
    entries: Vec<(&'static str, MetadataValue<tonic::metadata::Ascii>)>,
}

impl CallContext {
    /// Wraps `message` in a gRPC request carrying the context's metadata.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        for (name, value) in &self.entries {
            request.metadata_mut().insert(*name, value.clone());
        }
        request
    }

    /// The gRPC request for a parsed body, or, when the body could not be
    /// parsed or converted, an empty request carrying that error: the core
    /// checks the key and permission first and then reports it.
    pub fn request_for<B, M: Default>(
        &self,
        body: Result<B, ApiError>,
        convert: impl FnOnce(B) -> Result<M, ApiError>,
    ) -> tonic::Request<M> {
        match body.and_then(convert) {
            Ok(message) => self.request(message),
            Err(error) => {
                let mut request = self.request(M::default());
                let bytes = courier::errors::encode_request_error(error.code, &error.message, error.param.as_deref());
                request
                    .metadata_mut()
                    .insert_bin(metadata::REQUEST_ERROR, MetadataValue::from_bytes(&bytes));
                request
            }
        }
    }
}

/// Header name → metadata key of what is forwarded.
pub(crate) const FORWARDED: &[(&str, &str)] = &[
    ("x-api-key", metadata::API_KEY),
    ("authorization", metadata::AUTHORIZATION),
    ("idempotency-key", metadata::IDEMPOTENCY_KEY),
];

impl<S: Send + Sync> FromRequestParts<S> for CallContext {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let request_id = parts
            .extensions
            .get::<RequestId>()
            .map(|r| r.0.clone())
            .unwrap_or_default();
        let mut entries = Vec::with_capacity(FORWARDED.len() + 1);
        if let Ok(value) = request_id.parse() {
            entries.push((metadata::REQUEST_ID, value));
        }
        for (header, key) in FORWARDED {
            if let Some(raw) = parts.headers.get(*header) {
                let value = raw.to_str().ok().and_then(|text| text.parse().ok()).ok_or_else(|| {
                    ApiError::at(
                        refusal_code(header),
                        display_name(header),
                        format!("The {} header must be visible ASCII.", display_name(header)),
                    )
                })?;
                entries.push((key, value));
            }
        }
        Ok(CallContext { request_id, entries })
    }
}

/// The code of a malformed forwarded header: the contract's own for the
/// idempotency key, the key's for the others.
pub(crate) fn refusal_code(header: &str) -> ErrorCode {
    if header == "idempotency-key" {
        ErrorCode::InvalidIdempotencyKey
    } else {
        ErrorCode::InvalidApiKey
    }
}

/// A forwarded header's name as the guide writes it.
pub(crate) fn display_name(header: &str) -> &'static str {
    match header {
        "x-api-key" => "x-api-key",
        "authorization" => "Authorization",
        _ => "Idempotency-Key",
    }
}
