//! Database connection and migrations, for SQLite and PostgreSQL.

use std::time::Duration;

use courier_migrations::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DatabaseTransaction, SqliteTransactionMode, TransactionOptions,
    TransactionTrait,
};

use crate::CoreResult;

/// How long a PostgreSQL connection may sit in the pool before it is
/// pinged on checkout.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

/// Opens a pool. For SQLite the file's directory is created, and every
/// pooled connection gets WAL journaling and `synchronous=NORMAL` (both are
/// per connection; durable at each checkpoint, safe against corruption)
/// and waits up to 5 s for another writer instead of failing.
/// `max_connections` defaults per backend (see `CoreConfig`).
///
/// A pooled connection is not pinged on every checkout (one more round trip
/// per statement outside a transaction): never on SQLite, whose connection
/// is a file; on PostgreSQL only after it sat idle for [`PING_AFTER_IDLE`],
/// when a server restart or a proxy may have dropped it.
pub async fn connect(url: &str, max_connections: Option<u32>) -> CoreResult<DatabaseConnection> {
    let is_sqlite = url.starts_with("sqlite:");
    if is_sqlite {
        create_sqlite_dir(url)?;
    }
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .max_connections(max_connections.unwrap_or(if is_sqlite { 8 } else { 32 }).max(1))
        .min_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    if is_sqlite {
        options.test_before_acquire(false);
    } else {
        options.test_before_acquire_if_idle_for(PING_AFTER_IDLE);
    }
    options.map_sqlx_sqlite_opts(|sqlite| {
        sqlite
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
    });
    Ok(Database::connect(options).await?)
}

/// Starts a transaction that writes. On SQLite it takes the write lock at
/// once (`BEGIN IMMEDIATE`), waiting its turn behind other writers: a
/// deferred transaction that reads before its first write fails with
/// `SQLITE_BUSY` instead of waiting when another connection commits in
/// between. PostgreSQL ignores the mode.
pub async fn begin(db: &DatabaseConnection) -> CoreResult<DatabaseTransaction> {
    Ok(db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..TransactionOptions::default()
        })
        .await?)
}

/// Runs every pending migration.
pub async fn migrate(db: &DatabaseConnection) -> CoreResult<()> {
    Migrator::up(db, None).await?;
    Ok(())
}

fn create_sqlite_dir(url: &str) -> CoreResult<()> {
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    if path.is_empty() || path.starts_with(":memory:") {
        return Ok(());
    }
    if let Some(dir) = std::path::Path::new(path).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| crate::CoreError::Internal(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, Statement};

    use super::*;

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
}
