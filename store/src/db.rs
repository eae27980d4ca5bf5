//! Database connection and migrations, for SQLite and PostgreSQL.

use std::net::IpAddr;
use std::time::Duration;

use courier_migrations::{Migrator, MigratorTrait};
use sea_orm::prelude::async_trait::async_trait;
use sea_orm::sea_query::ArrayType;
use sea_orm::sqlx::postgres::{PgConnectOptions, PgSslMode};
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ColumnType, ConnectOptions, ConnectionTrait, Database, DatabaseConnection,
    DatabaseTransaction, DbBackend, DbErr, EntityTrait, ExecResult, IdenStatic, Iterable, QueryResult,
    SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait,
};
use tokio_util::sync::CancellationToken;

use crate::runner::{Done, Runner};
use crate::{CoreError, CoreResult};

/// How long a PostgreSQL connection may sit in the pool before it is
/// pinged on checkout.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

/// WAL pages (4 KiB) after which a committing SQLite writer copies the WAL
/// back into the database file itself: the safety net for when the
/// background checkpointer ([`checkpoint_wal`]) falls behind or does not run
/// (the admin commands). SQLite's default is 1,000.
const AUTOCHECKPOINT_PAGES: u32 = 16_384;

/// How often the background checkpointer runs.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// How long a SQLite writer waits for its turn, and then for the write lock,
/// before the write fails as the database being unavailable.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Statements each pooled connection keeps prepared (sqlx's default).
const POOL_STATEMENTS: usize = 100;

/// Statements a SQLite writer keeps prepared: the batch inserts of every
/// size (`deliveries::batch`) besides the other writes.
const WRITER_STATEMENTS: usize = 512;

/// Opens a pool. For SQLite the file's directory is created, and every
/// pooled connection gets WAL journaling and `synchronous=NORMAL` (both are
/// per connection; durable at each checkpoint, safe against corruption)
/// and waits up to [`BUSY_TIMEOUT`] for another writer instead of failing.
/// `max_connections` defaults per backend (see `CoreConfig`).
///
/// A pooled connection is not pinged on every checkout (one more round trip
/// per statement outside a transaction): never on SQLite, whose connection
/// is a file; on PostgreSQL only after it sat idle for [`PING_AFTER_IDLE`],
/// when a server restart or a proxy may have dropped it. Nor is it pinged
/// when it goes back with nothing left to send (the note on
/// `vendor/sqlx-core` in `Cargo.toml`).
pub async fn connect(url: &str, max_connections: Option<u32>) -> CoreResult<DatabaseConnection> {
    let max_connections = prepare(url, max_connections)?;
    Ok(Database::connect(options(
        url,
        max_connections,
        POOL_STATEMENTS,
        Duration::from_secs(10),
        false,
    ))
    .await?)
}

/// The connections `url` may hold (`max_connections`, or the backend's
/// default), once a SQLite file's directory exists.
fn prepare(url: &str, max_connections: Option<u32>) -> CoreResult<u32> {
    let is_sqlite = url.starts_with("sqlite:");
    if is_sqlite {
        create_sqlite_dir(url)?;
    }
    Ok(max_connections.unwrap_or(if is_sqlite { 8 } else { 32 }))
}

/// How the read pool's PostgreSQL sessions plan their prepared statements:
/// once, generically. Every read is an index lookup by key or a keyset page
/// whose generic plan is the index scan; under PostgreSQL's default
/// (`auto`) a page with `LIMIT $n` is estimated cheaper with its values in,
/// so it was planned again on every execution, which cost more than
/// running it (docs/scaling.md, "List pages").
const READ_PLAN_CACHE_MODE: &str = "force_generic_plan";

/// How every PostgreSQL session of the core plans: by an index wherever
/// one serves, and without just-in-time compilation. A plan a session
/// keeps (every read's, see [`READ_PLAN_CACHE_MODE`]; a write's generic
/// plan, which the default takes after five runs) must fit the table as
/// it grows, not as it was when planned: on a fresh database the tables
/// are empty, where a scan of the whole table is the cheapest plan, and a
/// list of keys read that way went on scanning 10,000 rows for each
/// delivery (docs/scaling.md, "List pages"). Without an index a scan is
/// then priced so high that PostgreSQL compiled it before each run, 90 to
/// 260 ms for a table of one row: hence no JIT, which no lookup needs.
const PLANNING: [(&str, &str); 2] = [("enable_seqscan", "off"), ("jit", "off")];

/// The core's two pools: reads on one, every write on the other.
pub struct Pools {
    pub reader: Reader,
    /// Write transactions ([`begin`]) and single-statement writes. On
    /// SQLite one connection: the database has one writer at a time, so
    /// writes take turns for it in arrival order (instead of connections
    /// sleeping 1 to 100 ms in SQLite's busy handler while the lock sits
    /// idle), waiting at most [`BUSY_TIMEOUT`]; and it keeps what it writes
    /// in its page cache and its statements prepared.
    pub writer: DatabaseConnection,
}

