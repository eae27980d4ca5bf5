//! A courier's earnings (docs/couriers.md "Earnings"): one line per thing
//! paid — a job, the waiting at its pickup, a tip, an adjustment by an
//! operator or the fleet's admins — each at the time it was earned.
//! Owns `courier_earnings`. A job's and its waiting's lines are written in
//! the transaction that ends the job, once per assignment (a unique index),
//! on any replica; a tip's (no assignment) in the transaction that gives it; `statement_id` is empty until a statement lists the
//! line.

use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::{CoreError, CoreResult};
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_earnings")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        /// [`super::Kind`].
        pub kind: String,
        pub job_id: Option<String>,
        pub assignment_id: Option<String>,
        pub currency: String,
        pub amount_cents: i64,
        /// Why an adjustment was made.
        pub reason: Option<String>,
        /// Who made an adjustment, as the audit log names actors.
        pub created_by: Option<String>,
        pub earned_at: i64,
        pub statement_id: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// What a line pays for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A job's own pay (base, distance, time, surcharges).
    Job,
    /// Waiting at a job's pickup past the free minutes.
    Waiting,
    /// A tip, all of it the courier's.
    Tip,
    /// A bonus or a correction.
    Adjustment,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Job, Kind::Waiting, Kind::Tip, Kind::Adjustment];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Job => "job",
            Kind::Waiting => "waiting",
            Kind::Tip => "tip",
            Kind::Adjustment => "adjustment",
        }
    }

    fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// A line about to be written.
#[derive(Clone, Copy, Debug)]
pub struct NewLine<'a> {
    pub courier_id: &'a str,
    pub kind: Kind,
    pub job_id: Option<&'a str>,
    pub assignment_id: Option<&'a str>,
    pub currency: &'a str,
    pub amount_cents: i64,
    pub reason: Option<&'a str>,
    pub created_by: Option<&'a str>,
}

/// One line of a courier's earnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `ern_…`
    pub id: String,
    pub courier_id: String,
    pub kind: Kind,
    pub job_id: Option<String>,
    pub currency: String,
    pub amount_cents: i64,
    pub reason: Option<String>,
    pub created_by: Option<String>,
    pub earned_at: i64,
    pub statement_id: Option<String>,
}

/// Writes `lines`, earned at `now`, in `tx`: the transaction of what they
/// pay for; returns their ids. A job's or waiting line its assignment
/// already has stays as it is.
pub async fn record(tx: &impl ConnectionTrait, lines: &[NewLine<'_>], now: i64) -> CoreResult<Vec<String>> {
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let line_ids: Vec<String> = lines.iter().map(|_| ids::new_id("ern")).collect();
    let rows = lines.iter().zip(&line_ids).map(|(line, id)| entity::ActiveModel {
        id: Set(id.clone()),
        courier_id: Set(line.courier_id.to_owned()),
        kind: Set(line.kind.as_str().to_owned()),
        job_id: Set(line.job_id.map(str::to_owned)),
        assignment_id: Set(line.assignment_id.map(str::to_owned)),
        currency: Set(line.currency.to_owned()),
        amount_cents: Set(line.amount_cents),
        reason: Set(line.reason.map(str::to_owned)),
        created_by: Set(line.created_by.map(str::to_owned)),
        earned_at: Set(now),
        statement_id: Set(None),
    });
    entity::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::columns([entity::Column::AssignmentId, entity::Column::Kind])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(tx)
        .await?;
    Ok(line_ids)
}

/// Line `id`.
pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<Line>> {
    entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// Courier `courier_id`'s lines earned in `[from, to)`, oldest first.
pub async fn between(db: &impl ConnectionTrait, courier_id: &str, from: i64, to: i64) -> CoreResult<Vec<Line>> {
    let condition = Condition::all()
        .add(entity::Column::CourierId.eq(courier_id))
        .add(entity::Column::EarnedAt.gte(from))
        .add(entity::Column::EarnedAt.lt(to));
    lines_where(db, condition).await
}

/// What assignment `assignment_id` earned once its job ended: the sum of
/// its lines (its job's pay and waiting) and, for the hold that delivered
/// the job (`delivered`: its courier and job), the job's tips to that
/// courier; `None` before it has any.
pub async fn of_assignment(
    db: &impl ConnectionTrait,
    assignment_id: &str,
    delivered: Option<(&str, &str)>,
) -> CoreResult<Option<i64>> {
    let mut condition = Condition::any().add(entity::Column::AssignmentId.eq(assignment_id));
    if let Some((courier_id, job_id)) = delivered {
        condition = condition.add(
            Condition::all()
                .add(entity::Column::CourierId.eq(courier_id))
                .add(entity::Column::JobId.eq(job_id))
                .add(entity::Column::Kind.eq(Kind::Tip.as_str())),
        );
    }
    let lines = entity::Entity::find().filter(condition).all(db).await?;
    Ok((!lines.is_empty()).then(|| lines.iter().map(|line| line.amount_cents).sum()))
}

/// The lines statement `statement_id` lists, oldest first.
pub async fn of_statement(db: &impl ConnectionTrait, statement_id: &str) -> CoreResult<Vec<Line>> {
    lines_where(db, Condition::all().add(entity::Column::StatementId.eq(statement_id))).await
}

/// The lines matching `condition`, oldest first.
async fn lines_where(db: &impl ConnectionTrait, condition: Condition) -> CoreResult<Vec<Line>> {
    entity::Entity::find()
        .filter(condition)
        .order_by_asc(entity::Column::EarnedAt)
        // A job's lines share their time: the job's first, then its waiting.
        .order_by_asc(entity::Column::Kind)
        .order_by_asc(entity::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// What lines add up to, per kind, in one currency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub jobs: i64,
    pub job_cents: i64,
    pub waiting_cents: i64,
    pub tip_cents: i64,
    pub adjustment_cents: i64,
}

impl Totals {
    /// The sum of `lines` (all in one currency).
    pub fn of<'a>(lines: impl IntoIterator<Item = &'a Line>) -> Totals {
        lines.into_iter().fold(Totals::default(), |mut totals, line| {
            match line.kind {
                Kind::Job => {
                    totals.jobs += 1;
                    totals.job_cents += line.amount_cents;
                }
                Kind::Waiting => totals.waiting_cents += line.amount_cents,
                Kind::Tip => totals.tip_cents += line.amount_cents,
                Kind::Adjustment => totals.adjustment_cents += line.amount_cents,
            }
            totals
        })
    }

    pub fn total_cents(&self) -> i64 {
        self.job_cents + self.waiting_cents + self.tip_cents + self.adjustment_cents
    }
}

fn from_model(row: entity::Model) -> CoreResult<Line> {
    let kind = Kind::parse(&row.kind)
        .ok_or_else(|| CoreError::Internal(format!("earnings line {} has kind {:?}", row.id, row.kind)))?;
    Ok(Line {
        id: row.id,
        courier_id: row.courier_id,
        kind,
        job_id: row.job_id,
        currency: row.currency,
        amount_cents: row.amount_cents,
        reason: row.reason,
        created_by: row.created_by,
        earned_at: row.earned_at,
        statement_id: row.statement_id,
    })
}
