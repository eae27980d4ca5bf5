//! Checked keys kept in memory, so that a request's key check costs no
//! database read.
//!
//! On SQLite one serving core process sees every change to keys and
//! workspaces (`db::ServeLock`; the admin commands send revocations to that
//! process), so what it keeps is exact. PostgreSQL replicas keep keys as
//! `cache_feed` allows: while announcements of other replicas' changes
//! arrive, and for one second at most.
//!
//! Expiry needs no invalidation: it is checked against the clock on every
//! use. Changes to a key or its workspace (revocation, plan) empty the cache
//! once they are committed. A lookup that read the database before such a
//! change cannot put its stale answer back afterwards: it may store only
//! while the cache's generation is still the one it saw before its read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::api_keys::model::{ApiKey, USE_RECORDED_EVERY_MICROS};
use crate::workspaces::model::Workspace;
use courier_store::cache_feed::Freshness;
use courier_store::metrics::CacheCounters;

/// Keys kept at most; a full cache starts over empty.
const CAPACITY: usize = 10_000;

/// A stored key and its workspace, as the key check read them.
#[derive(Debug)]
pub struct KnownKey {
    pub key: ApiKey,
    pub workspace: Workspace,
    /// The key's last use this process wrote down (0: none), so that a
    /// cached key's use is written at most once a minute.
    last_use_written: AtomicI64,
}

impl KnownKey {
    pub fn new(key: ApiKey, workspace: Workspace) -> KnownKey {
        KnownKey {
            last_use_written: AtomicI64::new(key.last_used_at.unwrap_or(0)),
            key,
            workspace,
        }
    }

    /// Whether the use at `now` is to be written down: true at most once
    /// per [`USE_RECORDED_EVERY_MICROS`], for one caller.
    pub fn claim_use_record(&self, now: i64) -> bool {
        let last = self.last_use_written.load(Ordering::Relaxed);
        now - last >= USE_RECORDED_EVERY_MICROS
            && self
                .last_use_written
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// Known keys by the SHA-256 of their secret (the secrets themselves are
/// never kept).
#[derive(Debug)]
pub struct KeyCache {
    freshness: Freshness,
    counters: CacheCounters,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    generation: u64,
    /// Each key with when it was stored.
    keys: HashMap<String, (Arc<KnownKey>, Instant)>,
}

/// The cache's generation when a lookup started; see [`KeyCache::put`].
#[derive(Clone, Copy, Debug)]
pub struct Ticket(u64);

impl KeyCache {
    /// A cache that keeps keys as `freshness` allows.
    pub fn new(freshness: Freshness, counters: CacheCounters) -> KeyCache {
        KeyCache {
            freshness,
            counters,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state stays consistent whatever a panicking holder did: every
        // change is a single insert, clear or increment.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn get(&self, hash: &str) -> Option<Arc<KnownKey>> {
        let freshness = &self.freshness;
        let found = self
            .state()
            .keys
            .get(hash)
            .filter(|(_, stored)| freshness.serves(*stored))
            .map(|(known, _)| known.clone());
        self.counters.lookup(found.is_some());
        found
    }

    /// Take before reading the database for a key that [`KeyCache::get`]
    /// did not have.
    pub fn ticket(&self) -> Ticket {
        Ticket(self.state().generation)
    }

    /// Keeps `known` under `hash`, unless the cache was emptied since
    /// `ticket` was taken (what was read may predate that change).
    pub fn put(&self, ticket: Ticket, hash: String, known: Arc<KnownKey>) {
        if !self.freshness.usable() {
            return;
        }
        let mut state = self.state();
        if state.generation != ticket.0 {
            return;
        }
        if state.keys.len() >= CAPACITY {
            state.keys.clear();
        }
        state.keys.insert(hash, (known, Instant::now()));
    }

    /// Forgets every key: call once a change to a key or a workspace is
    /// committed, before answering it (and announce it to the other
    /// replicas, `cache_feed::announce`).
    pub fn forget_all(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.keys.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::Mode;
    use crate::workspaces::{BillingSettings, Plan, WorkspaceKind};

    fn known(id: &str) -> Arc<KnownKey> {
        Arc::new(KnownKey::new(
            ApiKey {
                id: id.into(),
                workspace_id: "wks_1".into(),
                mode: Mode::Test,
                label: "l".into(),
                permissions: Vec::new(),
                prefix: "mm_test_abcd".into(),
                created_at: 0,
                expires_at: None,
                revoked_at: None,
                last_used_at: None,
            },
            Workspace {
                id: "wks_1".into(),
                name: "w".into(),
                kind: WorkspaceKind::Business,
                plan: Plan::default(),
                billing: BillingSettings::default(),
                statement_overdue: false,
                open_amount_cents: 0,
                created_at: 0,
            },
        ))
    }

    #[test]
    fn a_keys_use_is_written_at_most_once_a_minute() {
        let key = known("key_1");
        assert!(key.claim_use_record(USE_RECORDED_EVERY_MICROS));
        assert!(
            !key.claim_use_record(USE_RECORDED_EVERY_MICROS + 1),
            "written a moment ago"
        );
        assert!(key.claim_use_record(2 * USE_RECORDED_EVERY_MICROS));
    }

    #[test]
    fn a_lookup_older_than_a_change_is_not_kept() {
        let cache = KeyCache::new(Freshness::Exact, CacheCounters::default());
        let before_change = cache.ticket();
        cache.forget_all();
        cache.put(before_change, "h".into(), known("key_1"));
        assert!(cache.get("h").is_none());

        cache.put(cache.ticket(), "h".into(), known("key_1"));
        assert_eq!(cache.get("h").map(|k| k.key.id.clone()), Some("key_1".into()));
        cache.forget_all();
        assert!(cache.get("h").is_none());
    }

    #[test]
    fn a_replica_without_announcements_keeps_nothing() {
        let feed = Arc::new(courier_store::cache_feed::Feed::default());
        let cache = KeyCache::new(Freshness::Announced(feed), CacheCounters::default());
        cache.put(cache.ticket(), "h".into(), known("key_1"));
        assert!(cache.get("h").is_none());
    }

    #[test]
    fn a_full_cache_starts_over() {
        let cache = KeyCache::new(Freshness::Exact, CacheCounters::default());
        for n in 0..CAPACITY {
            cache.put(cache.ticket(), format!("h{n}"), known("key_1"));
        }
        cache.put(cache.ticket(), "last".into(), known("key_2"));
        assert!(cache.get("h0").is_none());
        assert!(cache.get("last").is_some());
    }
}
