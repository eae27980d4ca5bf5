//! Invitation links of every kind (docs/console.md "Invitations",
//! docs/couriers.md "A courier's life"): a random token, of which only the
//! SHA-256 is stored, that works once and for 7 days. What a link is for
//! and what accepting it does are its kind's.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::subjects::read;
use crate::{CoreError, CoreResult, Identity};
use courier::errors::ErrorCode;
use courier_store::ids;
use courier_store::secrets::sha256_hex;

/// How long a link works.
pub const VALID_MICROS: i64 = 7 * 86_400_000_000;

/// A kind's table of links, by the columns every kind has: the SHA-256 of
/// the token (the primary key), who made it (as the audit log names
/// actors), when, when it expires, when it was accepted (and by whom,
/// where the kind records it), and what the link is for.
pub trait LinkTable: EntityTrait {
    const TOKEN_HASH: Self::Column;
    const CREATED_BY: Self::Column;
    const CREATED_AT: Self::Column;
    const EXPIRES_AT: Self::Column;
    const ACCEPTED_AT: Self::Column;
    const ACCEPTED_BY: Option<Self::Column>;
    /// What a used link says, and an expired one: whom to ask for a new one.
    const USED: &'static str;
    const EXPIRED: &'static str;

    /// What a link is for (a workspace and a role; a courier).
    type Target;

    /// A new row for `target`: its own columns; [`create`] sets the link's.
    fn row(target: Self::Target) -> Self::ActiveModel;
}

/// The columns every kind's link table names alike (`token_hash`,
/// `created_by`, `created_at`, `expires_at`, `accepted_at`), stated in a
/// kind's [`LinkTable`] impl: `link_columns!(entity::Column);`.
#[macro_export]
macro_rules! link_columns {
    ($($column:ident)::+) => {
        const TOKEN_HASH: $($column)::+ = $($column)::+::TokenHash;
        const CREATED_BY: $($column)::+ = $($column)::+::CreatedBy;
        const CREATED_AT: $($column)::+ = $($column)::+::CreatedAt;
        const EXPIRES_AT: $($column)::+ = $($column)::+::ExpiresAt;
        const ACCEPTED_AT: $($column)::+ = $($column)::+::AcceptedAt;
    };
}

/// A new link for `target`, made by `created_by`, written on `db`: its
/// token (shown once) and when it expires.
pub async fn create<T: LinkTable>(
    identity: &Identity,
    db: &impl ConnectionTrait,
    created_by: &str,
    target: T::Target,
) -> CoreResult<(String, i64)> {
    let now = identity.clock.now_micros();
    let token = ids::random_base62(32);
    let expires_at = now + VALID_MICROS;
    let mut row = T::row(target);
    row.try_set(T::TOKEN_HASH, sha256_hex(token.as_bytes()).into())?;
    row.try_set(T::CREATED_BY, created_by.into())?;
    row.try_set(T::CREATED_AT, now.into())?;
    row.try_set(T::EXPIRES_AT, expires_at.into())?;
    row.try_set(T::ACCEPTED_AT, Option::<i64>::None.into())?;
    if let Some(accepted_by) = T::ACCEPTED_BY {
        row.try_set(accepted_by, Option::<String>::None.into())?;
    }
    T::insert(row).exec_without_returning(db).await?;
    Ok((token, expires_at))
}

/// The open link of `token`, read on `db`: `404 not_found` when unknown,
/// used or expired, saying which, so that whoever holds it knows to ask
/// for a new one.
pub async fn open<T: LinkTable>(identity: &Identity, db: &impl ConnectionTrait, token: &str) -> CoreResult<T::Model> {
    let row = T::find()
        .filter(T::TOKEN_HASH.eq(sha256_hex(token.as_bytes())))
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("invitation"))?;
    if read::<_, Option<i64>>(&row, T::ACCEPTED_AT)?.is_some() {
        return Err(CoreError::new(ErrorCode::NotFound, T::USED));
    }
    if identity.clock.now_micros() >= read::<_, i64>(&row, T::EXPIRES_AT)? {
        return Err(CoreError::new(ErrorCode::NotFound, T::EXPIRED));
    }
    Ok(row)
}

/// Marks the link of `token` used by `by` at `now`, on `db` (the
/// transaction of what accepting it does); `false` when another use came
/// first. A compare-and-set: a link accepted twice at once works once.
pub async fn use_once<T: LinkTable>(db: &impl ConnectionTrait, token: &str, by: &str, now: i64) -> CoreResult<bool> {
    let mut update = T::update_many().col_expr(T::ACCEPTED_AT, Expr::value(now));
    if let Some(accepted_by) = T::ACCEPTED_BY {
        update = update.col_expr(accepted_by, Expr::value(by));
    }
    let used = update
        .filter(T::TOKEN_HASH.eq(sha256_hex(token.as_bytes())))
        .filter(T::ACCEPTED_AT.is_null())
        .exec(db)
        .await?;
    Ok(used.rows_affected == 1)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::accounts::invitations::entity::Entity as Invitations;
    use crate::accounts::memberships::Role;
    use crate::testing::TestIdentity;

    fn refusal<T: std::fmt::Debug>(result: CoreResult<T>) -> String {
        match result.expect_err("refused") {
            CoreError::Rejected {
                code: ErrorCode::NotFound,
                message,
                ..
            } => message,
            other => panic!("not a 404: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_link_works_once_and_for_seven_days() {
        let identity = TestIdentity::open().await;
        let workspace = identity.workspace().await;
        let target = || (workspace.id.clone(), Role::Member);
        let (token, _) = create::<Invitations>(&identity, &identity.writer, "cli:ada", target())
            .await
            .expect("created");
        let (late, _) = create::<Invitations>(&identity, &identity.writer, "cli:ada", target())
            .await
            .expect("created");
        let row = open::<Invitations>(&identity, &identity.db, &token)
            .await
            .expect("open");
        assert_eq!(
            (row.workspace_id.as_str(), row.role.as_str()),
            (workspace.id.as_str(), "member")
        );
        let unknown = open::<Invitations>(&identity, &identity.db, "not-a-token").await;
        assert_eq!(refusal(unknown), "No such invitation.");

        let now = identity.clock.now_micros();
        assert!(
            use_once::<Invitations>(&identity.writer, &token, "usr_1", now)
                .await
                .expect("used")
        );
        assert!(
            !use_once::<Invitations>(&identity.writer, &token, "usr_2", now)
                .await
                .expect("once")
        );
        let used = open::<Invitations>(&identity, &identity.db, &token).await;
        assert_eq!(refusal(used), <Invitations as LinkTable>::USED);

        identity.clock.advance(Duration::from_micros(VALID_MICROS as u64));
        let expired = open::<Invitations>(&identity, &identity.db, &late).await;
        assert_eq!(refusal(expired), <Invitations as LinkTable>::EXPIRED);
    }
}
