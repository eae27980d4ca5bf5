//! Who carries which job (docs/couriers.md "Assignment"): one row per time
//! a courier held a job, from its assignment to its end (delivered,
//! cancelled, reassigned). Owns `courier_assignments`; `offers` owns the
//! offers of automatic dispatch, `feed` the changes each courier's app is
//! pushed.
//!
//! A job is a live delivery (`del_…`) or a fleet board order (`ord_…`).
//! A partial unique index holds one open assignment per job on every
//! replica; a courier holds several, within their vehicle's limits, which
//! the core checks under the courier's route row (`routes::lock`) before
//! [`assign`]. An assignment ends in the transaction of the move that ends
//! its job ([`job_moved`], called by the state machine's movers), so a
//! courier has room again exactly when the job has ended.

pub mod feed;
pub mod model;
pub mod offers;
pub mod signals;

use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use crate::statuses::{CancellationReason, Status};
use crate::{CoreError, CoreResult, Orders, pay};
use courier::errors::ErrorCode;
use courier_store::db::WriteTransaction;
use courier_store::ids;
use feed::{Entry, Reason};
pub use model::{PassReason, PassedOver};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_assignments")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        pub job_id: String,
        /// Who assigned it, as the audit log names actors (`dispatch:auto`
        /// for the automatic dispatcher).
        pub assigned_by: String,
        pub assigned_at: i64,
        pub ended_at: Option<i64>,
        /// How it ended (see [`super::Outcome`]).
        pub outcome: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// How an assignment ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    /// Cancelled, with the delivery's reason (a board order has none).
    Cancelled(Option<CancellationReason>),
    /// Dispatch gave the job to another courier.
    Reassigned,
    /// A dispatcher took the job back; it waits for a courier again.
    Unassigned,
}

impl Outcome {
    /// As stored and shown: `delivered`, `cancelled:<reason>`, `reassigned`.
    pub fn label(self) -> String {
        match self {
            Outcome::Delivered => "delivered".into(),
            Outcome::Cancelled(Some(reason)) => format!("cancelled:{}", reason.as_str()),
            Outcome::Cancelled(None) => "cancelled".into(),
            Outcome::Reassigned => "reassigned".into(),
            Outcome::Unassigned => "unassigned".into(),
        }
    }
}

/// One courier's hold on one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub id: String,
    pub courier_id: String,
    pub job_id: String,
    pub assigned_by: String,
    pub assigned_at: i64,
    pub ended_at: Option<i64>,
    pub outcome: Option<String>,
}

impl Assignment {
    pub fn is_open(&self) -> bool {
        self.ended_at.is_none()
    }

    /// Whether this hold delivered the job.
    pub fn delivered(&self) -> bool {
        self.outcome.as_deref() == Some(Outcome::Delivered.label().as_str())
    }

    /// Whether the hold ended with the job itself (delivered or cancelled),
    /// not by dispatch taking it away: a courier's resent last move is then
    /// theirs.
    pub fn ended_with_the_job(&self) -> bool {
        self.outcome
            .as_deref()
            .is_some_and(|o| o != Outcome::Reassigned.label() && o != Outcome::Unassigned.label())
    }

    /// The refusal of a move by this hold's courier once the hold has ended
    /// (`409 conflict`, gRPC `FAILED_PRECONDITION`): the job is theirs to
    /// read, but ended, or no longer in their hands.
    pub fn ended_refusal(&self) -> CoreError {
        let outcome = self.outcome.as_deref().unwrap_or("ended");
        let message = if self.ended_with_the_job() {
            format!("Job {} has ended ({outcome}); it takes no more moves.", self.job_id)
        } else if outcome == Outcome::Unassigned.label() {
            format!("Job {} is no longer yours: dispatch took it back.", self.job_id)
        } else {
            format!(
                "Job {} is no longer yours: dispatch gave it to another courier.",
                self.job_id
            )
        };
        CoreError::new(ErrorCode::Conflict, message)
    }
}

/// Gives `job_id` to `courier_id` in `tx`, ending its current courier's
/// hold first (`reassigned`). The caller has taken the courier's route row
/// and checked their vehicle's limits. The new courier's app hears of it
/// from the move that follows ([`job_moved`]) or, when the job's status
/// stays, from [`announce`]. The job's own open assignment is ended here,
/// so a concurrent assignment of the same job fails on the unique index
/// and rolls back.
pub async fn assign(
    orders: &Orders,
    tx: &WriteTransaction,
    job_id: &str,
    courier_id: &str,
    assigned_by: &str,
    now: i64,
) -> CoreResult<Assignment> {
    if let Some(current) = open_for_job(&**tx, job_id).await? {
        if current.courier_id == courier_id {
            return Ok(current);
        }
        end(orders, tx, &current, Outcome::Reassigned, now).await?;
    }
    let row = entity::ActiveModel {
        id: Set(ids::new_id("asg")),
        courier_id: Set(courier_id.to_owned()),
        job_id: Set(job_id.to_owned()),
        assigned_by: Set(assigned_by.to_owned()),
        assigned_at: Set(now),
        ended_at: Set(None),
        outcome: Set(None),
    }
    .insert(&**tx)
    .await
    .map_err(|error| match error.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => {
            CoreError::new(ErrorCode::CourierUnavailable, "The job was just given to someone else.")
        }
        _ => error.into(),
    })?;
    Ok(from_model(row))
}

