//! Signed service tokens (JWT, HS256) for internal gRPC callers: dispatch,
//! billing and the back office. A token names its role; `admin` may call
//! every internal service.

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
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Dispatch => "dispatch",
            Role::Billing => "billing",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "admin" => Some(Role::Admin),
            "dispatch" => Some(Role::Dispatch),
            "billing" => Some(Role::Billing),
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

/// Mints a token for `subject` with `role`, valid for `ttl_seconds`.
pub fn mint(key: &[u8], role: Role, subject: &str, now: i64, ttl_seconds: i64) -> CoreResult<String> {
    let claims = Claims {
        sub: subject.to_owned(),
        role: role.as_str().to_owned(),
        iat: now,
        exp: now + ttl_seconds,
    };
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(key))
        .map_err(|e| CoreError::Internal(format!("cannot sign service token: {e}")))
}

/// Verifies `authorization` (`Bearer <jwt>`) and that its role is `required`
/// or `admin`. Returns the token's subject.
pub fn verify(key: &[u8], authorization: Option<&str>, required: Role) -> CoreResult<String> {
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
    let role = Role::parse(&data.claims.role).ok_or_else(|| unauthenticated("Unknown service role."))?;
    if role != required && role != Role::Admin {
        return Err(CoreError::new(
            ErrorCode::PermissionDenied,
            format!("This service needs a {} service token.", required.as_str()),
        ));
    }
    Ok(data.claims.sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_by_role() {
        let key = b"secret";
        let now = chrono::Utc::now().timestamp();
        let dispatch = mint(key, Role::Dispatch, "dispatch-system", now, 60).expect("mint");
        let header = format!("Bearer {dispatch}");
        assert_eq!(
            verify(key, Some(&header), Role::Dispatch).ok().as_deref(),
            Some("dispatch-system")
        );
        assert_eq!(
            verify(key, Some(&header), Role::Billing).map_err(|e| e.code()).err(),
            Some(ErrorCode::PermissionDenied)
        );
        let admin = format!("Bearer {}", mint(key, Role::Admin, "ops", now, 60).expect("mint"));
        assert!(verify(key, Some(&admin), Role::Billing).is_ok());
        assert!(verify(b"other", Some(&header), Role::Dispatch).is_err());
        let expired = format!("Bearer {}", mint(key, Role::Admin, "ops", now - 600, 60).expect("mint"));
        assert!(verify(key, Some(&expired), Role::Admin).is_err());
        assert_eq!(
            verify(key, None, Role::Admin).map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingServiceToken)
        );
        assert_eq!(
            verify(key, Some("Bearer nonsense"), Role::Admin)
                .map_err(|e| e.code())
                .err(),
            Some(ErrorCode::InvalidServiceToken)
        );
    }
}
