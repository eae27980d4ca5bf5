//! Where couriers are (docs/couriers.md "Positions"): the phones' reports,
//! taken in without a database transaction each. An accepted position is
//! the courier's last known position at once (in this process's memory);
//! reports wait in a buffer that [`flush`] writes in one transaction every
//! [`FLUSH_EVERY`]: each courier's last position (`courier_locations`) and
//! the positions taken while they hold a job (`courier_trails`, kept 30
//! days). A position is held in memory at most about that long before
//! another replica can read it; if the process dies, what it held is lost
//! (the phone reports again seconds later). A write that fails keeps what
//! it held for the next (up to a burst per courier): one failure loses no
//! courier's positions. On SQLite the rows go in statements that fit its
//! limit of bound parameters ([`db::rows_per_statement`]).
//!
//! Each courier may report [`courier_store::config::CoreConfig::positions_per_second`]
//! positions a second, and a burst of
//! [`courier_store::config::CoreConfig::position_burst`] above it (a token bucket per
//! courier, in this process's memory); a report beyond that is refused
//! whole, `rate_limited` with the delay after which it fits.

use std::collections::HashMap;
use std::time::Duration;

use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, Statement,
};

pub mod intake;

use crate::{Core, CoreError, CoreResult};
use courier_orders::assignments;
use courier_store::{cache_feed, day_partitions, db};
use intake::{Allowance, Limit, Received};
pub use intake::{Intake, MAX_AGE_MICROS, MAX_AHEAD_MICROS, Position, Streaming};

