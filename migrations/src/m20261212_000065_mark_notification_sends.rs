use sea_orm_migration::prelude::*;

/// A notification send under way is marked on its message row by the claim
/// (`notifications::messages::claim`) instead of by an attempt row inserted
/// before the call and updated after it: `claimed_at` is when the sender
/// holding the message claimed it (cleared when it records the outcome), and
/// `cut_off_at` when a claim that was never recorded began (a sender died
/// holding it; its send may have gone out). The attempt is written once, at
/// its end. Attempts left `started` by an earlier version become the
/// `cut_off_at` of their message.
///
/// Two indexes leave what the live sends write: the test inbox's covers
/// only test-mode messages, the provider id's only messages that have one.
/// (Every update of a message that changes an indexed column writes an
/// entry in each of its indexes: BENCHMARKS.md, "Recipient notifications".)
/// Their conditions are written the same in the queries, as literals.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum NotificationMessages {
    Table,
    ClaimedAt,
    CutOffAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per ALTER TABLE.
        for column in [NotificationMessages::ClaimedAt, NotificationMessages::CutOffAt] {
            manager
                .alter_table(
                    Table::alter()
                        .table(NotificationMessages::Table)
                        .add_column(ColumnDef::new(column).big_integer().null())
                        .to_owned(),
                )
                .await?;
        }
        let db = manager.get_connection();
        db.execute_unprepared(
            "UPDATE notification_messages SET cut_off_at = (SELECT MIN(a.started_at) FROM notification_attempts AS a \
             WHERE a.message_id = notification_messages.id AND a.outcome = 'started') \
             WHERE id IN (SELECT message_id FROM notification_attempts WHERE outcome = 'started')",
        )
        .await?;
        db.execute_unprepared("DELETE FROM notification_attempts WHERE outcome = 'started'")
            .await?;
        db.execute_unprepared("DROP INDEX notification_messages_workspace")
            .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_test_inbox ON notification_messages (workspace_id, created_at) \
             WHERE mode = 'test'",
        )
        .await?;
        db.execute_unprepared("DROP INDEX notification_messages_provider_id")
            .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_provider_id ON notification_messages (provider_message_id) \
             WHERE provider_message_id IS NOT NULL",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX notification_messages_provider_id")
            .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_provider_id ON notification_messages (provider_message_id)",
        )
        .await?;
        db.execute_unprepared("DROP INDEX notification_messages_test_inbox")
            .await?;
        db.execute_unprepared(
            "CREATE INDEX notification_messages_workspace ON notification_messages (workspace_id, mode, created_at)",
        )
        .await?;
        for column in [NotificationMessages::CutOffAt, NotificationMessages::ClaimedAt] {
            manager
                .alter_table(
                    Table::alter()
                        .table(NotificationMessages::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
