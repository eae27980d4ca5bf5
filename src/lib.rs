//! Types shared by the courier core and edge: the generated gRPC API
//! (`courier.v1` public, `courier.internal.v1` internal), the public error
//! catalogue, and the conversions between protobuf and chrono timestamps.

pub mod client_address;
pub mod codec;
pub mod core_channel;
pub mod credentials;
pub mod env;
pub mod errors;
pub mod json;
pub mod limits;
pub mod logging;
pub mod names;
pub mod ops;
pub mod pages;
pub mod route_drawing;
pub mod shutdown;
pub mod statements;
pub mod time;

/// The public API (`courier.v1`).
pub mod v1 {
    tonic::include_proto!("courier.v1");
}

/// Internal services (`courier.internal.v1`): admin, billing, dispatch.
pub mod internal {
    pub mod v1 {
        tonic::include_proto!("courier.internal.v1");
    }
}

/// The courier app's API (`courier.app.v1`).
pub mod app {
    pub mod v1 {
        tonic::include_proto!("courier.app.v1");
    }
}

/// Encoded descriptor set of every proto, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/courier_descriptor.bin"));

/// gRPC metadata keys that cross the edge/core boundary.
pub mod metadata {
    /// The public API key, as the client sent it in `x-api-key`.
    pub const API_KEY: &str = "x-api-key";
    /// The client's `Authorization` header, forwarded unchanged.
    pub const AUTHORIZATION: &str = "authorization";
    /// The request id (`req_…`) the edge assigned.
    pub const REQUEST_ID: &str = "x-request-id";
    /// The `Idempotency-Key` header of creates.
    pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
    /// Set on an answer replayed from the idempotency store.
    pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";
    /// On a replayed refusal: the request id of the first request.
    pub const ORIGINAL_REQUEST_ID: &str = "x-original-request-id";
    /// The public error code of a failed call (also in the status details).
    pub const ERROR_CODE: &str = "x-error-code";
    /// The console session token of a call made for a signed-in user.
    pub const CONSOLE_SESSION: &str = "x-console-session";
    /// The session's CSRF token, on console calls that change something
    /// and on every console call to a public service.
    pub const CSRF_TOKEN: &str = "x-csrf-token";
    /// On a console call to a public service: the workspace the user acts in…
    pub const CONSOLE_WORKSPACE: &str = "x-console-workspace";
    /// …and the mode (`test` or `live`) whose data the call sees.
    pub const CONSOLE_MODE: &str = "x-console-mode";
    /// The `param` of a failed call, when there is one.
    pub const ERROR_PARAM: &str = "x-error-param";
    /// A request the edge could not parse (an encoded `ErrorDetail`): the core
    /// reports it after checking the key, so that authentication errors come
    /// first.
    pub const REQUEST_ERROR: &str = "x-request-error-bin";
}
