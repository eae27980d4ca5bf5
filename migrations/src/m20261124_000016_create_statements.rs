use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

/// The billing cycle (docs/billing.md): statements, the billing line of
/// every delivered live delivery (on no statement until one bills it), and
/// each workspace's billing day and payment terms. A line's `delivery_id` is
/// its key, so a delivery is on at most one statement. `deliveries.invoiced_at`
/// goes: a line's `statement_id` says whether a delivery was billed.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Statements::Table)
                    .col(ColumnDef::new(Statements::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Statements::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Statements::Status).string().not_null())
                    .col(ColumnDef::new(Statements::Currency).string().not_null())
                    .col(ColumnDef::new(Statements::TotalCents).big_integer().not_null())
                    .col(ColumnDef::new(Statements::DeliveryCount).integer().not_null())
                    .col(ColumnDef::new(Statements::PeriodStart).big_integer().not_null())
                    .col(ColumnDef::new(Statements::PeriodEnd).big_integer().not_null())
                    .col(ColumnDef::new(Statements::IssuedAt).big_integer().not_null())
                    .col(ColumnDef::new(Statements::DueAt).big_integer().not_null())
                    .col(ColumnDef::new(Statements::PaidAt).big_integer().null())
                    .col(ColumnDef::new(Statements::VoidedAt).big_integer().null())
                    .col(ColumnDef::new(Statements::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        // One statement per workspace, period and currency, whoever closes it.
        manager
            .create_index(
                Index::create()
                    .name("statements_period")
                    .table(Statements::Table)
                    .col(Statements::WorkspaceId)
                    .col(Statements::PeriodEnd)
                    .col(Statements::Currency)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // A workspace's statements, newest first, keyset paged.
        manager
            .create_index(
                Index::create()
                    .name("statements_listing")
                    .table(Statements::Table)
                    .col(Statements::WorkspaceId)
                    .col(Statements::IssuedAt)
                    .col(Statements::Id)
                    .to_owned(),
            )
            .await?;
        // The overdue check: open statements by due date.
        manager
            .create_index(
                Index::create()
                    .name("statements_due")
                    .table(Statements::Table)
                    .col(Statements::Status)
                    .col(Statements::DueAt)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(BillingLines::Table)
                    .col(
                        ColumnDef::new(BillingLines::DeliveryId)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(BillingLines::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(BillingLines::StatementId).string().null())
                    .col(ColumnDef::new(BillingLines::Currency).string().not_null())
                    .col(ColumnDef::new(BillingLines::AmountCents).big_integer().not_null())
                    .col(ColumnDef::new(BillingLines::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(BillingLines::DeliveredAt).big_integer().not_null())
                    .col(ColumnDef::new(BillingLines::ExternalId).string().null())
                    .col(ColumnDef::new(BillingLines::VehicleTypeId).string().not_null())
                    .col(ColumnDef::new(BillingLines::PickupAddress).text().not_null())
                    .col(ColumnDef::new(BillingLines::DropoffAddress).text().not_null())
                    .to_owned(),
            )
            .await?;
        // A workspace's unbilled lines (statement_id NULL) by delivery time.
        manager
            .create_index(
                Index::create()
                    .name("billing_lines_unbilled")
                    .table(BillingLines::Table)
                    .col(BillingLines::WorkspaceId)
                    .col(BillingLines::StatementId)
                    .col(BillingLines::DeliveredAt)
                    .col(BillingLines::DeliveryId)
                    .to_owned(),
            )
            .await?;
        // A statement's lines by delivery time.
        manager
            .create_index(
                Index::create()
                    .name("billing_lines_statement")
                    .table(BillingLines::Table)
                    .col(BillingLines::StatementId)
                    .col(BillingLines::DeliveredAt)
                    .col(BillingLines::DeliveryId)
                    .to_owned(),
            )
            .await?;

        for column in [
            ColumnDef::new(Workspaces::BillingDay)
                .integer()
                .not_null()
                .default(1)
                .to_owned(),
            ColumnDef::new(Workspaces::PaymentTermsDays)
                .integer()
                .not_null()
                .default(14)
                .to_owned(),
        ] {
            manager
                .alter_table(Table::alter().table(Workspaces::Table).add_column(column).to_owned())
                .await?;
        }

        // Deliveries delivered before this migration become billable.
        let address = |waypoint: &str| match manager.get_database_backend() {
            DbBackend::Postgres => format!("(route::json -> '{waypoint}' ->> 'address')"),
            _ => format!("json_extract(route, '$.{waypoint}.address')"),
        };
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "INSERT INTO billing_lines (delivery_id, workspace_id, statement_id, currency, amount_cents,
                   created_at, delivered_at, external_id, vehicle_type_id, pickup_address, dropoff_address)
                 SELECT id, workspace_id, NULL, currency, amount_cents, created_at, delivered_at, external_id,
                   vehicle_type_id, {}, {}
                 FROM deliveries
                 WHERE mode = 'live' AND status = 'delivered' AND amount_cents IS NOT NULL
                   AND currency IS NOT NULL AND delivered_at IS NOT NULL",
                address("pickup"),
                address("dropoff"),
            ))
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .drop_column(Deliveries::InvoicedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Deliveries::Table)
                    .add_column(ColumnDef::new(Deliveries::InvoicedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        for column in [Workspaces::BillingDay, Workspaces::PaymentTermsDays] {
            manager
                .alter_table(Table::alter().table(Workspaces::Table).drop_column(column).to_owned())
                .await?;
        }
        manager
            .drop_table(Table::drop().table(BillingLines::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Statements::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Statements {
    Table,
    Id,
    WorkspaceId,
    Status,
    Currency,
    TotalCents,
    DeliveryCount,
    PeriodStart,
    PeriodEnd,
    IssuedAt,
    DueAt,
    PaidAt,
    VoidedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum BillingLines {
    Table,
    DeliveryId,
    WorkspaceId,
    StatementId,
    Currency,
    AmountCents,
    CreatedAt,
    DeliveredAt,
    ExternalId,
    VehicleTypeId,
    PickupAddress,
    DropoffAddress,
}

#[derive(DeriveIden)]
enum Workspaces {
    Table,
    BillingDay,
    PaymentTermsDays,
}

#[derive(DeriveIden)]
enum Deliveries {
    Table,
    InvoicedAt,
}
