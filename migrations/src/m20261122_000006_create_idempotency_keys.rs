use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(IdempotencyKeys::Table)
                    .col(ColumnDef::new(IdempotencyKeys::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::Mode).string().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::Endpoint).string().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::Key).string().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::RequestHash).string().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::Outcome).blob().not_null())
                    .col(ColumnDef::new(IdempotencyKeys::CreatedAt).big_integer().not_null())
                    .primary_key(
                        Index::create()
                            .col(IdempotencyKeys::WorkspaceId)
                            .col(IdempotencyKeys::Mode)
                            .col(IdempotencyKeys::Endpoint)
                            .col(IdempotencyKeys::Key),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idempotency_keys_created_at")
                    .table(IdempotencyKeys::Table)
                    .col(IdempotencyKeys::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(IdempotencyKeys::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum IdempotencyKeys {
    Table,
    WorkspaceId,
    Mode,
    Endpoint,
    Key,
    /// SHA-256 of the request in canonical form.
    RequestHash,
    /// The stored answer (encoded), replayed byte for byte.
    Outcome,
    CreatedAt,
}