/// Ends the open assignment of `job_id` in `tx` (`unassigned`): the job
/// waits for a courier again, and its courier's app hears it withdrawn.
/// Returns the ended assignment, `None` when nobody held the job.
pub async fn take_back(
    orders: &Orders,
    tx: &WriteTransaction,
    job_id: &str,
    now: i64,
) -> CoreResult<Option<Assignment>> {
    let Some(open) = open_for_job(&**tx, job_id).await? else {
        return Ok(None);
    };
    end(orders, tx, &open, Outcome::Unassigned, now).await?;
    Ok(Some(open))
}

/// Tells the courier holding `job_id` that it changed without a status
/// move (it was just given to them), in `tx`.
pub fn announce(orders: &Orders, tx: &WriteTransaction, courier_id: &str, job_id: &str, now: i64) {
    feed::append(
        orders,
        tx,
        courier_id,
        Entry::Job {
            job_id: job_id.to_owned(),
        },
        now,
    );
}

/// What the state machine's movers call in the transaction of every move
/// of job `job_id` to `to`: its courier's app hears of it, and a move that
/// ends the job ends the assignment. Returns the courier holding the job
/// (before an end).
pub async fn job_moved(
    orders: &Orders,
    tx: &WriteTransaction,
    job_id: &str,
    to: Status,
    reason: Option<CancellationReason>,
    now: i64,
) -> CoreResult<Option<String>> {
    // A job that moves on is no longer offered to anyone.
    offers::withdraw_for_job(orders, tx, job_id, now).await?;
    let Some(open) = open_for_job(&**tx, job_id).await? else {
        return Ok(None);
    };
    let payee = pay::Payee {
        courier_id: &open.courier_id,
        job_id,
    };
    match to {
        Status::Delivered => {
            pay::settle(tx, payee, &open.id, pay::Ending::Delivered, now).await?;
            end(orders, tx, &open, Outcome::Delivered, now).await?
        }
        Status::Cancelled => {
            pay::settle(tx, payee, &open.id, pay::Ending::Cancelled, now).await?;
            end(orders, tx, &open, Outcome::Cancelled(reason), now).await?
        }
        _ => {
            match to {
                Status::AtPickup => pay::arrived(tx, &open.id, now).await?,
                Status::PickedUp => pay::picked_up(tx, &open.id, now).await?,
                _ => {}
            }
            feed::append(
                orders,
                tx,
                &open.courier_id,
                Entry::Job {
                    job_id: job_id.to_owned(),
                },
                now,
            );
        }
    }
    Ok(Some(open.courier_id))
}

/// Ends `assignment` with `outcome` in `tx` and tells its courier: a
/// delivered job as it now is, anything else as a withdrawal.
async fn end(
    orders: &Orders,
    tx: &WriteTransaction,
    assignment: &Assignment,
    outcome: Outcome,
    now: i64,
) -> CoreResult<()> {
    entity::Entity::update_many()
        .col_expr(entity::Column::EndedAt, Expr::value(now))
        .col_expr(entity::Column::Outcome, Expr::value(outcome.label()))
        .filter(entity::Column::Id.eq(assignment.id.as_str()))
        .filter(entity::Column::EndedAt.is_null())
        .exec(&**tx)
        .await?;
    let job_id = assignment.job_id.clone();
    let entry = match outcome {
        Outcome::Delivered => Entry::Job { job_id },
        Outcome::Cancelled(_) => Entry::Withdrawal {
            job_id,
            offer_id: None,
            reason: Reason::Cancelled,
        },
        // The app knows one reason for dispatch taking a job away.
        Outcome::Reassigned | Outcome::Unassigned => Entry::Withdrawal {
            job_id,
            offer_id: None,
            reason: Reason::Reassigned,
        },
    };
    feed::append(orders, tx, &assignment.courier_id, entry, now);
    Ok(())
}

/// The open assignment of `job_id`, if any.
pub async fn open_for_job(db: &impl ConnectionTrait, job_id: &str) -> CoreResult<Option<Assignment>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::JobId.eq(job_id))
        .filter(entity::Column::EndedAt.is_null())
        .one(db)
        .await?
        .map(from_model))
}

