use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Quotes::Table)
                    .col(ColumnDef::new(Quotes::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Quotes::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Quotes::Mode).string().not_null())
                    .col(ColumnDef::new(Quotes::Route).text().not_null())
                    .col(ColumnDef::new(Quotes::AmountCents).big_integer().not_null())
                    .col(ColumnDef::new(Quotes::Currency).string().not_null())
                    .col(ColumnDef::new(Quotes::Breakdown).text().not_null())
                    .col(ColumnDef::new(Quotes::DistanceKm).double().not_null())
                    .col(ColumnDef::new(Quotes::DurationMin).big_integer().not_null())
                    .col(ColumnDef::new(Quotes::ServiceAreaId).string().not_null())
                    .col(ColumnDef::new(Quotes::ValidUntil).big_integer().not_null())
                    .col(ColumnDef::new(Quotes::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(Quotes::Table).to_owned()).await
    }
}

#[derive(DeriveIden)]
enum Quotes {
    Table,
    Id,
    WorkspaceId,
    Mode,
    /// The priced route in canonical JSON, compared for `quote_mismatch`.
    Route,
    AmountCents,
    Currency,
    Breakdown,
    DistanceKm,
    DurationMin,
    ServiceAreaId,
    ValidUntil,
    CreatedAt,
}
