use sea_orm_migration::prelude::*;

/// On PostgreSQL, the history tables (`events`, `webhook_attempts`,
/// `courier_trails`) become partitioned by day on their time column, so
/// that retention drops whole days instead of deleting rows
/// (docs/scaling.md "History partitions"); SQLite keeps its tables.
///
/// A partitioned table's primary key must hold the partition key: events
/// are keyed by `(id, created_at)` and attempts by `(id, attempted_at)`
/// (trails already were by `(courier_id, recorded_at)`). The indexes on the
/// time column alone served only the row deletes and are not kept. Rows are
/// copied into a partition per day they have, the partitions of today and
/// the next days are created too, and a default partition takes rows of
/// days not created yet.
#[derive(DeriveMigrationName)]
pub struct Migration;

/// A history table as it is partitioned.
struct History {
    table: &'static str,
    column: &'static str,
    primary_key: &'static str,
    /// Its primary key before.
    old_primary_key: &'static str,
    /// `(name, columns)` of the indexes it keeps.
    indexes: &'static [(&'static str, &'static str)],
    /// Its index on the time column alone, not kept.
    age_index: Option<&'static str>,
}

const HISTORY: [History; 3] = [
    History {
        table: "events",
        column: "created_at",
        primary_key: "id, created_at",
        old_primary_key: "id",
        indexes: &[
            ("events_listing", "workspace_id, mode, created_at, id"),
            ("events_delivery", "delivery_id, created_at"),
        ],
        age_index: None,
    },
    History {
        table: "webhook_attempts",
        column: "attempted_at",
        primary_key: "id, attempted_at",
        old_primary_key: "id",
        indexes: &[("webhook_attempts_event", "event_id, attempted_at")],
        age_index: Some("webhook_attempts_attempted_at"),
    },
    History {
        table: "courier_trails",
        column: "recorded_at",
        primary_key: "courier_id, recorded_at",
        old_primary_key: "courier_id, recorded_at",
        indexes: &[("courier_trails_job", "job_id, recorded_at")],
        age_index: Some("courier_trails_age"),
    },
];

/// Days after today whose partitions the migration creates (the retention
/// worker keeps creating them, `day_partitions::DAYS_AHEAD` in the core).
const DAYS_AHEAD: i64 = 7;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != sea_orm::DatabaseBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for history in &HISTORY {
            db.execute_unprepared(&partition(history)).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != sea_orm::DatabaseBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for history in &HISTORY {
            db.execute_unprepared(&unpartition(history)).await?;
        }
        Ok(())
    }
}

/// The statements turning `history`'s table into a partitioned one, its
/// rows kept.
fn partition(history: &History) -> String {
    let History {
        table,
        column,
        primary_key,
        indexes,
        age_index,
        ..
    } = history;
    let old = format!("{table}_unpartitioned");
    // Index names are the schema's: the old ones make way for the new.
    let mut sql = format!("ALTER TABLE {table} RENAME TO {old};\nALTER INDEX {table}_pkey RENAME TO {old}_pkey;\n");
    for name in indexes.iter().map(|(name, _)| *name).chain(*age_index) {
        sql += &format!("ALTER INDEX {name} RENAME TO {name}_unpartitioned;\n");
    }
    sql += &format!(
        "CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS) PARTITION BY RANGE ({column});\n\
         ALTER TABLE {table} ADD PRIMARY KEY ({primary_key});\n"
    );
    for (name, columns) in *indexes {
        sql += &format!("CREATE INDEX {name} ON {table} ({columns});\n");
    }
    sql += &format!(
        "CREATE TABLE {table}_default PARTITION OF {table} DEFAULT;\n\
         DO $$\n\
         DECLARE\n\
           d bigint;\n\
           today bigint := floor(extract(epoch FROM now()) / 86400)::bigint;\n\
         BEGIN\n\
           FOR d IN\n\
             SELECT DISTINCT {column} / 86400000000 FROM {old} WHERE {column} >= 0\n\
             UNION SELECT generate_series(today, today + {DAYS_AHEAD})\n\
           LOOP\n\
             EXECUTE format('CREATE TABLE %I PARTITION OF {table} FOR VALUES FROM (%s) TO (%s)',\n\
               '{table}_p' || to_char(to_timestamp(d * 86400) AT TIME ZONE 'UTC', 'YYYYMMDD'),\n\
               d * 86400000000, (d + 1) * 86400000000);\n\
           END LOOP;\n\
         END $$;\n\
         INSERT INTO {table} SELECT * FROM {old};\n\
         DROP TABLE {old};\n"
    );
    sql
}

/// The statements turning `history`'s partitioned table back into one
/// table, its rows kept.
fn unpartition(history: &History) -> String {
    let History {
        table,
        column,
        old_primary_key,
        indexes,
        age_index,
        ..
    } = history;
    let flat = format!("{table}_unpartitioned");
    let mut sql = format!(
        "CREATE TABLE {flat} (LIKE {table} INCLUDING DEFAULTS);\n\
         INSERT INTO {flat} SELECT * FROM {table};\n\
         DROP TABLE {table};\n\
         ALTER TABLE {flat} RENAME TO {table};\n\
         ALTER TABLE {table} ADD PRIMARY KEY ({old_primary_key});\n"
    );
    for (name, columns) in *indexes {
        sql += &format!("CREATE INDEX {name} ON {table} ({columns});\n");
    }
    if let Some(name) = age_index {
        sql += &format!("CREATE INDEX {name} ON {table} ({column});\n");
    }
    sql
}
