use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(WebhookDeliveries::Table)
                    .col(ColumnDef::new(WebhookDeliveries::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(WebhookDeliveries::EventId).string().not_null())
                    .col(ColumnDef::new(WebhookDeliveries::WebhookId).string().not_null())
                    .col(ColumnDef::new(WebhookDeliveries::State).string().not_null())
                    .col(ColumnDef::new(WebhookDeliveries::Attempts).integer().not_null())
                    .col(
                        ColumnDef::new(WebhookDeliveries::NextAttemptAt)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(WebhookDeliveries::ClaimToken).string().null())
                    .col(ColumnDef::new(WebhookDeliveries::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(WebhookDeliveries::UpdatedAt).big_integer().not_null())
                    .col(ColumnDef::new(WebhookDeliveries::FinishedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("webhook_deliveries_event_endpoint")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::EventId)
                    .col(WebhookDeliveries::WebhookId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Claiming: pending rows in due order.
        manager
            .create_index(
                Index::create()
                    .name("webhook_deliveries_due")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::State)
                    .col(WebhookDeliveries::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        // Replay, the failing-endpoint rule and claiming per endpoint.
        manager
            .create_index(
                Index::create()
                    .name("webhook_deliveries_endpoint")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::WebhookId)
                    .col(WebhookDeliveries::State)
                    .col(WebhookDeliveries::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("webhook_deliveries_created_at")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(WebhookDeliveries::Table).to_owned())
            .await
    }
}

/// One row per event and endpoint: the delivery of that event to that
/// endpoint, the dispatcher's work queue.
#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    /// `whd_…`
    Id,
    EventId,
    WebhookId,
    /// `pending`, `succeeded` or `failed`.
    State,
    /// Attempts made since the event was queued (or replayed).
    Attempts,
    /// When the next attempt is due; while a dispatcher holds the row, the
    /// end of its lease (a crashed dispatcher's rows become due again).
    NextAttemptAt,
    /// The lease holder's token; only it may record the outcome.
    ClaimToken,
    CreatedAt,
    UpdatedAt,
    /// When the delivery ended `succeeded` or `failed`.
    FinishedAt,
}
