use sea_orm_migration::prelude::*;

/// Console accounts (docs/console.md): users (argon2id password hashes),
/// their memberships of workspaces with a role, sessions (only the SHA-256
/// of a session token is stored), invitations (likewise) and the failed
/// sign-ins that throttle guessing, kept in the database so that every
/// replica counts them.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Users::Table)
                    .col(ColumnDef::new(Users::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(Users::Email).string().not_null())
                    .col(ColumnDef::new(Users::Name).string().not_null())
                    .col(ColumnDef::new(Users::PasswordHash).string().not_null())
                    .col(ColumnDef::new(Users::Operator).boolean().not_null().default(false))
                    .col(ColumnDef::new(Users::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Users::UpdatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("users_email")
                    .table(Users::Table)
                    .col(Users::Email)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Memberships::Table)
                    .col(ColumnDef::new(Memberships::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Memberships::UserId).string().not_null())
                    .col(ColumnDef::new(Memberships::Role).string().not_null())
                    .col(ColumnDef::new(Memberships::CreatedAt).big_integer().not_null())
                    .primary_key(Index::create().col(Memberships::WorkspaceId).col(Memberships::UserId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("memberships_user")
                    .table(Memberships::Table)
                    .col(Memberships::UserId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Sessions::Table)
                    .col(ColumnDef::new(Sessions::TokenHash).string().not_null().primary_key())
                    .col(ColumnDef::new(Sessions::UserId).string().not_null())
                    .col(ColumnDef::new(Sessions::CsrfToken).string().not_null())
                    .col(ColumnDef::new(Sessions::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Sessions::LastSeenAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("sessions_user")
                    .table(Sessions::Table)
                    .col(Sessions::UserId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Invitations::Table)
                    .col(ColumnDef::new(Invitations::TokenHash).string().not_null().primary_key())
                    .col(ColumnDef::new(Invitations::WorkspaceId).string().not_null())
                    .col(ColumnDef::new(Invitations::Role).string().not_null())
                    .col(ColumnDef::new(Invitations::CreatedBy).string().not_null())
                    .col(ColumnDef::new(Invitations::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Invitations::ExpiresAt).big_integer().not_null())
                    .col(ColumnDef::new(Invitations::AcceptedBy).string().null())
                    .col(ColumnDef::new(Invitations::AcceptedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(SignInFailures::Table)
                    .col(
                        ColumnDef::new(SignInFailures::Subject)
                            .string()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(SignInFailures::WindowStart).big_integer().not_null())
                    .col(ColumnDef::new(SignInFailures::Failures).integer().not_null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            SignInFailures::Table.into_iden(),
            Invitations::Table.into_iden(),
            Sessions::Table.into_iden(),
            Memberships::Table.into_iden(),
            Users::Table.into_iden(),
        ] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    Email,
    Name,
    PasswordHash,
    Operator,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Memberships {
    Table,
    WorkspaceId,
    UserId,
    Role,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
    TokenHash,
    UserId,
    CsrfToken,
    CreatedAt,
    LastSeenAt,
}

#[derive(DeriveIden)]
enum Invitations {
    Table,
    TokenHash,
    WorkspaceId,
    Role,
    CreatedBy,
    CreatedAt,
    ExpiresAt,
    AcceptedBy,
    AcceptedAt,
}

#[derive(DeriveIden)]
enum SignInFailures {
    Table,
    Subject,
    WindowStart,
    Failures,
}
