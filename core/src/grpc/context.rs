//! Who is calling, read from request metadata: the public API key (checked by
//! `auth`), a console session acting in a workspace (`accounts::sessions`),
//! or an internal service token.

use courier::errors::ErrorCode;
use courier::metadata;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};

use crate::accounts::memberships::Role as MemberRole;
use crate::accounts::sessions::{self, Session};
use crate::audit::{self, Actor};
use crate::auth::service_token::{self, Role};
use crate::auth::{self, Credentials, Mode, Permission, Principal};
use crate::{Core, CoreError, CoreResult};

/// A metadata entry of `request` as text.
pub fn header<T>(request: &Request<T>, name: &str) -> Option<String> {
    request
        .metadata()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The token of `authorization: Bearer <token>`, if the request has one.
pub fn bearer<T>(request: &Request<T>) -> Option<String> {
    let value = header(request, metadata::AUTHORIZATION)?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
        .filter(|token| !token.is_empty())
}

/// Authenticates the public API key of `request` and checks `permission`
/// (`None`: any valid key), then reports a request the edge could not parse.
pub async fn principal<T>(
    core: &Core,
    request: &Request<T>,
    permission: Option<Permission>,
) -> Result<Principal, Status> {
    principal_checked(core, request, |principal| match permission {
        Some(permission) => principal.require(permission),
        None => Ok(()),
    })
    .await
}

/// Like [`principal`], with the endpoint's own checks (`check`) in place of
/// the permission's. The one other way to a public caller: neither reaches
/// a handler without the edge's body error (`request_error`) reported, so a
/// handler cannot act on the empty message such a request carries.
pub async fn principal_checked<T>(
    core: &Core,
    request: &Request<T>,
    check: impl FnOnce(&Principal) -> CoreResult<()>,
) -> Result<Principal, Status> {
    let principal = authenticate(core, request).await?;
    check(&principal)?;
    request_error(request)?;
    Ok(principal)
}

/// Authenticates the public API key of `request`, or the console session
/// acting in a workspace, checking no permission.
async fn authenticate<T>(core: &Core, request: &Request<T>) -> Result<Principal, Status> {
    if let Some(session) = header(request, metadata::CONSOLE_SESSION) {
        let workspace = header(request, metadata::CONSOLE_WORKSPACE).unwrap_or_default();
        let mode = header(request, metadata::CONSOLE_MODE)
            .as_deref()
            .and_then(Mode::parse)
            .ok_or_else(|| Status::invalid_argument("x-console-mode must be test or live"))?;
        let csrf = header(request, metadata::CSRF_TOKEN);
        return Ok(sessions::principal(core, &session, csrf.as_deref(), &workspace, mode).await?);
    }
    let credentials = Credentials {
        api_key: header(request, metadata::API_KEY),
        authorization: header(request, metadata::AUTHORIZATION),
    };
    Ok(auth::authenticate(
        &core.db,
        &core.writer,
        &core.keys,
        core.clock.now_micros(),
        &credentials,
    )
    .await?)
}

/// The refusal of a request body the edge could not parse, forwarded in
/// `x-request-error-bin`; reported once the caller may call the endpoint.
fn request_error<T>(request: &Request<T>) -> Result<(), Status> {
    let Some(value) = request.metadata().get_bin(metadata::REQUEST_ERROR) else {
        return Ok(());
    };
    let bytes = value
        .to_bytes()
        .map_err(|_| Status::invalid_argument("malformed x-request-error-bin"))?;
    let (code, message, param) = courier::errors::decode_request_error(&bytes)
        .ok_or_else(|| Status::invalid_argument("malformed x-request-error-bin"))?;
    Err(CoreError::Rejected { code, message, param }.into())
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

/// Verifies the service token of an internal call; returns its subject.
pub fn service<T>(core: &Core, request: &Request<T>, role: Role) -> Result<String, Status> {
    let authorization = header(request, metadata::AUTHORIZATION);
    Ok(service_token::verify(
        &core.secrets.service_token,
        authorization.as_deref(),
        role,
    )?)
}

/// The caller of an internal RPC that the console also makes: a system with
/// a service token, or a signed-in console user (docs/console.md, "Internal
/// services from the console").
pub enum InternalCaller {
    /// A system, by its token's subject.
    Service(String),
    User(Session),
}

impl InternalCaller {
    /// `not_found` unless the caller may read `workspace_id`: systems and
    /// operators read every workspace, users the workspaces they belong to.
    pub async fn may_read(&self, core: &Core, workspace_id: &str) -> Result<(), Status> {
        match self {
            InternalCaller::Service(_) => Ok(()),
            InternalCaller::User(session) => {
                sessions::check_member(core, session, workspace_id).await?;
                Ok(())
            }
        }
    }

    /// Like [`InternalCaller::may_read`], and of users only owners and
    /// admins of `workspace_id` (and operators).
    pub async fn may_manage(&self, core: &Core, workspace_id: &str) -> Result<(), Status> {
        match self {
            InternalCaller::Service(_) => Ok(()),
            InternalCaller::User(session) => {
                let role = sessions::check_member(core, session, workspace_id).await?;
                if session.user.operator || role.is_some_and(MemberRole::manages) {
                    Ok(())
                } else {
                    Err(denied("Only the workspace's owners and admins can do this."))
                }
            }
        }
    }

    /// Who this is, for the audit log and a board order's history.
    pub fn actor(&self) -> Actor {
        match self {
            InternalCaller::Service(subject) => Actor::Service(subject.clone()),
            InternalCaller::User(session) if session.user.operator => Actor::Operator {
                email: session.user.email.clone(),
            },
            InternalCaller::User(session) => Actor::User {
                email: session.user.email.clone(),
            },
        }
    }

    /// Records a change this caller made in `workspace_id` to `target`.
    pub async fn audit(&self, core: &Core, action: &str, workspace_id: &str, target: &str) -> Result<(), Status> {
        let change = audit::Change {
            action,
            workspace_id: Some(workspace_id),
            target,
        };
        Ok(audit::record(&core.writer, core.clock.now_micros(), &self.actor(), change).await?)
    }

    /// Systems and operators only.
    pub fn must_be_operator(&self) -> Result<(), Status> {
        match self {
            InternalCaller::User(session) if !session.user.operator => {
                Err(denied("Only the platform's operators can do this."))
            }
            _ => Ok(()),
        }
    }
}

fn denied(message: &str) -> Status {
    CoreError::new(ErrorCode::PermissionDenied, message).into()
}

/// Who calls an internal RPC of `role` that the console also makes: a
/// console session (whose `change` carries the CSRF token; what it may read
/// or change is then asked of the [`InternalCaller`]) or else a service
/// token of `role`.
pub async fn internal_caller<T>(
    core: &Core,
    request: &Request<T>,
    role: Role,
    change: bool,
) -> Result<InternalCaller, Status> {
    let Some(token) = header(request, metadata::CONSOLE_SESSION) else {
        return Ok(InternalCaller::Service(service(core, request, role)?));
    };
    let session = sessions::authenticate(core, &token).await?;
    if change {
        sessions::check_csrf(&session, header(request, metadata::CSRF_TOKEN).as_deref())?;
    }
    Ok(InternalCaller::User(session))
}