/// Opens the pools of `url` and brings the schema up to date on the
/// writer. `max_connections` (see [`connect`]) is what the replica may hold
/// in all: on SQLite the read pool's (writes take one connection more), on
/// PostgreSQL split, a quarter for writes ([`write_share`]). The read
/// pool's connections cannot write: SQLite's are `query_only`,
/// PostgreSQL's start every transaction read-only (and plan generically,
/// [`READ_PLAN_CACHE_MODE`]), so a write that skips the write path fails
/// in every test instead of racing the single writer. An in-memory SQLite
/// database (one per connection) has one pool for both, and only
/// [`Reader`]'s type guards it.
pub async fn open(url: &str, max_connections: Option<u32>) -> CoreResult<Pools> {
    let is_sqlite = url.starts_with("sqlite:");
    let max_connections = prepare(url, max_connections)?;
    let read_timeout = Duration::from_secs(10);
    if is_sqlite && sqlite_file(url).is_none() {
        let shared = Database::connect(options(url, max_connections, POOL_STATEMENTS, read_timeout, false)).await?;
        migrate(&shared).await?;
        return Ok(Pools {
            reader: Reader(shared.clone()),
            writer: shared,
        });
    }
    let (writer, readers) = if is_sqlite {
        let writer = Database::connect(options(url, 1, WRITER_STATEMENTS, BUSY_TIMEOUT, false)).await?;
        (writer, max_connections)
    } else {
        let writers = write_share(max_connections);
        let writer = Database::connect(options(url, writers, POOL_STATEMENTS, read_timeout, false)).await?;
        (writer, max_connections.saturating_sub(writers).max(1))
    };
    migrate(&writer).await?;
    let read_options = options(url, readers, POOL_STATEMENTS, read_timeout, true);
    Ok(Pools {
        reader: Reader(Database::connect(read_options).await?),
        writer,
    })
}

/// The PostgreSQL write pool's part of a replica's `max_connections`: a
/// quarter, at least one. Writes are few and short (creates commit in
/// groups, `deliveries::batch`), reads are most of the traffic; and the
/// replica keeps to the one budget the server's `max_connections` is
/// planned with.
fn write_share(max_connections: u32) -> u32 {
    (max_connections / 4).max(1)
}

/// The read pool: queries only. A statement that changes something is
/// refused here, and by the database itself (see [`open`]); writes go
/// through [`begin`] or the write pool.
#[derive(Clone, Debug)]
pub struct Reader(DatabaseConnection);

#[async_trait]
impl ConnectionTrait for Reader {
    fn get_database_backend(&self) -> DbBackend {
        self.0.get_database_backend()
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        Err(read_only(&stmt.sql))
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        Err(read_only(sql))
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        self.0.query_one_raw(stmt).await
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        self.0.query_all_raw(stmt).await
    }
}

impl Reader {
    /// The read pool's connections now (see [`PoolUsage::of`]).
    pub fn usage(&self) -> Option<PoolUsage> {
        PoolUsage::of(&self.0)
    }
}

/// A pool's connections at one instant, for the operations listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUsage {
    /// Open, lent out or idle.
    pub open: u32,
    pub idle: u32,
    /// The most the pool opens; a caller past it waits for one to come back.
    pub max: u32,
}

impl PoolUsage {
    /// `db`'s connections now; `None` for a connection that is no pool.
    pub fn of(db: &DatabaseConnection) -> Option<PoolUsage> {
        use sea_orm::DatabaseConnectionType as Pool;
        match &db.inner {
            Pool::SqlxPostgresPoolConnection(_) => Some(PoolUsage::of_pool(db.get_postgres_connection_pool())),
            Pool::SqlxSqlitePoolConnection(_) => Some(PoolUsage::of_pool(db.get_sqlite_connection_pool())),
            _ => None,
        }
    }

    fn of_pool<D: sea_orm::sqlx::Database>(pool: &sea_orm::sqlx::Pool<D>) -> PoolUsage {
        PoolUsage {
            open: pool.size(),
            idle: u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
            max: pool.options().get_max_connections(),
        }
    }
}

/// The core's two database pools, read at each scrape:
/// `courier_db_pool_connections{pool, state}` (`pool` is `read` or
/// `write`, `state` `in_use` or `idle`) and
/// `courier_db_pool_max_connections{pool}`. In use at the most means
/// callers queue for a connection.
#[derive(Debug)]
pub struct PoolGauges {
    pub read: Reader,
    pub write: sea_orm::DatabaseConnection,
}

impl prometheus_client::collector::Collector for PoolGauges {
    fn encode(&self, mut encoder: prometheus_client::encoding::DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use prometheus_client::encoding::EncodeMetric;
        use prometheus_client::metrics::{MetricType, gauge::ConstGauge};
        let pools = [("read", self.read.usage()), ("write", PoolUsage::of(&self.write))];
        let pools: Vec<(&str, PoolUsage)> = pools
            .into_iter()
            .filter_map(|(pool, usage)| Some((pool, usage?)))
            .collect();
        let mut connections = encoder.encode_descriptor(
            "courier_db_pool_connections",
            "Connections of the core's database pools, by pool (read, write) and state (in_use, idle)",
            None,
            MetricType::Gauge,
        )?;
        for (pool, usage) in &pools {
            for (state, count) in [("in_use", usage.open.saturating_sub(usage.idle)), ("idle", usage.idle)] {
                let labels = [("pool", *pool), ("state", state)];
                ConstGauge::new(i64::from(count)).encode(connections.encode_family(&labels)?)?;
            }
        }
        let mut most = encoder.encode_descriptor(
            "courier_db_pool_max_connections",
            "The most connections each database pool opens, by pool (read, write)",
            None,
            MetricType::Gauge,
        )?;
        for (pool, usage) in &pools {
            ConstGauge::new(i64::from(usage.max)).encode(most.encode_family(&[("pool", *pool)])?)?;
        }
        Ok(())
    }
}

