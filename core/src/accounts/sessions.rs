//! Console sessions (docs/console.md "Sessions"): a random token the console
//! keeps in an HttpOnly cookie, of which only the SHA-256 is stored; it ends
//! after 12 hours without use, at sign-out, and when the password changes.
//! Each session has a CSRF token that every state-changing console call
//! presents. Failed sign-ins are counted per email and per client address
//! in the database (every replica sees them) and throttled.

use super::{User, entity as users_table, user_with_password};
use crate::secrets::sha256_hex;
use crate::{Core, CoreError, CoreResult, db, ids, sign_ins};
use courier::errors::ErrorCode;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

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
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

const MINUTE_MICROS: i64 = 60_000_000;
/// A session ends after this long without use.
pub const IDLE_MICROS: i64 = 12 * 60 * MINUTE_MICROS;
/// Use is recorded at most this often, so reads do not write every time.
const TOUCH_EVERY_MICROS: i64 = MINUTE_MICROS;

/// A signed-in session, as the console sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub user: User,
    /// Every state-changing call presents it.
    pub csrf_token: String,
    pub expires_at: i64,
}

/// Signs `email` in with `password` from the client `address`; the new
/// session's token (shown once, to be kept in a cookie) and the session.
pub async fn sign_in(core: &Core, email: &str, password: &str, address: &str) -> CoreResult<(String, Session)> {
    let now = core.clock.now_micros();
    let user = check_password(core, email, password, address).await?;
    let token = ids::random_base62(43);
    let csrf_token = ids::random_base62(32);
    entity::ActiveModel {
        token_hash: Set(sha256_hex(token.as_bytes())),
        user_id: Set(user.id.clone()),
        csrf_token: Set(csrf_token.clone()),
        created_at: Set(now),
        last_seen_at: Set(now),
    }
    .insert(&core.writer)
    .await?;
    let session = Session {
        user: super::from_model(user),
        csrf_token,
        expires_at: now + IDLE_MICROS,
    };
    Ok((token, session))
}

/// The user of `email` when `password` is theirs, an attempt from the client
/// `address`; failed attempts count towards the sign-in throttle, whatever
/// form made them (sign-in, joining by invitation).
pub(super) async fn check_password(
    core: &Core,
    email: &str,
    password: &str,
    address: &str,
) -> CoreResult<users_table::Model> {
    let now = core.clock.now_micros();
    let email = email.trim().to_lowercase();
    let attempt = sign_ins::Attempt::console(&email, address);
    sign_ins::check(&core.db, &attempt, now).await?;
    let Some(user) = user_with_password(&core.db, &email, password).await? else {
        sign_ins::failed(core, &attempt, now).await?;
        return Err(CoreError::new(
            ErrorCode::InvalidCredentials,
            "The email or the password is wrong.",
        ));
    };
    sign_ins::succeeded(core, &attempt).await?;
    Ok(user)
}

/// The session of `token`, used now; `401 invalid_session` when unknown,
/// ended or idle for 12 hours.
pub async fn authenticate(core: &Core, token: &str) -> CoreResult<Session> {
    let now = core.clock.now_micros();
    let invalid = || {
        CoreError::new(
            ErrorCode::InvalidSession,
            "The console session is unknown, signed out or expired; sign in again.",
        )
    };
    let row = entity::Entity::find_by_id(sha256_hex(token.as_bytes()))
        .one(&core.db)
        .await?
        .ok_or_else(invalid)?;
    if row.last_seen_at + IDLE_MICROS <= now {
        entity::Entity::delete_by_id(row.token_hash).exec(&core.writer).await?;
        return Err(invalid());
    }
    let mut last_seen_at = row.last_seen_at;
    if now - row.last_seen_at >= TOUCH_EVERY_MICROS {
        last_seen_at = now;
        entity::ActiveModel {
            token_hash: Set(row.token_hash.clone()),
            last_seen_at: Set(now),
            ..Default::default()
        }
        .update(&core.writer)
        .await?;
    }
    let user = users_table::Entity::find_by_id(row.user_id.clone())
        .one(&core.db)
        .await?
        .ok_or_else(invalid)?;
    Ok(Session {
        user: super::from_model(user),
        csrf_token: row.csrf_token,
        expires_at: last_seen_at + IDLE_MICROS,
    })
}

/// `403 invalid_csrf_token` unless `presented` is the session's token.
pub fn check_csrf(session: &Session, presented: Option<&str>) -> CoreResult<()> {
    let expected = session.csrf_token.as_bytes();
    let matches = presented.is_some_and(|p| {
        p.len() == expected.len() && p.bytes().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    });
    if matches {
        Ok(())
    } else {
        Err(CoreError::new(
            ErrorCode::InvalidCsrfToken,
            "The form is out of date or did not come from the console; reload the page and try again.",
        ))
    }
}

/// Ends the session of `token`.
pub async fn sign_out(core: &Core, token: &str) -> CoreResult<()> {
    entity::Entity::delete_by_id(sha256_hex(token.as_bytes()))
        .exec(&core.writer)
        .await?;
    Ok(())
}

/// Changes the password of `session`'s user (signed in with `token`) and
/// ends every other session of theirs.
pub async fn change_password(core: &Core, session: &Session, token: &str, current: &str, new: &str) -> CoreResult<()> {
    let Some(user) = user_with_password(&core.db, &session.user.email, current).await? else {
        return Err(CoreError::at(
            ErrorCode::InvalidCredentials,
            "current_password",
            "The current password is wrong.",
        ));
    };
    let now = core.clock.now_micros();
    let tx = db::begin(core).await?;
    super::set_password(&*tx, now, &user.id, new).await?;
    entity::Entity::delete_many()
        .filter(entity::Column::UserId.eq(&user.id))
        .filter(entity::Column::TokenHash.ne(sha256_hex(token.as_bytes())))
        .exec(&*tx)
        .await?;
    tx.commit().await
}

#[cfg(test)]
mod tests;
