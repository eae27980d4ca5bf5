use sea_orm_migration::prelude::*;

/// Usage charges (docs/billing.md "SMS notifications"): one row per live SMS
/// a provider took, written in the transaction that records the message as
/// sent, at the catalogue's price then. Its key is the message's id, so a
/// message is charged at most once; `statement_id` is empty until a
/// statement bills it, as a billing line's. Statements say what they billed
/// of them: `sms_count`, `sms_cents` (in `total_cents`) and the price per
/// message when every one had the same (`sms_unit_cents`).
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum UsageCharges {
    Table,
    Id,
    WorkspaceId,
    Kind,
    DeliveryId,
    Currency,
    AmountCents,
    CreatedAt,
    StatementId,
}

#[derive(DeriveIden)]
enum Statements {
    Table,
    SmsCount,
    SmsCents,
    SmsUnitCents,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(UsageCharges::Table)
                    .col(ColumnDef::new(UsageCharges::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(UsageCharges::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(UsageCharges::Kind).string().not_null())
                    .col(ColumnDef::new(UsageCharges::DeliveryId).string().not_null())
                    .col(ColumnDef::new(UsageCharges::Currency).string().not_null())
                    .col(ColumnDef::new(UsageCharges::AmountCents).big_integer().not_null())
                    .col(ColumnDef::new(UsageCharges::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(UsageCharges::StatementId).string().null())
                    .to_owned(),
            )
            .await?;
        // A workspace's unbilled charges (statement_id NULL) by time: what a
        // close bills.
        manager
            .create_index(
                Index::create()
                    .name("usage_charges_unbilled")
                    .table(UsageCharges::Table)
                    .col(UsageCharges::WorkspaceId)
                    .col(UsageCharges::StatementId)
                    .col(UsageCharges::CreatedAt)
                    .to_owned(),
            )
            .await?;
        // A statement's charges.
        manager
            .create_index(
                Index::create()
                    .name("usage_charges_statement")
                    .table(UsageCharges::Table)
                    .col(UsageCharges::StatementId)
                    .col(UsageCharges::CreatedAt)
                    .col(UsageCharges::Id)
                    .to_owned(),
            )
            .await?;
        // One column per statement: SQLite alters a table one change at a time.
        for column in [
            ColumnDef::new(Statements::SmsCount)
                .integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Statements::SmsCents)
                .big_integer()
                .not_null()
                .default(0)
                .to_owned(),
            ColumnDef::new(Statements::SmsUnitCents).big_integer().null().to_owned(),
        ] {
            manager
                .alter_table(Table::alter().table(Statements::Table).add_column(column).to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Statements::SmsUnitCents, Statements::SmsCents, Statements::SmsCount] {
            manager
                .alter_table(Table::alter().table(Statements::Table).drop_column(column).to_owned())
                .await?;
        }
        manager
            .drop_table(Table::drop().table(UsageCharges::Table).to_owned())
            .await
    }
}