fn read_only(sql: &str) -> DbErr {
    DbErr::Custom(format!(
        "a write on the read pool (writes go through the write pool): {sql}"
    ))
}

/// A pool's options; with `read_only`, its connections cannot write (see
/// [`open`]). Every setting of a connection is made here: a second mapping
/// of sqlx's options would replace this one, not add to it.
fn options(
    url: &str,
    max_connections: u32,
    statements: usize,
    acquire_timeout: Duration,
    read_only: bool,
) -> ConnectOptions {
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .max_connections(max_connections.max(1))
        .min_connections(1)
        .acquire_timeout(acquire_timeout)
        .sqlx_logging(false);
    if url.starts_with("sqlite:") {
        options.test_before_acquire(false);
    } else {
        options.test_before_acquire_if_idle_for(PING_AFTER_IDLE);
    }
    options.map_sqlx_postgres_opts(move |postgres| {
        let postgres = plaintext_on_loopback(postgres);
        if read_only {
            postgres.options(PLANNING).options([
                ("default_transaction_read_only", "on"),
                ("plan_cache_mode", READ_PLAN_CACHE_MODE),
            ])
        } else {
            postgres.options(PLANNING)
        }
    });
    options.map_sqlx_sqlite_opts(move |sqlite| {
        let sqlite = sqlite
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .statement_cache_capacity(statements)
            .pragma("wal_autocheckpoint", AUTOCHECKPOINT_PAGES.to_string());
        if read_only {
            sqlite.pragma("query_only", "ON")
        } else {
            sqlite
        }
    });
    options
}

/// A server on this machine is reached without TLS unless the URL demands
/// it: `sslmode=prefer` (the default) falls back to plaintext whenever the
/// server does, so it protects nothing, and on loopback it only costs each
/// round trip an encryption on both ends (docs/scaling.md, "List pages").
/// `require` and `verify-*` are kept.
fn plaintext_on_loopback(postgres: PgConnectOptions) -> PgConnectOptions {
    let loopback = match postgres.get_host() {
        "localhost" => true,
        host => host
            .trim_matches(['[', ']'])
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
    };
    if loopback && matches!(postgres.get_ssl_mode(), PgSslMode::Prefer) {
        postgres.ssl_mode(PgSslMode::Disable)
    } else {
        postgres
    }
}

/// A transaction that writes, from [`begin`]. On SQLite it holds this
/// process's one write connection until it commits, rolls back or is
/// dropped.
pub struct WriteTransaction {
    tx: DatabaseTransaction,
    // Declared after `tx`, so dropped after it: they are released once the
    // transaction has ended.
    held: std::sync::Mutex<Vec<Box<dyn Send>>>,
    /// What to announce once the transaction has committed.
    on_commit: std::sync::Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    /// Couriers whose feeds changed, announced to every replica as the
    /// transaction commits (`cache_feed::announce_couriers`).
    couriers_changed: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// Statements run last, before the commit, by key ([`Self::write_last`]).
    last: std::sync::Mutex<std::collections::BTreeMap<String, Vec<Statement>>>,
    /// This replica's mark on its announcements (`cache_feed::Feed::origin`).
    origin: u64,
}

impl WriteTransaction {
    pub async fn commit(self) -> CoreResult<()> {
        let WriteTransaction {
            tx,
            held,
            on_commit,
            couriers_changed,
            last,
            origin,
        } = self;
        // Key by key in key order, each under its lock: a commit takes
        // these locks last, in one order, and waits for nothing after them,
        // so two commits never wait for each other in a circle.
        for (key, statements) in last.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()) {
            if tx.get_database_backend() == DbBackend::Postgres {
                tx.execute_raw(Statement::from_sql_and_values(
                    DbBackend::Postgres,
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    [key.into()],
                ))
                .await?;
            }
            for statement in statements {
                tx.execute_raw(statement).await?;
            }
        }
        let couriers_changed = couriers_changed
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !couriers_changed.is_empty() {
            crate::cache_feed::announce_couriers(&tx, origin, couriers_changed.into_iter().collect()).await?;
        }
        let committed = tx.commit().await;
        drop(held);
        committed?;
        for announce in on_commit.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()) {
            announce();
        }
        Ok(())
    }

    pub async fn rollback(self) -> CoreResult<()> {
        let WriteTransaction { tx, held, .. } = self;
        let rolled_back = tx.rollback().await;
        drop(held);
        Ok(rolled_back?)
    }

    /// Runs `announce` once this transaction has committed, never if it
    /// rolls back: e.g. waking the watchers of what it changed, who would
    /// otherwise read before the change is visible.
    pub fn after_commit(&self, announce: impl FnOnce() + Send + 'static) {
        self.on_commit
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(Box::new(announce));
    }

    /// This replica's mark on its announcements (`cache_feed::Feed::origin`).
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// Tells every replica, as this transaction commits, that courier
    /// `courier_id`'s feed changed; one notification carries them all.
    pub fn announce_courier(&self, courier_id: &str) {
        self.couriers_changed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(courier_id.to_owned());
    }

    /// Runs `statement` as one of this transaction's last, just before it
    /// commits, after the statements given before it under the same `key`.
    /// On PostgreSQL they run holding a lock on `key` until the commit, so
    /// that rows of one key inserted this way get their sequence ids in the
    /// order their transactions commit (otherwise a transaction may take an
    /// id, commit after one that took a later id, and a reader that already
    /// moved past the later one never sees it). On SQLite, whose one writer
    /// commits in order, they just run.
    pub fn write_last(&self, key: String, statement: Statement) {
        self.last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(key)
            .or_default()
            .push(statement);
    }

    /// Keeps `mark` until this transaction has ended (committed, rolled
    /// back or dropped): e.g. the delivery cache's mark of a row it writes.
    pub fn hold_until_end(&self, mark: impl Send + 'static) {
        self.held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(Box::new(mark));
    }
}

