//! Console users as the identity stack signs them in (docs/console.md
//! "Sessions"): by email, with sessions kept in a cookie that end after 12
//! hours without use, each with a CSRF token that every state-changing
//! console call presents; a new password ends the user's other sessions.
//! Sign-in, sessions and sign-out themselves are `courier_identity::sessions`.

use super::{User, entity as users_table, user_with_password};
use crate::sessions::{self, Session};
use crate::sign_ins::{self, MINUTE_MICROS};
use crate::subjects::{Policy, SessionTable, Subject};
use crate::{CoreError, CoreResult, Identity};
use courier::errors::ErrorCode;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sessions")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub token_hash: String,
        pub user_id: String,
        pub csrf_token: String,
        pub created_at: i64,
        pub last_seen_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        #[sea_orm(
            belongs_to = "crate::accounts::entity::Entity",
            from = "Column::UserId",
            to = "crate::accounts::entity::Column::Id"
        )]
        User,
    }

    impl Related<crate::accounts::entity::Entity> for Entity {
        fn to() -> RelationDef {
            Relation::User.def()
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}

impl SessionTable for entity::Entity {
    const TOKEN_HASH: entity::Column = entity::Column::TokenHash;
    const SUBJECT_ID: entity::Column = entity::Column::UserId;
    const CREATED_AT: entity::Column = entity::Column::CreatedAt;
    const LAST_SEEN_AT: entity::Column = entity::Column::LastSeenAt;
    const CSRF_TOKEN: Option<entity::Column> = Some(entity::Column::CsrfToken);
}

impl Subject for User {
    type Table = users_table::Entity;
    type Sessions = entity::Entity;
    type Handle = Identity;
    const POLICY: Policy = Policy {
        idle_micros: 12 * 60 * MINUTE_MICROS,
        touch_every_micros: MINUTE_MICROS,
        throttle: sign_ins::Names {
            login: "email",
            address: "console",
        },
        wrong_credentials: "The email or the password is wrong.",
        invalid_session: (
            ErrorCode::InvalidSession,
            "The console session is unknown, signed out or expired; sign in again.",
        ),
    };

    fn id(&self) -> &str {
        &self.id
    }

    /// Emails are stored trimmed and in lower case.
    fn login(typed: &str) -> String {
        typed.trim().to_lowercase()
    }

    fn login_column(_: &str) -> users_table::Column {
        users_table::Column::Email
    }

    fn password_hash(row: &users_table::Model) -> Option<&str> {
        Some(&row.password_hash)
    }

    fn from_row(row: users_table::Model) -> User {
        super::from_model(row)
    }
}

/// Changes the password of `session`'s user (signed in with `token`) and
/// ends every other session of theirs.
pub async fn change_password(
    identity: &Identity,
    session: &Session<User>,
    token: &str,
    current: &str,
    new: &str,
) -> CoreResult<()> {
    let Some(user) = user_with_password(&identity.db, &session.subject.email, current).await? else {
        return Err(CoreError::at(
            ErrorCode::InvalidCredentials,
            "current_password",
            "The current password is wrong.",
        ));
    };
    let now = identity.clock.now_micros();
    let tx = identity.begin().await?;
    super::set_password(&*tx, now, &user.id, new).await?;
    sessions::end_all::<User>(identity, &tx, &user.id, Some(token)).await?;
    tx.commit().await
}
