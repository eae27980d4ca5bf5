//! Storage and infrastructure beneath every rule of the core: the database
//! (the two pools, transactions, migrations, the SQLite serve lock), ids,
//! the clock, secrets, settings, metrics, the blob store, keyset pages,
//! shared reads, the history tables' day partitions, the announcements
//! that keep replicas' caches honest, and the one loop every background
//! worker runs on (`runner`). It knows no domain: the crates above
//! it (`courier-core`) hold the rules and extend [`Store`] with their own
//! state.

pub mod blobs;
pub mod cache_feed;
pub mod clock;
pub mod config;
pub mod day_partitions;
pub mod db;
pub mod error;
pub mod ids;
pub mod kept_outcomes;
pub mod metrics;
pub mod pagination;
pub mod runner;
pub mod secrets;
pub mod shared_reads;
pub mod testing;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sea_orm::DatabaseConnection;
use tokio_util::sync::CancellationToken;

pub use error::{CoreError, CoreResult};

/// The storage and infrastructure a request or worker needs, cheap to
/// clone; the core's handle derefs to it.
#[derive(Clone)]
pub struct Store {
    /// The read pool; it cannot write (`db::Reader`).
    pub db: db::Reader,
    /// The write pool: write transactions (`db::begin`) and
    /// single-statement writes (`db::Pools::writer`).
    pub writer: DatabaseConnection,
    pub clock: clock::Clock,
    pub secrets: secrets::Secrets,
    pub config: Arc<config::CoreConfig>,
    /// Prometheus series of this process (behind one `Arc`: the handle is
    /// cloned for every request, and the series are many).
    pub metrics: Arc<metrics::CoreMetrics>,
    /// Where proof-of-delivery files are kept (local directory or S3).
    pub blobs: Arc<dyn blobs::BlobStore>,
    /// Whether other replicas' changes reach the caches (`cache_feed`).
    pub cache_feed: Arc<cache_feed::Feed>,
    /// Whether this replica hears every change now (`cache_feed`): what its
    /// caches may serve, and whether its streams may wait to be woken.
    pub freshness: cache_feed::Freshness,
    /// What keyset pages are read with (`pagination::Keyset::page`).
    pub pages: pagination::Pages,
    pub faults: Arc<Faults>,
    /// Cancelled when this process begins to stop: its streams end at once,
    /// so that their clients reconnect to another replica and the calls in
    /// flight, not the streams, are what a graceful stop waits for.
    pub stopping: CancellationToken,
}

impl Store {
    /// Puts this process's series and its database pools on `registry`
    /// (the operations listener's `GET /metrics`).
    pub fn register_metrics(&self, registry: &mut prometheus_client::registry::Registry) {
        self.metrics.register(registry);
        registry.register_collector(Box::new(db::PoolGauges {
            read: self.db.clone(),
            write: self.writer.clone(),
        }));
    }

    /// Starts a write transaction (`db::begin`).
    pub async fn begin(&self) -> CoreResult<db::WriteTransaction> {
        db::begin(&self.writer, self.cache_feed.origin()).await
    }

    /// Starts a write transaction for bookkeeping (`db::begin_bookkeeping`).
    pub async fn begin_bookkeeping(&self) -> CoreResult<db::WriteTransaction> {
        db::begin_bookkeeping(&self.writer, self.cache_feed.origin()).await
    }

    /// Connects to the database, runs pending migrations, and loads the
    /// secrets and the blob store.
    pub async fn open(config: config::CoreConfig, clock: clock::Clock) -> CoreResult<Store> {
        let db::Pools { reader: db, writer } = db::open(&config.database_url, config.database_max_connections).await?;
        let secrets = secrets::Secrets::load(&writer, config.secret_key.as_deref()).await?;
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
        Ok(Store {
            pages: pagination::Pages {
                db: db.clone(),
                token_key: secrets.page_token.as_slice().into(),
                reads: Arc::new(shared_reads::SharedReads::new(metrics.list_page_reads())),
            },
            db,
            writer,
            clock,
            secrets,
            config: Arc::new(config),
            metrics: Arc::new(metrics),
            blobs,
            cache_feed,
            freshness,
            faults: Arc::default(),
            stopping: CancellationToken::new(),
        })
    }
}

/// Failures tests inject to prove crash safety (never set in production).
#[derive(Debug, Default)]
pub struct Faults {
    /// The next idempotent create fails after its transaction committed, as
    /// if the core died before answering.
    pub fail_after_commit: AtomicBool,
    /// The next statement close fails once its statements are written,
    /// before its commit, as if the core died there.
    pub fail_before_commit: AtomicBool,
    /// The next audit entry is not written: its write fails.
    pub fail_audit_write: AtomicBool,
}

impl Faults {
    /// Call once an idempotent create's transaction committed, per create:
    /// the injected failure, if one is set (it fires once).
    pub fn after_commit(&self) -> CoreResult<()> {
        if self.fail_after_commit.swap(false, Ordering::SeqCst) {
            return Err(CoreError::Internal("injected fault after commit".into()));
        }
        Ok(())
    }

    /// Call just before a statement close commits: the injected failure,
    /// if one is set (it fires once).
    pub fn before_commit(&self) -> CoreResult<()> {
        if self.fail_before_commit.swap(false, Ordering::SeqCst) {
            return Err(CoreError::Internal("injected fault before commit".into()));
        }
        Ok(())
    }

    /// Call as an audit entry is written: the injected failure, if one is
    /// set (it fires once).
    pub fn audit_write(&self) -> CoreResult<()> {
        if self.fail_audit_write.swap(false, Ordering::SeqCst) {
            return Err(CoreError::Internal(
                "injected fault: the audit entry was not written".into(),
            ));
        }
        Ok(())
    }
}
