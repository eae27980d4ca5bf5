//! The courier core: owns the database, every domain rule and the background
//! workers, and serves them over gRPC (`courier.v1` to the edge and mobile
//! teams, `courier.internal.v1` to dispatch, billing and the back office).
//!
//! Domain modules (`workspaces`, `auth`, `quotes`, …) know nothing of gRPC;
//! `grpc` decodes requests, calls them and encodes answers.

pub mod access;
pub mod accounts;
pub mod assignments;
pub mod audit;
pub mod auth;
pub mod auto_dispatch;
pub mod billing;
pub mod blobs;
pub mod cache_feed;
pub mod clock;
pub mod command_line;
pub mod config;
pub mod couriers;
pub mod day_partitions;
pub mod db;
pub mod deliveries;
pub mod demo;
pub mod dispatch;
pub mod dispatch_map;
pub mod error;
pub mod events;
pub mod fleet;
pub mod grpc;
pub mod idempotency;
pub mod identity;
pub mod ids;
pub mod jobs;
pub mod lifecycle;
pub mod metrics;
pub mod pagination;
pub mod positions;
pub mod proofs;
pub mod public_tracking;
pub mod quotes;
pub mod secrets;
pub mod server;
pub mod shared_reads;
pub mod simulator;
pub mod statuses;
pub mod testing;
pub mod tracking;
pub mod validate;
pub mod webhooks;
pub mod workers;
pub mod workspaces;

use std::sync::Arc;

use sea_orm::DatabaseConnection;

pub use error::{CoreError, CoreResult};

/// Everything a request or worker of the core needs, cheap to clone.
#[derive(Clone)]
pub struct Core {
    /// The read pool; it cannot write (`db::Reader`).
    pub db: db::Reader,
    pub clock: clock::Clock,
    pub secrets: secrets::Secrets,
    pub catalog: Arc<quotes::catalog::Catalog>,
    pub router: Arc<dyn quotes::routing::RoutingProvider>,
    pub config: Arc<config::CoreConfig>,
    pub faults: Arc<Faults>,
    /// Where proof-of-delivery files are kept (local directory or S3).
    pub blobs: Arc<dyn blobs::BlobStore>,
    /// Tells watchers in this process that a delivery changed.
    pub changes: Changes,
    /// Webhook HTTP clients, reused per pinned address.
    pub webhook_clients: Arc<webhooks::target::PinnedClients>,
    /// Prometheus series of this process (behind one `Arc`: the core is
    /// cloned for every request, and the series are many).
    pub metrics: Arc<metrics::CoreMetrics>,
    /// The write pool: write transactions (`db::begin`) and
    /// single-statement writes (`db::Pools::writer`).
    pub writer: DatabaseConnection,
    /// Checked API keys (see `auth::cache`).
    pub keys: Arc<auth::cache::KeyCache>,
    /// Delivery creates waiting for their shared transaction.
    pub create_queue: Arc<deliveries::batch::Queue>,
    /// Deliveries as last read (see `deliveries::cache`).
    pub delivery_cache: Arc<deliveries::cache::DeliveryCache>,
    /// Events as recorded (see `events::cache`).
    pub event_cache: Arc<events::cache::EventCache>,
    /// Whether other replicas' changes reach the caches (`cache_feed`).
    pub cache_feed: Arc<cache_feed::Feed>,
    /// Whether this replica hears every change now (`cache_feed`): what its
    /// caches may serve, and whether its streams may wait to be woken.
    pub freshness: cache_feed::Freshness,
    /// List pages' positions being read, shared by identical requests.
    pub page_reads: Arc<shared_reads::SharedReads<pagination::Positions>>,
    /// Dispatch maps being read, shared by the watchers of one map.
    pub map_reads: Arc<shared_reads::SharedReads<Arc<dispatch_map::Map>>>,
    /// Couriers' positions taken in and not yet written (`positions`).
    pub positions: Arc<positions::Intake>,
    /// Wakes this process's watchers of a courier's feed.
    pub courier_signals: Arc<assignments::feed::Signals>,
    /// Wakes this process's dispatcher for a round now.
    pub dispatch_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's webhook dispatcher: a commit queued sends.
    pub webhook_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's watchers of the dispatch map: a courier's
    /// position, availability or work changed (`dispatch_map`).
    pub map_wake: MapWake,
    /// Cancelled when this core begins to stop: its streams (assignments,
    /// the dispatch map, a delivery, events) end at once, so that their
    /// clients reconnect to another replica and the calls in flight, not
    /// the streams, are what a graceful stop waits for.
    pub stopping: tokio_util::sync::CancellationToken,
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

/// Failures tests inject to prove crash safety (never set in production).
#[derive(Debug, Default)]
pub struct Faults {
    /// The next idempotent create fails after its transaction committed, as
    /// if the core died before answering.
    pub fail_after_commit: std::sync::atomic::AtomicBool,
    /// The next statement close fails once its statements are written,
    /// before its commit, as if the core died there.
    pub fail_before_commit: std::sync::atomic::AtomicBool,
    /// The next audit entry is not written: its write fails.
    pub fail_audit_write: std::sync::atomic::AtomicBool,
}

impl Faults {
    /// Call once an idempotent create's transaction committed, per create:
    /// the injected failure, if one is set (it fires once).
    pub fn after_commit(&self) -> CoreResult<()> {
        if self.fail_after_commit.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Err(CoreError::Internal("injected fault after commit".into()));
        }
        Ok(())
    }

