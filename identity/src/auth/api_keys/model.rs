//! What a stored API key is, with no rule that reads or writes it: the key
//! cache (`auth::cache`) holds these, below the module's rules.

use crate::access::Permission;
use crate::modes::Mode;

/// A key's use is written down at most this often (per key and replica), so
/// that requests do not each write.
pub const USE_RECORDED_EVERY_MICROS: i64 = 60_000_000;

/// A stored key, without its secret.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiKey {
    pub id: String,
    pub workspace_id: String,
    pub mode: Mode,
    pub label: String,
    pub permissions: Vec<Permission>,
    pub prefix: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// The last use on the API, to [`USE_RECORDED_EVERY_MICROS`].
    pub last_used_at: Option<i64>,
}

impl ApiKey {
    pub fn is_usable_at(&self, now: i64) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }
}
