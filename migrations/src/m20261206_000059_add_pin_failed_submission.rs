use sea_orm_migration::prelude::*;

/// The wrong dropoff PIN counted last, as `submission_id:PIN`: the same
/// submission sent again with it (an app that lost the answer) is answered
/// as before and not counted twice.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    DropoffPinFailedSubmission,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::DropoffPinFailedSubmission).text().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .drop_column(Deliveries::DropoffPinFailedSubmission)
                    .to_owned(),
            )
            .await
    }
}