impl std::ops::Deref for WriteTransaction {
    type Target = DatabaseTransaction;

    fn deref(&self) -> &DatabaseTransaction {
        &self.tx
    }
}

#[async_trait]
impl ConnectionTrait for WriteTransaction {
    fn get_database_backend(&self) -> DbBackend {
        self.tx.get_database_backend()
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        self.tx.execute_raw(stmt).await
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        self.tx.execute_unprepared(sql).await
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        self.tx.query_one_raw(stmt).await
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        self.tx.query_all_raw(stmt).await
    }
}

/// `column` is one of `values`, bound as one parameter (a JSON array)
/// however many they are: one prepared statement serves every list (an
/// `IN` with a placeholder per value is a new statement for each length,
/// prepared anew each time past the statement cache), and no list meets a
/// statement's parameter limit. For the lists of couriers a dispatch round
/// and the position writer read, a thousand ids and more.
///
/// On PostgreSQL the list is an array the key's index is searched for
/// (`= ANY`), not a set joined with the table (`IN (SELECT …)`): a generic
/// plan, which a session keeps ([`PLANNING`]), made while the table was
/// empty joined by scanning the whole table and kept doing so as the table
/// grew (BENCHMARKS.md, "A day in a city on PostgreSQL").
pub fn one_of(backend: DbBackend, column: &'static str, values: &[String]) -> sea_orm::sea_query::SimpleExpr {
    let list = serde_json::Value::from(values.to_vec()).to_string();
    let sql = match backend {
        DbBackend::Postgres => format!("\"{column}\" = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))"),
        _ => format!("\"{column}\" IN (SELECT value FROM json_each(?))"),
    };
    sea_orm::sea_query::Expr::cust_with_values(sql, [list])
}

/// Starts a write transaction on the write pool `writer`; `origin` is this
/// replica's mark on the courier feeds it announces (`cache_feed`). On
/// SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a deferred
/// transaction that reads before its first write fails with `SQLITE_BUSY`
/// instead of waiting when another connection commits in between.
/// PostgreSQL ignores the mode.
pub async fn begin(writer: &DatabaseConnection, origin: u64) -> CoreResult<WriteTransaction> {
    let tx = writer
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..TransactionOptions::default()
        })
        .await?;
    Ok(WriteTransaction {
        tx,
        held: std::sync::Mutex::default(),
        on_commit: std::sync::Mutex::default(),
        couriers_changed: std::sync::Mutex::default(),
        last: std::sync::Mutex::default(),
        origin,
    })
}

/// [`begin`] for bookkeeping that a crash of the database server may lose
/// without harm, such as the webhook dispatcher's leases and attempt log
/// (a lost one makes a send happen again, which at-least-once delivery
/// allows): on PostgreSQL its commit does not wait for the WAL to reach the
/// disk (`synchronous_commit = off`, for this transaction alone; such a
/// crash loses at most the last fraction of a second of them, each whole or
/// not at all, and a crash of the core loses none). SQLite's commits already
/// do not wait for the disk (`synchronous=NORMAL` in WAL mode).
pub async fn begin_bookkeeping(writer: &DatabaseConnection, origin: u64) -> CoreResult<WriteTransaction> {
    let tx = begin(writer, origin).await?;
    if tx.get_database_backend() == DbBackend::Postgres {
        tx.execute_unprepared("SET LOCAL synchronous_commit = off").await?;
    }
    Ok(tx)
}

/// Copies the SQLite WAL back into the database file every
/// [`CHECKPOINT_EVERY`] until `stop` fires; does nothing on PostgreSQL.
/// SQLite's own checkpoints run in the writer whose commit crossed the
/// threshold, with the write lock held and two fsyncs: measured at 60 % of
/// the time of a create's bare transaction. A passive checkpoint here runs
/// beside the writers and blocks none of them.
pub async fn checkpoint_wal(db: impl ConnectionTrait, stop: CancellationToken) {
    if db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let db = &db;
    let checkpoint = move || async move {
        // The pragma answers a row (busy, pages in the WAL, pages copied),
        // so it runs as a query; `query_only` allows it.
        let pragma = Statement::from_string(DbBackend::Sqlite, "PRAGMA wal_checkpoint(PASSIVE)");
        db.query_one_raw(pragma).await?;
        Ok::<_, CoreError>(Done::Idle)
    };
    Runner::every(CHECKPOINT_EVERY).run(&stop, checkpoint).await
}

/// Runs every pending migration, and says so in one line (the migrator's
/// own line per migration is left to `debug`, see `courier::logging`).
pub async fn migrate(db: &DatabaseConnection) -> CoreResult<()> {
    let pending = Migrator::get_pending_migrations(db).await?.len();
    Migrator::up(db, None).await?;
    let total = Migrator::migrations().len();
    let latest = Migrator::migrations()
        .last()
        .map(|m| m.name().to_owned())
        .unwrap_or_default();
    tracing::info!(applied = pending, total, %latest, "database schema up to date");
    Ok(())
}

/// The file of a SQLite database URL; `None` for PostgreSQL and in-memory
/// databases.
fn sqlite_file(url: &str) -> Option<std::path::PathBuf> {
    if !url.starts_with("sqlite:") {
        return None;
    }
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    (!path.is_empty() && !path.starts_with(":memory:")).then(|| path.into())
}

