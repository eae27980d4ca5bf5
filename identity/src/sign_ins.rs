//! The sign-in throttle of console users and couriers alike (docs/access.md
//! "Sign-in throttle"): failed sign-ins are counted per login and per client
//! address in the database, so that every replica sees them, and stop
//! further attempts for a while. Owns the `sign_in_failures` table.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait, EntityTrait};

use crate::{CoreError, CoreResult, Identity};
use courier::errors::ErrorCode;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sign_in_failures")]
    pub struct Model {
        /// `email:<address>`, `courier:<identity>`, or
        /// `address:console:<client address>` / `address:courier:<…>`.
        #[sea_orm(primary_key, auto_increment = false)]
        pub subject: String,
        pub window_start: i64,
        pub failures: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A minute in the unit of stored times.
pub const MINUTE_MICROS: i64 = 60_000_000;

/// Failed sign-ins are counted over this window…
pub const FAILURE_WINDOW_MICROS: i64 = 15 * MINUTE_MICROS;
/// …and this many for one login, or for one client address, stop further
/// attempts until the window ends.
pub const MAX_FAILURES_PER_LOGIN: i32 = 5;
pub const MAX_FAILURES_PER_ADDRESS: i32 = 20;

/// How one kind's attempts are named: its logins (`email:…`, `courier:…`)
/// and its client addresses (`address:console:…`), so that each kind's
/// counts are its own.
pub struct Names {
    pub login: &'static str,
    pub address: &'static str,
}

/// What one sign-in attempt is counted against: the identity its login
/// names, normalised as the account is found by it (so every spelling of
/// one login shares its count), and the client address the caller may name
/// (`courier_core::caller::sign_in_address`), counted apart for the console and
/// the courier app (a courier's mistakes never lock out an office's console
/// behind the same address, nor the other way round).
pub struct Attempt {
    login: String,
    address: String,
}

impl Attempt {
    /// A sign-in of `login` (normalised, `Subject::login`) from `address`,
    /// named as `names` says.
    pub fn new(names: &Names, login: &str, address: &str) -> Attempt {
        Attempt {
            login: format!("{}:{login}", names.login),
            address: format!("address:{}:{address}", names.address),
        }
    }

    fn subjects(&self) -> [(&String, i32); 2] {
        [
            (&self.login, MAX_FAILURES_PER_LOGIN),
            (&self.address, MAX_FAILURES_PER_ADDRESS),
        ]
    }
}

/// `429 rate_limited` while the attempt's login or address has used up its
/// failures.
pub async fn check(db: &impl ConnectionTrait, attempt: &Attempt, now: i64) -> CoreResult<()> {
    for (subject, limit) in attempt.subjects() {
        let Some(row) = entity::Entity::find_by_id(subject.clone()).one(db).await? else {
            continue;
        };
        let ends = row.window_start + FAILURE_WINDOW_MICROS;
        if row.failures >= limit && now < ends {
            let minutes = (ends - now + MINUTE_MICROS - 1) / MINUTE_MICROS;
            return Err(CoreError::new(
                ErrorCode::RateLimited,
                format!("Too many failed sign-ins; try again in {minutes} minutes."),
            ));
        }
    }
    Ok(())
}

/// Counts a failed attempt for its login and its address, each in a window
/// of its own.
pub async fn failed(identity: &Identity, attempt: &Attempt, now: i64) -> CoreResult<()> {
    let tx = identity.begin().await?;
    for (subject, _) in attempt.subjects() {
        let row = entity::Entity::find_by_id(subject.clone()).one(&*tx).await?;
        let (window_start, failures, exists) = match row {
            Some(row) if now < row.window_start + FAILURE_WINDOW_MICROS => (row.window_start, row.failures + 1, true),
            Some(_) => (now, 1, true),
            None => (now, 1, false),
        };
        let model = entity::ActiveModel {
            subject: Set(subject.clone()),
            window_start: Set(window_start),
            failures: Set(failures),
        };
        if exists {
            model.update(&*tx).await?;
        } else {
            model.insert(&*tx).await?;
        }
    }
    tx.commit().await
}

/// A successful sign-in clears its login's count (not its address's: one
/// right password must not reopen guessing at other logins).
pub async fn succeeded(identity: &Identity, attempt: &Attempt) -> CoreResult<()> {
    entity::Entity::delete_by_id(attempt.login.clone())
        .exec(&identity.writer)
        .await?;
    Ok(())
}
