use sea_orm_migration::prelude::*;

/// Recipient notifications (docs/notifications.md): a delivery's own choice
/// (`notifications`, JSON: recipient and sender on or off, language); each
/// workspace's settings (JSON: triggers and channels, texts, quiet hours);
/// the outbox, one row per message and the attempts made to send it; and the
/// addresses that asked for no more messages from a workspace.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    Notifications,
}

#[derive(DeriveIden)]
enum NotificationSettings {
    Table,
    WorkspaceId,
    Body,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum NotificationMessages {
    Table,
    Id,
    WorkspaceId,
    Mode,
    DeliveryId,
    Trigger,
    Audience,
    Channel,
    Address,
    Language,
    Subject,
    Body,
    Status,
    Attempts,
    NextAttemptAt,
    ClaimToken,
    ProviderMessageId,
    Error,
    CreatedAt,
    SentAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum NotificationAttempts {
    Table,
    Id,
    MessageId,
    Attempt,
    StartedAt,
    DurationMicros,
    Outcome,
    ProviderMessageId,
    Error,
}

#[derive(DeriveIden)]
enum NotificationOptOuts {
    Table,
    WorkspaceId,
    Channel,
    Address,
    Source,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::Notifications).text().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(NotificationSettings::Table)
                    .col(
                        ColumnDef::new(NotificationSettings::WorkspaceId)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(NotificationSettings::Body).text().not_null())
                    .col(ColumnDef::new(NotificationSettings::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(NotificationMessages::Table)
                    .col(
                        ColumnDef::new(NotificationMessages::Id)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(NotificationMessages::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Mode).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::DeliveryId).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Trigger).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Audience).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Channel).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Address).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Language).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Subject).text().null())
                    .col(ColumnDef::new(NotificationMessages::Body).text().not_null())
                    .col(ColumnDef::new(NotificationMessages::Status).string().not_null())
                    .col(ColumnDef::new(NotificationMessages::Attempts).integer().not_null())
                    .col(ColumnDef::new(NotificationMessages::NextAttemptAt).big_integer().null())
                    .col(ColumnDef::new(NotificationMessages::ClaimToken).string().null())
                    .col(ColumnDef::new(NotificationMessages::ProviderMessageId).string().null())
                    .col(ColumnDef::new(NotificationMessages::Error).text().null())
                    .col(ColumnDef::new(NotificationMessages::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(NotificationMessages::SentAt).big_integer().null())
                    .col(ColumnDef::new(NotificationMessages::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        // One message per trigger, audience and channel of a delivery, on
        // any number of replicas: the insert of a second does nothing.
        manager
            .create_index(
                Index::create()
                    .name("notification_messages_once")
                    .table(NotificationMessages::Table)
                    .col(NotificationMessages::DeliveryId)
                    .col(NotificationMessages::Trigger)
                    .col(NotificationMessages::Audience)
                    .col(NotificationMessages::Channel)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // What the sender claims: waiting messages by when they are due
        // (sent ones leave the index's range by their status).
        manager
            .create_index(
                Index::create()
                    .name("notification_messages_due")
                    .table(NotificationMessages::Table)
                    .col(NotificationMessages::Status)
                    .col(NotificationMessages::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("notification_messages_provider_id")
                    .table(NotificationMessages::Table)
                    .col(NotificationMessages::ProviderMessageId)
                    .to_owned(),
            )
            .await?;
        // The test inbox and the opt-out's workspace: a workspace's (or an
        // address's) newest messages.
        manager
            .create_index(
                Index::create()
                    .name("notification_messages_workspace")
                    .table(NotificationMessages::Table)
                    .col(NotificationMessages::WorkspaceId)
                    .col(NotificationMessages::Mode)
                    .col(NotificationMessages::CreatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("notification_messages_address")
                    .table(NotificationMessages::Table)
                    .col(NotificationMessages::Address)
                    .col(NotificationMessages::CreatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(NotificationAttempts::Table)
                    .col(
                        ColumnDef::new(NotificationAttempts::Id)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(NotificationAttempts::MessageId).string().not_null())
                    .col(ColumnDef::new(NotificationAttempts::Attempt).integer().not_null())
                    .col(ColumnDef::new(NotificationAttempts::StartedAt).big_integer().not_null())
                    .col(
                        ColumnDef::new(NotificationAttempts::DurationMicros)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(NotificationAttempts::Outcome).string().not_null())
                    .col(ColumnDef::new(NotificationAttempts::ProviderMessageId).string().null())
                    .col(ColumnDef::new(NotificationAttempts::Error).text().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("notification_attempts_message")
                    .table(NotificationAttempts::Table)
                    .col(NotificationAttempts::MessageId)
                    .col(NotificationAttempts::Attempt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(NotificationOptOuts::Table)
                    .col(ColumnDef::new(NotificationOptOuts::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(NotificationOptOuts::Channel).string().not_null())
                    .col(ColumnDef::new(NotificationOptOuts::Address).string().not_null())
                    .col(ColumnDef::new(NotificationOptOuts::Source).string().not_null())
                    .col(ColumnDef::new(NotificationOptOuts::CreatedAt).big_integer().not_null())
                    .primary_key(
                        Index::create()
                            .col(NotificationOptOuts::WorkspaceId)
                            .col(NotificationOptOuts::Channel)
                            .col(NotificationOptOuts::Address),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            NotificationOptOuts::Table.into_iden(),
            NotificationAttempts::Table.into_iden(),
            NotificationMessages::Table.into_iden(),
            NotificationSettings::Table.into_iden(),
        ] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .drop_column(Deliveries::Notifications)
                    .to_owned(),
            )
            .await
    }
}
