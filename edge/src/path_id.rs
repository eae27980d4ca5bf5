//! Path parameters (ids, tokens) as text. The router decodes a path's
//! percent escapes; bytes that are not UTF-8 are `400 invalid_request`
//! naming the parameter, in the error shape. Handlers that call the core
//! take the result as it is and let the core report it after the key check
//! (`CallContext::request_for`), as they do a body that cannot be parsed;
//! whether the text itself is valid (no control characters) is the core's
//! rule.

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

use crate::error::ApiError;

/// A route's one path parameter, as text.
#[derive(Clone, Debug)]
pub struct PathId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(PathId(id)),
            Err(rejection) => Err(refusal(&rejection)),
        }
    }
}

fn refusal(rejection: &PathRejection) -> ApiError {
    use axum::extract::path::ErrorKind;
    if let PathRejection::FailedToDeserializePathParams(error) = rejection
        && let ErrorKind::InvalidUtf8InPathParam { key } = error.kind()
    {
        return ApiError::invalid(key.as_str(), format!("{key} is not valid UTF-8 text."));
    }
    // Only a route without its parameter fails otherwise: a bug of the router.
    tracing::error!(%rejection, "path parameter unreadable");
    ApiError::invalid("path", "The path cannot be read.")
}
