//! Strict JSON request bodies: a body that is not a JSON object, a wrong type,
//! a missing or unknown field, or an oversize body is `400 invalid_request`
//! with `param` as a dot path (`stops.2.latitude`).

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// A request body parsed into `T` (a DTO with `deny_unknown_fields`).
pub struct JsonBody<T>(pub T);

/// Like [`JsonBody`], but an empty body counts as `{}` (optional bodies).
pub struct OptionalJsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = read_body(request.into_body()).await?;
        parse(&bytes).map(JsonBody)
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for OptionalJsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = read_body(request.into_body()).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return parse(b"{}").map(OptionalJsonBody);
        }
        parse(&bytes).map(OptionalJsonBody)
    }
}

async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, MAX_BODY_BYTES).await.map_err(|_| {
        ApiError::invalid(
            "body",
            format!("The request body must be at most {MAX_BODY_BYTES} bytes."),
        )
    })
}

/// Parses `bytes` as a JSON object into `T`.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // A well-formed object goes straight into `T` in one pass; whatever that
    // refuses is parsed again, through a JSON tree and a path tracker, to
    // say where and why (and to decide what a single pass refuses that the
    // tree takes, such as a repeated field).
    let opens_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if opens_object && let Ok(parsed) = serde_json::from_slice(bytes) {
        return Ok(parsed);
    }
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid("body", format!("The request body is not valid JSON: {e}.")))?;
    if !value.is_object() {
        return Err(ApiError::invalid("body", "The request body must be a JSON object."));
    }
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = dot_path(&error.path().to_string());
        let message = error.inner().to_string();
        // A missing field is reported at its parent object: append the
        // field's name so that `param` names the field itself.
        let field = backquoted(&message).filter(|_| message.starts_with("missing field"));
        let param = match (path.as_str(), field) {
            (".", Some(field)) | ("", Some(field)) => field.to_owned(),
            (parent, Some(field)) => format!("{parent}.{field}"),
            (".", None) | ("", None) => "body".to_owned(),
            (path, None) => path.to_owned(),
        };
        ApiError::invalid(param.clone(), describe(&param, &message))
    })
}

/// `stops[2].latitude` → `stops.2.latitude`.
fn dot_path(path: &str) -> String {
    path.replace('[', ".").replace(']', "")
}

fn backquoted(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

fn describe(param: &str, message: &str) -> String {
    if message.starts_with("missing field") {
        format!("{param} is required.")
    } else if message.starts_with("unknown field") {
        format!("{param} is not a known field.")
    } else {
        // serde's wording, e.g. "invalid type: string \"x\", expected f64".
        format!("{param}: {message}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Point {
        #[allow(dead_code)]
        latitude: f64,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        #[allow(dead_code)]
        stops: Vec<Point>,
    }

    fn param(json: &str) -> Option<String> {
        parse::<Body>(json.as_bytes()).err().and_then(|e| e.param)
    }

    #[test]
    fn params_are_dot_paths() {
        assert_eq!(
            param(r#"{"stops":[{"latitude":1},{"latitude":"x"}]}"#).as_deref(),
            Some("stops.1.latitude")
        );
        assert_eq!(param(r#"{"stops":[{}]}"#).as_deref(), Some("stops.0.latitude"));
        assert_eq!(
            param(r#"{"stops":[{"latitude":1,"lat":2}]}"#).as_deref(),
            Some("stops.0.lat")
        );
        assert_eq!(param(r#"{}"#).as_deref(), Some("stops"));
        assert_eq!(param(r#"{"stops":[],"x":1}"#).as_deref(), Some("x"));
        assert_eq!(param(r#"[1]"#).as_deref(), Some("body"));
        assert_eq!(param(r#"{"#).as_deref(), Some("body"));
        assert!(parse::<Body>(br#"{"stops":[{"latitude":1}]}"#).is_ok());
    }

    #[test]
    fn one_pass_and_two_agree() {
        // A struct also deserializes from an array of its fields; the body
        // must still be an object.
        assert_eq!(param(r#"[[{"latitude":1}]]"#).as_deref(), Some("body"));
        assert_eq!(param(r#"  [[]]"#).as_deref(), Some("body"));
        // A repeated field: the last one counts, as in the JSON tree.
        assert!(parse::<Body>(br#"{"stops":[],"stops":[{"latitude":1}]}"#).is_ok());
        assert!(parse::<Body>(b" \n{\"stops\":[]} ").is_ok());
        assert_eq!(param(r#"{"stops":[]} x"#).as_deref(), Some("body"));
    }
}
