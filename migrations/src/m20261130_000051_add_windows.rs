use sea_orm_migration::prelude::*;

/// Promised times (docs/guide.md "Windows"): the pickup and dropoff windows
/// of deliveries and fleet orders (Unix microseconds, null when none); on
/// deliveries also the dropoff promised (the window's end, or the plan's
/// dropoff plus 10 minutes), when `delivery.delayed` was recorded (it is
/// recorded once) and, once delivered, whether the promise was kept.
/// Deliveries booked before have no promise: they are never at risk and
/// count as neither on time nor late.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    PromisedBy,
    DelayedAt,
    OnTime,
}

#[derive(DeriveIden)]
enum FleetOrders {
    Table,
}

#[derive(DeriveIden, Clone, Copy)]
enum Window {
    PickupWindowStart,
    PickupWindowEnd,
    DropoffWindowStart,
    DropoffWindowEnd,
}

const WINDOW_COLUMNS: [Window; 4] = [
    Window::PickupWindowStart,
    Window::PickupWindowEnd,
    Window::DropoffWindowStart,
    Window::DropoffWindowEnd,
];

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
        for column in WINDOW_COLUMNS {
            add(
                manager,
                Deliveries::Table,
                ColumnDef::new(column).big_integer().null().to_owned(),
            )
            .await?;
            add(
                manager,
                FleetOrders::Table,
                ColumnDef::new(column).big_integer().null().to_owned(),
            )
            .await?;
        }
        add(
            manager,
            Deliveries::Table,
            ColumnDef::new(Deliveries::PromisedBy).big_integer().null().to_owned(),
        )
        .await?;
        add(
            manager,
            Deliveries::Table,
            ColumnDef::new(Deliveries::DelayedAt).big_integer().null().to_owned(),
        )
        .await?;
        add(
            manager,
            Deliveries::Table,
            ColumnDef::new(Deliveries::OnTime).boolean().null().to_owned(),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop(manager, Deliveries::Table, Deliveries::OnTime).await?;
        drop(manager, Deliveries::Table, Deliveries::DelayedAt).await?;
        drop(manager, Deliveries::Table, Deliveries::PromisedBy).await?;
        for column in WINDOW_COLUMNS {
            drop(manager, FleetOrders::Table, column).await?;
            drop(manager, Deliveries::Table, column).await?;
        }
        Ok(())
    }
}