fn create_sqlite_dir(url: &str) -> CoreResult<()> {
    if let Some(file) = sqlite_file(url)
        && let Some(dir) = file.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| crate::CoreError::Internal(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(())
}

/// The claim of the one core process that serves a SQLite database: an
/// exclusive lock on `<file>-serve.lock` holding the process's gRPC
/// address, held while it serves and dropped by the operating system when
/// the process ends. The in-memory caches of the serving process
/// (`auth::cache`) rely on it seeing every change to the database: a second
/// core refuses to serve the same file, and the admin commands send the
/// changes such a cache holds (key revocations) to the serving process.
/// PostgreSQL is served by any number of replicas, and nothing is claimed.
#[derive(Debug)]
pub struct ServeLock {
    _file: Option<std::fs::File>,
}

fn lock_path(database: &std::path::Path) -> std::path::PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-serve.lock");
    name.into()
}

fn lock_error(path: &std::path::Path, error: impl std::fmt::Display) -> CoreError {
    CoreError::Internal(format!("cannot lock {}: {error}", path.display()))
}

impl ServeLock {
    /// Claims the database at `database_url` for this process, serving gRPC
    /// at `grpc_addr`; fails while another process serves it.
    pub fn claim(database_url: &str, grpc_addr: std::net::SocketAddr) -> CoreResult<ServeLock> {
        use std::io::Write;
        let Some(database) = sqlite_file(database_url) else {
            return Ok(ServeLock { _file: None });
        };
        let path = lock_path(&database);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| lock_error(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(CoreError::Internal(format!(
                    "another courier-core process serves {} (it holds {})",
                    database.display(),
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(lock_error(&path, e)),
        }
        file.set_len(0).map_err(|e| lock_error(&path, e))?;
        write!(file, "{grpc_addr}")
            .and_then(|()| file.flush())
            .map_err(|e| lock_error(&path, e))?;
        Ok(ServeLock { _file: Some(file) })
    }
}

/// The gRPC address of the process serving the SQLite database at
/// `database_url` ([`ServeLock`]); `None` when none serves it, and for
/// PostgreSQL.
pub fn serving_process(database_url: &str) -> CoreResult<Option<std::net::SocketAddr>> {
    let Some(database) = sqlite_file(database_url) else {
        return Ok(None);
    };
    let path = lock_path(&database);
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(lock_error(&path, e)),
    };
    match file.try_lock_shared() {
        // Nobody holds it: nobody serves (our lock ends with `file`).
        Ok(()) => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => {
            let text = std::fs::read_to_string(&path).map_err(|e| lock_error(&path, e))?;
            text.trim().parse().map(Some).map_err(|_| {
                CoreError::Internal(format!(
                    "{} is locked without an address; is a core starting?",
                    path.display()
                ))
            })
        }
        Err(std::fs::TryLockError::Error(e)) => Err(lock_error(&path, e)),
    }
}

/// The most parameters one SQLite statement binds: the bundled SQLite's
/// `SQLITE_MAX_VARIABLE_NUMBER` (32,766 since 3.32). A multi-row insert
/// binds one per column and row; beyond it the statement fails whole ("too
/// many SQL variables").
pub const SQLITE_MAX_PARAMETERS: usize = 32_766;

/// How many rows of `E` one multi-row SQLite statement may carry: as many
/// as fit [`SQLITE_MAX_PARAMETERS`].
pub fn rows_per_statement<E: EntityTrait>() -> usize {
    (SQLITE_MAX_PARAMETERS / E::Column::iter().count().max(1)).max(1)
}

/// `rows` of `E` cut into SQLite statements' worth
/// ([`rows_per_statement`]), in order.
pub fn in_statements<E: EntityTrait>(rows: Vec<E::ActiveModel>) -> Vec<Vec<E::ActiveModel>> {
    let size = rows_per_statement::<E>();
    let mut statements = Vec::with_capacity(rows.len().div_ceil(size));
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        statements.push(rows.by_ref().take(size).collect());
    }
    statements
}

/// Inserts `rows` of entity `E` in `db` with one statement whose text does
/// not depend on how many rows there are. On PostgreSQL the rows travel as
/// one array per column, expanded by `unnest` ([`column_arrays`]), so each
/// connection prepares the statement once whatever the batch size
/// (multi-row `VALUES` of every new size cost more to prepare than to run:
/// docs/scaling.md). On SQLite sea-orm's multi-row insert, in as many
/// statements as its parameter limit asks ([`in_statements`]): its one
/// writer keeps every size prepared.
pub async fn insert_rows<E>(db: &impl ConnectionTrait, rows: Vec<E::ActiveModel>) -> CoreResult<()>
where
    E: EntityTrait,
    E::ActiveModel: ActiveModelTrait<Entity = E>,
{
    if rows.is_empty() {
        return Ok(());
    }
    if db.get_database_backend() != DbBackend::Postgres {
        for rows in in_statements::<E>(rows) {
            E::insert_many(rows).exec_without_returning(db).await?;
        }
        return Ok(());
    }
    let insert = column_arrays::<E>(rows)?;
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        insert.sql,
        insert.values,
    ))
    .await?;
    Ok(())
}

