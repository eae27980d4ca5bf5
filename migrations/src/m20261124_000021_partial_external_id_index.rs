use sea_orm_migration::prelude::*;

/// `deliveries_external_id` (workspace, mode, external id) also matches the
/// listing's `workspace_id = ? AND mode = ?` prefix. When PostgreSQL's
/// statistics put few rows in a workspace (fresh rows not yet analysed, or
/// a large workspace among many small ones) it chose that index and sorted
/// the whole workspace for every page: 10 ms a page at 10,000 deliveries,
/// against 0.07 ms from `deliveries_listing` (BENCHMARKS.md). Holding only
/// the rows that have an external id, the uniqueness index no longer offers
/// itself for the listing; uniqueness is unchanged, as NULLs never
/// collided.
#[derive(DeriveMigrationName)]
pub struct Migration;

/// The index replaced, and its replacement (a new name: created before the
/// old one is dropped, so uniqueness holds throughout).
const OLD: &str = "deliveries_external_id";
const NEW: &str = "deliveries_external_id_given";
const COLUMNS: &str = "deliveries (workspace_id, mode, external_id)";

/// Plain SQL: the same statements on both databases.
async fn run(manager: &SchemaManager<'_>, statements: &[String]) -> Result<(), DbErr> {
    for statement in statements {
        manager.get_connection().execute_unprepared(statement).await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run(
            manager,
            &[
                format!("CREATE UNIQUE INDEX {NEW} ON {COLUMNS} WHERE external_id IS NOT NULL"),
                format!("DROP INDEX {OLD}"),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run(
            manager,
            &[
                format!("CREATE UNIQUE INDEX {OLD} ON {COLUMNS}"),
                format!("DROP INDEX {NEW}"),
            ],
        )
        .await
    }
}
