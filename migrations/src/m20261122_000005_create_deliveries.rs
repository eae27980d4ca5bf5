use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Deliveries::Table)
                    .col(ColumnDef::new(Deliveries::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Deliveries::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Deliveries::Mode).string().not_null())
                    .col(ColumnDef::new(Deliveries::Status).string().not_null())
                    .col(ColumnDef::new(Deliveries::ExternalId).string().null())
                    .col(ColumnDef::new(Deliveries::QuoteId).string().null())
                    .col(ColumnDef::new(Deliveries::AmountCents).big_integer().null())
                    .col(ColumnDef::new(Deliveries::Currency).string().null())
                    .col(ColumnDef::new(Deliveries::Breakdown).text().null())
                    .col(ColumnDef::new(Deliveries::Route).text().not_null())
                    .col(ColumnDef::new(Deliveries::VehicleTypeId).string().not_null())
                    .col(ColumnDef::new(Deliveries::ServiceAreaId).string().not_null())
                    .col(ColumnDef::new(Deliveries::DistanceKm).double().not_null())
                    .col(ColumnDef::new(Deliveries::DurationMin).big_integer().not_null())
                    .col(ColumnDef::new(Deliveries::Notes).text().null())
                    .col(ColumnDef::new(Deliveries::ScheduledAt).big_integer().null())
                    .col(ColumnDef::new(Deliveries::ProofRequirements).text().not_null())
                    .col(ColumnDef::new(Deliveries::TestScenario).string().null())
                    .col(ColumnDef::new(Deliveries::TrackingToken).string().not_null())
                    .col(ColumnDef::new(Deliveries::TrackingAvailableAt).big_integer().null())
                    .col(ColumnDef::new(Deliveries::Courier).text().null())
                    .col(ColumnDef::new(Deliveries::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Deliveries::UpdatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Deliveries::CancelledAt).big_integer().null())
                    .col(ColumnDef::new(Deliveries::CancellationReason).string().null())
                    .col(ColumnDef::new(Deliveries::CancelReason).string().null())
                    .col(ColumnDef::new(Deliveries::DeliveredAt).big_integer().null())
                    .col(ColumnDef::new(Deliveries::InvoicedAt).big_integer().null())
                    .col(ColumnDef::new(Deliveries::NextStepAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        // Race-free uniqueness of external_id per workspace and mode (NULLs
        // do not collide on either database).
        manager
            .create_index(
                Index::create()
                    .name("deliveries_external_id")
                    .table(Deliveries::Table)
                    .col(Deliveries::WorkspaceId)
                    .col(Deliveries::Mode)
                    .col(Deliveries::ExternalId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Newest-first keyset listing.
        manager
            .create_index(
                Index::create()
                    .name("deliveries_listing")
                    .table(Deliveries::Table)
                    .col(Deliveries::WorkspaceId)
                    .col(Deliveries::Mode)
                    .col(Deliveries::CreatedAt)
                    .col(Deliveries::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("deliveries_tracking_token")
                    .table(Deliveries::Table)
                    .col(Deliveries::TrackingToken)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Due simulator steps and timeouts.
        manager
            .create_index(
                Index::create()
                    .name("deliveries_next_step")
                    .table(Deliveries::Table)
                    .col(Deliveries::NextStepAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Deliveries::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    Id,
    WorkspaceId,
    Mode,
    Status,
    ExternalId,
    QuoteId,
    AmountCents,
    Currency,
    Breakdown,
    /// Waypoints, extras and items as JSON.
    Route,
    VehicleTypeId,
    ServiceAreaId,
    DistanceKm,
    DurationMin,
    Notes,
    ScheduledAt,
    ProofRequirements,
    TestScenario,
    TrackingToken,
    TrackingAvailableAt,
    Courier,
    CreatedAt,
    UpdatedAt,
    CancelledAt,
    CancellationReason,
    /// The client's reason for cancelling.
    CancelReason,
    DeliveredAt,
    InvoicedAt,
    /// When the simulator or a timeout next acts on this delivery.
    NextStepAt,
}