/// PostgreSQL's insert of rows of `E` as one parameter per column: the
/// statement `INSERT INTO <table> (<columns>) SELECT * FROM unnest($1::<type>[],
/// …)` (a caller may append `ON CONFLICT …` and bind more parameters from
/// [`ColumnArrays::next_parameter`]) and its values, each column's values as
/// one array in the rows' order. Arrays travel in PostgreSQL's binary form:
/// the server copies each value, where the rows as one `jsonb` had it parse
/// JSON, sort every row's keys and unescape the text columns' quotes, a
/// third of its work on a batch of creates (BENCHMARKS.md, "Creates in
/// batches, third round").
pub fn column_arrays<E>(rows: Vec<E::ActiveModel>) -> CoreResult<ColumnArrays>
where
    E: EntityTrait,
    E::ActiveModel: ActiveModelTrait<Entity = E>,
{
    let table = E::default().table_name().to_owned();
    let types = E::Column::iter()
        .map(|column| array_type_of(column.def().get_column_type()).map(|(array, sql)| (column, array, sql)))
        .collect::<CoreResult<Vec<_>>>()?;
    let mut arrays: Vec<Vec<sea_orm::Value>> = types.iter().map(|_| Vec::with_capacity(rows.len())).collect();
    for mut row in rows {
        for ((column, array, _), values) in types.iter().zip(&mut arrays) {
            let value = row.take(*column).into_value();
            values.push(element(array, value).ok_or_else(|| {
                CoreError::Internal(format!("{table}.{} holds a value of another type", column.as_str()))
            })?);
        }
    }
    let names: Vec<&str> = types.iter().map(|(column, _, _)| column.as_str()).collect();
    let unnested: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, (_, _, sql))| format!("${}::{sql}[]", i + 1))
        .collect();
    Ok(ColumnArrays {
        sql: format!(
            "INSERT INTO {table} ({}) SELECT * FROM unnest({})",
            names.join(", "),
            unnested.join(", ")
        ),
        values: types
            .into_iter()
            .zip(arrays)
            .map(|((_, array, _), values)| sea_orm::Value::Array(array, Some(Box::new(values))))
            .collect(),
    })
}

/// An insert of rows as one array per column ([`column_arrays`]).
pub struct ColumnArrays {
    pub sql: String,
    pub values: Vec<sea_orm::Value>,
}

impl ColumnArrays {
    /// The number of the next parameter a caller binds after the arrays.
    pub fn next_parameter(&self) -> usize {
        self.values.len() + 1
    }
}

/// The array type of a column of `column_type`, and PostgreSQL's name of
/// its elements' type.
fn array_type_of(column_type: &ColumnType) -> CoreResult<(ArrayType, &'static str)> {
    let array = match column_type {
        ColumnType::Char(_) | ColumnType::String(_) | ColumnType::Text => ArrayType::String,
        ColumnType::SmallInteger => ArrayType::SmallInt,
        ColumnType::Integer => ArrayType::Int,
        ColumnType::BigInteger => ArrayType::BigInt,
        ColumnType::Double => ArrayType::Double,
        ColumnType::Boolean => ArrayType::Bool,
        ColumnType::Binary(_) | ColumnType::VarBinary(_) | ColumnType::Blob => ArrayType::Bytes,
        other => return Err(CoreError::Internal(format!("no array form for a column of {other:?}"))),
    };
    let name = element_type_name(&array)?;
    Ok((array, name))
}

/// `value` as an element of an array of `array` (an unset value as NULL),
/// if it is of that type.
fn element(array: &ArrayType, value: Option<sea_orm::Value>) -> Option<sea_orm::Value> {
    use sea_orm::Value as V;
    match (array, value) {
        (ArrayType::String, None) => Some(V::String(None)),
        (ArrayType::SmallInt, None) => Some(V::SmallInt(None)),
        (ArrayType::Int, None) => Some(V::Int(None)),
        (ArrayType::BigInt, None) => Some(V::BigInt(None)),
        (ArrayType::Double, None) => Some(V::Double(None)),
        (ArrayType::Bool, None) => Some(V::Bool(None)),
        (ArrayType::Bytes, None) => Some(V::Bytes(None)),
        (ArrayType::String, Some(v @ V::String(_)))
        | (ArrayType::SmallInt, Some(v @ V::SmallInt(_)))
        | (ArrayType::Int, Some(v @ V::Int(_)))
        | (ArrayType::BigInt, Some(v @ V::BigInt(_)))
        | (ArrayType::Double, Some(v @ V::Double(_)))
        | (ArrayType::Bool, Some(v @ V::Bool(_)))
        | (ArrayType::Bytes, Some(v @ V::Bytes(_))) => Some(v),
        _ => None,
    }
}

