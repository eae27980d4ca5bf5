use sea_orm_migration::prelude::*;

/// The live deliveries waiting for a courier, oldest first: what every
/// dispatch round and the dispatch map read (`deliveries::pending_live`).
/// Without it each read scanned every delivery ever made; this index holds
/// only the waiting ones. Its condition is written the same in the query,
/// as literals: neither database uses a partial index for a bound
/// parameter.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX deliveries_waiting ON deliveries (created_at, id) \
                 WHERE mode = 'live' AND status = 'pending'",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX deliveries_waiting")
            .await?;
        Ok(())
    }
}
