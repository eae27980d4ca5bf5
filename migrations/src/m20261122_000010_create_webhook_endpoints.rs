use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(WebhookEndpoints::Table)
                    .col(ColumnDef::new(WebhookEndpoints::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(WebhookEndpoints::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::Mode).string().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::Url).text().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::Events).text().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::Description).text().null())
                    .col(ColumnDef::new(WebhookEndpoints::Secret).string().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::Status).string().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::DisabledReason).string().null())
                    .col(ColumnDef::new(WebhookEndpoints::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(WebhookEndpoints::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("webhook_endpoints_workspace")
                    .table(WebhookEndpoints::Table)
                    .col(WebhookEndpoints::WorkspaceId)
                    .col(WebhookEndpoints::Mode)
                    .col(WebhookEndpoints::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(WebhookEndpoints::Table).to_owned())
            .await
    }
}

/// Webhook endpoints, deleted for good by `DELETE /v1/webhooks/{id}`.
#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    /// `whe_…`
    Id,
    WorkspaceId,
    /// `live` or `test`: the mode of the events the endpoint receives.
    Mode,
    Url,
    /// Subscribed event types, a JSON array of names; empty means all.
    Events,
    Description,
    /// `whsec_…`, the Standard Webhooks signing secret.
    Secret,
    /// `active` or `disabled`.
    Status,
    /// `manual` or `failing` while disabled.
    DisabledReason,
    CreatedAt,
    UpdatedAt,
}
