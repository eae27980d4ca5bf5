//! The courier core's domain: every rule and the tables it owns, over the
//! store (`courier_store`). `courier-server` serves it over gRPC
//! (`courier.v1` to the edge and mobile teams, `courier.internal.v1` to
//! dispatch, billing and the back office) and runs its workers.
//!
//! Domain modules (`workspaces`, `auth`, `quotes`, …) decide; the server
//! decodes requests, asks them and encodes their answers.

pub mod access;
pub mod accounts;
pub mod assignments;
pub mod audit;
pub mod auth;
pub mod auto_dispatch;
pub mod billing;
pub mod couriers;
pub mod deliveries;
pub mod demo;
pub mod dispatch;
pub mod dispatch_map;
pub mod events;
pub mod fleet;
pub mod idempotency;
pub mod identity;
pub mod jobs;
pub mod lifecycle;
pub mod modes;
pub mod positions;
pub mod proofs;
pub mod public_tracking;
pub mod quotes;
pub mod simulator;
pub mod statuses;
pub mod testing;
pub mod tracking;
pub mod validate;
pub mod webhooks;
pub mod wire;
pub mod workspaces;

use std::sync::Arc;

pub use courier_store::{CoreError, CoreResult, Store};

/// Everything a request or worker of the core needs, cheap to clone: the
/// storage beneath (`Store`, which it derefs to) and the state of the
/// rules above it.
#[derive(Clone)]
pub struct Core {
    pub store: Store,
    pub catalog: Arc<courier_pricing::catalog::Catalog>,
    pub router: Arc<dyn courier_pricing::routing::RoutingProvider>,
    /// Tells watchers in this process that a delivery changed.
    pub changes: Changes,
    /// Webhook HTTP clients, reused per pinned address.
    pub webhook_clients: Arc<webhooks::target::PinnedClients>,
    /// Checked API keys (see `auth::cache`).
    pub keys: Arc<auth::cache::KeyCache>,
    /// Delivery creates waiting for their shared transaction.
    pub create_queue: Arc<deliveries::queue::Queue>,
    /// Deliveries as last read (see `deliveries::cache`).
    pub delivery_cache: Arc<deliveries::cache::DeliveryCache>,
    /// Events as recorded (see `events::cache`).
    pub event_cache: Arc<events::cache::EventCache>,
    /// Dispatch maps being read, shared by the watchers of one map.
    pub map_reads: Arc<courier_store::shared_reads::SharedReads<Arc<dispatch_map::model::Map>>>,
    /// Couriers' positions taken in and not yet written (`positions`).
    pub positions: Arc<positions::intake::Intake>,
    /// Wakes this process's watchers of a courier's feed.
    pub courier_signals: Arc<assignments::signals::Signals>,
    /// Wakes this process's dispatcher for a round now.
    pub dispatch_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's webhook dispatcher: a commit queued sends.
    pub webhook_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's watchers of the dispatch map: a courier's
    /// position, availability or work changed (`dispatch_map`).
    pub map_wake: MapWake,
    /// How the transport writes answers, event snapshots and webhook
    /// bodies for the domain to keep (`wire`).
    pub wire: Arc<dyn wire::Wire>,
}

impl std::ops::Deref for Core {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

/// Wakes this process's watchers of the dispatch map (`dispatch_map`).
#[derive(Clone, Debug, Default)]
pub struct MapWake(Arc<tokio::sync::watch::Sender<()>>);

impl MapWake {
    /// A courier's position, availability or work changed. Nothing to do
    /// while nobody watches: positions arrive by the thousand a second.
    pub fn wake(&self) {
        if self.0.receiver_count() > 0 {
            self.0.send_replace(());
        }
    }

    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<()> {
        self.0.subscribe()
    }
}

/// A feed of changed delivery ids for `WatchDelivery`. Watchers also poll, so
/// changes made by other replicas reach them too.
#[derive(Clone, Debug)]
pub struct Changes(tokio::sync::broadcast::Sender<String>);

impl Changes {
    fn new() -> Changes {
        Changes(tokio::sync::broadcast::channel(1024).0)
    }

    /// Announces that delivery `id` changed (call after the commit).
    pub fn publish(&self, id: &str) {
        // No receiver is not an error: nobody is watching.
        let _ = self.0.send(id.to_owned());
    }

    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.0.subscribe()
    }
}

impl Core {
    /// Opens the store (the database, migrated; secrets; the blob store) and
    /// loads the catalogue and the router; `wire` writes what the domain
    /// keeps of answers and events.
    pub async fn start(
        config: courier_store::config::CoreConfig,
        clock: courier_store::clock::Clock,
        wire: Arc<dyn wire::Wire>,
    ) -> CoreResult<Core> {
        let store = Store::open(config, clock).await?;
        let catalog = courier_pricing::catalog::Catalog::load(store.config.catalog_file.as_deref())
            .map_err(|e| CoreError::Internal(format!("catalogue: {e}")))?;
        let router = courier_pricing::router_from_config(&store.config, &store.metrics)?;
        let metrics = &store.metrics;
        Ok(Core {
            create_queue: Arc::default(),
            keys: Arc::new(auth::cache::KeyCache::new(
                store.freshness.clone(),
                metrics.cache_counters("keys"),
            )),
            delivery_cache: Arc::new(deliveries::cache::DeliveryCache::new(
                store.freshness.clone(),
                metrics.cache_counters("deliveries"),
            )),
            event_cache: Arc::new(events::cache::EventCache::new(metrics.cache_counters("events"))),
            map_reads: Arc::new(courier_store::shared_reads::SharedReads::new(
                metrics.dispatch_map_reads(),
            )),
            positions: Arc::default(),
            courier_signals: Arc::default(),
            dispatch_wake: Arc::default(),
            webhook_wake: Arc::default(),
            map_wake: MapWake::default(),
            catalog: Arc::new(catalog),
            router,
            changes: Changes::new(),
            webhook_clients: Arc::default(),
            wire,
            store,
        })
    }
}

/// What this replica does with another replica's announced change
/// (`courier_store::cache_feed::listen`): evict it from the caches and wake
/// the streams and workers that wait for it.
impl courier_store::cache_feed::Listener for Core {
    fn connected(&self) {
        self.keys.forget_all();
        self.delivery_cache.forget_all();
        // Couriers' streams check what they may have missed (a suspension,
        // a sign-out on another replica).
        self.courier_signals.wake_all();
    }

    fn changed(&self, change: courier_store::cache_feed::Change) {
        use courier_store::cache_feed::Change;
        match change {
            Change::Keys => self.keys.forget_all(),
            Change::Delivery { id, .. } => {
                // Evicted first: the streams woken read it anew.
                self.delivery_cache.forget(&id);
                self.changes.publish(&id);
                // It may have queued webhooks for this replica's dispatcher
                // to send.
                self.webhook_wake.notify_one();
            }
            Change::Couriers { ids, .. } => {
                for id in ids {
                    self.courier_signals.wake(&id);
                }
                self.map_wake.wake();
            }
        }
    }
}
