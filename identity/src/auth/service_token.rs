//! Signed service tokens (JWT, HS256) for internal gRPC callers: dispatch,
//! billing and the back office, and the web fronts (`front`: the console
//! and the courier app, whose sign-ins name their visitor's address). A
//! token names its role; what each role may do is `access::decide`'s
//! (`admin` may call every internal service; `front` none). The
//! operator's command line mints a token of its own (role `cli`, subject
//! the OS user) when it sends a change to the serving core.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use courier::errors::ErrorCode;

use crate::{CoreError, CoreResult};

/// Internal caller roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Admin,
    Dispatch,
    Billing,
    /// A web front: its sign-ins' `client_address` is believed
    /// (docs/access.md, "Sign-in throttle").
    Front,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Dispatch => "dispatch",
            Role::Billing => "billing",
            Role::Front => "front",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "admin" => Some(Role::Admin),
            "dispatch" => Some(Role::Dispatch),
            "billing" => Some(Role::Billing),
            "front" => Some(Role::Front),
            _ => None,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// Who the token was minted for (a system or an operator).
    sub: String,
    role: String,
    iat: i64,
    exp: i64,
}

/// The role claim of the command line's tokens.
const COMMAND_LINE: &str = "cli";

/// Who holds a verified token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A service system (or an operator's tool) of `role`.
    Service { role: Role, subject: String },
    /// The operator's command line, run by `os_user`.
    CommandLine { os_user: String },
}

/// Mints a token for `subject` with `role`, valid for `ttl_seconds`.
pub fn mint(key: &[u8], role: Role, subject: &str, now: i64, ttl_seconds: i64) -> CoreResult<String> {
    sign(key, role.as_str(), subject, now, ttl_seconds)
}

/// Mints the command line's token for `os_user`, valid for `ttl_seconds`.
pub fn mint_command_line(key: &[u8], os_user: &str, now: i64, ttl_seconds: i64) -> CoreResult<String> {
    sign(key, COMMAND_LINE, os_user, now, ttl_seconds)
}

fn sign(key: &[u8], role: &str, subject: &str, now: i64, ttl_seconds: i64) -> CoreResult<String> {
    let claims = Claims {
        sub: subject.to_owned(),
        role: role.to_owned(),
        iat: now,
        exp: now + ttl_seconds,
    };
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(key))
        .map_err(|e| CoreError::Internal(format!("cannot sign service token: {e}")))
}

/// Verifies `authorization` (`Bearer <jwt>`): signed with `key`, unexpired,
/// of a known role. Returns who holds it.
pub fn verify(key: &[u8], authorization: Option<&str>) -> CoreResult<Holder> {
    let unauthenticated = |message: &str| CoreError::new(ErrorCode::InvalidServiceToken, message.to_owned());
    let token = authorization
        .and_then(|h| {
            h.trim()
                .strip_prefix("Bearer ")
                .or_else(|| h.trim().strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or_else(|| {
            CoreError::new(
                ErrorCode::MissingServiceToken,
                "Internal services need 'authorization: Bearer <service token>'.",
            )
        })?;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_required_spec_claims(&["exp", "sub"]);
    let data = jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(key), &validation)
        .map_err(|_| unauthenticated("The service token is invalid or expired."))?;
    let Claims { sub, role, .. } = data.claims;
    if role == COMMAND_LINE {
        return Ok(Holder::CommandLine { os_user: sub });
    }
    let role = Role::parse(&role).ok_or_else(|| unauthenticated("Unknown service role."))?;
    Ok(Holder::Service { role, subject: sub })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_with_their_role_and_subject() {
        let key = b"secret";
        let now = chrono::Utc::now().timestamp();
        let dispatch = mint(key, Role::Dispatch, "dispatch-system", now, 60).expect("mint");
        let header = format!("Bearer {dispatch}");
        assert_eq!(
            verify(key, Some(&header)).ok(),
            Some(Holder::Service {
                role: Role::Dispatch,
                subject: "dispatch-system".into()
            })
        );
        let cli = format!("Bearer {}", mint_command_line(key, "olga", now, 60).expect("mint"));
        assert_eq!(
            verify(key, Some(&cli)).ok(),
            Some(Holder::CommandLine { os_user: "olga".into() })
        );
        assert!(verify(b"other", Some(&header)).is_err());
        let expired = format!("Bearer {}", mint(key, Role::Admin, "ops", now - 600, 60).expect("mint"));
        assert!(verify(key, Some(&expired)).is_err());
        assert_eq!(
            verify(key, None).map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingServiceToken)
        );
        assert_eq!(
            verify(key, Some("Bearer nonsense")).map_err(|e| e.code()).err(),
            Some(ErrorCode::InvalidServiceToken)
        );
    }
}
