//! Strict JSON request bodies: a body that is not a JSON object, a wrong type,
//! or a missing, unknown or repeated member is `400 invalid_request` with
//! `param` as a dot path (`stops.2.latitude`) and a message in the service's
//! words (never a Rust type or serde's phrasing). A body over the limit is
//! `413 request_too_large`, one that does not arrive in time `408
//! request_timeout` (`serving`).
//! An integer may be written with a zero fraction (`2.0`), as JSON Schema
//! allows.

use std::cell::RefCell;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use serde::Deserializer;
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::error::Category;

use crate::error::ApiError;
use crate::serving::BodyTimeout;
use courier::errors::ErrorCode;
use http_body_util::LengthLimitError;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// A request body parsed into `T` (a DTO with `deny_unknown_fields`).
pub struct JsonBody<T>(pub T);

/// Like [`JsonBody`], but an empty body (no bytes) counts as `{}`
/// (optional bodies).
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
        // Absent means no bytes at all: white space alone is a body, and
        // not JSON (the document calls the body optional, not blank).
        if bytes.is_empty() {
            return parse(b"{}").map(OptionalJsonBody);
        }
        parse(&bytes).map(OptionalJsonBody)
    }
}

/// The bytes of a request body, at most [`MAX_BODY_BYTES`].
pub(crate) async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, MAX_BODY_BYTES).await.map_err(|error| {
        let cause = error.into_inner();
        if cause.is::<LengthLimitError>() {
            ApiError::new(
                ErrorCode::RequestTooLarge,
                format!("The request body must be at most {MAX_BODY_BYTES} bytes."),
            )
        } else if BodyTimeout::caused(cause.as_ref()) {
            ApiError::new(
                ErrorCode::RequestTimeout,
                "The request body did not arrive in time; send the request again.",
            )
        } else {
            ApiError::invalid("body", "The request body could not be read to its end.")
        }
    })
}

/// Parses `bytes` as a JSON object into `T`.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // A well-formed object goes straight into `T` in one pass; whatever that
    // refuses is parsed again, through a JSON tree and a path tracker, to
    // say where and why, and to take what JSON allows that a single pass
    // refuses (an integer written as `2.0`). A member named twice is
    // refused either way: the one pass refuses it in a struct.
    let opens_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if opens_object && let Ok(parsed) = serde_json::from_slice(bytes) {
        return Ok(parsed);
    }
    let value = tree(bytes)?;
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

/// `bytes` as a JSON tree, with integer-valued numbers as integers; a
/// member named twice in one object is refused, naming it.
fn tree(bytes: &[u8]) -> Result<Value, ApiError> {
    let repeated = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Tree {
        path: String::new(),
        repeated: &repeated,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    if let Some(member) = repeated.into_inner() {
        return Err(ApiError::invalid(
            member.clone(),
            format!("{member} appears more than once; name each member once."),
        ));
    }
    parsed.map_err(|error| {
        let place = format!("line {}, column {}", error.line(), error.column());
        let message = match error.classify() {
            Category::Eof => format!("The request body is not valid JSON: it ends early ({place})."),
            _ => format!("The request body is not valid JSON ({place})."),
        };
        ApiError::invalid("body", message)
    })
}

/// Reads one JSON value at `path` (a dot path), recording in `repeated`
/// the first member named twice.
struct Tree<'a> {
    path: String,
    repeated: &'a RefCell<Option<String>>,
}

impl Tree<'_> {
    fn child(&self, name: &str) -> Tree<'_> {
        let path = if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        };
        Tree {
            path,
            repeated: self.repeated,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Tree<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tree<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // JSON Schema calls 2.0 an integer: keep it as one where it fits.
        const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53: exact as f64
        if value.fract() == 0.0 && value.abs() <= LIMIT {
            return Ok(Value::from(value as i64));
        }
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child(&items.len().to_string()))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let child = self.child(&name);
            if members.contains_key(&name) {
                let path = child.path.clone();
                self.repeated.borrow_mut().get_or_insert(path);
                return Err(serde::de::Error::custom("a member is named twice"));
            }
            let value = map.next_value_seed(child)?;
            members.insert(name, value);
        }
        Ok(Value::Object(members))
    }
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

