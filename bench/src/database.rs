//! The database ceilings, without the service:
//! - [`Workload::CreateWrites`], the writes of one delivery create as the
//!   core wrote them before group commit on PostgreSQL: one transaction
//!   claims an idempotency key, inserts the delivery and its
//!   `delivery.created` event, reserves the amount on the workspace's
//!   running open amount (a conditional update of one row shared by every
//!   create) and stores the answer on the key;
//! - [`Workload::TwoInserts`], the physical ceiling: one transaction inserts
//!   a delivery and its event, with no row shared between transactions.
//!
//! Same rows sizes and indexes as the real tables. PostgreSQL runs them with
//! pgbench; SQLite in a loop here.

use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, Database};
use tokio_util::sync::CancellationToken;

use crate::service::{Backend, BenchResult, ScratchDatabase};

const SCHEMA: &str = "
CREATE TABLE workspaces (id TEXT PRIMARY KEY, invoice_billing_enabled BOOLEAN NOT NULL, statement_overdue BOOLEAN NOT NULL,
  credit_limit_cents BIGINT NOT NULL, open_amount_cents BIGINT NOT NULL);
INSERT INTO workspaces VALUES ('ws_bench', TRUE, FALSE, 9000000000000000, 0);
CREATE TABLE deliveries (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL,
  external_id TEXT, amount_cents BIGINT, route TEXT NOT NULL, breakdown TEXT, proof TEXT NOT NULL,
  tracking_token TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
  next_step_at BIGINT);
CREATE UNIQUE INDEX deliveries_external_id_given ON deliveries (workspace_id, mode, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX deliveries_listing ON deliveries (workspace_id, mode, created_at, id);
CREATE UNIQUE INDEX deliveries_tracking_token ON deliveries (tracking_token);
CREATE INDEX deliveries_next_step ON deliveries (next_step_at);
CREATE TABLE events (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, mode TEXT NOT NULL, type TEXT NOT NULL,
  delivery_id TEXT, data TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX events_listing ON events (workspace_id, mode, created_at, id);
CREATE INDEX events_delivery ON events (delivery_id);
CREATE TABLE idempotency_keys (workspace_id TEXT NOT NULL, mode TEXT NOT NULL, endpoint TEXT NOT NULL, key TEXT NOT NULL,
  request_hash TEXT NOT NULL, status INTEGER, response TEXT, created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, mode, endpoint, key));
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
";

/// What a ceiling's transaction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    CreateWrites,
    TwoInserts,
}

/// Row payloads about as large as a real delivery's JSON columns.
fn payload(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// The transaction's statements for the create numbered by the SQL
/// expression `n`, at the SQL expression `now` (so that SQLite and the
/// pgbench script share them).
fn statements(workload: Workload, n: &str, now: &str) -> Vec<String> {
    let (route, breakdown, proof, event, answer) =
        (payload(700), payload(400), payload(250), payload(2200), payload(2600));
    let id = |prefix: &str| format!("'{prefix}' || {n}");
    let (key, hash, delivery, token, event_id) = (id("key"), id("hash"), id("del"), id("token"), id("evt"));
    let insert_delivery = format!(
        "INSERT INTO deliveries VALUES ({delivery}, 'ws_bench', 'live', 'pending', NULL, 1500, '{route}', '{breakdown}', '{proof}', {token}, {now}, {now}, {now})"
    );
    let insert_event = format!(
        "INSERT INTO events VALUES ({event_id}, 'ws_bench', 'live', 'delivery.created', {delivery}, '{event}', {now})"
    );
    match workload {
        Workload::TwoInserts => vec![insert_delivery, insert_event],
        Workload::CreateWrites => vec![
            format!("INSERT INTO idempotency_keys VALUES ('ws_bench', 'live', 'deliveries', {key}, {hash}, NULL, NULL, {now})"),
            insert_delivery,
            insert_event,
            "UPDATE workspaces SET open_amount_cents = open_amount_cents + 1500 WHERE id = 'ws_bench' AND invoice_billing_enabled AND NOT statement_overdue AND open_amount_cents + 1500 <= credit_limit_cents".into(),
            format!("UPDATE idempotency_keys SET status = 201, response = '{answer}' WHERE workspace_id = 'ws_bench' AND mode = 'live' AND endpoint = 'deliveries' AND key = {key}"),
        ],
    }
}

fn pgbench_script(workload: Workload) -> String {
    let now = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";
    let mut script = String::from("\\set n random(1, 1000000000000)\nBEGIN;\n");
    for statement in statements(workload, ":n", now) {
        script.push_str(&statement);
        script.push_str(";\n");
    }
    script.push_str("COMMIT;\n");
    script
}

/// Transactions of `workload` per second the bare database sustains at
/// `concurrency` connections (SQLite: one writer, whatever `concurrency`
/// says).
pub async fn ceiling(
    backend: Backend,
    postgres_url: &str,
    workload: Workload,
    concurrency: usize,
    duration: Duration,
) -> BenchResult<f64> {
    let database = ScratchDatabase::create(backend, postgres_url, "raw").await?;
    let result = match backend {
        Backend::Postgres => pgbench(&database, workload, concurrency, duration).await,
        Backend::Sqlite => sqlite_loop(&database, workload, duration).await,
    };
    database.drop_database().await;
    result
}

async fn pgbench(
    database: &ScratchDatabase,
    workload: Workload,
    concurrency: usize,
    duration: Duration,
) -> BenchResult<f64> {
    let db = Database::connect(database.url.as_str()).await?;
    db.execute_unprepared(SCHEMA).await?;
    let _ = db.close().await;
    let script = database.dir.join("create.sql");
    std::fs::write(&script, pgbench_script(workload))?;
    let output = tokio::process::Command::new("pgbench")
        .args(["-n", "-M", "prepared", "-j", "2"])
        .args(["-c", &concurrency.to_string()])
        .args(["-T", &duration.as_secs().max(1).to_string()])
        .arg("-f")
        .arg(&script)
        .arg(&database.url)
        .output()
        .await?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|tps| tps.parse().ok())
        .ok_or_else(|| format!("pgbench: {text}{}", String::from_utf8_lossy(&output.stderr)).into())
}

/// The loop runs in this process, one transaction after the other, on a
/// pool opened exactly as the core opens its own (same pragmas), with the
/// core's background WAL checkpointer running beside it.
async fn sqlite_loop(database: &ScratchDatabase, workload: Workload, duration: Duration) -> BenchResult<f64> {
    let db = courier_store::db::connect(&database.url, None).await?;
    db.execute_unprepared(SCHEMA).await?;
    let stop = CancellationToken::new();
    let checkpoints = tokio::spawn(courier_store::db::checkpoint_wal(db.clone(), stop.clone()));
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < duration {
        let now = chrono::Utc::now().timestamp_micros().to_string();
        let mut transaction = String::from("BEGIN;");
        for statement in statements(workload, &n.to_string(), &now) {
            transaction.push_str(&statement);
            transaction.push(';');
        }
        transaction.push_str("COMMIT;");
        db.execute_unprepared(&transaction).await?;
        n += 1;
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    stop.cancel();
    let _ = checkpoints.await;
    let _ = db.close().await;
    Ok(rate)
}
