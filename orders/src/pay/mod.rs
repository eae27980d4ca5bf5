//! Courier pay (docs/couriers.md "Pay"): what a job pays its courier.
//! `rules` keeps the pay rules, versioned; this module fixes a job's pay
//! from the rule in force when the job is offered (or given by hand), adds
//! the waiting at the pickup when it happens, and when the job ends turns
//! the pay into the courier's earnings lines (`earnings`). Owns
//! `courier_job_pay`: one row per offer, taken over by the assignment its
//! acceptance makes, or one per assignment made by hand. Money is integer
//! minor units of the rule's currency.

pub mod earnings;
pub mod rules;
pub mod statements;

use std::collections::HashMap;

use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::CoreResult;
use courier_store::db::WriteTransaction;
use courier_store::ids;
use earnings::{Kind, NewLine};
pub use rules::{Rule, RuleInput, Scope};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_job_pay")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        pub job_id: String,
        /// The offer it was fixed for (automatic dispatch).
        pub offer_id: Option<String>,
        /// The assignment it pays: set when the offer is accepted, or at
        /// once for a job given by hand.
        pub assignment_id: Option<String>,
        pub rule_id: String,
        pub currency: String,
        pub base_cents: i64,
        pub distance_cents: i64,
        pub time_cents: i64,
        pub surcharge_cents: i64,
        pub waiting_per_minute_cents: i64,
        pub waiting_cents: i64,
        /// When the courier reached the pickup, and picked up: what the
        /// waiting is counted from, and what a cancelled job is paid by.
        pub arrived_at: Option<i64>,
        pub picked_up_at: Option<i64>,
        pub created_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The minutes at the pickup a courier waits before waiting is paid.
pub const FREE_WAITING_MINUTES: i64 = 5;

const MINUTE: i64 = 60_000_000;

/// What a job's pay is reckoned from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobFacts {
    /// The route's length, pickup to dropoff through the stops.
    pub distance_km: f64,
    /// The route's driving time.
    pub minutes: i64,
    /// The time surcharges the business paid for it.
    pub surcharges_cents: i64,
}

/// A job's pay under one version of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobPay {
    pub rule_id: String,
    pub currency: String,
    pub base_cents: i64,
    pub distance_cents: i64,
    pub time_cents: i64,
    pub surcharge_cents: i64,
    /// The rule's price of a minute waited past the free minutes.
    pub waiting_per_minute_cents: i64,
    /// Waiting at the pickup, added once the courier picked up.
    pub waiting_cents: i64,
}

impl JobPay {
    /// `facts` reckoned under `rule`: each part rounded to the nearest
    /// minor unit (half away from zero), no waiting yet.
    pub fn reckon(rule: &Rule, facts: JobFacts) -> JobPay {
        let parts = &rule.parts;
        let per = |cents: i64, quantity: f64| (cents as f64 * quantity.max(0.0)).round() as i64;
        let share = i64::from(parts.surcharge_share_percent);
        JobPay {
            rule_id: rule.id.clone(),
            currency: rule.currency.clone(),
            base_cents: parts.base_cents,
            distance_cents: per(parts.per_km_cents, facts.distance_km),
            time_cents: parts.per_minute_cents * facts.minutes.max(0),
            surcharge_cents: (facts.surcharges_cents.max(0) * share + 50) / 100,
            waiting_per_minute_cents: parts.waiting_per_minute_cents,
            waiting_cents: 0,
        }
    }

    /// The job's own pay: base, distance, time and surcharges.
    pub fn job_cents(&self) -> i64 {
        self.base_cents + self.distance_cents + self.time_cents + self.surcharge_cents
    }

    /// All it pays so far: the job's own pay and the waiting.
    pub fn total_cents(&self) -> i64 {
        self.job_cents() + self.waiting_cents
    }

    /// The waiting paid for reaching the pickup at `arrived_at` and
    /// leaving it at `left_at`: each whole minute past the free ones.
    pub fn waiting_for(&self, arrived_at: i64, left_at: i64) -> i64 {
        let minutes = (left_at - arrived_at).max(0) / MINUTE;
        (minutes - FREE_WAITING_MINUTES).max(0) * self.waiting_per_minute_cents
    }
}

/// Who is paid for which job.
#[derive(Clone, Copy, Debug)]
pub struct Payee<'a> {
    pub courier_id: &'a str,
    pub job_id: &'a str,
}

