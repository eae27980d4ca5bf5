//! Database connection and migrations, for SQLite and PostgreSQL.

use std::time::Duration;

use courier_migrations::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseBackend, DatabaseConnection};

use crate::CoreResult;

/// Opens a pool. For SQLite the file's directory is created, WAL journaling
/// is enabled and writers wait for each other instead of failing.
pub async fn connect(url: &str) -> CoreResult<DatabaseConnection> {
    let is_sqlite = url.starts_with("sqlite:");
    if is_sqlite {
        create_sqlite_dir(url)?;
    }
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .max_connections(if is_sqlite { 8 } else { 32 })
        .min_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    let db = Database::connect(options).await?;
    if db.get_database_backend() == DatabaseBackend::Sqlite {
        // Persistent for the file; the busy timeout is set by sqlx (5 s).
        db.execute_unprepared("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .await?;
    }
    Ok(db)
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
