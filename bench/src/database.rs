//! The database ceiling: the writes of one delivery create without the
//! service. One transaction claims an idempotency key, sums the open live
//! amount (the credit-limit check), inserts the delivery and its
//! `delivery.created` event, and stores the answer on the key — the same
//! statements with rows of the same size and the same indexes as the real
//! tables. PostgreSQL runs it with pgbench; SQLite in a loop here.

use std::time::{Duration, Instant};

use sea_orm::{ConnectOptions, ConnectionTrait, Database};

use crate::service::{Backend, BenchResult, ScratchDatabase};

const SCHEMA: &str = "
CREATE TABLE deliveries (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL,
  external_id TEXT, amount_cents BIGINT, route TEXT NOT NULL, breakdown TEXT, proof TEXT NOT NULL,
  tracking_token TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, invoiced_at BIGINT,
  next_step_at BIGINT);
CREATE UNIQUE INDEX deliveries_external_id ON deliveries (workspace_id, mode, external_id);
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

/// Row payloads about as large as a real delivery's JSON columns.
fn payload(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// The transaction's statements for the create numbered by the SQL
/// expression `n`, at the SQL expression `now` (so that SQLite and the
/// pgbench script share them).
fn statements(n: &str, now: &str) -> Vec<String> {
    let (route, breakdown, proof, event, answer) =
        (payload(700), payload(400), payload(250), payload(2200), payload(2600));
    let id = |prefix: &str| format!("'{prefix}' || {n}");
    let (key, hash, delivery, token, event_id) = (id("key"), id("hash"), id("del"), id("token"), id("evt"));
    vec![
        format!("INSERT INTO idempotency_keys VALUES ('ws_bench', 'live', 'deliveries', {key}, {hash}, NULL, NULL, {now})"),
        "SELECT COALESCE(SUM(amount_cents), 0) FROM deliveries WHERE workspace_id = 'ws_bench' AND mode = 'live' AND status <> 'cancelled' AND invoiced_at IS NULL".into(),
        format!("INSERT INTO deliveries VALUES ({delivery}, 'ws_bench', 'live', 'pending', NULL, 1500, '{route}', '{breakdown}', '{proof}', {token}, {now}, {now}, NULL, {now})"),
        format!("INSERT INTO events VALUES ({event_id}, 'ws_bench', 'live', 'delivery.created', {delivery}, '{event}', {now})"),
        format!("UPDATE idempotency_keys SET status = 201, response = '{answer}' WHERE workspace_id = 'ws_bench' AND mode = 'live' AND endpoint = 'deliveries' AND key = {key}"),
    ]
}

fn pgbench_script() -> String {
    let now = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";
    let mut script = String::from("\\set n random(1, 1000000000000)\nBEGIN;\n");
    for statement in statements(":n", now) {
        script.push_str(&statement);
        script.push_str(";\n");
    }
    script.push_str("COMMIT;\n");
    script
}

/// Creates per second the bare database sustains at `concurrency`
/// connections (SQLite: one writer, whatever `concurrency` says).
pub async fn ceiling(backend: Backend, postgres_url: &str, concurrency: usize, duration: Duration) -> BenchResult<f64> {
    let database = ScratchDatabase::create(backend, postgres_url, "raw").await?;
    let result = match backend {
        Backend::Postgres => pgbench(&database, concurrency, duration).await,
        Backend::Sqlite => sqlite_loop(&database, duration).await,
    };
    database.drop_database().await;
    result
}

async fn pgbench(database: &ScratchDatabase, concurrency: usize, duration: Duration) -> BenchResult<f64> {
    let db = Database::connect(database.url.as_str()).await?;
    db.execute_unprepared(SCHEMA).await?;
    let _ = db.close().await;
    let script = database.dir.join("create.sql");
    std::fs::write(&script, pgbench_script())?;
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

/// The loop runs in this process on one connection, with the pragmas the
/// core uses (WAL, synchronous=NORMAL).
async fn sqlite_loop(database: &ScratchDatabase, duration: Duration) -> BenchResult<f64> {
    let mut options = ConnectOptions::new(database.url.clone());
    options.max_connections(1).sqlx_logging(false);
    let db = Database::connect(options).await?;
    db.execute_unprepared("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        .await?;
    db.execute_unprepared(SCHEMA).await?;
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < duration {
        let now = chrono::Utc::now().timestamp_micros().to_string();
        let mut transaction = String::from("BEGIN;");
        for statement in statements(&n.to_string(), &now) {
            transaction.push_str(&statement);
            transaction.push(';');
        }
        transaction.push_str("COMMIT;");
        db.execute_unprepared(&transaction).await?;
        n += 1;
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    let _ = db.close().await;
    Ok(rate)
}