/// Fixes `pay` for offer `offer_id` in `tx`, the transaction that makes it.
pub async fn fix_for_offer(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    offer_id: &str,
    pay: &JobPay,
    now: i64,
) -> CoreResult<()> {
    insert(tx, payee, Some(offer_id), None, pay, now).await
}

/// Fixes `pay` for assignment `assignment_id` in `tx`, the transaction that
/// makes it; an assignment that has its pay keeps it.
pub async fn fix_for_assignment(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    assignment_id: &str,
    pay: &JobPay,
    now: i64,
) -> CoreResult<()> {
    insert(tx, payee, None, Some(assignment_id), pay, now).await
}

async fn insert(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    offer_id: Option<&str>,
    assignment_id: Option<&str>,
    pay: &JobPay,
    now: i64,
) -> CoreResult<()> {
    let row = entity::ActiveModel {
        id: Set(ids::new_id("jpy")),
        courier_id: Set(payee.courier_id.to_owned()),
        job_id: Set(payee.job_id.to_owned()),
        offer_id: Set(offer_id.map(str::to_owned)),
        assignment_id: Set(assignment_id.map(str::to_owned)),
        rule_id: Set(pay.rule_id.clone()),
        currency: Set(pay.currency.clone()),
        base_cents: Set(pay.base_cents),
        distance_cents: Set(pay.distance_cents),
        time_cents: Set(pay.time_cents),
        surcharge_cents: Set(pay.surcharge_cents),
        waiting_per_minute_cents: Set(pay.waiting_per_minute_cents),
        waiting_cents: Set(pay.waiting_cents),
        arrived_at: Set(None),
        picked_up_at: Set(None),
        created_at: Set(now),
    };
    let conflict = match assignment_id {
        Some(_) => entity::Column::AssignmentId,
        None => entity::Column::OfferId,
    };
    entity::Entity::insert(row)
        .on_conflict(OnConflict::column(conflict).do_nothing().to_owned())
        .exec_without_returning(&**tx)
        .await?;
    Ok(())
}

/// Fixes in `tx` the pay of a return (docs/couriers.md "Pay"), held as
/// assignment `assignment_id`, by the rule version the failed job
/// `failed_assignment_id` was paid under: a job of its own, with `facts`
/// of the way back. Nothing when the failed job had no pay.
pub async fn fix_for_return(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    failed_assignment_id: &str,
    assignment_id: &str,
    facts: JobFacts,
    now: i64,
) -> CoreResult<()> {
    let Some(failed) = by_assignment(&**tx, failed_assignment_id).await? else {
        return Ok(());
    };
    let Some(rule) = rules::get(&**tx, &failed.rule_id).await? else {
        return Ok(());
    };
    fix_for_assignment(tx, payee, assignment_id, &JobPay::reckon(&rule, facts), now).await
}

/// The pay of accepted offer `offer_id` becomes that of the assignment
/// `assignment_id` its acceptance made, in that transaction (an
/// assignment that has its pay keeps it).
pub async fn accepted(tx: &WriteTransaction, offer_id: &str, assignment_id: &str) -> CoreResult<()> {
    if by_assignment(&**tx, assignment_id).await?.is_some() {
        return Ok(());
    }
    entity::Entity::update_many()
        .col_expr(entity::Column::AssignmentId, Expr::value(assignment_id))
        .filter(entity::Column::OfferId.eq(offer_id))
        .filter(entity::Column::AssignmentId.is_null())
        .exec(&**tx)
        .await?;
    Ok(())
}

/// The pay shown with offer `offer_id`; `None` where no rule applied.
pub async fn of_offer(db: &impl ConnectionTrait, offer_id: &str) -> CoreResult<Option<JobPay>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::OfferId.eq(offer_id))
        .one(db)
        .await?
        .map(from_model))
}

/// The pay of each of `assignment_ids` that has one, by assignment id.
pub async fn of_assignments(
    db: &impl ConnectionTrait,
    assignment_ids: &[String],
) -> CoreResult<HashMap<String, JobPay>> {
    if assignment_ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(entity::Entity::find()
        .filter(entity::Column::AssignmentId.is_in(assignment_ids.iter().cloned()))
        .all(db)
        .await?
        .into_iter()
        .filter_map(|row| Some((row.assignment_id.clone()?, from_model(row))))
        .collect())
}

