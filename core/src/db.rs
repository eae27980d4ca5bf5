//! Database connection and migrations, for SQLite and PostgreSQL.

use std::time::Duration;

use courier_migrations::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DatabaseTransaction, SqliteTransactionMode, TransactionOptions,
    TransactionTrait,
};

use crate::CoreResult;

/// Opens a pool. For SQLite the file's directory is created, and every
/// pooled connection gets WAL journaling and `synchronous=NORMAL` (both are
/// per connection; durable at each checkpoint, safe against corruption)
/// and waits up to 5 s for another writer instead of failing.
/// `max_connections` defaults per backend (see `CoreConfig`).
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
