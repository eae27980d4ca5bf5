use sea_orm_migration::prelude::*;

/// Returns (docs/guide.md "Returns"): what a failed handover does with the
/// goods (`return_to_pickup` or `dispose`), and the link between a
/// delivery and the return that brings its goods back. One return per
/// delivery at most: the unique index on `return_of` stops a second one
/// even if two movers got past the status check.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    UndeliverableAction,
    ReturnOf,
    ReturnDeliveryId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(
                        ColumnDef::new(Deliveries::UndeliverableAction)
                            .text()
                            .not_null()
                            .default("return_to_pickup"),
                    )
                    .to_owned(),
            )
            .await?;
        for column in [Deliveries::ReturnOf, Deliveries::ReturnDeliveryId] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Deliveries::Table)
                        .add_column(ColumnDef::new(column).text().null())
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("deliveries_return_of")
                    .table(Deliveries::Table)
                    .col(Deliveries::ReturnOf)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("deliveries_return_of")
                    .table(Deliveries::Table)
                    .to_owned(),
            )
            .await?;
        for column in [
            Deliveries::ReturnDeliveryId,
            Deliveries::ReturnOf,
            Deliveries::UndeliverableAction,
        ] {
            manager
                .alter_table(Table::alter().table(Deliveries::Table).drop_column(column).to_owned())
                .await?;
        }
        Ok(())
    }
}