/// Assignment `assignment_id`'s courier reached the pickup at `now`.
pub(crate) async fn arrived(tx: &WriteTransaction, assignment_id: &str, now: i64) -> CoreResult<()> {
    entity::Entity::update_many()
        .col_expr(entity::Column::ArrivedAt, Expr::value(now))
        .filter(entity::Column::AssignmentId.eq(assignment_id))
        .filter(entity::Column::ArrivedAt.is_null())
        .exec(&**tx)
        .await?;
    Ok(())
}

/// Assignment `assignment_id`'s courier picked up at `now`: the waiting
/// since they reached the pickup is added to the pay.
pub(crate) async fn picked_up(tx: &WriteTransaction, assignment_id: &str, now: i64) -> CoreResult<()> {
    let Some(row) = by_assignment(&**tx, assignment_id).await? else {
        return Ok(());
    };
    if row.picked_up_at.is_some() {
        return Ok(());
    }
    let waiting = row
        .arrived_at
        .map_or(0, |arrived| from_model(row.clone()).waiting_for(arrived, now));
    entity::Entity::update_many()
        .col_expr(entity::Column::PickedUpAt, Expr::value(now))
        .col_expr(entity::Column::WaitingCents, Expr::value(waiting))
        .filter(entity::Column::Id.eq(row.id))
        .exec(&**tx)
        .await?;
    Ok(())
}

/// How a paid job ended for its courier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Delivered,
    Cancelled,
}

/// Writes in `tx` the earnings of assignment `assignment_id`, whose job
/// ended at `now` (docs/couriers.md "Pay"): a delivered job its pay and
/// waiting; a cancelled one its pay and waiting once picked up, its base
/// and the waiting until the cancel once the courier had reached the
/// pickup, nothing before. Once per assignment, whoever calls again.
pub(crate) async fn settle(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    assignment_id: &str,
    ending: Ending,
    now: i64,
) -> CoreResult<()> {
    let Some(row) = by_assignment(&**tx, assignment_id).await? else {
        return Ok(());
    };
    let (arrived_at, picked_up_at) = (row.arrived_at, row.picked_up_at);
    let pay = from_model(row);
    let (job_cents, waiting_cents) = match (ending, arrived_at, picked_up_at) {
        (Ending::Delivered, ..) | (Ending::Cancelled, _, Some(_)) => (pay.job_cents(), pay.waiting_cents),
        (Ending::Cancelled, Some(arrived), None) => (pay.base_cents, pay.waiting_for(arrived, now)),
        (Ending::Cancelled, None, None) => return Ok(()),
    };
    let line = |kind, amount_cents| NewLine {
        courier_id: payee.courier_id,
        kind,
        job_id: Some(payee.job_id),
        assignment_id: Some(assignment_id),
        currency: &pay.currency,
        amount_cents,
        reason: None,
        created_by: None,
    };
    let mut lines = vec![line(Kind::Job, job_cents)];
    if waiting_cents > 0 {
        lines.push(line(Kind::Waiting, waiting_cents));
    }
    earnings::record(&**tx, &lines, now).await?;
    Ok(())
}

/// Writes in `tx` the tip of `tip_cents` on `payee`'s job at `now`: a
/// line of its own, all of it the courier's (docs/couriers.md "Tips"). The
/// caller gives each tip once (`tips::give`), in the transaction of the
/// delivery or of the raise.
pub(crate) async fn tip(
    tx: &WriteTransaction,
    payee: Payee<'_>,
    currency: &str,
    tip_cents: i64,
    now: i64,
) -> CoreResult<()> {
    let line = NewLine {
        courier_id: payee.courier_id,
        kind: Kind::Tip,
        job_id: Some(payee.job_id),
        assignment_id: None,
        currency,
        amount_cents: tip_cents,
        reason: None,
        created_by: None,
    };
    earnings::record(&**tx, &[line], now).await?;
    Ok(())
}

async fn by_assignment(db: &impl ConnectionTrait, assignment_id: &str) -> CoreResult<Option<entity::Model>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::AssignmentId.eq(assignment_id))
        .one(db)
        .await?)
}

fn from_model(row: entity::Model) -> JobPay {
    JobPay {
        rule_id: row.rule_id,
        currency: row.currency,
        base_cents: row.base_cents,
        distance_cents: row.distance_cents,
        time_cents: row.time_cents,
        surcharge_cents: row.surcharge_cents,
        waiting_per_minute_cents: row.waiting_per_minute_cents,
        waiting_cents: row.waiting_cents,
    }
}

#[cfg(test)]
mod tests;
