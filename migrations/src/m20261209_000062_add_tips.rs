use sea_orm_migration::prelude::*;

/// Tips (docs/couriers.md "Tips"): a delivery's tip, all of it its
/// courier's, and the tips a business statement bills beside its
/// deliveries and SMS.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    TipCents,
}

#[derive(DeriveIden)]
enum Statements {
    Table,
    TipCount,
    TipCents,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::TipCents).big_integer().not_null().default(0))
                    .to_owned(),
            )
            .await?;
        // SQLite adds one column per ALTER TABLE.
        manager
            .alter_table(
                Table::alter()
                    .table(Statements::Table)
                    .add_column(ColumnDef::new(Statements::TipCount).integer().not_null().default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Statements::Table)
                    .add_column(ColumnDef::new(Statements::TipCents).big_integer().not_null().default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Statements::TipCount, Statements::TipCents] {
            manager
                .alter_table(Table::alter().table(Statements::Table).drop_column(column).to_owned())
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .drop_column(Deliveries::TipCents)
                    .to_owned(),
            )
            .await
    }
}
