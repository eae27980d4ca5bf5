use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(WebhookAttempts::Table)
                    .col(ColumnDef::new(WebhookAttempts::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(WebhookAttempts::EventId).string().not_null())
                    .col(ColumnDef::new(WebhookAttempts::WebhookId).string().not_null())
                    .col(ColumnDef::new(WebhookAttempts::AttemptedAt).big_integer().not_null())
                    .col(ColumnDef::new(WebhookAttempts::Status).string().not_null())
                    .col(ColumnDef::new(WebhookAttempts::ResponseCode).integer().null())
                    .col(ColumnDef::new(WebhookAttempts::LatencyMs).big_integer().null())
                    .col(ColumnDef::new(WebhookAttempts::Error).text().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("webhook_attempts_event")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::EventId)
                    .col(WebhookAttempts::AttemptedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("webhook_attempts_attempted_at")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::AttemptedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(WebhookAttempts::Table).to_owned())
            .await
    }
}

/// One row per webhook request made (or refused before sending).
#[derive(DeriveIden)]
enum WebhookAttempts {
    Table,
    /// `wha_…`
    Id,
    EventId,
    WebhookId,
    AttemptedAt,
    /// `succeeded`, `failed` (no further attempt) or `pending` (failed, a
    /// retry is scheduled).
    Status,
    /// The receiver's HTTP status; null when no answer arrived.
    ResponseCode,
    /// Time from sending to the answer (or the failure); null when no request
    /// was made.
    LatencyMs,
    Error,
}
