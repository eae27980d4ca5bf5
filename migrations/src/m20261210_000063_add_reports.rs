use sea_orm_migration::prelude::*;

/// Reports (docs/reports.md): when a delivery was picked up, each day's
/// figures of a workspace's deliveries kept by the rollup worker, the
/// couriers' online periods, and how far the worker has read.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    PickedUpAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum DeliveryDayStats {
    Table,
    WorkspaceId,
    Mode,
    ServiceAreaId,
    Day,
    Deliveries,
    Delivered,
    Cancelled,
    Cancellations,
    OnTime,
    Promised,
    PickupMinutes,
    DeliveryMinutes,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum CourierOnlinePeriods {
    Table,
    Id,
    CourierId,
    Fleet,
    StartedAt,
    EndedAt,
}

#[derive(DeriveIden)]
enum ReportMarks {
    Table,
    Name,
    ReadTo,
}

fn count<T: IntoIden>(name: T) -> ColumnDef {
    ColumnDef::new(name).big_integer().not_null().default(0).to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::PickedUpAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        // The rollup worker reads what changed since it last read.
        manager
            .create_index(
                Index::create()
                    .name("deliveries_updated_at")
                    .table(Deliveries::Table)
                    .col(Deliveries::UpdatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(DeliveryDayStats::Table)
                    .col(ColumnDef::new(DeliveryDayStats::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(DeliveryDayStats::Mode).string().not_null())
                    .col(ColumnDef::new(DeliveryDayStats::ServiceAreaId).string().not_null())
                    // `YYYY-MM-DD` on the service area's clock.
                    .col(ColumnDef::new(DeliveryDayStats::Day).string().not_null())
                    .col(count(DeliveryDayStats::Deliveries))
                    .col(count(DeliveryDayStats::Delivered))
                    .col(count(DeliveryDayStats::Cancelled))
                    // JSON: reason → count.
                    .col(ColumnDef::new(DeliveryDayStats::Cancellations).text().not_null())
                    .col(count(DeliveryDayStats::OnTime))
                    .col(count(DeliveryDayStats::Promised))
                    // JSON: minutes → count.
                    .col(ColumnDef::new(DeliveryDayStats::PickupMinutes).text().not_null())
                    .col(ColumnDef::new(DeliveryDayStats::DeliveryMinutes).text().not_null())
                    .col(count(DeliveryDayStats::UpdatedAt))
                    .primary_key(
                        Index::create()
                            .col(DeliveryDayStats::WorkspaceId)
                            .col(DeliveryDayStats::Mode)
                            .col(DeliveryDayStats::Day)
                            .col(DeliveryDayStats::ServiceAreaId),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("delivery_day_stats_area")
                    .table(DeliveryDayStats::Table)
                    .col(DeliveryDayStats::Mode)
                    .col(DeliveryDayStats::Day)
                    .col(DeliveryDayStats::ServiceAreaId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierOnlinePeriods::Table)
                    .col(
                        ColumnDef::new(CourierOnlinePeriods::Id)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierOnlinePeriods::CourierId).string().not_null())
                    // The fleet workspace's id; empty for the platform's couriers.
                    .col(ColumnDef::new(CourierOnlinePeriods::Fleet).string().not_null())
                    .col(ColumnDef::new(CourierOnlinePeriods::StartedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierOnlinePeriods::EndedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_online_periods_fleet")
                    .table(CourierOnlinePeriods::Table)
                    .col(CourierOnlinePeriods::Fleet)
                    .col(CourierOnlinePeriods::StartedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_online_periods_courier")
                    .table(CourierOnlinePeriods::Table)
                    .col(CourierOnlinePeriods::CourierId)
                    .col(CourierOnlinePeriods::EndedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ReportMarks::Table)
                    .col(ColumnDef::new(ReportMarks::Name).string().not_null().primary_key())
                    .col(ColumnDef::new(ReportMarks::ReadTo).big_integer().not_null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ReportMarks::Table.into_iden(),
            CourierOnlinePeriods::Table.into_iden(),
            DeliveryDayStats::Table.into_iden(),
        ] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("deliveries_updated_at")
                    .table(Deliveries::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .drop_column(Deliveries::PickedUpAt)
                    .to_owned(),
            )
            .await
    }
}
