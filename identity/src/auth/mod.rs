//! Who is calling: public API keys (docs/guide.md "Authentication") and
//! internal service tokens. Owns the `api_keys` table.

pub mod api_keys;
pub mod cache;
pub mod service_token;

use courier::credentials::PresentedKey;
use courier::errors::ErrorCode;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait};

use crate::access::Permission;
use crate::audit;
pub use crate::modes::Mode;
use crate::workspaces::model::Workspace;
use cache::{KeyCache, KnownKey};
use courier_store::{CoreError, CoreResult, Store};

/// The caller of a public RPC: an API key, or a console session acting in
/// a workspace and mode (`courier_core::caller`), checked for the method's
/// permission before a handler gets it.
#[derive(Clone, Debug)]
pub struct Principal {
    pub workspace: Workspace,
    pub mode: Mode,
    pub permissions: Vec<Permission>,
    /// Who the audit log names for this caller's changes; `None` when they
    /// are not audited (keys, a workspace's own users).
    pub audited_as: Option<String>,
}

impl Principal {
    /// The condition every query of this caller's tenant data carries: its
    /// workspace and its mode, given the table's two columns for them
    /// (ARCHITECTURE.md, "Every query of tenant data is scoped").
    pub fn scope(&self, workspace_id: impl ColumnTrait, mode: impl ColumnTrait) -> Condition {
        Condition::all()
            .add(workspace_id.eq(self.workspace.id.as_str()))
            .add(mode.eq(self.mode.as_str()))
    }

    /// Writes the audit entry of this caller's `action` on `target` in its
    /// workspace, on `tx` (the change's own transaction), when its changes
    /// are audited (an operator acting through the console).
    pub async fn audit(&self, store: &Store, tx: &impl ConnectionTrait, action: &str, target: &str) -> CoreResult<()> {
        let Some(actor) = &self.audited_as else {
            return Ok(());
        };
        let change = audit::Change {
            action,
            workspace_id: Some(&self.workspace.id),
            target,
            courier_id: None,
        };
        audit::record(store, tx, actor, change).await
    }
}

/// `403 api_access_disabled` unless the plan of `workspace` lets it use the
/// public API.
pub fn require_api_access(workspace: &Workspace) -> CoreResult<()> {
    if workspace.has_api_access() {
        Ok(())
    } else {
        Err(CoreError::new(
            ErrorCode::ApiAccessDisabled,
            "The workspace's plan does not include API access.",
        ))
    }
}

/// The key material of a request, as the client sent it.
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    /// The `x-api-key` header.
    pub api_key: Option<String>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
}

impl Credentials {
    /// The key to check: `x-api-key` wins over `Authorization: Bearer`.
    fn key(&self) -> CoreResult<&str> {
        match courier::credentials::presented_key(self.api_key.as_deref(), self.authorization.as_deref()) {
            PresentedKey::Key(key) => Ok(key),
            PresentedKey::Missing => Err(CoreError::new(
                ErrorCode::MissingApiKey,
                "No API key: send it in the x-api-key header or as Authorization: Bearer <API_KEY>.",
            )),
            PresentedKey::MalformedAuthorization => Err(CoreError::at(
                ErrorCode::InvalidApiKey,
                "Authorization",
                "The Authorization header must be 'Bearer <API_KEY>'.",
            )),
        }
    }
}

/// Checks the key of a public request: known, not expired, not revoked, and
/// its workspace has API access. Permissions are checked after this, by
/// `courier_core::caller::api`. `keys` answers for keys it knows
/// (see [`cache`]); the others are read from `db`. A key's last use is
/// written on `writer`.
pub async fn authenticate(
    db: &impl ConnectionTrait,
    writer: &impl ConnectionTrait,
    keys: &KeyCache,
    now: i64,
    credentials: &Credentials,
) -> CoreResult<Principal> {
    let key = credentials.key()?;
    let invalid = || CoreError::new(ErrorCode::InvalidApiKey, "The API key is invalid, expired or revoked.");
    if api_keys::mode_of_secret(key).is_none() {
        return Err(invalid());
    }
    let hash = api_keys::hash(key);
    let known = match keys.get(&hash) {
        Some(known) => known,
        None => {
            let ticket = keys.ticket();
            let (key, workspace) = api_keys::find_by_hash(db, &hash).await?.ok_or_else(invalid)?;
            let known = std::sync::Arc::new(KnownKey::new(key, workspace));
            keys.put(ticket, hash, known.clone());
            known
        }
    };
    if !known.key.is_usable_at(now) {
        return Err(invalid());
    }
    require_api_access(&known.workspace)?;
    if known.claim_use_record(now) {
        // Best effort: a key's last use is for people reviewing keys; a
        // failed write must not fail the request it describes.
        if let Err(error) = api_keys::record_use(writer, &known.key.id, now).await {
            tracing::warn!(%error, key = %known.key.id, "last use of an API key not recorded");
        }
    }
    Ok(Principal {
        workspace: known.workspace.clone(),
        mode: known.key.mode,
        permissions: known.key.permissions.clone(),
        audited_as: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(api_key: Option<&str>, authorization: Option<&str>) -> Credentials {
        Credentials {
            api_key: api_key.map(str::to_owned),
            authorization: authorization.map(str::to_owned),
        }
    }

    #[test]
    fn x_api_key_wins_over_bearer() {
        let c = creds(Some("mm_test_a"), Some("Bearer mm_test_b"));
        assert_eq!(c.key().ok(), Some("mm_test_a"));
        let c = creds(None, Some("bearer mm_test_b"));
        assert_eq!(c.key().ok(), Some("mm_test_b"));
    }

    #[test]
    fn missing_and_malformed_headers() {
        assert_eq!(
            creds(None, None).key().map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingApiKey)
        );
        assert_eq!(
            creds(Some(" "), None).key().map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingApiKey)
        );
        assert_eq!(
            creds(None, Some("Basic abc")).key().map_err(|e| e.code()).err(),
            Some(ErrorCode::InvalidApiKey)
        );
    }
}