/// Rows bound as parameters and read as a table `v` by the SQL around them
/// (`UPDATE t SET … FROM {source} WHERE t.id = v.id`), in a statement whose
/// text does not depend on their number: on PostgreSQL one array per column
/// expanded by `unnest` (binary, as [`column_arrays`]), on SQLite one JSON
/// array of rows expanded by `json_each`. `columns` names each column of `v`
/// and its type; every row holds one value per column, of that type or a
/// NULL.
pub fn bound_rows(
    backend: DbBackend,
    columns: &[(&str, ArrayType)],
    rows: Vec<Vec<sea_orm::Value>>,
) -> CoreResult<BoundRows> {
    let mut arrays: Vec<Vec<sea_orm::Value>> = columns.iter().map(|_| Vec::with_capacity(rows.len())).collect();
    for row in rows {
        if row.len() != columns.len() {
            return Err(CoreError::Internal(format!(
                "a bound row of {} values for {} columns",
                row.len(),
                columns.len()
            )));
        }
        for ((name, array), (value, values)) in columns.iter().zip(row.into_iter().zip(&mut arrays)) {
            values
                .push(element(array, Some(value)).ok_or_else(|| {
                    CoreError::Internal(format!("bound column {name} holds a value of another type"))
                })?);
        }
    }
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    if backend == DbBackend::Postgres {
        let unnested = columns
            .iter()
            .enumerate()
            .map(|(i, (_, array))| Ok(format!("${}::{}[]", i + 1, element_type_name(array)?)))
            .collect::<CoreResult<Vec<_>>>()?;
        return Ok(BoundRows {
            source: format!("unnest({}) AS v({})", unnested.join(", "), names.join(", ")),
            values: columns
                .iter()
                .zip(arrays)
                .map(|((_, array), values)| sea_orm::Value::Array(array.clone(), Some(Box::new(values))))
                .collect(),
        });
    }
    let count = arrays.first().map_or(0, Vec::len);
    let mut json_rows = vec![Vec::with_capacity(columns.len()); count];
    for values in arrays {
        for (row, value) in json_rows.iter_mut().zip(values) {
            row.push(json_of(value)?);
        }
    }
    let extracted: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| format!("json_extract(value, '$[{i}]') AS {name}"))
        .collect();
    Ok(BoundRows {
        source: format!("(SELECT {} FROM json_each(?1)) AS v", extracted.join(", ")),
        values: vec![serde_json::Value::from(json_rows).to_string().into()],
    })
}

/// Rows bound for SQL to read as a table ([`bound_rows`]).
pub struct BoundRows {
    /// The table expression, aliased `v`.
    pub source: String,
    pub values: Vec<sea_orm::Value>,
}

impl BoundRows {
    /// The placeholder of the `n`th parameter the caller binds after the
    /// rows (from 0).
    pub fn parameter(&self, backend: DbBackend, n: usize) -> String {
        let number = self.values.len() + 1 + n;
        match backend {
            DbBackend::Postgres => format!("${number}"),
            _ => format!("?{number}"),
        }
    }
}

/// PostgreSQL's name of the elements' type of an array of `array`.
fn element_type_name(array: &ArrayType) -> CoreResult<&'static str> {
    Ok(match array {
        ArrayType::String => "text",
        ArrayType::SmallInt => "int2",
        ArrayType::Int => "int4",
        ArrayType::BigInt => "int8",
        ArrayType::Double => "float8",
        ArrayType::Bool => "bool",
        ArrayType::Bytes => "bytea",
        other => return Err(CoreError::Internal(format!("no array of {other:?} is bound"))),
    })
}