    /// Call just before a statement close commits: the injected failure,
    /// if one is set (it fires once).
    pub fn before_commit(&self) -> CoreResult<()> {
        if self.fail_before_commit.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Err(CoreError::Internal("injected fault before commit".into()));
        }
        Ok(())
    }

    /// Call as an audit entry is written: the injected failure, if one is
    /// set (it fires once).
    pub fn audit_write(&self) -> CoreResult<()> {
        if self.fail_audit_write.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Err(CoreError::Internal(
                "injected fault: the audit entry was not written".into(),
            ));
        }
        Ok(())
    }
}

impl Core {
    /// Connects to the database, runs pending migrations and loads the
    /// catalogue and secrets.
    pub async fn start(config: config::CoreConfig, clock: clock::Clock) -> CoreResult<Core> {
        let db::Pools { reader: db, writer } = db::open(&config.database_url, config.database_max_connections).await?;
        let secrets = secrets::Secrets::load(&writer, config.secret_key.as_deref()).await?;
        let catalog = quotes::catalog::Catalog::load(config.catalog_file.as_deref())
            .map_err(|e| CoreError::Internal(format!("catalogue: {e}")))?;
        let blobs = blobs::from_config(&config)?;
        // On SQLite one process serves the database (`db::ServeLock`) and
        // sees every change: what it keeps is exact. PostgreSQL replicas
        // keep what other replicas' announcements allow (`cache_feed`).
        let cache_feed = Arc::new(cache_feed::Feed::default());
        let freshness = if writer.get_database_backend() == sea_orm::DbBackend::Sqlite {
            cache_feed::Freshness::Exact
        } else {
            cache_feed::Freshness::Announced(cache_feed.clone())
        };
        let metrics = metrics::CoreMetrics::default();
        let router = quotes::router_from_config(&config, &metrics)?;
        Ok(Core {
            writer,
            create_queue: Arc::default(),
            keys: Arc::new(auth::cache::KeyCache::new(
                freshness.clone(),
                metrics.cache_counters("keys"),
            )),
            delivery_cache: Arc::new(deliveries::cache::DeliveryCache::new(
                freshness.clone(),
                metrics.cache_counters("deliveries"),
            )),
            freshness,
            event_cache: Arc::new(events::cache::EventCache::new(metrics.cache_counters("events"))),
            cache_feed,
            page_reads: Arc::new(shared_reads::SharedReads::new(metrics.list_page_reads())),
            map_reads: Arc::new(shared_reads::SharedReads::new(metrics.dispatch_map_reads())),
            positions: Arc::default(),
            courier_signals: Arc::default(),
            dispatch_wake: Arc::default(),
            webhook_wake: Arc::default(),
            map_wake: MapWake::default(),
            stopping: tokio_util::sync::CancellationToken::new(),
            db,
            clock,
            secrets,
            catalog: Arc::new(catalog),
            router,
            config: Arc::new(config),
            faults: Arc::default(),
            blobs,
            changes: Changes::new(),
            webhook_clients: Arc::default(),
            metrics: Arc::new(metrics),
        })
    }
}
