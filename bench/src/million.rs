//! List pages and reports on a table of a million rows (PostgreSQL): the
//! benchmark's workspace gets 1,000,000 deliveries and as many events,
//! copied in SQL from the ones the run created (new ids, tracking tokens
//! and creation times spread over the [`DAYS`] before the run, no external
//! id; eight in ten delivered, the rest cancelled), and analysed. Then the
//! first page of `GET /v1/deliveries?limit=20` and of `GET /v1/events?limit=20`
//! is measured against `GET /v1/deliveries/{id}`, paired run by run, with
//! the query plan of each list as PostgreSQL runs it; and the console's
//! reports page over those days, once the rollup has counted them again.

use std::time::Instant;

use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement, TransactionTrait};

use crate::service::{BenchResult, Service};

/// Rows copied into each table.
pub const ROWS: i64 = 1_000_000;
/// Rows per copying statement (one transaction each).
const CHUNK: i64 = 100_000;
/// Days the copies span, back from the template's creation.
pub const DAYS: i64 = 90;
/// Microseconds between two copies' creation times.
const SPACING_MICROS: i64 = DAYS * 86_400_000_000 / ROWS;

/// Copies `template_delivery` and its `delivery.created` event [`ROWS`]
/// times each, in chunks; then `VACUUM ANALYZE`. Answers the seconds taken.
pub async fn seed(service: &Service, template_delivery: &str) -> BenchResult<f64> {
    let started = Instant::now();
    let db = Database::connect(service.database.url.as_str()).await?;
    for from in (0..ROWS).step_by(CHUNK as usize) {
        let to = from + CHUNK;
        // Each copy overrides only what must differ (`jsonb_populate_record`
        // keeps every other column of the template as it is); a delivered
        // one was picked up 5 to 34 minutes after its booking and delivered
        // 10 to 49 minutes later, six in seven on time.
        let deliveries = format!(
            "INSERT INTO deliveries SELECT (jsonb_populate_record(d, jsonb_build_object(\
               'id', 'del_m' || g, 'tracking_token', 'tok_m' || g, 'external_id', NULL, \
               'created_at', d.created_at - g::bigint * {SPACING_MICROS}, 'updated_at', d.created_at - g::bigint * {SPACING_MICROS}, \
               'status', CASE WHEN g % 10 < 8 THEN 'delivered' ELSE 'cancelled' END, \
               'picked_up_at', CASE WHEN g % 10 < 8 THEN d.created_at - g::bigint * {SPACING_MICROS} + (5 + g % 30) * 60000000::bigint END, \
               'delivered_at', CASE WHEN g % 10 < 8 THEN d.created_at - g::bigint * {SPACING_MICROS} + (15 + g % 30 + g % 40) * 60000000::bigint END, \
               'on_time', CASE WHEN g % 10 < 8 THEN g % 7 <> 0 END, \
               'cancellation_reason', CASE g % 10 WHEN 8 THEN 'no_courier_found' WHEN 9 THEN 'cancelled_by_you' END))).* \
             FROM deliveries d, generate_series({from} + 1, {to}) g WHERE d.id = $1"
        );
        db.execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            deliveries,
            [template_delivery.into()],
        ))
        .await?;
        let events = format!(
            "INSERT INTO events SELECT (jsonb_populate_record(e, jsonb_build_object(\
               'id', 'evt_m' || g, 'delivery_id', 'del_m' || g, 'created_at', e.created_at - g::bigint * {SPACING_MICROS}))).* \
             FROM events e, generate_series({from} + 1, {to}) g \
             WHERE e.delivery_id = $1 AND e.type = 'delivery.created'"
        );
        db.execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            events,
            [template_delivery.into()],
        ))
        .await?;
    }
    db.execute_unprepared("VACUUM ANALYZE deliveries").await?;
    db.execute_unprepared("VACUUM ANALYZE events").await?;
    let _ = db.close().await;
    Ok(started.elapsed().as_secs_f64())
}

/// The plan PostgreSQL runs for the first page of each list, as the core
/// asks it (a generic plan, as a prepared statement gets after five runs):
/// each line `table: plan`. Both lists read their page's ids alone (the
/// rows come from the delivery and event caches).
pub async fn plans(service: &Service) -> BenchResult<Vec<String>> {
    let db = Database::connect(service.database.url.as_str()).await?;
    let mut plans = Vec::new();
    for table in ["deliveries", "events"] {
        let plan = explain(&db, table, &service.workspace_id).await?;
        plans.push(format!("{table}: {plan}"));
    }
    let _ = db.close().await;
    Ok(plans)
}

async fn explain(db: &DatabaseConnection, table: &str, workspace_id: &str) -> BenchResult<String> {
    // One connection for the setting, the prepared statement and its plan.
    let db = db.begin().await?;
    db.execute_unprepared("SET LOCAL plan_cache_mode = force_generic_plan")
        .await?;
    let prepared = format!("list_{table}");
    db.execute_unprepared(&format!(
        "PREPARE {prepared}(text, text, bigint) AS SELECT created_at, id FROM {table} \
         WHERE workspace_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3"
    ))
    .await?;
    let rows = db
        .query_all_raw(Statement::from_string(
            DbBackend::Postgres,
            format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE {prepared}('{workspace_id}', 'live', 21)"),
        ))
        .await?;
    db.execute_unprepared(&format!("DEALLOCATE {prepared}")).await?;
    db.rollback().await?;
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|row| row.try_get_by_index::<String>(0).ok())
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect();
    Ok(lines.join(" | "))
}

/// Has the reports' rollup count every day again, as it does when it first
/// meets a database (its mark removed), and answers the seconds until it
/// has read every delivery.
pub async fn roll_up_again(service: &Service) -> BenchResult<f64> {
    let db = Database::connect(service.database.url.as_str()).await?;
    let started = Instant::now();
    let newest: i64 = db
        .query_one_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT max(updated_at) FROM deliveries",
        ))
        .await?
        .and_then(|row| row.try_get_by_index(0).ok())
        .ok_or("no deliveries to count")?;
    db.execute_unprepared("DELETE FROM report_marks").await?;
    let deadline = started + ROLLUP_DEADLINE;
    loop {
        let read_to: Option<i64> = db
            .query_one_raw(Statement::from_string(
                DbBackend::Postgres,
                "SELECT read_to FROM report_marks WHERE name = 'deliveries'",
            ))
            .await?
            .and_then(|row| row.try_get_by_index(0).ok());
        if read_to.is_some_and(|read_to| read_to >= newest) {
            break;
        }
        if Instant::now() > deadline {
            return Err(
                format!("the reports' rollup did not read a million deliveries within {ROLLUP_DEADLINE:?}").into(),
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let _ = db.close().await;
    Ok(started.elapsed().as_secs_f64())
}

/// How long counting every day again may take before the run gives up.
const ROLLUP_DEADLINE: std::time::Duration = std::time::Duration::from_secs(900);

/// The console's reports page of the workspace's live deliveries over the
/// last [`DAYS`] days, by day: its address.
pub fn reports_url(console_url: &str, workspace_id: &str) -> String {
    let today = chrono::Utc::now().date_naive();
    let from = today - chrono::Days::new(DAYS as u64 - 1);
    format!("{console_url}/console/w/{workspace_id}/reports?mode=live&from={from}&to={today}&by=day")
}
