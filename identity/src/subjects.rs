//! Who signs in, and how: the mechanics that console users (`accounts`,
//! docs/console.md "Sessions") and couriers (`couriers`, docs/couriers.md
//! "A courier's life") share, written once for every kind of [`Subject`].
//!
//! - `sessions`: sign-in through the throttle, a random token of which only
//!   the SHA-256 is stored, idle expiry, use recorded at most every so often,
//!   sign-out, the end of every session of a subject;
//! - `invitations`: links of one use whose token is stored as its SHA-256,
//!   and which expire;
//! - `sign_ins`: the sign-in throttle (table `sign_in_failures`);
//! - `passwords`: what a password must be, argon2id hashing.
//!
//! Each kind keeps its own tables (`sessions` and `invitations`,
//! `courier_sessions` and `courier_invitations`) and says what differs in
//! its [`Policy`] and its `Subject` implementation; this module knows no
//! kind.

use std::borrow::Borrow;

use sea_orm::sea_query::ValueType;
use sea_orm::{EntityName, EntityTrait, IdenStatic, ModelTrait, Related};

use crate::{CoreError, CoreResult, Identity, sign_ins};
use courier::errors::ErrorCode;
use courier_store::db::WriteTransaction;

/// A kind's table of sessions, by the columns every kind has: the SHA-256
/// of the token (the primary key), the subject's id, when it was created
/// and last used, and a CSRF token where the kind's sessions have one
/// (which every state-changing call presents: the console's, whose token a
/// browser sends by itself in a cookie).
pub trait SessionTable: EntityTrait {
    const TOKEN_HASH: Self::Column;
    const SUBJECT_ID: Self::Column;
    const CREATED_AT: Self::Column;
    const LAST_SEEN_AT: Self::Column;
    const CSRF_TOKEN: Option<Self::Column>;
}

/// What differs between the kinds' sessions and sign-ins.
pub struct Policy {
    /// A session ends after this long without use.
    pub idle_micros: i64,
    /// Use is recorded at most this often, so that calls do not write every
    /// time.
    pub touch_every_micros: i64,
    /// How the sign-in throttle names this kind's logins and addresses.
    pub throttle: sign_ins::Names,
    /// The refusal of a wrong login or password.
    pub wrong_credentials: &'static str,
    /// The refusal of a session that is unknown, ended or expired.
    pub invalid_session: (ErrorCode, &'static str),
}

impl Policy {
    pub(crate) fn invalid_session(&self) -> CoreError {
        let (code, message) = self.invalid_session;
        CoreError::new(code, message)
    }
}

/// A kind of subject who signs in with a password and holds sessions: a
/// console user (`accounts::User`), a courier (`couriers::Courier`).
pub trait Subject: Clone + Send + Sync + Sized + 'static {
    /// The table of the subjects, with their password hashes.
    type Table: EntityTrait;
    /// The table of their sessions.
    type Sessions: SessionTable + Related<Self::Table>;
    /// What [`Subject::sessions_ended`] needs: the identity for a console
    /// user; the core's handle for a courier, whose open streams it wakes.
    type Handle: Borrow<Identity> + Sync;
    const POLICY: Policy;

    fn id(&self) -> &str;

    /// `typed` as a subject is found by it and as the throttle counts it,
    /// so that every spelling of one login is one login.
    fn login(typed: &str) -> String;

    /// The column that finds the subject of `login` (a normalised login).
    fn login_column(login: &str) -> <Self::Table as EntityTrait>::Column;

    /// The argon2id hash of a row's password; `None` before one is set.
    fn password_hash(row: &<Self::Table as EntityTrait>::Model) -> Option<&str>;

    fn from_row(row: <Self::Table as EntityTrait>::Model) -> Self;

    /// Refuses a subject who may not sign in or use a session (a suspended
    /// courier).
    fn may_sign_in(&self) -> CoreResult<()> {
        Ok(())
    }

    /// What else happens, in `tx`, when sessions of `subject_id` end (a
    /// courier's open streams end once it commits).
    fn sessions_ended(_handle: &Self::Handle, _tx: &WriteTransaction, _subject_id: &str) {}
}

/// The value of `column` in `row`: the kinds' tables are read through the
/// columns they name (`SessionTable`, `invitations::LinkTable`).
pub(crate) fn read<M: ModelTrait, V: ValueType>(row: &M, column: <M::Entity as EntityTrait>::Column) -> CoreResult<V> {
    V::try_from(row.get(column)).map_err(|_| {
        let table = M::Entity::default().table_name();
        CoreError::Internal(format!("{table}.{} holds a value of another type", column.as_str()))
    })
}