pub mod latest {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_locations")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub courier_id: String,
        pub latitude: f64,
        pub longitude: f64,
        pub accuracy_m: Option<f64>,
        pub heading_deg: Option<f64>,
        pub speed_mps: Option<f64>,
        pub recorded_at: i64,
        pub received_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod trail {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_trails")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub courier_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub recorded_at: i64,
        /// The oldest job the courier held then; a job's trail is read by
        /// the times of its holds ([`super::trail`]).
        pub job_id: String,
        pub latitude: f64,
        pub longitude: f64,
        pub accuracy_m: Option<f64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// How often the buffered reports are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// On PostgreSQL a position in memory is served while younger than this
/// (received); an older one is read from the database, which another
/// replica may have written since.
const FRESH_MICROS: i64 = 2 * 1_000_000;
/// While a courier's report stream is open on this process, their phone
/// reports here and nowhere else: this process's position is served up to
/// this old (a phone reports every few seconds; a stream the phone left
/// for another replica, not yet seen closed, holds an old one no longer).
const STREAMING_FRESH_MICROS: i64 = 30 * 1_000_000;
/// Trails are kept this long.
pub const TRAIL_RETENTION_MICROS: i64 = 30 * 86_400_000_000;
/// The most positions one report carries.
pub const MAX_PER_REPORT: usize = 100;

/// Marks courier `courier_id`'s report stream open here until the answer
/// is dropped: meanwhile their position in memory is theirs
/// ([`STREAMING_FRESH_MICROS`]).
pub fn streaming(core: &Core, courier_id: &str) -> Streaming {
    *core
        .positions
        .lock_streaming()
        .entry(courier_id.to_owned())
        .or_default() += 1;
    Streaming {
        intake: core.positions.clone(),
        courier_id: courier_id.to_owned(),
    }
}

/// The refusal of a report over courier's allowance, with the time after
/// which it fits (whole seconds, at least one).
fn throttled(limit: Limit, wait: Duration) -> CoreError {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let retry_after = Duration::from_secs(seconds.max(1));
    CoreError::Throttled {
        message: format!(
            "Positions came faster than {} a second beyond a burst of {}; send them again in {} s.",
            limit.per_second,
            limit.burst,
            retry_after.as_secs()
        ),
        retry_after,
        accepted: None,
    }
}

/// The allowance configured for every courier.
fn limit(core: &Core) -> Limit {
    Limit {
        per_second: core.config.positions_per_second,
        burst: core.config.position_burst.max(MAX_PER_REPORT as f64),
    }
}

/// The last position flushed of a courier holding jobs.
#[derive(Clone, Debug)]
pub struct Flushed {
    pub courier_id: String,
    pub position: Position,
}

/// Takes in `positions` of courier `courier_id` (checked before any is
/// kept: one bad position refuses the report, and so does a report beyond
/// the courier's allowance, `rate_limited` with a retry delay). The newest
/// becomes their last position now; all wait for the next [`flush`].
pub async fn accept(core: &Core, courier_id: &str, positions: Vec<Position>) -> CoreResult<usize> {
    let now = core.clock.now_micros();
    if positions.len() > MAX_PER_REPORT {
        return Err(CoreError::invalid(
            "positions",
            format!("A report carries at most {MAX_PER_REPORT} positions."),
        ));
    }
    if let Some(error) = positions.iter().enumerate().find_map(|(i, p)| p.check(i, now).err()) {
        core.metrics.positions(0, positions.len() as u64);
        return Err(error);
    }
    let Some(newest) = positions.iter().max_by_key(|p| p.recorded_at).copied() else {
        return Ok(0);
    };
    let limit = limit(core);
    // A courier's entries are made once: reports come by the thousand a
    // second.
    {
        let mut latest = core.positions.lock_latest();
        match latest.get_mut(courier_id) {
            Some(entry) => {
                if let Err(wait) = entry.allowance.take(positions.len(), now, limit) {
                    drop(latest);
                    core.metrics.positions(0, positions.len() as u64);
                    return Err(throttled(limit, wait));
                }
                if newest.recorded_at >= entry.position.recorded_at {
                    entry.position = newest;
                    entry.at = now;
                }
            }
            None => {
                let mut allowance = Allowance::full(limit, now);
                // A full allowance holds any one report.
                let _ = allowance.take(positions.len(), now, limit);
                let received = Received {
                    position: newest,
                    at: now,
                    allowance,
                };
                latest.insert(courier_id.to_owned(), received);
            }
        }
    }
    let accepted = positions.len();
    {
        let mut pending = core.positions.lock_pending();
        match pending.get_mut(courier_id) {
            Some(waiting) => waiting.extend(positions),
            None => {
                pending.insert(courier_id.to_owned(), positions);
            }
        }
    }
    core.metrics.positions(accepted as u64, 0);
    core.map_wake.wake();
    Ok(accepted)
}

/// Whether this process's position of a courier, received `age` ago, is
/// theirs ([`latest_many`]): `exact` when every report passes through this
/// process (SQLite), `streaming` while their report stream is open here.
fn served_from_memory(exact: bool, streaming: bool, age: i64) -> bool {
    exact
        || age
            < if streaming {
                STREAMING_FRESH_MICROS
            } else {
                FRESH_MICROS
            }
}

/// Courier `courier_id`'s last known position: this process's if it is
/// theirs ([`latest_many`]), else the database's.
pub async fn latest(core: &Core, courier_id: &str) -> CoreResult<Option<Position>> {
    Ok(latest_many(core, vec![courier_id.to_owned()]).await?.remove(courier_id))
}

/// The last known positions of `courier_ids` (those with none left out).
/// This process's position of a courier is served when no other process
/// can hold a newer one: on SQLite always (one process takes every
/// report); on PostgreSQL while it is younger than [`FRESH_MICROS`], or
/// than [`STREAMING_FRESH_MICROS`] while their report stream is open here.
/// The others are read from the database in one statement.
pub async fn latest_many(core: &Core, courier_ids: Vec<String>) -> CoreResult<HashMap<String, Position>> {
    let now = core.clock.now_micros();
    let exact = matches!(core.freshness, cache_feed::Freshness::Exact);
    let mut found = HashMap::new();
    let mut missing = Vec::new();
    {
        let latest = core.positions.lock_latest();
        let streaming = core.positions.lock_streaming();
        for id in courier_ids {
            match latest.get(&id) {
                Some(received) if served_from_memory(exact, streaming.contains_key(&id), now - received.at) => {
                    found.insert(id, received.position);
                }
                _ => missing.push(id),
            }
        }
    }
    if !missing.is_empty() {
        let rows = latest::Entity::find()
            .filter(db::one_of(core.db.get_database_backend(), "courier_id", &missing))
            .all(&core.db)
            .await?;
        for row in rows {
            found.insert(row.courier_id.clone(), from_latest(&row));
        }
    }
    Ok(found)
}

/// The trail of job `job_id`, oldest first: where each courier who held it
/// went while they held it (carrying other jobs too, their trail is each
/// job's).
pub async fn trail(db: &impl ConnectionTrait, job_id: &str) -> CoreResult<Vec<Position>> {
    let holds = assignments::of_job(db, job_id).await?;
    if holds.is_empty() {
        return Ok(Vec::new());
    }
    let mut while_held = sea_orm::Condition::any();
    for hold in &holds {
        let mut this = sea_orm::Condition::all()
            .add(trail::Column::CourierId.eq(hold.courier_id.as_str()))
            .add(trail::Column::RecordedAt.gte(hold.assigned_at));
        if let Some(ended_at) = hold.ended_at {
            this = this.add(trail::Column::RecordedAt.lte(ended_at));
        }
        while_held = while_held.add(this);
    }
    Ok(trail::Entity::find()
        .filter(while_held)
        .order_by_asc(trail::Column::RecordedAt)
        .all(db)
        .await?
        .into_iter()
        .map(|row| Position {
            latitude: row.latitude,
            longitude: row.longitude,
            accuracy_m: row.accuracy_m,
            heading_deg: None,
            speed_mps: None,
            recorded_at: row.recorded_at,
        })
        .collect())
}

/// Writes the reports taken in since the last flush in one transaction:
/// each courier's newest as their last position, and the positions of
/// couriers holding a job to that job's trail. Returns, for each courier
/// holding a job, the job and their newest position (for the ETAs). When
/// the write fails, what it held waits for the next, before what came
/// since (at most a burst per courier, the oldest let go).
pub async fn flush(core: &Core) -> CoreResult<Vec<Flushed>> {
    let pending = std::mem::take(&mut *core.positions.lock_pending());
    if pending.is_empty() {
        return Ok(Vec::new());
    }
    match write(core, &pending).await {
        Ok(flushed) => Ok(flushed),
        Err(error) => {
            let kept = limit(core).burst as usize;
            core.positions.put_back(pending, kept);
            Err(error)
        }
    }
}

/// [`flush`]'s write of `pending`.
async fn write(core: &Core, pending: &HashMap<String, Vec<Position>>) -> CoreResult<Vec<Flushed>> {
    let now = core.clock.now_micros();
    let newest: HashMap<String, Position> = pending
        .iter()
        .filter_map(|(courier_id, positions)| {
            let newest = positions.iter().max_by_key(|p| p.recorded_at)?;
            Some((courier_id.clone(), *newest))
        })
        .collect();
    let jobs: HashMap<String, String> = assignments::open_for_couriers(&core.db, newest.keys().cloned().collect())
        .await?
        .into_iter()
        .rev()
        .map(|a| (a.courier_id, a.job_id))
        .collect();
    let tx = core.begin().await?;
    let latest_rows: Vec<latest::ActiveModel> = newest
        .iter()
        .map(|(courier_id, p)| latest::ActiveModel {
            courier_id: Set(courier_id.clone()),
            latitude: Set(p.latitude),
            longitude: Set(p.longitude),
            accuracy_m: Set(p.accuracy_m),
            heading_deg: Set(p.heading_deg),
            speed_mps: Set(p.speed_mps),
            recorded_at: Set(p.recorded_at),
            received_at: Set(now),
        })
        .collect();
    upsert_latest(&*tx, latest_rows).await?;
    let trail_rows: Vec<trail::ActiveModel> = pending
        .iter()
        .filter_map(|(courier_id, positions)| Some((courier_id, jobs.get(courier_id)?, positions)))
        .flat_map(|(courier_id, job_id, positions)| {
            positions.iter().map(|p| trail::ActiveModel {
                courier_id: Set(courier_id.clone()),
                recorded_at: Set(p.recorded_at),
                job_id: Set(job_id.clone()),
                latitude: Set(p.latitude),
                longitude: Set(p.longitude),
                accuracy_m: Set(p.accuracy_m),
            })
        })
        .collect();
    insert_trail(&*tx, trail_rows).await?;
    tx.commit().await?;
    core.metrics.position_write();
    Ok(newest
        .into_iter()
        .filter_map(|(courier_id, position)| {
            jobs.contains_key(&courier_id)
                .then_some(Flushed { courier_id, position })
        })
        .collect())
}

/// Deletes trail positions older than 30 days; how many rows were deleted.
/// On PostgreSQL whole days go ([`day_partitions::drop_before`]).
pub async fn purge_trails(core: &Core, now: i64) -> CoreResult<u64> {
    let cutoff = now - TRAIL_RETENTION_MICROS;
    if core.writer.get_database_backend() == DbBackend::Postgres {
        return day_partitions::drop_before(&core.writer, &day_partitions::COURIER_TRAILS, cutoff).await;
    }
    Ok(trail::Entity::delete_many()
        .filter(trail::Column::RecordedAt.lt(cutoff))
        .exec(&core.writer)
        .await?
        .rows_affected)
}

/// Each courier's row replaced by the newer position: one statement.
async fn upsert_latest(db: &impl ConnectionTrait, rows: Vec<latest::ActiveModel>) -> CoreResult<()> {
    use latest::Column as C;
    let updated = [
        C::Latitude,
        C::Longitude,
        C::AccuracyM,
        C::HeadingDeg,
        C::SpeedMps,
        C::RecordedAt,
        C::ReceivedAt,
    ];
    if db.get_database_backend() == DbBackend::Postgres {
        let insert = db::column_arrays::<latest::Entity>(rows)?;
        let sets: Vec<String> = updated
            .iter()
            .map(|c| {
                let name = sea_orm::IdenStatic::as_str(c);
                format!("{name} = EXCLUDED.{name}")
            })
            .collect();
        let sql = format!(
            "{} ON CONFLICT (courier_id) DO UPDATE SET {}",
            insert.sql,
            sets.join(", ")
        );
        db.execute_raw(Statement::from_sql_and_values(DbBackend::Postgres, sql, insert.values))
            .await?;
        return Ok(());
    }
    for rows in db::in_statements::<latest::Entity>(rows) {
        latest::Entity::insert_many(rows)
            .on_conflict(OnConflict::column(C::CourierId).update_columns(updated).to_owned())
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

/// Trail rows, a position sent twice (a phone's retry) kept once.
async fn insert_trail(db: &impl ConnectionTrait, rows: Vec<trail::ActiveModel>) -> CoreResult<()> {
    if rows.is_empty() {
        return Ok(());
    }
    if db.get_database_backend() == DbBackend::Postgres {
        let insert = db::column_arrays::<trail::Entity>(rows)?;
        let sql = format!("{} ON CONFLICT DO NOTHING", insert.sql);
        db.execute_raw(Statement::from_sql_and_values(DbBackend::Postgres, sql, insert.values))
            .await?;
        return Ok(());
    }
    for rows in db::in_statements::<trail::Entity>(rows) {
        trail::Entity::insert_many(rows)
            .on_conflict_do_nothing_on([trail::Column::CourierId, trail::Column::RecordedAt])
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

fn from_latest(row: &latest::Model) -> Position {
    Position {
        latitude: row.latitude,
        longitude: row.longitude,
        accuracy_m: row.accuracy_m,
        heading_deg: row.heading_deg,
        speed_mps: row.speed_mps,
        recorded_at: row.recorded_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier::errors::ErrorCode;

    #[test]
    fn memory_serves_where_no_other_replica_holds_a_newer_position() {
        let second = 1_000_000;
        // SQLite: one process takes every report, however old.
        assert!(served_from_memory(true, false, 3_600 * second));
        // PostgreSQL: another replica may have written one since…
        assert!(served_from_memory(false, false, second));
        assert!(!served_from_memory(false, false, 3 * second));
        // …unless the phone reports here: for a while longer.
        assert!(served_from_memory(false, true, 10 * second));
        assert!(!served_from_memory(false, true, 31 * second));
    }

    #[test]
    fn a_courier_reports_a_burst_then_at_the_sustained_rate() {
        let second = 1_000_000;
        let limit = Limit {
            per_second: 20.0,
            burst: 3_600.0,
        };
        let mut allowance = Allowance::full(limit, 0);
        for _ in 0..36 {
            assert_eq!(allowance.take(100, 0, limit), Ok(()));
        }
        // Used up: a report of 100 fits again 5 s later, not before.
        assert_eq!(allowance.take(100, 0, limit), Err(Duration::from_secs(5)));
        assert_eq!(allowance.take(100, 4 * second, limit), Err(Duration::from_secs(1)));
        assert_eq!(allowance.take(100, 5 * second, limit), Ok(()));
        // An hour later the whole burst is back, and no more.
        assert_eq!(allowance.take(3_600, 3_600 * second, limit), Ok(()));
        assert!(allowance.take(1, 3_600 * second, limit).is_err());
        // A clock that went back refills nothing and takes nothing away.
        assert!(allowance.take(1, 3_000 * second, limit).is_err());
        // No limit.
        let free = Limit {
            per_second: 0.0,
            burst: 0.0,
        };
        assert_eq!(Allowance::full(free, 0).take(1_000_000, 0, free), Ok(()));
        let refusal = throttled(limit, Duration::from_millis(4_200));
        assert_eq!(refusal.code(), ErrorCode::RateLimited);
        assert!(matches!(refusal, CoreError::Throttled { retry_after, .. } if retry_after == Duration::from_secs(5)));
    }

    #[test]
    fn positions_of_a_failed_write_wait_for_the_next_before_newer_ones() {
        let at = |recorded_at| Position {
            latitude: 52.5,
            longitude: 13.4,
            accuracy_m: None,
            heading_deg: None,
            speed_mps: None,
            recorded_at,
        };
        let intake = Intake::default();
        intake.lock_pending().insert("cou_a".into(), vec![at(5), at(6)]);
        let failed = HashMap::from([
            ("cou_a".to_owned(), vec![at(1), at(2), at(3), at(4)]),
            ("cou_b".to_owned(), vec![at(1)]),
        ]);
        intake.put_back(failed, 5);
        let pending = intake.lock_pending();
        let times = |id: &str| pending[id].iter().map(|p| p.recorded_at).collect::<Vec<_>>();
        assert_eq!(times("cou_a"), vec![2, 3, 4, 5, 6]);
        assert_eq!(times("cou_b"), vec![1]);
    }

    /// More couriers than one SQLite statement's parameters can hold are
    /// written in one flush.
    #[tokio::test]
    async fn a_flush_larger_than_one_sqlite_statement_is_written_whole() -> CoreResult<()> {
        use sea_orm::PaginatorTrait;
        let core = crate::testing::TestCore::open().await;
        let couriers = db::rows_per_statement::<latest::Entity>() + 10;
        let now = core.clock.now_micros();
        for n in 0..couriers {
            let position = Position {
                latitude: 52.0,
                longitude: 13.0,
                accuracy_m: None,
                heading_deg: None,
                speed_mps: None,
                recorded_at: now - n as i64,
            };
            accept(&core, &format!("cou_{n}"), vec![position]).await?;
        }
        flush(&core).await?;
        let written = latest::Entity::find().count(&core.writer).await?;
        assert_eq!(written as usize, couriers);
        Ok(())
    }
}
