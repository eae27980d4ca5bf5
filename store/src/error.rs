//! The core's one error type. Domain code returns [`CoreError`]; the gRPC layer
//! turns it into a status once (`From<CoreError> for tonic::Status`).

use courier::errors::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// A refusal the public API shows as it is: a code, a message and the
    /// request field (dot path) or header concerned.
    #[error("{}: {message}", code.as_str())]
    Rejected {
        code: ErrorCode,
        message: String,
        param: Option<String>,
    },
    /// A refusal stored under an idempotency key, answered again: the first
    /// request's code, message, `param` and request id.
    #[error("{} (replayed): {message}", code.as_str())]
    Replayed {
        code: ErrorCode,
        message: String,
        param: Option<String>,
        request_id: String,
    },
    /// Too much too fast: `429 rate_limited`, to be tried again after
    /// `retry_after` (over gRPC a `google.rpc.RetryInfo` detail, and the
    /// message says it); `accepted`, where the refused call had done part of
    /// its work, how much (`ErrorInfo` metadata `accepted`).
    #[error("rate_limited: {message}")]
    Throttled {
        message: String,
        retry_after: std::time::Duration,
        accepted: Option<i64>,
    },
    /// A change that moves the price, sent without the new total in
    /// `accept_amount_cents`: `409 price_changed` about that member,
    /// carrying the total (`ErrorInfo` metadata `amount_cents`).
    #[error("price_changed: {message}")]
    PriceChanged { message: String, amount_cents: i64 },
    /// The database failed (a real dependency failure: 5xx).
    #[error("database error: {0}")]
    Database(#[from] sea_orm::DbErr),
    /// An invariant broke inside the core (a bug: 5xx).
    #[error("internal error: {0}")]
    Internal(String),
}

pub type CoreResult<T> = Result<T, CoreError>;

impl CoreError {
    /// A refusal with `code` and no `param`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CoreError::Rejected {
            code,
            message: message.into(),
            param: None,
        }
    }

    /// A refusal with `code` about the field or header `param`.
    pub fn at(code: ErrorCode, param: impl Into<String>, message: impl Into<String>) -> Self {
        CoreError::Rejected {
            code,
            message: message.into(),
            param: Some(param.into()),
        }
    }

    /// `400 invalid_request` about the field `param`.
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        CoreError::at(ErrorCode::InvalidRequest, param, message)
    }

    /// `404 not_found`.
    pub fn not_found(what: &str) -> Self {
        CoreError::new(ErrorCode::NotFound, format!("No such {what}."))
    }

    /// The public code of this error (`internal_error` for failures).
    pub fn code(&self) -> ErrorCode {
        match self {
            CoreError::Rejected { code, .. } | CoreError::Replayed { code, .. } => *code,
            CoreError::Throttled { .. } => ErrorCode::RateLimited,
            CoreError::PriceChanged { .. } => ErrorCode::PriceChanged,
            CoreError::Database(_) | CoreError::Internal(_) => ErrorCode::InternalError,
        }
    }
}

impl From<CoreError> for tonic::Status {
    fn from(error: CoreError) -> Self {
        match error {
            CoreError::Rejected { code, message, param } => {
                courier::errors::to_status(code, &message, param.as_deref())
            }
            CoreError::Replayed {
                code,
                message,
                param,
                request_id,
            } => {
                let mut status = courier::errors::to_status(code, &message, param.as_deref());
                status.metadata_mut().insert(
                    courier::metadata::IDEMPOTENT_REPLAYED,
                    tonic::metadata::MetadataValue::from_static("true"),
                );
                if let Ok(value) = request_id.parse() {
                    status
                        .metadata_mut()
                        .insert(courier::metadata::ORIGINAL_REQUEST_ID, value);
                }
                status
            }
            CoreError::Throttled {
                message,
                retry_after,
                accepted,
            } => {
                let info: Vec<_> = accepted
                    .map(|n| (courier::errors::ACCEPTED_KEY, n.to_string()))
                    .into_iter()
                    .collect();
                courier::errors::to_retry_status(ErrorCode::RateLimited, &message, retry_after, &info)
            }
            CoreError::PriceChanged { message, amount_cents } => courier::errors::to_status_with(
                ErrorCode::PriceChanged,
                &message,
                Some("accept_amount_cents"),
                &[(courier::errors::AMOUNT_CENTS_KEY, amount_cents.to_string())],
            ),
            CoreError::Database(db) => {
                tracing::error!(error = %db, "database failure");
                courier::errors::to_status(
                    ErrorCode::ServiceUnavailable,
                    "The database is temporarily unavailable.",
                    None,
                )
            }
            CoreError::Internal(message) => {
                tracing::error!(%message, "internal failure");
                courier::errors::to_status(ErrorCode::InternalError, "Unexpected error.", None)
            }
        }
    }
}
