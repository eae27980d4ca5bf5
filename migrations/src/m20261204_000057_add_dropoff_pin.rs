use sea_orm_migration::prelude::*;

/// The dropoff PIN (docs/guide.md "Proof of delivery"): the 4 digits a
/// delivery asking for one hands the recipient, and how many wrong ones
/// the courier entered since the last dispatcher's reset (5 block the
/// handover).
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    DropoffPin,
    DropoffPinFailures,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::DropoffPin).text().null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(
                        ColumnDef::new(Deliveries::DropoffPinFailures)
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Deliveries::DropoffPinFailures, Deliveries::DropoffPin] {
            manager
                .alter_table(Table::alter().table(Deliveries::Table).drop_column(column).to_owned())
                .await?;
        }
        Ok(())
    }
}
