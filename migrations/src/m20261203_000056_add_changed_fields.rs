use sea_orm_migration::prelude::*;

/// Changes after booking (docs/guide.md "Change a delivery"): the members a
/// `delivery.updated` event reports as changed, and those a courier's feed
/// row of kind `edited` tells their app about: dot paths joined by commas,
/// null on every other event and row. On PostgreSQL the partitioned
/// `events` passes the column on to its day partitions.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Events {
    Table,
    ChangedFields,
}

#[derive(DeriveIden)]
enum CourierFeed {
    Table,
    ChangedFields,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Events::Table)
                    .add_column(ColumnDef::new(Events::ChangedFields).text().null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(CourierFeed::Table)
                    .add_column(ColumnDef::new(CourierFeed::ChangedFields).text().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(CourierFeed::Table)
                    .drop_column(CourierFeed::ChangedFields)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Events::Table)
                    .drop_column(Events::ChangedFields)
                    .to_owned(),
            )
            .await
    }
}
