//! The public error shape (docs/guide.md "Errors"). Handlers return [`ApiError`];
//! the response middleware renders it with the request id and `doc_url`,
//! which only it knows.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use courier::errors::{self, ErrorCode};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// A public error on its way out.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub param: Option<String>,
    /// Set when the core replayed a refusal stored under an idempotency key:
    /// the first request's id, which the replayed body quotes.
    pub replayed_request_id: Option<String>,
    /// `price_changed`: the total the refused change would set.
    pub amount_cents: Option<i64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            param: None,
            replayed_request_id: None,
            amount_cents: None,
        }
    }

    pub fn at(code: ErrorCode, param: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            param: Some(param.into()),
            replayed_request_id: None,
            amount_cents: None,
        }
    }

    /// `400 invalid_request` about `param`.
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError::at(ErrorCode::InvalidRequest, param, message)
    }

    /// The public error carried by a core status (the core's own code and
    /// message), or an upstream failure when the core could not answer.
    pub fn from_status(status: tonic::Status) -> Self {
        if let Some((code, param)) = errors::public_error(&status) {
            let metadata = status.metadata();
            let replayed_request_id = metadata
                .get(courier::metadata::IDEMPOTENT_REPLAYED)
                .and(metadata.get(courier::metadata::ORIGINAL_REQUEST_ID))
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            return ApiError {
                code,
                message: status.message().to_owned(),
                param,
                replayed_request_id,
                amount_cents: errors::error_info(&status, errors::AMOUNT_CENTS_KEY).and_then(|a| a.parse().ok()),
            };
        }
        tracing::error!(grpc_code = ?status.code(), message = %status.message(), "core call failed");
        let (code, _) = errors::from_status(&status);
        ApiError::new(code, "The core service could not answer; retry with backoff.")
    }
}

impl ApiError {
    /// The same error in REST's words where a gRPC field has another name
    /// there (a list's `page_size` is its `limit`).
    pub fn renaming(mut self, field: &str, param: &str) -> Self {
        if self.param.as_deref() == Some(field) {
            self.param = Some(param.to_owned());
            if let Some(rest) = self.message.strip_prefix(field) {
                self.message = format!("{param}{rest}");
            }
        }
        self
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        ApiError::from_status(status)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // The body is rendered by `middleware::finish`, which knows the
        // request id and the public base URL.
        let mut response = status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}

/// The body of every error answer.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Error)]
pub struct ErrorBodyJson {
    pub error: ErrorJson,
    /// Quote it to support; also in the `Request-Id` header.
    pub request_id: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorDetail)]
pub struct ErrorJson {
    /// Stable machine-readable code; clients branch on it and handle unknown
    /// codes by HTTP status.
    #[schema(schema_with = error_code_schema)]
    pub code: &'static str,
    /// Human text; its wording may change.
    pub message: String,
    /// The request field concerned as a dot path (`stops.2.latitude`), or the header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The code's documentation.
    #[schema(format = "uri")]
    pub doc_url: String,
    /// `price_changed` only: the delivery's new total, to send back as
    /// `accept_amount_cents`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<i64>,
}

/// The `code` of the Error schema: an open string (new codes can appear
/// within v1, docs/guide.md "Errors"), with every code of the catalogue
/// listed as an example.
fn error_code_schema() -> RefOr<Schema> {
    let known: Vec<Value> = ErrorCode::ALL.iter().map(|code| json!(code.as_str())).collect();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "Stable machine-readable code (see `/v1/docs/errors`); the known codes are its `examples`. \
New codes can appear within v1: handle an unknown code by the HTTP status.",
        ))
        .examples(known)
        .into()
}

/// The JSON body of an error answer.
pub fn body(error: &ApiError, request_id: &str, base_url: &str) -> ErrorBodyJson {
    ErrorBodyJson {
        error: ErrorJson {
            code: error.code.as_str(),
            message: error.message.clone(),
            param: error.param.clone(),
            doc_url: format!("{base_url}/v1/docs/errors#{}", error.code.as_str()),
            amount_cents: error.amount_cents,
        },
        request_id: request_id.to_owned(),
    }
}
