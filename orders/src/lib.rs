//! Orders: what businesses and fleets book and what becomes of it, with
//! the tables they own (ARCHITECTURE.md, "Crates"): quotes, deliveries,
//! their lifecycle and proof, fleet orders, idempotency, events, webhooks,
//! billing, and who holds or is offered each job (`assignments`), over
//! `courier-identity`. The fleet's rules (`courier-core`: couriers,
//! positions, dispatch) sit above and call these.

pub mod assignments;
pub mod billing;
pub mod deliveries;
pub mod edits;
pub mod events;
pub mod fleet;
pub mod idempotency;
pub mod lifecycle;
pub mod notifications;
pub mod pay;
pub mod proofs;
pub mod quotes;
pub mod reports;
pub mod returns;
pub mod routes;
pub mod simulator;
pub mod statuses;
pub mod testing;
pub mod tips;
pub mod validate;
pub mod webhooks;
pub mod windows;
pub mod wire;

use std::sync::Arc;

use courier_identity::Identity;
pub use courier_store::{CoreError, CoreResult, Store};

/// What the rules of orders need, cheap to clone: who is who beneath
/// (`Identity`, which it derefs to, and through it the `Store`) and the
/// state of these rules in this process. The core's `Core` holds one and
/// derefs to it, so a function here takes `&Orders` and the core passes
/// `&core`.
#[derive(Clone)]
pub struct Orders {
    pub identity: Identity,
    pub catalog: Arc<courier_pricing::catalog::Catalog>,
    pub router: Arc<dyn courier_pricing::routing::RoutingProvider>,
    /// Tells watchers in this process that a delivery changed.
    pub changes: Changes,
    /// Webhook HTTP clients, reused per pinned address.
    pub webhook_clients: Arc<webhooks::target::PinnedClients>,
    /// Delivery creates waiting for their shared transaction.
    pub create_queue: Arc<deliveries::queue::Queue>,
    /// Deliveries as last read (see `deliveries::cache`).
    pub delivery_cache: Arc<deliveries::cache::DeliveryCache>,
    /// Events as recorded (see `events::cache`).
    pub event_cache: Arc<events::cache::EventCache>,
    /// Wakes this process's watchers of a courier's feed.
    pub courier_signals: Arc<assignments::signals::Signals>,
    /// Wakes this process's dispatcher for a round now.
    pub dispatch_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's webhook dispatcher: a commit queued sends.
    pub webhook_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's notification sender: a commit queued messages.
    pub notification_wake: Arc<tokio::sync::Notify>,
    /// The SMS and email providers (`notifications::providers`).
    pub notification_providers: Arc<notifications::providers::Providers>,
    /// Wakes this process's watchers of the dispatch map: a courier's
    /// position, availability or work changed (`courier_core::dispatch_map`).
    pub map_wake: MapWake,
    /// How the transport writes answers, event snapshots and webhook
    /// bodies for the domain to keep (`wire`).
    pub wire: Arc<dyn wire::Wire>,
}

impl std::ops::Deref for Orders {
    type Target = Identity;

    fn deref(&self) -> &Identity {
        &self.identity
    }
}

impl Orders {
    /// The rules of orders over `identity`: loads the catalogue and the
    /// router its settings name; `wire` writes what the domain keeps of
    /// answers and events.
    pub fn new(identity: Identity, wire: Arc<dyn wire::Wire>) -> CoreResult<Orders> {
        let catalog = courier_pricing::catalog::Catalog::load(identity.config.catalog_file.as_deref())
            .map_err(|e| CoreError::Internal(format!("catalogue: {e}")))?;
        let router = courier_pricing::router_from_config(&identity.config, &identity.metrics)?;
        let metrics = &identity.metrics;
        let notification_providers = notifications::providers::Providers::from_config(
            &identity.config.notifications,
            &identity.config.public_base_url,
        )?;
        Ok(Orders {
            create_queue: Arc::default(),
            delivery_cache: Arc::new(deliveries::cache::DeliveryCache::new(
                identity.freshness.clone(),
                metrics.cache_counters("deliveries"),
            )),
            event_cache: Arc::new(events::cache::EventCache::new(metrics.cache_counters("events"))),
            courier_signals: Arc::default(),
            dispatch_wake: Arc::default(),
            webhook_wake: Arc::default(),
            notification_wake: Arc::default(),
            notification_providers: Arc::new(notification_providers),
            map_wake: MapWake::default(),
            catalog: Arc::new(catalog),
            router,
            changes: Changes::new(),
            webhook_clients: Arc::default(),
            wire,
            identity,
        })
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