/// The open assignments of `courier_id`, oldest first.
pub async fn open_of_courier(db: &impl ConnectionTrait, courier_id: &str) -> CoreResult<Vec<Assignment>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .filter(entity::Column::EndedAt.is_null())
        .order_by_asc(entity::Column::AssignedAt)
        .order_by_asc(entity::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The hold of `job_id` that delivered it, if any.
pub async fn delivered_by(db: &impl ConnectionTrait, job_id: &str) -> CoreResult<Option<Assignment>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::JobId.eq(job_id))
        .filter(entity::Column::Outcome.eq(Outcome::Delivered.label()))
        .one(db)
        .await?
        .map(from_model))
}

/// Every hold of `job_id`, oldest first: whose hands it passed through.
pub async fn of_job(db: &impl ConnectionTrait, job_id: &str) -> CoreResult<Vec<Assignment>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::JobId.eq(job_id))
        .order_by_asc(entity::Column::AssignedAt)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The ids of the couriers holding an open assignment, as a subquery (for
/// a read of the couriers on a dispatch map in one statement).
pub fn holders() -> sea_orm::sea_query::SelectStatement {
    sea_orm::sea_query::Query::select()
        .column(entity::Column::CourierId)
        .from(entity::Entity)
        .and_where(entity::Column::EndedAt.is_null())
        .to_owned()
}

/// The open assignments of any of `courier_ids`, oldest first.
pub async fn open_for_couriers(db: &impl ConnectionTrait, courier_ids: Vec<String>) -> CoreResult<Vec<Assignment>> {
    if courier_ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(entity::Entity::find()
        .filter(courier_store::db::one_of(
            db.get_database_backend(),
            "courier_id",
            &courier_ids,
        ))
        .filter(entity::Column::EndedAt.is_null())
        .order_by_asc(entity::Column::AssignedAt)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The latest assignment of `job_id` to `courier_id`, open or ended: what
/// the courier may still read of a job they held.
pub async fn latest_of(db: &impl ConnectionTrait, job_id: &str, courier_id: &str) -> CoreResult<Option<Assignment>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::JobId.eq(job_id))
        .filter(entity::Column::CourierId.eq(courier_id))
        .order_by_desc(entity::Column::AssignedAt)
        .one(db)
        .await?
        .map(from_model))
}

/// Courier `courier_id`'s ended assignments, newest end first, ended before
/// `before` (a page's position), at most `limit`.
pub async fn ended(
    db: &impl ConnectionTrait,
    courier_id: &str,
    before: Option<(i64, String)>,
    limit: u64,
) -> CoreResult<Vec<Assignment>> {
    let mut query = entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .filter(entity::Column::EndedAt.is_not_null());
    if let Some((ended_at, id)) = before {
        query = query.filter(
            sea_orm::Condition::any().add(entity::Column::EndedAt.lt(ended_at)).add(
                sea_orm::Condition::all()
                    .add(entity::Column::EndedAt.eq(ended_at))
                    .add(entity::Column::Id.lt(id)),
            ),
        );
    }
    Ok(query
        .order_by_desc(entity::Column::EndedAt)
        .order_by_desc(entity::Column::Id)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The couriers passed over for each of `job_ids`, oldest first.
pub async fn passed_over(db: &impl ConnectionTrait, job_ids: Vec<String>) -> CoreResult<Vec<PassedOver>> {
    if job_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut passed: Vec<PassedOver> = offers::refused(db, job_ids.clone())
        .await?
        .into_iter()
        .map(|offer| PassedOver {
            reason: if offer.status == offers::OfferStatus::Declined {
                PassReason::Declined
            } else {
                PassReason::Expired
            },
            at: offer.answered_at.unwrap_or(offer.expires_at),
            job_id: offer.job_id,
            courier_id: offer.courier_id,
        })
        .collect();
    let taken_back = entity::Entity::find()
        .filter(entity::Column::JobId.is_in(job_ids))
        .filter(entity::Column::Outcome.eq(Outcome::Unassigned.label()))
        .all(db)
        .await?;
    passed.extend(taken_back.into_iter().map(|row| PassedOver {
        at: row.ended_at.unwrap_or(row.assigned_at),
        job_id: row.job_id,
        courier_id: row.courier_id,
        reason: PassReason::Unassigned,
    }));
    passed.sort_by_key(|p| p.at);
    Ok(passed)
}

fn from_model(row: entity::Model) -> Assignment {
    Assignment {
        id: row.id,
        courier_id: row.courier_id,
        job_id: row.job_id,
        assigned_by: row.assigned_by,
        assigned_at: row.assigned_at,
        ended_at: row.ended_at,
        outcome: row.outcome,
    }
}
