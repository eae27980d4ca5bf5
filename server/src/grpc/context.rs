//! What handlers read from a request's metadata besides the caller (whom
//! the `caller` layer reads): the idempotency key, the request id; and how
//! an idempotent create's request is fingerprinted and its answer given.

use courier::metadata;
use courier_core::{CoreError, CoreResult};
use courier_orders::idempotency::Idempotent;
use prost::Message;
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

/// The canonical form of a create request, for idempotency: the parsed
/// request message, encoded.
pub fn canonical(request: &impl Message) -> Vec<u8> {
    request.encode_to_vec()
}

/// The answer of an idempotent create: the message the core kept (`wire`)
/// in its response (`respond`), marked when it was replayed.
pub fn created<M: Message + Default, R>(created: &Idempotent, respond: impl FnOnce(M) -> R) -> CoreResult<Response<R>> {
    let kept = M::decode(created.answer.as_slice())
        .map_err(|error| CoreError::Internal(format!("corrupt idempotent answer: {error}")))?;
    let mut response = Response::new(respond(kept));
    if created.replayed {
        response
            .metadata_mut()
            .insert(metadata::IDEMPOTENT_REPLAYED, MetadataValue::from_static("true"));
    }
    Ok(response)
}
