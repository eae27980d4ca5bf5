use sea_orm_migration::prelude::*;

/// Courier statements (docs/couriers.md "Statements"): a courier's week in
/// one currency, its totals written from its lines when it closes. The
/// unique index on (courier, week, currency) makes a second close of a
/// week, on any replica, change nothing; earnings lines name their
/// statement (`courier_earnings.statement_id`, indexed here).
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum CourierStatements {
    Table,
    Id,
    CourierId,
    PeriodStart,
    PeriodEnd,
    Currency,
    Jobs,
    JobCents,
    WaitingCents,
    TipCents,
    AdjustmentCents,
    TotalCents,
    ClosedAt,
    ClosedBy,
}

#[derive(DeriveIden)]
enum CourierEarnings {
    Table,
    StatementId,
    EarnedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let cents = |column: CourierStatements| ColumnDef::new(column).big_integer().not_null().to_owned();
        manager
            .create_table(
                Table::create()
                    .table(CourierStatements::Table)
                    .col(ColumnDef::new(CourierStatements::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierStatements::CourierId).string().not_null())
                    .col(cents(CourierStatements::PeriodStart))
                    .col(cents(CourierStatements::PeriodEnd))
                    .col(ColumnDef::new(CourierStatements::Currency).string().not_null())
                    .col(cents(CourierStatements::Jobs))
                    .col(cents(CourierStatements::JobCents))
                    .col(cents(CourierStatements::WaitingCents))
                    .col(cents(CourierStatements::TipCents))
                    .col(cents(CourierStatements::AdjustmentCents))
                    .col(cents(CourierStatements::TotalCents))
                    .col(cents(CourierStatements::ClosedAt))
                    .col(ColumnDef::new(CourierStatements::ClosedBy).string().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_statements_week")
                    .table(CourierStatements::Table)
                    .col(CourierStatements::CourierId)
                    .col(CourierStatements::PeriodStart)
                    .col(CourierStatements::Currency)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_earnings_statement")
                    .table(CourierEarnings::Table)
                    .col(CourierEarnings::StatementId)
                    .col(CourierEarnings::EarnedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("courier_earnings_statement")
                    .table(CourierEarnings::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(CourierStatements::Table).to_owned())
            .await
    }
}
