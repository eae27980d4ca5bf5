use sea_orm_migration::prelude::*;

/// The courier an audit entry is about (docs/console.md, "Back office and
/// audit log"): a job given to or taken back from a courier names its job
/// as the target, so without this column the log could not say whose hands
/// it changed. The back office shows the courier by name, read when the log
/// is read. Entries written before it stay without one (a courier's own
/// entries still name the courier as their target).
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AuditLog {
    Table,
    CourierId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(AuditLog::Table)
                    .add_column(ColumnDef::new(AuditLog::CourierId).string().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(AuditLog::Table)
                    .drop_column(AuditLog::CourierId)
                    .to_owned(),
            )
            .await
    }
}
