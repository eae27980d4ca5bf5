use sea_orm_migration::prelude::*;

/// The workspace's open live amount (priced, not cancelled, not invoiced),
/// kept as a running total so that the credit check of a live create is one
/// conditional update instead of a sum over every open delivery.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Workspaces::Table)
                    .add_column(
                        ColumnDef::new(Workspaces::OpenAmountCents)
                            .big_integer()
                            .not_null()
                            .default(0),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE workspaces SET open_amount_cents = (
                   SELECT COALESCE(SUM(amount_cents), 0) FROM deliveries
                   WHERE deliveries.workspace_id = workspaces.id AND deliveries.mode = 'live'
                     AND deliveries.status <> 'cancelled' AND deliveries.invoiced_at IS NULL)",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Workspaces::Table)
                    .drop_column(Workspaces::OpenAmountCents)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum Workspaces {
    Table,
    OpenAmountCents,
}
