use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Workspaces::Table)
                    .col(ColumnDef::new(Workspaces::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Workspaces::Name).string().not_null())
                    .col(ColumnDef::new(Workspaces::Kind).string().not_null())
                    .col(ColumnDef::new(Workspaces::ApiAccess).boolean().not_null())
                    .col(ColumnDef::new(Workspaces::FleetOrderIntake).boolean().not_null())
                    .col(ColumnDef::new(Workspaces::ProofOfDelivery).boolean().not_null())
                    .col(ColumnDef::new(Workspaces::DiscountBps).integer().not_null())
                    .col(ColumnDef::new(Workspaces::InvoiceBillingEnabled).boolean().not_null())
                    .col(ColumnDef::new(Workspaces::CreditLimitCents).big_integer().not_null())
                    .col(ColumnDef::new(Workspaces::StatementOverdue).boolean().not_null())
                    .col(ColumnDef::new(Workspaces::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Workspaces::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Workspaces::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Workspaces {
    Table,
    Id,
    Name,
    Kind,
    ApiAccess,
    FleetOrderIntake,
    ProofOfDelivery,
    DiscountBps,
    InvoiceBillingEnabled,
    CreditLimitCents,
    StatementOverdue,
    CreatedAt,
    UpdatedAt,
}
