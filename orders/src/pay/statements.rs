//! Courier statements (docs/couriers.md "Statements"): a courier's week,
//! Monday to Sunday in the platform's time zone, with its jobs, pay,
//! waiting, tips, adjustments and total, closed once the week is over (by
//! the worker from `COURIER_STATEMENT_DAY`, or `courier-core courier
//! statements close`). Owns `courier_statements`. A close puts on the
//! courier's statement every line of theirs on none yet and earned before
//! the week's end (a line that committed after an earlier close goes on
//! the next week's), so each line is on exactly one statement; the unique
//! index on (courier, week, currency) makes a second close of a week, on
//! any replica, change nothing. The sum of a statement's lines is its
//! total.

use chrono::{Datelike, Days, NaiveDate, TimeZone, Weekday};
use chrono_tz::Tz;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use tokio_util::sync::CancellationToken;

use super::earnings::{self, Line, Totals, entity as lines};
use crate::{CoreError, CoreResult, Orders};
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_store::ids;
use courier_store::runner::{Done, Runner, log_step};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_statements")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        /// The week: Monday 00:00 and the next Monday 00:00, local.
        pub period_start: i64,
        pub period_end: i64,
        pub currency: String,
        pub jobs: i64,
        pub job_cents: i64,
        pub waiting_cents: i64,
        pub tip_cents: i64,
        pub adjustment_cents: i64,
        pub total_cents: i64,
        pub closed_at: i64,
        /// Who closed it, as the audit log names actors (`worker` for the
        /// statement worker).
        pub closed_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Who closes a week.
#[derive(Clone, Copy, Debug)]
pub enum Closer<'a> {
    /// The statement worker (`closed_by` `worker`).
    Worker,
    /// The back office (operators, an admin service, the command line),
    /// audited.
    Caller(&'a Granted<act::Administer>),
}

impl Closer<'_> {
    fn name(&self) -> &str {
        match self {
            Closer::Worker => "worker",
            Closer::Caller(granted) => granted.actor(),
        }
    }
}

/// One courier's week, in one currency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// `cst_…`
    pub id: String,
    pub courier_id: String,
    pub period_start: i64,
    pub period_end: i64,
    pub currency: String,
    pub totals: Totals,
    pub closed_at: i64,
    pub closed_by: String,
}

/// The first instant of `date` in `time_zone` (a midnight a clock change
/// skips: the first instant after it).
pub fn midnight(time_zone: Tz, date: NaiveDate) -> i64 {
    let at = date.and_hms_opt(0, 0, 0).unwrap_or_default();
    time_zone
        .from_local_datetime(&at)
        .earliest()
        .or_else(|| {
            time_zone
                .from_local_datetime(&(at + chrono::Duration::hours(1)))
                .earliest()
        })
        .map_or(0, |at| at.timestamp_micros())
}

/// The week `[start, end)` holding `day` in `time_zone`: Monday 00:00 to
/// the next Monday 00:00.
pub fn week_of(time_zone: Tz, day: NaiveDate) -> (i64, i64) {
    let monday = day - Days::new(u64::from(day.weekday().num_days_from_monday()));
    (midnight(time_zone, monday), midnight(time_zone, monday + Days::new(7)))
}

/// The week the worker closes at `now`: the one before the latest
/// `close_day` (today's included), in `time_zone`.
pub fn due_week(time_zone: Tz, close_day: Weekday, now: i64) -> (i64, i64) {
    let today = time_zone
        .timestamp_micros(now)
        .single()
        .map_or_else(|| chrono::Utc::now().date_naive(), |at| at.date_naive());
    let back = (7 + today.weekday().num_days_from_monday() - close_day.num_days_from_monday()) % 7;
    let closing_day = today - Days::new(u64::from(back));
    week_of(time_zone, closing_day - Days::new(7))
}

/// Closes the week `[start, end)` for every courier with lines on no
/// statement earned before `end`, for `closer`; returns the statements
/// this call made (none for a week already closed).
pub async fn close(orders: &Orders, (start, end): (i64, i64), closer: Closer<'_>) -> CoreResult<Vec<Statement>> {
    let open: Vec<(String, String)> = lines::Entity::find()
        .select_only()
        .column(lines::Column::CourierId)
        .column(lines::Column::Currency)
        .distinct()
        .filter(lines::Column::StatementId.is_null())
        .filter(lines::Column::EarnedAt.lt(end))
        .into_tuple()
        .all(&orders.db)
        .await?;
    let mut made = Vec::new();
    for (courier_id, currency) in open {
        if let Some(statement) = close_one(orders, &courier_id, &currency, (start, end), closer).await? {
            made.push(statement);
        }
    }
    Ok(made)
}

