//! Couriers as the identity stack signs them in (docs/couriers.md "A
//! courier's life"): by phone number or email, with sessions the app sends
//! as `authorization: Bearer …` that end after 7 days without use, when the
//! courier sets a new password and when they are suspended, and which end
//! their open streams at once ([`ended`]). Sign-in, sessions and sign-out
//! themselves are `courier_identity::sessions`.

use super::{Courier, Status, entity as couriers_table};
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::sessions;
use courier_identity::sign_ins::{self, MINUTE_MICROS};
use courier_identity::subjects::{Policy, SessionTable, Subject};
use courier_orders::assignments::feed;
use courier_store::db::WriteTransaction;

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

impl SessionTable for entity::Entity {
    const TOKEN_HASH: entity::Column = entity::Column::TokenHash;
    const SUBJECT_ID: entity::Column = entity::Column::CourierId;
    const CREATED_AT: entity::Column = entity::Column::CreatedAt;
    const LAST_SEEN_AT: entity::Column = entity::Column::LastSeenAt;
    // Calls carry the token as `authorization` metadata, which no other
    // site can make a browser send (the web app guards its own forms).
    const CSRF_TOKEN: Option<entity::Column> = None;
}

impl Subject for Courier {
    type Table = couriers_table::Entity;
    type Sessions = entity::Entity;
    type Handle = Core;
    const POLICY: Policy = Policy {
        // A working week on a phone that is not opened over the weekend.
        idle_micros: 7 * 24 * 60 * MINUTE_MICROS,
        touch_every_micros: 10 * MINUTE_MICROS,
        throttle: sign_ins::Names {
            login: "courier",
            address: "courier",
        },
        wrong_credentials: "The phone number, the email or the password is wrong.",
        invalid_session: (
            ErrorCode::InvalidCourierSession,
            "The courier session is unknown, signed out or expired; sign in again.",
        ),
    };

    fn id(&self) -> &str {
        &self.id
    }

    fn login(typed: &str) -> String {
        super::login_identity(typed)
    }

    fn login_column(login: &str) -> couriers_table::Column {
        if login.contains('@') {
            couriers_table::Column::Email
        } else {
            couriers_table::Column::Phone
        }
    }

    fn password_hash(row: &couriers_table::Model) -> Option<&str> {
        row.password_hash.as_deref()
    }

    fn from_row(row: couriers_table::Model) -> Courier {
        super::from_model(row)
    }

    fn may_sign_in(&self) -> CoreResult<()> {
        if self.status == Status::Suspended {
            return Err(CoreError::new(
                ErrorCode::InvalidCourierSession,
                "Your courier account is suspended; you were signed out.",
            ));
        }
        Ok(())
    }

    /// Their open streams end once `tx` commits (woken on every replica,
    /// [`ended`]).
    fn sessions_ended(core: &Core, tx: &WriteTransaction, courier_id: &str) {
        feed::wake_at_commit(core, tx, courier_id);
    }
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
        match sessions::authenticate::<Courier>(core, token).await {
            Ok(_) => {}
            Err(error @ CoreError::Rejected { .. }) => return error,
            Err(error) => {
                tracing::warn!(%error, courier = courier_id, "courier session not checked; again at the next wake")
            }
        }
    }
}

#[cfg(test)]
mod tests;
