//! Each courier's feed (docs/couriers.md "The assignment stream"): the
//! changes their app is pushed over `WatchAssignments`, one row per change,
//! written in the transaction of the change itself. A row's id is its
//! position: an app that reconnects with the last position it received is
//! sent every row after it, in order, so a cut stream loses nothing. Owns
//! `courier_feed`; rows older than 7 days are purged.
//!
//! A row names what changed, not how it looked: the stream sends a job as it
//! is when the row is read. Watchers of this process are woken after the
//! commit ([`super::signals::Signals`]); watchers on other replicas by the commit's
//! announcement (`cache_feed`, one per transaction for all its couriers).

use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, QueryTrait,
};

use crate::{CoreResult, Orders};
use courier_store::db::WriteTransaction;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_feed")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub courier_id: String,
        /// `job`, `edited`, `offer` or `withdrawal`.
        pub kind: String,
        pub job_id: String,
        /// The offer of an `offer` row, or of a withdrawn offer.
        pub offer_id: Option<String>,
        /// A withdrawal's reason (see [`super::Reason`]).
        pub reason: Option<String>,
        /// An `edited` row's changed members (`crate::events::join_fields`).
        pub changed_fields: Option<String>,
        pub created_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// How long rows are kept: a phone that reconnects later gets a snapshot.
pub const RETENTION_MICROS: i64 = 7 * 86_400_000_000;
/// The most rows one read returns: a shorter read reached the newest row.
pub const READ_LIMIT: usize = 100;

/// Why a job or an offer left a courier's hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Cancelled,
    Reassigned,
    OfferExpired,
    OfferWithdrawn,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Cancelled => "cancelled",
            Reason::Reassigned => "reassigned",
            Reason::OfferExpired => "offer_expired",
            Reason::OfferWithdrawn => "offer_withdrawn",
        }
    }

    fn parse(text: &str) -> Reason {
        match text {
            "reassigned" => Reason::Reassigned,
            "offer_expired" => Reason::OfferExpired,
            "offer_withdrawn" => Reason::OfferWithdrawn,
            _ => Reason::Cancelled,
        }
    }
}

/// One change of a courier's work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// One of their jobs changed (or was given to them).
    Job { job_id: String },
    /// The client changed one of their jobs: `changed_fields` names the
    /// members, as dot paths (`deliveries::edit`).
    Edited {
        job_id: String,
        changed_fields: Vec<String>,
    },
    /// A job was offered to them.
    Offer { job_id: String, offer_id: String },
    /// A job (or, with `offer_id`, an offer) left their hands.
    Withdrawal {
        job_id: String,
        offer_id: Option<String>,
        reason: Reason,
    },
}

/// A feed row as read: its position and its change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Positioned {
    pub position: i64,
    pub entry: Entry,
}

/// Adds `entry` to courier `courier_id`'s feed as `tx` commits; their
/// watchers wake once it has.
pub fn append(orders: &Orders, tx: &WriteTransaction, courier_id: &str, entry: Entry, now: i64) {
    let mut changed_fields = None;
    let (kind, job_id, offer_id, reason) = match entry {
        Entry::Job { job_id } => ("job", job_id, None, None),
        Entry::Edited {
            job_id,
            changed_fields: fields,
        } => {
            changed_fields = crate::events::join_fields(&fields);
            ("edited", job_id, None, None)
        }
        Entry::Offer { job_id, offer_id } => ("offer", job_id, Some(offer_id), None),
        Entry::Withdrawal {
            job_id,
            offer_id,
            reason,
        } => ("withdrawal", job_id, offer_id, Some(reason.as_str().to_owned())),
    };
    let row = entity::ActiveModel {
        courier_id: Set(courier_id.to_owned()),
        kind: Set(kind.to_owned()),
        job_id: Set(job_id),
        offer_id: Set(offer_id),
        reason: Set(reason),
        changed_fields: Set(changed_fields),
        created_at: Set(now),
        ..Default::default()
    };
    // Written last, under the courier's lock: a courier's rows take their
    // positions in the order their transactions commit, so a stream that
    // read up to a position never finds an earlier one committed later.
    let insert = entity::Entity::insert(row).build(tx.get_database_backend());
    tx.write_last(format!("courier_feed:{courier_id}"), insert);
    wake_at_commit(orders, tx, courier_id);
}

/// Wakes courier `courier_id`'s watchers once `tx` commits: this
/// replica's at the commit, every other replica's by the announcement the
/// commit sends. Also for a change that writes no row, such as the end of
/// their sessions, which their streams must notice.
pub fn wake_at_commit(orders: &Orders, tx: &WriteTransaction, courier_id: &str) {
    let (signals, id) = (orders.courier_signals.clone(), courier_id.to_owned());
    let map_wake = orders.map_wake.clone();
    tx.after_commit(move || {
        signals.wake(&id);
        map_wake.wake();
    });
    tx.announce_courier(courier_id);
}

/// Courier `courier_id`'s rows after `position`, oldest first (at most a
/// read's worth; read again from the last).
pub async fn after(db: &impl ConnectionTrait, courier_id: &str, position: i64) -> CoreResult<Vec<Positioned>> {
    let rows = entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .filter(entity::Column::Id.gt(position))
        .order_by_asc(entity::Column::Id)
        .limit(READ_LIMIT as u64)
        .all(db)
        .await?;
    Ok(rows.into_iter().map(positioned).collect())
}

/// The position of courier `courier_id`'s newest row (0 when none).
pub async fn latest_position(db: &impl ConnectionTrait, courier_id: &str) -> CoreResult<i64> {
    Ok(entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .order_by_desc(entity::Column::Id)
        .one(db)
        .await?
        .map_or(0, |row| row.id))
}

/// Whether `position` is a row of courier `courier_id` still kept: only
/// then can a stream resume after it without a snapshot.
pub async fn is_kept(db: &impl ConnectionTrait, courier_id: &str, position: i64) -> CoreResult<bool> {
    Ok(entity::Entity::find_by_id(position)
        .one(db)
        .await?
        .is_some_and(|row| row.courier_id == courier_id))
}

/// Deletes the rows older than [`RETENTION_MICROS`]; how many.
pub async fn purge(orders: &Orders, now: i64) -> CoreResult<u64> {
    Ok(entity::Entity::delete_many()
        .filter(entity::Column::CreatedAt.lt(now - RETENTION_MICROS))
        .exec(&orders.writer)
        .await?
        .rows_affected)
}

fn positioned(row: entity::Model) -> Positioned {
    let entry = match row.kind.as_str() {
        "offer" => Entry::Offer {
            job_id: row.job_id,
            offer_id: row.offer_id.unwrap_or_default(),
        },
        "withdrawal" => Entry::Withdrawal {
            job_id: row.job_id,
            offer_id: row.offer_id,
            reason: Reason::parse(row.reason.as_deref().unwrap_or_default()),
        },
        "edited" => Entry::Edited {
            job_id: row.job_id,
            changed_fields: crate::events::split_fields(row.changed_fields.as_deref()),
        },
        _ => Entry::Job { job_id: row.job_id },
    };
    Positioned {
        position: row.id,
        entry,
    }
}
