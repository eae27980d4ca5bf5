//! What handlers read from a request's metadata besides the caller (whom
//! `access::layer` reads): the idempotency key, the request id; and how an
//! idempotent create's answer is marked.

use courier::metadata;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response};

/// A metadata entry of `request` as text.
pub fn header<T>(request: &Request<T>, name: &str) -> Option<String> {
    request
        .metadata()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The answer of an idempotent create, marked when it was replayed.
pub fn created<T>(message: T, replayed: bool) -> Response<T> {
    let mut response = Response::new(message);
    if replayed {
        response
            .metadata_mut()
            .insert(metadata::IDEMPOTENT_REPLAYED, MetadataValue::from_static("true"));
    }
    response
}
