use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ApiKeys::Table)
                    .col(ColumnDef::new(ApiKeys::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(ApiKeys::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(ApiKeys::Mode).string().not_null())
                    .col(ColumnDef::new(ApiKeys::Label).string().not_null())
                    .col(ColumnDef::new(ApiKeys::Permissions).text().not_null())
                    .col(ColumnDef::new(ApiKeys::Prefix).string().not_null())
                    .col(ColumnDef::new(ApiKeys::KeyHash).string().not_null())
                    .col(ColumnDef::new(ApiKeys::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(ApiKeys::ExpiresAt).big_integer().null())
                    .col(ColumnDef::new(ApiKeys::RevokedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("api_keys_key_hash")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::KeyHash)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("api_keys_workspace")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::WorkspaceId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(ApiKeys::Table).to_owned()).await
    }
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    Id,
    WorkspaceId,
    Mode,
    Label,
    Permissions,
    Prefix,
    KeyHash,
    CreatedAt,
    ExpiresAt,
    RevokedAt,
}
