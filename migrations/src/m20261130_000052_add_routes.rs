use sea_orm_migration::prelude::*;

/// Several jobs per courier (docs/guide.md "Several jobs per courier"): a
/// delivery says whether it may share its courier (`batching`, `allowed`
/// unless booked `never`); a courier's open assignments are no longer one
/// at most (the partial unique index goes; the courier's route row, taken
/// before every assignment, holds the vehicle's limits instead); each
/// courier's route keeps the order of their stops; an offer of a further
/// job keeps the route it proposed and the time it adds.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    Batching,
}

#[derive(DeriveIden)]
enum CourierRoutes {
    Table,
    CourierId,
    Stops,
    PlannedAt,
}

#[derive(DeriveIden)]
enum CourierOffers {
    Table,
    AddedSeconds,
    Route,
}

/// One column per statement: SQLite alters one at a time.
async fn add(manager: &SchemaManager<'_>, table: impl IntoIden, column: ColumnDef) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).add_column(column).to_owned())
        .await
}

async fn drop(manager: &SchemaManager<'_>, table: impl IntoIden, column: impl IntoIden) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).drop_column(column).to_owned())
        .await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add(
            manager,
            Deliveries::Table,
            ColumnDef::new(Deliveries::Batching)
                .string()
                .not_null()
                .default("allowed")
                .to_owned(),
        )
        .await?;
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX IF EXISTS courier_assignments_open_courier")
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierRoutes::Table)
                    .col(
                        ColumnDef::new(CourierRoutes::CourierId)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierRoutes::Stops).text().not_null())
                    .col(ColumnDef::new(CourierRoutes::PlannedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        add(
            manager,
            CourierOffers::Table,
            ColumnDef::new(CourierOffers::AddedSeconds)
                .big_integer()
                .null()
                .to_owned(),
        )
        .await?;
        add(
            manager,
            CourierOffers::Table,
            ColumnDef::new(CourierOffers::Route).text().null().to_owned(),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop(manager, CourierOffers::Table, CourierOffers::Route).await?;
        drop(manager, CourierOffers::Table, CourierOffers::AddedSeconds).await?;
        manager
            .drop_table(Table::drop().table(CourierRoutes::Table).to_owned())
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX courier_assignments_open_courier ON courier_assignments (courier_id) WHERE ended_at IS NULL",
            )
            .await?;
        drop(manager, Deliveries::Table, Deliveries::Batching).await
    }
}
