use sea_orm_migration::prelude::*;

/// Planned routes (docs/routing.md "Planned routes"): each driver's shift
/// for a day (one per courier and day: when and where it starts and ends,
/// an optional rest), and the plans of a fleet's day (or of a platform
/// area's, `workspace_id` empty) as proposed and published.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum CourierShifts {
    Table,
    Id,
    CourierId,
    WorkspaceId,
    Day,
    StartsAt,
    EndsAt,
    StartPlace,
    EndPlace,
    RestMinutes,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum RoutePlans {
    Table,
    Id,
    WorkspaceId,
    AreaId,
    Day,
    Status,
    Body,
    CreatedBy,
    CreatedAt,
    PublishedBy,
    PublishedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(CourierShifts::Table)
                    .col(ColumnDef::new(CourierShifts::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierShifts::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierShifts::WorkspaceId).string().null())
                    .col(ColumnDef::new(CourierShifts::Day).string().not_null())
                    .col(ColumnDef::new(CourierShifts::StartsAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierShifts::EndsAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierShifts::StartPlace).text().not_null())
                    .col(ColumnDef::new(CourierShifts::EndPlace).text().not_null())
                    .col(ColumnDef::new(CourierShifts::RestMinutes).integer().null())
                    .col(ColumnDef::new(CourierShifts::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierShifts::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_shifts_courier_day")
                    .table(CourierShifts::Table)
                    .col(CourierShifts::CourierId)
                    .col(CourierShifts::Day)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_shifts_workspace_day")
                    .table(CourierShifts::Table)
                    .col(CourierShifts::WorkspaceId)
                    .col(CourierShifts::Day)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(RoutePlans::Table)
                    .col(ColumnDef::new(RoutePlans::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(RoutePlans::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(RoutePlans::AreaId).string().null())
                    .col(ColumnDef::new(RoutePlans::Day).string().not_null())
                    .col(ColumnDef::new(RoutePlans::Status).string().not_null())
                    .col(ColumnDef::new(RoutePlans::Body).text().not_null())
                    .col(ColumnDef::new(RoutePlans::CreatedBy).string().not_null())
                    .col(ColumnDef::new(RoutePlans::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(RoutePlans::PublishedBy).string().null())
                    .col(ColumnDef::new(RoutePlans::PublishedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("route_plans_workspace_day")
                    .table(RoutePlans::Table)
                    .col(RoutePlans::WorkspaceId)
                    .col(RoutePlans::Day)
                    .col(RoutePlans::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RoutePlans::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(CourierShifts::Table).to_owned())
            .await
    }
}
