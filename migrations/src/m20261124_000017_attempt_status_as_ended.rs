use sea_orm_migration::prelude::*;

/// An attempt's status is how that attempt ended (docs/guide.md "Events"):
/// attempts logged as `pending` because a retry followed them failed.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("UPDATE webhook_attempts SET status = 'failed' WHERE status = 'pending'")
            .await?;
        Ok(())
    }

    async fn down(&self, _manager: &SchemaManager) -> Result<(), DbErr> {
        // Which failed attempts had a retry after them is not kept.
        Ok(())
    }
}