/// A bound value as a JSON value SQLite's `json_extract` gives back as it
/// was (a boolean as 1 or 0).
fn json_of(value: sea_orm::Value) -> CoreResult<serde_json::Value> {
    use sea_orm::Value as V;
    Ok(match value {
        V::String(v) => v.into(),
        V::SmallInt(v) => v.into(),
        V::Int(v) => v.into(),
        V::BigInt(v) => v.into(),
        V::Double(v) => v.into(),
        V::Bool(v) => v.into(),
        other => return Err(CoreError::Internal(format!("{other:?} has no JSON form"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An array's elements are all of its type, an unset value a NULL of
    /// it: the binder takes any other element for a bug and panics.
    #[test]
    fn array_elements_are_of_the_columns_type_or_null() {
        use sea_orm::Value as V;
        let (text, name) = array_type_of(&ColumnType::Text).expect("text has an array form");
        assert_eq!((text.clone(), name), (ArrayType::String, "text"));
        assert_eq!(element(&text, None), Some(V::String(None)));
        assert_eq!(element(&text, Some("a".into())), Some(V::String(Some("a".into()))));
        assert_eq!(element(&text, Some(V::BigInt(Some(1)))), None);
        let (bytes, name) = array_type_of(&ColumnType::VarBinary(sea_orm::sea_query::StringLen::None))
            .expect("bytes have an array form");
        assert_eq!(name, "bytea");
        assert_eq!(element(&bytes, None), Some(V::Bytes(None)));
        assert!(array_type_of(&ColumnType::Json).is_err());
    }

    /// Bound rows read back as the table they were bound as, NULLs and
    /// booleans included, with the caller's parameters after them; a value
    /// of another type than its column's is refused.
    #[tokio::test]
    async fn bound_rows_read_back_as_a_table() -> CoreResult<()> {
        use sea_orm::Value as V;
        let columns = [
            ("id", ArrayType::String),
            ("n", ArrayType::BigInt),
            ("flag", ArrayType::Bool),
        ];
        let rows = vec![
            vec!["a".into(), 1_i64.into(), true.into()],
            vec!["b".into(), V::BigInt(None), false.into()],
        ];
        let bound = bound_rows(DbBackend::Sqlite, &columns, rows)?;
        let sql = format!(
            "SELECT id, n, flag, {} AS extra FROM {} ORDER BY id",
            bound.parameter(DbBackend::Sqlite, 0),
            bound.source
        );
        let mut values = bound.values;
        values.push(7_i64.into());
        let db = connect("sqlite::memory:", Some(1)).await?;
        let read = db
            .query_all_raw(Statement::from_sql_and_values(DbBackend::Sqlite, sql, values))
            .await?;
        let read: Vec<(String, Option<i64>, bool, i64)> = read
            .iter()
            .map(|row| {
                Ok((
                    row.try_get("", "id")?,
                    row.try_get("", "n")?,
                    row.try_get("", "flag")?,
                    row.try_get("", "extra")?,
                ))
            })
            .collect::<Result<_, DbErr>>()?;
        assert_eq!(read, [("a".into(), Some(1), true, 7), ("b".into(), None, false, 7)]);

        let postgres = bound_rows(DbBackend::Postgres, &columns, Vec::new())?;
        assert_eq!(
            postgres.source,
            "unnest($1::text[], $2::int8[], $3::bool[]) AS v(id, n, flag)"
        );
        assert_eq!(postgres.parameter(DbBackend::Postgres, 1), "$5");
        let mistyped = vec![vec![1_i64.into(), 1_i64.into(), true.into()]];
        assert!(bound_rows(DbBackend::Postgres, &columns, mistyped).is_err());
        Ok(())
    }

    #[test]
    fn loopback_servers_are_reached_without_tls_unless_the_url_demands_it() {
        let mode = |url: &str| {
            let options: PgConnectOptions = url.parse().expect("a PostgreSQL URL");
            format!("{:?}", plaintext_on_loopback(options).get_ssl_mode())
        };
        assert_eq!(mode("postgres://postgres@127.0.0.1:5432/test"), "Disable");
        assert_eq!(mode("postgres://postgres@localhost/test"), "Disable");
        assert_eq!(mode("postgres://postgres@[::1]/test"), "Disable");
        assert_eq!(mode("postgres://postgres@127.0.0.1/test?sslmode=require"), "Require");
        assert_eq!(mode("postgres://postgres@db.internal/test"), "Prefer");
        assert_eq!(mode("postgres://postgres@10.0.0.7/test"), "Prefer");
    }

    /// The bundled SQLite is built with the query planner stability
    /// guarantee (`.cargo/config.toml`), so that a statement with a bound
    /// `LIMIT` is prepared once per connection, not on every execution.
    #[tokio::test]
    async fn bundled_sqlite_keeps_plans() -> CoreResult<()> {
        let db = connect("sqlite::memory:", Some(1)).await?;
        let options = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                "PRAGMA compile_options",
            ))
            .await?;
        let names: Vec<String> = options
            .iter()
            .map(|row| row.try_get_by_index::<String>(0))
            .collect::<Result<_, _>>()?;
        assert!(names.iter().any(|n| n == "ENABLE_QPSG"), "compile options: {names:?}");
        Ok(())
    }

    /// Rows a writer commits reach the database file itself (not only the
    /// WAL) through the background checkpointer, well below the writers'
    /// own checkpoint threshold.
    #[tokio::test]
    async fn the_checkpointer_copies_the_wal_into_the_database_file() -> CoreResult<()> {
        let dir = std::env::temp_dir().join(format!(
            "courier-wal-{}-{}",
            std::process::id(),
            crate::ids::new_id("t")
        ));
        let path = dir.join("wal.db");
        let pools = open(&format!("sqlite://{}?mode=rwc", path.display()), Some(2)).await?;
        pools
            .writer
            .execute_unprepared("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2);")
            .await?;
        // Opened immutable, SQLite reads the database file and ignores the WAL.
        let rows_in_file = || async {
            let file = Database::connect(format!("sqlite://{}?mode=ro&immutable=1", path.display())).await?;
            let rows = file
                .query_all_raw(Statement::from_string(DbBackend::Sqlite, "SELECT n FROM t"))
                .await
                .map_or(0, |rows| rows.len());
            file.close().await?;
            CoreResult::Ok(rows)
        };
        assert_eq!(rows_in_file().await?, 0, "committed rows wait in the WAL");

        let stop = CancellationToken::new();
        let checkpoints = tokio::spawn(checkpoint_wal(pools.reader.clone(), stop.clone()));
        tokio::time::sleep(CHECKPOINT_EVERY * 3).await;
        stop.cancel();
        checkpoints
            .await
            .map_err(|e| CoreError::Internal(format!("checkpointer: {e}")))?;
        assert_eq!(rows_in_file().await?, 2);

        pools.writer.close().await?;
        pools.reader.0.close().await?;
        let _ = std::fs::remove_dir_all(dir);
        Ok(())
    }

    /// A write on the read pool fails: refused by its type, and by SQLite
    /// itself for a statement that reaches the connection.
    #[tokio::test]
    async fn the_read_pool_cannot_write() -> CoreResult<()> {
        let dir = std::env::temp_dir().join(format!("courier-ro-{}-{}", std::process::id(), crate::ids::new_id("t")));
        let pools = open(&format!("sqlite://{}?mode=rwc", dir.join("ro.db").display()), Some(1)).await?;
        let insert = "INSERT INTO workspaces (id) VALUES ('w')";
        let refused = pools.reader.execute_unprepared(insert).await;
        assert!(matches!(refused, Err(DbErr::Custom(_))), "{refused:?}");
        let returning = Statement::from_string(DbBackend::Sqlite, format!("{insert} RETURNING id"));
        let refused = pools.reader.query_one_raw(returning).await;
        assert!(
            refused.as_ref().is_err_and(|e| e.to_string().contains("readonly")),
            "{refused:?}"
        );
        let read = Statement::from_string(DbBackend::Sqlite, "SELECT COUNT(*) FROM workspaces");
        assert!(pools.reader.query_one_raw(read).await?.is_some());
        pools.writer.close().await?;
        pools.reader.0.close().await?;
        let _ = std::fs::remove_dir_all(dir);
        Ok(())
    }
}
