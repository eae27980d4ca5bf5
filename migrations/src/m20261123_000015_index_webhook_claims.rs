use sea_orm_migration::prelude::*;

/// The dispatcher reads the rows it just claimed by their claim token; without
/// an index that read scans the whole queue, delivered rows included.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("webhook_deliveries_claim_token")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::ClaimToken)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("webhook_deliveries_claim_token")
                    .table(WebhookDeliveries::Table)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    ClaimToken,
}
