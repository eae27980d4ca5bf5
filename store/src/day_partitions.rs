//! Day partitions of the history tables on PostgreSQL (docs/scaling.md
//! "History partitions"): `events`, `webhook_attempts` and `courier_trails`
//! are partitioned by range of their time column, one partition a day
//! (`events_p20261128`), plus a default partition for rows of a day whose
//! partition does not exist yet.
//!
//! The retention worker creates the partitions of today and the next
//! [`DAYS_AHEAD`] days ([`create_ahead`]) and drops the days past retention
//! whole ([`drop_before`]), so retention writes no row deletes. Both run
//! under one advisory lock, so worker replicas doing it at once do it once.
//! SQLite has no partitions: its history tables are purged by deleting rows.

use chrono::{DateTime, NaiveDate};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement, TransactionTrait};

use crate::{CoreError, CoreResult};

/// A history table partitioned by day on `column` (unix microseconds).
pub struct History {
    pub table: &'static str,
    pub column: &'static str,
}

pub const EVENTS: History = History {
    table: "events",
    column: "created_at",
};
pub const WEBHOOK_ATTEMPTS: History = History {
    table: "webhook_attempts",
    column: "attempted_at",
};
pub const COURIER_TRAILS: History = History {
    table: "courier_trails",
    column: "recorded_at",
};

/// Days after today whose partitions exist ahead of their rows.
pub const DAYS_AHEAD: i64 = 7;

const DAY_MICROS: i64 = 86_400_000_000;

/// The advisory lock held while partitions are created or dropped.
const LOCK: i64 = 0x636f_7572_6461_7973;

/// How long dropping a partition waits for its table's lock before giving
/// up until the next round: the drop takes the parent table's exclusive lock,
/// and queries queue behind a waiting drop.
const DROP_LOCK_TIMEOUT: &str = "1s";

/// Creates the missing partitions of the day of `now` and the
/// [`DAYS_AHEAD`] next days, for every history table; rows of those days
/// already in the default partition move into theirs. Returns how many
/// were created (none on SQLite).
pub async fn create_ahead(db: &DatabaseConnection, now: i64) -> CoreResult<usize> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(0);
    }
    let today = now.div_euclid(DAY_MICROS);
    let mut created = 0;
    for history in [EVENTS, WEBHOOK_ATTEMPTS, COURIER_TRAILS] {
        let existing = partitions(db, &history).await?;
        for day in today..=today + DAYS_AHEAD {
            if !existing.iter().any(|(_, d)| *d == day) && create(db, &history, day).await? {
                created += 1;
            }
        }
    }
    Ok(created)
}

/// Drops `history`'s partitions of days wholly before `cutoff` and deletes
/// the default partition's rows before it; returns how many rows the
/// default partition lost (the dropped days are logged). Rows are so kept
/// until their whole day has passed the cutoff. PostgreSQL only.
pub async fn drop_before(db: &DatabaseConnection, history: &History, cutoff: i64) -> CoreResult<u64> {
    for (name, day) in partitions(db, history).await? {
        if (day + 1) * DAY_MICROS > cutoff {
            continue;
        }
        let tx = db.begin().await?;
        lock(&tx).await?;
        tx.execute_unprepared(&format!(
            "SET LOCAL lock_timeout = '{DROP_LOCK_TIMEOUT}'; DROP TABLE IF EXISTS {name}"
        ))
        .await?;
        tx.commit().await?;
        tracing::info!(partition = %name, "expired history day dropped");
    }
    let History { table, column } = history;
    let deleted = db
        .execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            format!("DELETE FROM {table}_default WHERE {column} < $1"),
            [cutoff.into()],
        ))
        .await?;
    Ok(deleted.rows_affected())
}

/// The day partitions of `history`'s table as `(name, day)`, days counted
/// from the unix epoch.
pub async fn partitions(db: &impl ConnectionTrait, history: &History) -> CoreResult<Vec<(String, i64)>> {
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
             WHERE i.inhparent = $1::text::regclass",
            [history.table.into()],
        ))
        .await?;
    let prefix = format!("{}_p", history.table);
    let mut found = Vec::new();
    for row in rows {
        let name: String = row.try_get("", "name")?;
        let day = name
            .strip_prefix(&prefix)
            .and_then(|date| NaiveDate::parse_from_str(date, "%Y%m%d").ok())
            .and_then(|date| date.and_hms_opt(0, 0, 0))
            .map(|midnight| midnight.and_utc().timestamp().div_euclid(86_400));
        if let Some(day) = day {
            found.push((name, day));
        }
    }
    Ok(found)
}

/// The name of `history`'s partition of `day`.
pub fn partition_name(history: &History, day: i64) -> CoreResult<String> {
    let midnight = DateTime::from_timestamp(day * 86_400, 0)
        .ok_or_else(|| CoreError::Internal(format!("day {day} is out of range")))?;
    Ok(format!("{}_p{}", history.table, midnight.format("%Y%m%d")))
}

/// Creates `history`'s partition of `day` unless another replica just did;
/// whether this call created it.
async fn create(db: &DatabaseConnection, history: &History, day: i64) -> CoreResult<bool> {
    let History { table, column } = history;
    let name = partition_name(history, day)?;
    let tx = db.begin().await?;
    lock(&tx).await?;
    let found = tx
        .query_one_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT to_regclass($1) IS NOT NULL AS found",
            [name.clone().into()],
        ))
        .await?
        .map(|row| row.try_get::<bool>("", "found"))
        .transpose()?
        .unwrap_or(false);
    if found {
        return Ok(false);
    }
    let (from, to) = (day * DAY_MICROS, (day + 1) * DAY_MICROS);
    // Created apart and attached, the rows of its day moved out of the
    // default partition first: attaching checks the default partition holds
    // none, and takes a lighter lock on the parent than creating in place.
    // The default partition is locked against inserts (reads go on) before
    // its rows are moved: a row of that day inserted between the move and
    // the attach would fail the attach.
    tx.execute_unprepared(&format!(
        "LOCK TABLE {table}_default IN SHARE ROW EXCLUSIVE MODE;\n\
         CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS);\n\
         WITH moved AS (DELETE FROM {table}_default WHERE {column} >= {from} AND {column} < {to} RETURNING *)\n\
         INSERT INTO {name} SELECT * FROM moved;\n\
         ALTER TABLE {table} ATTACH PARTITION {name} FOR VALUES FROM ({from}) TO ({to})"
    ))
    .await?;
    tx.commit().await?;
    tracing::info!(partition = %name, "history day partition created");
    Ok(true)
}

async fn lock(tx: &impl ConnectionTrait) -> CoreResult<()> {
    tx.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({LOCK})"))
        .await?;
    Ok(())
}
