//! Who is calling, read from request metadata: the public API key (checked by
//! `auth`), or an internal service token.

use courier::metadata;
use tonic::{Request, Status};

use crate::auth::service_token::{self, Role};
use crate::auth::{self, Credentials, Permission, Principal};
use crate::{Core, CoreError};

/// A metadata entry of `request` as text.
pub fn header<T>(request: &Request<T>, name: &str) -> Option<String> {
    request
        .metadata()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Authenticates the public API key of `request` and checks `permission`
/// (`None`: any valid key).
pub async fn principal<T>(
    core: &Core,
    request: &Request<T>,
    permission: Option<Permission>,
) -> Result<Principal, Status> {
    let credentials = Credentials {
        api_key: header(request, metadata::API_KEY),
        authorization: header(request, metadata::AUTHORIZATION),
    };
    let principal = auth::authenticate(&core.db, core.clock.now_micros(), &credentials).await?;
    if let Some(permission) = permission {
        principal.require(permission)?;
    }
    if let Some(value) = request.metadata().get_bin(metadata::REQUEST_ERROR) {
        let bytes = value
            .to_bytes()
            .map_err(|_| Status::invalid_argument("malformed x-request-error-bin"))?;
        let (code, message, param) = courier::errors::decode_request_error(&bytes)
            .ok_or_else(|| Status::invalid_argument("malformed x-request-error-bin"))?;
        return Err(CoreError::Rejected { code, message, param }.into());
    }
    Ok(principal)
}

/// Verifies the service token of an internal call; returns its subject.
pub fn service<T>(core: &Core, request: &Request<T>, role: Role) -> Result<String, Status> {
    let authorization = header(request, metadata::AUTHORIZATION);
    Ok(service_token::verify(
        &core.secrets.service_token,
        authorization.as_deref(),
        role,
    )?)
}
