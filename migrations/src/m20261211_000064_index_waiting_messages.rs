use sea_orm_migration::prelude::*;

/// The notification outbox's claim (`notifications::messages::claim`),
/// which read every due message and sorted them to take the first 256 (on
/// PostgreSQL also scanning the whole table to join them back), now reads
/// only what it takes:
/// - `notification_messages_waiting` holds only the messages still to go,
///   by when they are due, replacing `(status, next_attempt_at)`, whose two
///   statuses could not be read in due order; the outbox's depth is counted
///   there too;
/// - `notification_messages_claimed` holds only the messages a sender holds
///   now: the claim's "no earlier message of this delivery is being sent"
///   and the recording of a batch by its claim token look there.
///
/// Their conditions are written the same in the queries, as literals:
/// neither database uses a partial index for a bound parameter.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX notification_messages_due").await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_waiting ON notification_messages (next_attempt_at) \
             WHERE status IN ('queued', 'held')",
        )
        .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_claimed ON notification_messages (delivery_id) \
             WHERE claim_token IS NOT NULL",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX notification_messages_claimed")
            .await?;
        db.execute_unprepared("DROP INDEX notification_messages_waiting")
            .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_due ON notification_messages (status, next_attempt_at)",
        )
        .await?;
        Ok(())
    }
}
