use sea_orm_migration::prelude::*;

/// The history of a board order (docs/console.md, "Fleet dispatch board"):
/// every move a dispatcher made, from which status to which, by whom and
/// when. Rows are only ever added.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum FleetOrderMoves {
    Table,
    Id,
    FleetOrderId,
    FromStatus,
    ToStatus,
    Actor,
    MovedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(FleetOrderMoves::Table)
                    .col(ColumnDef::new(FleetOrderMoves::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(FleetOrderMoves::FleetOrderId).string().not_null())
                    .col(ColumnDef::new(FleetOrderMoves::FromStatus).string().not_null())
                    .col(ColumnDef::new(FleetOrderMoves::ToStatus).string().not_null())
                    .col(ColumnDef::new(FleetOrderMoves::Actor).string().not_null())
                    .col(ColumnDef::new(FleetOrderMoves::MovedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        // An order's history is read oldest first.
        manager
            .create_index(
                Index::create()
                    .name("fleet_order_moves_order")
                    .table(FleetOrderMoves::Table)
                    .col(FleetOrderMoves::FleetOrderId)
                    .col(FleetOrderMoves::MovedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(FleetOrderMoves::Table).to_owned())
            .await
    }
}
