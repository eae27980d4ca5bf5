use sea_orm_migration::prelude::*;

/// Fleet orders: the public intake record (`flo_…`) and its place on the
/// fleet's dispatch board (`ord_…`) in one row, so the public status is the
/// board's status.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(FleetOrders::Table)
                    .col(ColumnDef::new(FleetOrders::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(FleetOrders::OrderId).string().not_null())
                    .col(ColumnDef::new(FleetOrders::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(FleetOrders::Mode).string().not_null())
                    .col(ColumnDef::new(FleetOrders::Status).string().not_null())
                    .col(ColumnDef::new(FleetOrders::Reference).string().null())
                    .col(ColumnDef::new(FleetOrders::Customer).text().not_null())
                    .col(ColumnDef::new(FleetOrders::Route).text().not_null())
                    .col(ColumnDef::new(FleetOrders::VehicleTypeId).string().not_null())
                    .col(ColumnDef::new(FleetOrders::RequestedPickupDate).string().null())
                    .col(ColumnDef::new(FleetOrders::RequestedPickupTime).string().null())
                    .col(ColumnDef::new(FleetOrders::CustomerTimezone).string().null())
                    .col(ColumnDef::new(FleetOrders::Notes).text().null())
                    .col(ColumnDef::new(FleetOrders::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(FleetOrders::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("fleet_orders_order_id")
                    .table(FleetOrders::Table)
                    .col(FleetOrders::OrderId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // The board: one fleet's orders, oldest first, keyset paged.
        manager
            .create_index(
                Index::create()
                    .name("fleet_orders_board")
                    .table(FleetOrders::Table)
                    .col(FleetOrders::WorkspaceId)
                    .col(FleetOrders::Mode)
                    .col(FleetOrders::CreatedAt)
                    .col(FleetOrders::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(FleetOrders::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum FleetOrders {
    Table,
    /// The public id (`flo_…`).
    Id,
    /// The dispatch board's id (`ord_…`).
    OrderId,
    WorkspaceId,
    Mode,
    Status,
    Reference,
    /// The customer's contact as JSON.
    Customer,
    /// Waypoints and items as JSON.
    Route,
    VehicleTypeId,
    RequestedPickupDate,
    RequestedPickupTime,
    CustomerTimezone,
    Notes,
    CreatedAt,
    UpdatedAt,
}
