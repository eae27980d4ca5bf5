use sea_orm_migration::prelude::*;

/// Courier pay (docs/couriers.md "Pay"): the pay rules, versioned per scope
/// (`vehicle_type:<id>` for platform couriers, `fleet:<workspace>` for a
/// fleet's drivers; a version is never changed, a new one is added), the
/// pay fixed for each offer and assignment from the rule then in force, and
/// the earnings lines a courier's statements add up. The unique indexes
/// keep one version number per scope, one pay per offer and per
/// assignment, and one job line and one waiting line per assignment, on
/// every replica.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum CourierPayRules {
    Table,
    Id,
    Scope,
    Version,
    Currency,
    BaseCents,
    PerKmCents,
    PerMinuteCents,
    WaitingPerMinuteCents,
    SurchargeSharePercent,
    CreatedAt,
    CreatedBy,
}

#[derive(DeriveIden)]
enum CourierJobPay {
    Table,
    Id,
    CourierId,
    JobId,
    OfferId,
    AssignmentId,
    RuleId,
    Currency,
    BaseCents,
    DistanceCents,
    TimeCents,
    SurchargeCents,
    WaitingPerMinuteCents,
    WaitingCents,
    ArrivedAt,
    PickedUpAt,
    CreatedAt,
}

#[derive(DeriveIden)]
enum CourierEarnings {
    Table,
    Id,
    CourierId,
    Kind,
    JobId,
    AssignmentId,
    Currency,
    AmountCents,
    Reason,
    CreatedBy,
    EarnedAt,
    StatementId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(CourierPayRules::Table)
                    .col(ColumnDef::new(CourierPayRules::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierPayRules::Scope).string().not_null())
                    .col(ColumnDef::new(CourierPayRules::Version).integer().not_null())
                    .col(ColumnDef::new(CourierPayRules::Currency).string().not_null())
                    .col(ColumnDef::new(CourierPayRules::BaseCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierPayRules::PerKmCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierPayRules::PerMinuteCents).big_integer().not_null())
                    .col(
                        ColumnDef::new(CourierPayRules::WaitingPerMinuteCents)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(CourierPayRules::SurchargeSharePercent)
                            .integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(CourierPayRules::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierPayRules::CreatedBy).string().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("courier_pay_rules_scope_version")
                    .table(CourierPayRules::Table)
                    .col(CourierPayRules::Scope)
                    .col(CourierPayRules::Version)
                    .unique()
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(CourierJobPay::Table)
                    .col(ColumnDef::new(CourierJobPay::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierJobPay::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierJobPay::JobId).string().not_null())
                    .col(ColumnDef::new(CourierJobPay::OfferId).string().null())
                    .col(ColumnDef::new(CourierJobPay::AssignmentId).string().null())
                    .col(ColumnDef::new(CourierJobPay::RuleId).string().not_null())
                    .col(ColumnDef::new(CourierJobPay::Currency).string().not_null())
                    .col(ColumnDef::new(CourierJobPay::BaseCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierJobPay::DistanceCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierJobPay::TimeCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierJobPay::SurchargeCents).big_integer().not_null())
                    .col(
                        ColumnDef::new(CourierJobPay::WaitingPerMinuteCents)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(CourierJobPay::WaitingCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierJobPay::ArrivedAt).big_integer().null())
                    .col(ColumnDef::new(CourierJobPay::PickedUpAt).big_integer().null())
                    .col(ColumnDef::new(CourierJobPay::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            ("courier_job_pay_offer", CourierJobPay::OfferId),
            ("courier_job_pay_assignment", CourierJobPay::AssignmentId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(CourierJobPay::Table)
                        .col(column)
                        .unique()
                        .to_owned(),
                )
                .await?;
        }

        manager
            .create_table(
                Table::create()
                    .table(CourierEarnings::Table)
                    .col(ColumnDef::new(CourierEarnings::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(CourierEarnings::CourierId).string().not_null())
                    .col(ColumnDef::new(CourierEarnings::Kind).string().not_null())
                    .col(ColumnDef::new(CourierEarnings::JobId).string().null())
                    .col(ColumnDef::new(CourierEarnings::AssignmentId).string().null())
                    .col(ColumnDef::new(CourierEarnings::Currency).string().not_null())
                    .col(ColumnDef::new(CourierEarnings::AmountCents).big_integer().not_null())
                    .col(ColumnDef::new(CourierEarnings::Reason).string().null())
                    .col(ColumnDef::new(CourierEarnings::CreatedBy).string().null())
                    .col(ColumnDef::new(CourierEarnings::EarnedAt).big_integer().not_null())
                    .col(ColumnDef::new(CourierEarnings::StatementId).string().null())
                    .to_owned(),
            )
            .await?;
        // A courier's lines by time: the app's day and week, a statement's close.
        manager
            .create_index(
                Index::create()
                    .name("courier_earnings_courier_time")
                    .table(CourierEarnings::Table)
                    .col(CourierEarnings::CourierId)
                    .col(CourierEarnings::EarnedAt)
                    .to_owned(),
            )
            .await?;
        // An assignment's job and waiting lines, once each.
        manager
            .create_index(
                Index::create()
                    .name("courier_earnings_assignment_kind")
                    .table(CourierEarnings::Table)
                    .col(CourierEarnings::AssignmentId)
                    .col(CourierEarnings::Kind)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(CourierEarnings::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(CourierJobPay::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(CourierPayRules::Table).to_owned())
            .await?;
        Ok(())
    }
}
