//! Who is who and who may do what, below every rule that acts for a caller
//! (ARCHITECTURE.md, "Crates"): workspaces, console users and their
//! memberships, API keys, the sessions, invitations, passwords and sign-in
//! throttle that console users and couriers share, the access rules and
//! their grants, and the audit log. `courier-core`'s rules take the grants
//! and callers this crate answers; its couriers are a [`subjects::Subject`]
//! like console users.

pub mod access;
pub mod accounts;
pub mod audit;
pub mod auth;
pub mod invitations;
pub mod modes;
pub mod passwords;
pub mod sessions;
pub mod sign_ins;
pub mod subjects;
pub mod testing;
pub mod text;
pub mod workspaces;

use std::sync::Arc;

pub use courier_store::{CoreError, CoreResult, Store};

/// What identity's rules need, cheap to clone: the storage beneath
/// (`Store`, which it derefs to) and the checked API keys of this process
/// (`auth::cache`). `courier_orders::Orders` holds one and derefs to it
/// (and the core's `Core` to that), so a function here takes `&Identity`
/// and the core passes `&core`.
#[derive(Clone)]
pub struct Identity {
    pub store: Store,
    /// Checked API keys (see `auth::cache`).
    pub keys: Arc<auth::cache::KeyCache>,
}

impl Identity {
    pub fn new(store: Store) -> Identity {
        let keys = auth::cache::KeyCache::new(store.freshness.clone(), store.metrics.cache_counters("keys"));
        Identity {
            keys: Arc::new(keys),
            store,
        }
    }
}

impl std::ops::Deref for Identity {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}