/// The refusal of `param` in the service's words; `message` is the
/// deserializer's, which names Rust types and is never shown.
fn describe(param: &str, message: &str) -> String {
    if message.starts_with("missing field") {
        return format!("{param} is required.");
    }
    if message.starts_with("unknown field") {
        return format!("{param} is not a known field.");
    }
    if message.starts_with("duplicate field") {
        return format!("{param} appears more than once; name each member once.");
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let allowed: Vec<&str> = rest
            .split_once("expected ")
            .map(|(_, expected)| expected.split('`').skip(1).step_by(2).collect())
            .unwrap_or_default();
        return match allowed.as_slice() {
            [] => format!("{param} is not an accepted value."),
            [only] => format!("{param} must be {only}."),
            many => format!("{param} must be one of {}.", many.join(", ")),
        };
    }
    let expected = message.rsplit_once("expected ").map(|(_, e)| e.trim());
    let kind = match expected {
        Some("i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" | "isize") => "a whole number",
        Some("f32" | "f64") => "a number",
        Some("a string" | "a borrowed string" | "a character") => "a string",
        Some("a boolean") => "true or false",
        Some("a sequence") => "an array",
        Some(other) if other.starts_with("struct ") || other == "a map" || other.starts_with("map") => "an object",
        _ => return format!("{param} has a value of the wrong type."),
    };
    if message.starts_with("invalid value: integer") || message.starts_with("invalid value: floating point") {
        return if kind == "a whole number" {
            format!("{param} is outside the range of whole numbers it accepts.")
        } else {
            format!("{param} is out of range.")
        };
    }
    if kind == "a whole number" && message.contains("floating point") {
        return format!("{param} must be a whole number.");
    }
    format!("{param} must be {kind}.")
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

    #[tokio::test]
    async fn a_body_over_the_limit_is_too_large_however_it_arrives() {
        let refused = read_body(axum::body::Body::from(vec![b' '; MAX_BODY_BYTES + 1]))
            .await
            .err();
        assert_eq!(refused.map(|e| e.code), Some(ErrorCode::RequestTooLarge));
        assert!(
            read_body(axum::body::Body::from(vec![b' '; MAX_BODY_BYTES]))
                .await
                .is_ok()
        );
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
        // A repeated member is refused, naming it, at any depth.
        assert_eq!(
            param(r#"{"stops":[],"stops":[{"latitude":1}]}"#).as_deref(),
            Some("stops")
        );
        assert_eq!(
            param(r#"{"stops":[{"latitude":1},{"latitude":1,"latitude":2}]}"#).as_deref(),
            Some("stops.1.latitude")
        );
        assert!(parse::<Body>(b" \n{\"stops\":[]} ").is_ok());
        assert_eq!(param(r#"{"stops":[]} x"#).as_deref(), Some("body"));
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Counted {
        quantity: i64,
        #[allow(dead_code)]
        kind: Option<Kind>,
        #[allow(dead_code)]
        flag: Option<bool>,
        #[allow(dead_code)]
        point: Option<Point>,
        #[allow(dead_code)]
        small: Option<i32>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Parcel,
        Pallet,
    }

    fn message(json: &str) -> String {
        parse::<Counted>(json.as_bytes())
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    }

    #[test]
    fn integer_valued_numbers_are_integers() {
        assert_eq!(
            parse::<Counted>(br#"{"quantity": 2.0}"#).map(|c| c.quantity).ok(),
            Some(2)
        );
        assert_eq!(
            parse::<Counted>(br#"{"quantity": 1.5e2}"#).map(|c| c.quantity).ok(),
            Some(150)
        );
        assert!(parse::<Body>(br#"{"stops":[{"latitude":52}]}"#).is_ok());
        assert_eq!(message(r#"{"quantity": 2.5}"#), "quantity must be a whole number.");
    }

    #[test]
    fn messages_are_the_services_own_words() {
        for (body, expected) in [
            (r#"{"quantity": "x"}"#, "quantity must be a whole number."),
            (
                r#"{"quantity": 1, "kind": "box"}"#,
                "kind must be one of parcel, pallet.",
            ),
            (r#"{"quantity": 1, "flag": 1}"#, "flag must be true or false."),
            (r#"{"quantity": 1, "point": "x"}"#, "point must be an object."),
            (r#"{"quantity": 1, "point": []}"#, "point must be an object."),
            (
                r#"{"quantity": 1, "small": 3000000000}"#,
                "small is outside the range of whole numbers it accepts.",
            ),
            (r#"{"quantity": 1e300}"#, "quantity must be a whole number."),
            (
                r#"{"quantity": 1,"#,
                "The request body is not valid JSON: it ends early (line 1, column 15).",
            ),
            (
                r#"{"quantity": 1 x}"#,
                "The request body is not valid JSON (line 1, column 16).",
            ),
        ] {
            let text = message(body);
            assert_eq!(text, expected, "{body}");
            for word in ["i64", "i32", "f64", "struct", "expected", "invalid type", "serde"] {
                assert!(!text.contains(word), "{body}: {text}");
            }
        }
    }
}