/// Closes `courier_id`'s week in `currency` in one transaction: the
/// statement row first (a week closed already, here or on another replica,
/// stops here), then its lines, then its totals from them, and a caller's
/// audit entry.
async fn close_one(
    orders: &Orders,
    courier_id: &str,
    currency: &str,
    (start, end): (i64, i64),
    closer: Closer<'_>,
) -> CoreResult<Option<Statement>> {
    let now = orders.clock.now_micros();
    let id = ids::new_id("cst");
    let tx = orders.begin().await?;
    let row = entity::ActiveModel {
        id: Set(id.clone()),
        courier_id: Set(courier_id.to_owned()),
        period_start: Set(start),
        period_end: Set(end),
        currency: Set(currency.to_owned()),
        jobs: Set(0),
        job_cents: Set(0),
        waiting_cents: Set(0),
        tip_cents: Set(0),
        adjustment_cents: Set(0),
        total_cents: Set(0),
        closed_at: Set(now),
        closed_by: Set(closer.name().to_owned()),
    };
    let inserted = entity::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                entity::Column::CourierId,
                entity::Column::PeriodStart,
                entity::Column::Currency,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&*tx)
        .await?;
    if inserted == 0 {
        return Ok(None);
    }
    lines::Entity::update_many()
        .col_expr(lines::Column::StatementId, Expr::value(id.as_str()))
        .filter(lines::Column::CourierId.eq(courier_id))
        .filter(lines::Column::Currency.eq(currency))
        .filter(lines::Column::StatementId.is_null())
        .filter(lines::Column::EarnedAt.lt(end))
        .exec(&*tx)
        .await?;
    let totals = Totals::of(&earnings::of_statement(&*tx, &id).await?);
    entity::Entity::update_many()
        .col_expr(entity::Column::Jobs, Expr::value(totals.jobs))
        .col_expr(entity::Column::JobCents, Expr::value(totals.job_cents))
        .col_expr(entity::Column::WaitingCents, Expr::value(totals.waiting_cents))
        .col_expr(entity::Column::TipCents, Expr::value(totals.tip_cents))
        .col_expr(entity::Column::AdjustmentCents, Expr::value(totals.adjustment_cents))
        .col_expr(entity::Column::TotalCents, Expr::value(totals.total_cents()))
        .filter(entity::Column::Id.eq(id.as_str()))
        .exec(&*tx)
        .await?;
    if let Closer::Caller(granted) = closer {
        let change = audit::Change {
            action: "courier_statement.close",
            workspace_id: None,
            target: &id,
            courier_id: Some(courier_id),
        };
        granted.record(orders, &*tx, change).await?;
    }
    let statement = get(&*tx, &id)
        .await?
        .ok_or_else(|| CoreError::Internal(format!("statement {id} just closed was not found")))?;
    tx.commit().await?;
    Ok(Some(statement))
}

/// Statement `id`.
pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<Statement>> {
    Ok(entity::Entity::find_by_id(id.to_owned()).one(db).await?.map(from_model))
}

/// Statement `id` with its lines, oldest first.
pub async fn with_lines(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<(Statement, Vec<Line>)>> {
    let Some(statement) = get(db, id).await? else {
        return Ok(None);
    };
    Ok(Some((statement, earnings::of_statement(db, id).await?)))
}

/// Courier `courier_id`'s statements, newest week first.
pub async fn of_courier(db: &impl ConnectionTrait, courier_id: &str) -> CoreResult<Vec<Statement>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .order_by_desc(entity::Column::PeriodStart)
        .order_by_asc(entity::Column::Currency)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// Closes the due week every `billing_check_every` until `stop` fires.
pub async fn run(orders: Orders, stop: CancellationToken) {
    Runner::every(orders.config.billing_check_every)
        .run(&stop, move || check(orders.clone()))
        .await
}

async fn check(orders: Orders) -> CoreResult<Done> {
    let week = due_week(
        orders.catalog.home_time_zone(),
        orders.config.courier_statement_day,
        orders.clock.now_micros(),
    );
    let closed = close(&orders, week, Closer::Worker).await.map(|made| made.len());
    log_step(closed, "courier statements closed", "courier statements not closed");
    Ok(Done::Idle)
}

fn from_model(row: entity::Model) -> Statement {
    Statement {
        id: row.id,
        courier_id: row.courier_id,
        period_start: row.period_start,
        period_end: row.period_end,
        currency: row.currency,
        totals: Totals {
            jobs: row.jobs,
            job_cents: row.job_cents,
            waiting_cents: row.waiting_cents,
            tip_cents: row.tip_cents,
            adjustment_cents: row.adjustment_cents,
        },
        closed_at: row.closed_at,
        closed_by: row.closed_by,
    }
}
