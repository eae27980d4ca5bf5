use sea_orm_migration::prelude::*;

/// Couriers (docs/couriers.md): their accounts and vehicles, invitation
/// links and app sessions (only SHA-256 hashes of tokens are stored), their
/// last known positions and the trails of their jobs, their assignments to
/// jobs, the offers of automatic dispatch, and the feed of changes each
/// courier's app is pushed. Proof checkpoints gain the app's submission
/// id, so that a resent submission is recognised; a fleet's plan gains
/// automatic dispatch of its board orders to its own drivers.
#[derive(DeriveMigrationName)]
pub struct Migration;

/// Statements that SeaQuery cannot say the same on both databases: partial
/// unique indexes (SQLite and PostgreSQL both have them).
const PARTIAL_INDEXES: &[(&str, &str)] = &[
    (
        "couriers_phone",
        "CREATE UNIQUE INDEX couriers_phone ON couriers (phone) WHERE phone IS NOT NULL",
    ),
    (
        "couriers_email",
        "CREATE UNIQUE INDEX couriers_email ON couriers (email) WHERE email IS NOT NULL",
    ),
    // One open assignment per job and per courier: a job never has two
    // couriers, a courier never two jobs, whichever replica assigns.
    (
        "courier_assignments_open_job",
        "CREATE UNIQUE INDEX courier_assignments_open_job ON courier_assignments (job_id) WHERE ended_at IS NULL",
    ),
    (
        "courier_assignments_open_courier",
        "CREATE UNIQUE INDEX courier_assignments_open_courier ON courier_assignments (courier_id) WHERE ended_at IS NULL",
    ),
    // One open offer per job and per courier, on every replica.
    (
        "courier_offers_open_job",
        "CREATE UNIQUE INDEX courier_offers_open_job ON courier_offers (job_id) WHERE status = 'open'",
    ),
    (
        "courier_offers_open_courier",
        "CREATE UNIQUE INDEX courier_offers_open_courier ON courier_offers (courier_id) WHERE status = 'open'",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Couriers::Table)
                    .col(ColumnDef::new(Couriers::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Couriers::WorkspaceId).string().null())
                    .col(ColumnDef::new(Couriers::Name).string().not_null())
                    .col(ColumnDef::new(Couriers::Phone).string().null())
                    .col(ColumnDef::new(Couriers::Email).string().null())
                    .col(ColumnDef::new(Couriers::PasswordHash).string().null())
                    .col(ColumnDef::new(Couriers::JoinedAt).big_integer().null())
                    .col(ColumnDef::new(Couriers::VehicleTypeId).string().not_null())
                    .col(ColumnDef::new(Couriers::VehicleMake).string().null())
                    .col(ColumnDef::new(Couriers::VehicleModel).string().null())
                    .col(ColumnDef::new(Couriers::VehicleColor).string().null())
                    .col(ColumnDef::new(Couriers::VehiclePlate).string().null())
                    .col(ColumnDef::new(Couriers::PhotoBlobKey).string().null())
                    .col(ColumnDef::new(Couriers::PhotoContentType).string().null())
                    .col(ColumnDef::new(Couriers::Status).string().not_null())
                    .col(ColumnDef::new(Couriers::Availability).string().not_null())
                    .col(ColumnDef::new(Couriers::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Couriers::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("couriers_listing")
                    .table(Couriers::Table)
                    .col(Couriers::WorkspaceId)
                    .col(Couriers::CreatedAt)
                    .col(Couriers::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierInvitations::Table)
                    .col(
                        ColumnDef::new(CourierInvitations::TokenHash)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierInvitations::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierInvitations::CreatedBy).string().not_null())
                    .col(ColumnDef::new(CourierInvitations::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierInvitations::ExpiresAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierInvitations::AcceptedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierSessions::Table)
                    .col(
                        ColumnDef::new(CourierSessions::TokenHash)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierSessions::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierSessions::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierSessions::LastSeenAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_sessions_courier")
                    .table(CourierSessions::Table)
                    .col(CourierSessions::CourierId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierLocations::Table)
                    .col(
                        ColumnDef::new(CourierLocations::CourierId)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierLocations::Latitude).double().not_null())
                    .col(ColumnDef::new(CourierLocations::Longitude).double().not_null())
                    .col(ColumnDef::new(CourierLocations::AccuracyM).double().null())
                    .col(ColumnDef::new(CourierLocations::HeadingDeg).double().null())
                    .col(ColumnDef::new(CourierLocations::SpeedMps).double().null())
                    .col(ColumnDef::new(CourierLocations::RecordedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierLocations::ReceivedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierTrails::Table)
                    .col(ColumnDef::new(CourierTrails::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierTrails::RecordedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierTrails::JobId).string().not_null())
                    .col(ColumnDef::new(CourierTrails::Latitude).double().not_null())
                    .col(ColumnDef::new(CourierTrails::Longitude).double().not_null())
                    .col(ColumnDef::new(CourierTrails::AccuracyM).double().null())
                    // A position the phone sends again (a retry) is the same row.
                    .primary_key(
                        Index::create()
                            .col(CourierTrails::CourierId)
                            .col(CourierTrails::RecordedAt),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_trails_job")
                    .table(CourierTrails::Table)
                    .col(CourierTrails::JobId)
                    .col(CourierTrails::RecordedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_trails_age")
                    .table(CourierTrails::Table)
                    .col(CourierTrails::RecordedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierAssignments::Table)
                    .col(ColumnDef::new(CourierAssignments::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierAssignments::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierAssignments::JobId).string().not_null())
                    .col(ColumnDef::new(CourierAssignments::AssignedBy).string().not_null())
                    .col(ColumnDef::new(CourierAssignments::AssignedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierAssignments::EndedAt).big_integer().null())
                    .col(ColumnDef::new(CourierAssignments::Outcome).string().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_assignments_history")
                    .table(CourierAssignments::Table)
                    .col(CourierAssignments::CourierId)
                    .col(CourierAssignments::EndedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierFeed::Table)
                    .col(
                        ColumnDef::new(CourierFeed::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(CourierFeed::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierFeed::Kind).string().not_null())
                    .col(ColumnDef::new(CourierFeed::JobId).string().not_null())
                    .col(ColumnDef::new(CourierFeed::OfferId).string().null())
                    .col(ColumnDef::new(CourierFeed::Reason).string().null())
                    .col(ColumnDef::new(CourierFeed::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_feed_courier")
                    .table(CourierFeed::Table)
                    .col(CourierFeed::CourierId)
                    .col(CourierFeed::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(CourierOffers::Table)
                    .col(ColumnDef::new(CourierOffers::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierOffers::JobId).string().not_null())
                    .col(ColumnDef::new(CourierOffers::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierOffers::Status).string().not_null())
                    .col(ColumnDef::new(CourierOffers::DistanceKm).double().not_null())
                    .col(ColumnDef::new(CourierOffers::MinutesToPickup).big_integer().not_null())
                    .col(ColumnDef::new(CourierOffers::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierOffers::ExpiresAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierOffers::AnsweredAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_offers_job")
                    .table(CourierOffers::Table)
                    .col(CourierOffers::JobId)
                    .col(CourierOffers::CourierId)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ProofCheckpoints::Table)
                    .add_column(ColumnDef::new(ProofCheckpoints::SubmissionId).string().null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Workspaces::Table)
                    .add_column(
                        ColumnDef::new(Workspaces::AutoDispatch)
                            .boolean()
                            .not_null()
                            .default(false),
                    )
                    .to_owned(),
            )
            .await?;
        for (_, statement) in PARTIAL_INDEXES {
            manager.get_connection().execute_unprepared(statement).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, _) in PARTIAL_INDEXES {
            manager
                .get_connection()
                .execute_unprepared(&format!("DROP INDEX {name}"))
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Workspaces::Table)
                    .drop_column(Workspaces::AutoDispatch)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ProofCheckpoints::Table)
                    .drop_column(ProofCheckpoints::SubmissionId)
                    .to_owned(),
            )
            .await?;
        for table in [
            CourierOffers::Table.into_iden(),
            CourierFeed::Table.into_iden(),
            CourierAssignments::Table.into_iden(),
            CourierTrails::Table.into_iden(),
            CourierLocations::Table.into_iden(),
            CourierSessions::Table.into_iden(),
            CourierInvitations::Table.into_iden(),
            Couriers::Table.into_iden(),
        ] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Couriers {
    Table,
    Id,
    WorkspaceId,
    Name,
    Phone,
    Email,
    PasswordHash,
    JoinedAt,
    VehicleTypeId,
    VehicleMake,
    VehicleModel,
    VehicleColor,
    VehiclePlate,
    PhotoBlobKey,
    PhotoContentType,
    Status,
    Availability,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum CourierInvitations {
    Table,
    TokenHash,
    CourierId,
    CreatedBy,
    CreatedAt,
    ExpiresAt,
    AcceptedAt,
}

#[derive(DeriveIden)]
enum CourierSessions {
    Table,
    TokenHash,
    CourierId,
    CreatedAt,
    LastSeenAt,
}

#[derive(DeriveIden)]
enum CourierLocations {
    Table,
    CourierId,
    Latitude,
    Longitude,
    AccuracyM,
    HeadingDeg,
    SpeedMps,
    RecordedAt,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum CourierTrails {
    Table,
    JobId,
    CourierId,
    Latitude,
    Longitude,
    AccuracyM,
    RecordedAt,
}

#[derive(DeriveIden)]
enum CourierAssignments {
    Table,
    Id,
    CourierId,
    JobId,
    AssignedBy,
    AssignedAt,
    EndedAt,
    Outcome,
}

#[derive(DeriveIden)]
enum CourierFeed {
    Table,
    Id,
    CourierId,
    Kind,
    JobId,
    OfferId,
    Reason,
    CreatedAt,
}

#[derive(DeriveIden)]
enum CourierOffers {
    Table,
    Id,
    JobId,
    CourierId,
    Status,
    DistanceKm,
    MinutesToPickup,
    CreatedAt,
    ExpiresAt,
    AnsweredAt,
}

#[derive(DeriveIden)]
enum Workspaces {
    Table,
    AutoDispatch,
}

#[derive(DeriveIden)]
enum ProofCheckpoints {
    Table,
    SubmissionId,
}
