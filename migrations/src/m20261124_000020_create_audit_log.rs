use sea_orm_migration::prelude::*;

/// The record of every change made through the internal admin and billing
/// services (docs/console.md, "Back office"): who (an operator or a service
/// system), what, in which workspace, and when.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AuditLog {
    Table,
    Id,
    CreatedAt,
    Actor,
    Action,
    WorkspaceId,
    Target,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(AuditLog::Table)
                    .col(ColumnDef::new(AuditLog::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(AuditLog::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(AuditLog::Actor).string().not_null())
                    .col(ColumnDef::new(AuditLog::Action).string().not_null())
                    .col(ColumnDef::new(AuditLog::WorkspaceId).string().null())
                    .col(ColumnDef::new(AuditLog::Target).string().not_null())
                    .to_owned(),
            )
            .await?;
        // The log is read newest first, in keyset pages.
        manager
            .create_index(
                Index::create()
                    .name("audit_log_created")
                    .table(AuditLog::Table)
                    .col(AuditLog::CreatedAt)
                    .col(AuditLog::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(AuditLog::Table).to_owned())
            .await
    }
}
