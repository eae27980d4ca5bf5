//! Courier app sessions (docs/couriers.md "Sessions"): a random token the
//! app keeps and sends as `authorization: Bearer …`, of which only the
//! SHA-256 is stored; it ends after 7 days without use, at sign-out, when
//! the courier sets a new password, and when they are suspended. Sign-in
//! takes the phone number or the email and goes through the shared
//! sign-in throttle.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::{Courier, Status};
use crate::assignments::feed;
use crate::db::WriteTransaction;
use crate::secrets::sha256_hex;
use crate::{Core, CoreError, CoreResult, db, ids, passwords, sign_ins};
use courier::errors::ErrorCode;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_sessions")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub token_hash: String,
        pub courier_id: String,
        pub created_at: i64,
        pub last_seen_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        #[sea_orm(
            belongs_to = "crate::couriers::entity::Entity",
            from = "Column::CourierId",
            to = "crate::couriers::entity::Column::Id"
        )]
        Courier,
    }

    impl Related<crate::couriers::entity::Entity> for Entity {
        fn to() -> RelationDef {
            Relation::Courier.def()
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}

const MINUTE_MICROS: i64 = 60_000_000;
/// A session ends after this long without use: a working week on a phone
/// that is not opened over the weekend.
pub const IDLE_MICROS: i64 = 7 * 24 * 60 * MINUTE_MICROS;
/// Use is recorded at most this often, so calls do not write every time.
const TOUCH_EVERY_MICROS: i64 = 10 * MINUTE_MICROS;

/// A signed-in courier, as a call of theirs is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CourierSession {
    pub courier: Courier,
    pub expires_at: i64,
}

/// Signs the courier of `login` (phone or email) in with `password`, an
/// attempt from the client `address`; the new session's token (shown once).
pub async fn sign_in(core: &Core, login: &str, password: &str, address: &str) -> CoreResult<(String, CourierSession)> {
    let now = core.clock.now_micros();
    let identity = super::login_identity(login);
    let attempt = sign_ins::Attempt::courier(&identity, address);
    sign_ins::check(&core.db, &attempt, now).await?;
    let row = super::find_by_login(&core.db, &identity).await?;
    let matches = passwords::verify(password, row.as_ref().and_then(|r| r.password_hash.as_deref())).await?;
    let Some(row) = row.filter(|_| matches) else {
        sign_ins::failed(core, &attempt, now).await?;
        return Err(CoreError::new(
            ErrorCode::InvalidCredentials,
            "The phone number, the email or the password is wrong.",
        ));
    };
    sign_ins::succeeded(core, &attempt).await?;
    let courier = super::from_model(row);
    if courier.status == Status::Suspended {
        return Err(suspended());
    }
    let tx = db::begin(core).await?;
    let token = create(core, &tx, &courier.id).await?;
    tx.commit().await?;
    Ok((
        token,
        CourierSession {
            courier,
            expires_at: now + IDLE_MICROS,
        },
    ))
}

/// A new session of courier `courier_id` in `tx`; its token.
pub(super) async fn create(core: &Core, tx: &WriteTransaction, courier_id: &str) -> CoreResult<String> {
    let now = core.clock.now_micros();
    let token = ids::random_base62(43);
    entity::ActiveModel {
        token_hash: Set(sha256_hex(token.as_bytes())),
        courier_id: Set(courier_id.to_owned()),
        created_at: Set(now),
        last_seen_at: Set(now),
    }
    .insert(&**tx)
    .await?;
    Ok(token)
}

/// The session of `token`, used now: `401 invalid_courier_session` when
/// unknown, ended or idle for 7 days, or when the courier is suspended.
pub async fn authenticate(core: &Core, token: &str) -> CoreResult<CourierSession> {
    let now = core.clock.now_micros();
    // The session and its courier in one read: every call of the app and
    // every wake of its streams checks the session.
    let (row, courier) = entity::Entity::find_by_id(sha256_hex(token.as_bytes()))
        .find_also_related(super::entity::Entity)
        .one(&core.db)
        .await?
        .ok_or_else(invalid)?;
    if row.last_seen_at + IDLE_MICROS <= now {
        entity::Entity::delete_by_id(row.token_hash).exec(&core.writer).await?;
        return Err(invalid());
    }
    let courier = super::from_model(courier.ok_or_else(invalid)?);
    if courier.status == Status::Suspended {
        return Err(suspended());
    }
    let mut last_seen_at = row.last_seen_at;
    if now - row.last_seen_at >= TOUCH_EVERY_MICROS {
        last_seen_at = now;
        entity::ActiveModel {
            token_hash: Set(row.token_hash),
            last_seen_at: Set(now),
            ..Default::default()
        }
        .update(&core.writer)
        .await?;
    }
    Ok(CourierSession {
        courier,
        expires_at: last_seen_at + IDLE_MICROS,
    })
}

/// Ends the session of `token`; its streams end at once.
pub async fn sign_out(core: &Core, token: &str) -> CoreResult<()> {
    let tx = db::begin(core).await?;
    let hash = sha256_hex(token.as_bytes());
    if let Some(session) = entity::Entity::find_by_id(hash.clone()).one(&*tx).await? {
        entity::Entity::delete_by_id(hash).exec(&*tx).await?;
        feed::wake_at_commit(core, &tx, &session.courier_id);
    }
    tx.commit().await
}

/// Ends every session of courier `courier_id`, in `tx`; their open streams
/// end once it commits (woken on every replica, [`ended`]).
pub(super) async fn end_all(core: &Core, tx: &WriteTransaction, courier_id: &str) -> CoreResult<()> {
    entity::Entity::delete_many()
        .filter(entity::Column::CourierId.eq(courier_id))
        .exec(&**tx)
        .await?;
    feed::wake_at_commit(core, tx, courier_id);
    Ok(())
}

/// How often a stream checks its session unwoken: for an end that wakes
/// nothing (7 days idle) or a wake lost with a replica that died between
/// its commit and its announcement.
const RECHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Waits until the session of `token` (courier `courier_id`'s) has ended,
/// and answers the refusal their next call gets (`invalid_courier_session`).
/// No read per stream while nothing happens: the session is checked when
/// the courier's streams are woken (a sign-out, a new password or a
/// suspension: on this replica at the commit, on the others by its
/// announcement, `feed::wake_at_commit`), and every [`RECHECK_EVERY`]. A
/// check that fails to read waits for the next.
pub async fn ended(core: &Core, token: &str, courier_id: &str) -> CoreError {
    // A wake that comes during a check ends the next wait at once.
    let mut wake = core.courier_signals.subscribe(courier_id);
    loop {
        tokio::select! {
            () = wake.woken() => {}
            () = tokio::time::sleep(RECHECK_EVERY) => {}
        }
        match authenticate(core, token).await {
            Ok(_) => {}
            Err(error @ CoreError::Rejected { .. }) => return error,
            Err(error) => {
                tracing::warn!(%error, courier = courier_id, "courier session not checked; again at the next wake")
            }
        }
    }
}

fn invalid() -> CoreError {
    CoreError::new(
        ErrorCode::InvalidCourierSession,
        "The courier session is unknown, signed out or expired; sign in again.",
    )
}

fn suspended() -> CoreError {
    CoreError::new(
        ErrorCode::InvalidCourierSession,
        "Your courier account is suspended; you were signed out.",
    )
}
