use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Events::Table)
                    .col(ColumnDef::new(Events::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Events::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Events::Mode).string().not_null())
                    .col(ColumnDef::new(Events::DeliveryId).string().not_null())
                    .col(ColumnDef::new(Events::Type).string().not_null())
                    .col(ColumnDef::new(Events::Version).string().not_null())
                    .col(ColumnDef::new(Events::Data).blob().not_null())
                    .col(ColumnDef::new(Events::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("events_listing")
                    .table(Events::Table)
                    .col(Events::WorkspaceId)
                    .col(Events::Mode)
                    .col(Events::CreatedAt)
                    .col(Events::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("events_delivery")
                    .table(Events::Table)
                    .col(Events::DeliveryId)
                    .col(Events::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(Events::Table).to_owned()).await
    }
}

#[derive(DeriveIden)]
enum Events {
    Table,
    Id,
    WorkspaceId,
    Mode,
    DeliveryId,
    Type,
    Version,
    /// The delivery as it was (`courier.v1.Delivery`, encoded).
    Data,
    CreatedAt,
}
