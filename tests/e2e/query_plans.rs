//! How PostgreSQL plans the core's reads, where the plan, not the answer,
//! is what can go wrong.

use sea_orm::sea_query::{Alias, Expr, PostgresQueryBuilder, Query, SimpleExpr};
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use crate::harness::{Backend, TestApp};

/// The core's sessions make the generic plans they keep (every read's; a
/// write's after five runs) for the table as it grows, not as it was when
/// planned: reads of a list of keys (`db::one_of`) planned on a fresh
/// database, whose tables are empty, look the keys up in the index; and a
/// read no index serves is not compiled before each run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_reads_planned_on_empty_tables_stay_lookups() {
    crate::harness::limited(async {
        let Some(app) = TestApp::spawn(Backend::Postgres).await else {
            return;
        };
        // Pools of one connection each, as the core opens them: statements
        // prepared on them are planned as the core's are. The write pool
        // plans generically at once here, as it does from the sixth run.
        let pools = courier_store::db::open(app.database_url(), Some(1))
            .await
            .expect("pools");
        pools
            .writer
            .execute_unprepared("SET plan_cache_mode = force_generic_plan")
            .await
            .expect("generic plans");
        plans_fit_growing_tables("read", &pools.reader).await;
        plans_fit_growing_tables("write", &pools.writer).await;
    })
    .await;
}

/// The checks of the test above, in `session` of `pool`.
async fn plans_fit_growing_tables(pool: &str, session: &impl ConnectionTrait) {
    // Every table read by a list of keys, with the key.
    let by_keys = [
        ("deliveries", "id"),
        ("fleet_orders", "order_id"),
        ("courier_assignments", "courier_id"),
        ("courier_routes", "courier_id"),
        ("courier_locations", "courier_id"),
    ];
    for (table, column) in by_keys {
        let keys = courier_store::db::one_of(DbBackend::Postgres, column, &[]);
        let plan = generic_plan(session, table, keys, r#"'["a", "b"]'"#).await;
        assert!(
            plan.contains("Index") && !plan.contains("Seq Scan"),
            "{pool} pool, {table} by {column}:\n{plan}"
        );
    }
    // The round's partitions: the few fleets that dispatch automatically,
    // by no index.
    let fleets = Expr::cust_with_values("kind = $1", ["fleet"]);
    let plan = generic_plan(session, "workspaces", fleets, "'fleet'").await;
    assert!(!plan.contains("JIT"), "{pool} pool:\n{plan}");
    // The notification outbox's claim takes the first due messages from
    // the index of waiting ones and finds them again by key: it reads
    // neither every due message nor every message ever kept.
    let claim = courier_orders::notifications::messages::claim_statement(DbBackend::Postgres);
    let plan = prepared_plan(
        session,
        "claim",
        &format!("PREPARE claim(bigint, bigint, bigint, text) AS {claim}"),
        "EXPLAIN EXECUTE claim(1, 256, 2, 'token')",
    )
    .await;
    assert!(
        plan.contains("notification_messages_waiting") && !plan.contains("Seq Scan") && !plan.contains("Sort"),
        "{pool} pool, the notification claim:\n{plan}"
    );
    // A status callback's message and the test inbox, from the partial
    // indexes of messages with a provider id and of test-mode messages.
    let by_provider_id = Expr::cust_with_values("provider_message_id = $1", ["SM1"]);
    let plan = generic_plan(session, "notification_messages", by_provider_id, "'SM1'").await;
    assert!(
        plan.contains("notification_messages_provider_id"),
        "{pool} pool:\n{plan}"
    );
    let inbox = Expr::cust_with_values("workspace_id = $1 AND \"mode\" = 'test'", ["wsp"]);
    let plan = generic_plan(session, "notification_messages", inbox, "'wsp'").await;
    assert!(
        plan.contains("notification_messages_test_inbox"),
        "{pool} pool:\n{plan}"
    );
    // Its recording finds the bound messages by key, however many.
    let finish = courier_orders::notifications::messages::finish_statement(DbBackend::Postgres).expect("statement");
    let plan = prepared_plan(
        session,
        "finish",
        &format!(
            "PREPARE finish(text[], text[], int4[], text[], int8[], bool[], text[], int8[], int8[], bigint, text) AS {finish}"
        ),
        "EXPLAIN EXECUTE finish(ARRAY['a'], ARRAY['sent'], ARRAY[1], ARRAY['SM1'], ARRAY[1::int8], ARRAY[false], \
         ARRAY[NULL::text], ARRAY[NULL::int8], ARRAY[NULL::int8], 1, 'token')",
    )
    .await;
    assert!(
        plan.contains("notification_messages") && plan.contains("Index") && !plan.contains("Seq Scan"),
        "{pool} pool, the notification recording:\n{plan}"
    );
}

/// The generic plan of `SELECT * FROM table WHERE filter` in `session`,
/// as it runs with `argument` (SQL text) for its one parameter.
async fn generic_plan(session: &impl ConnectionTrait, table: &str, filter: SimpleExpr, argument: &str) -> String {
    let (sql, _) = Query::select()
        .expr(Expr::cust("*"))
        .from(Alias::new(table))
        .and_where(filter)
        .build(PostgresQueryBuilder);
    prepared_plan(
        session,
        "read",
        &format!("PREPARE read(text) AS {sql}"),
        &format!("EXPLAIN EXECUTE read({argument})"),
    )
    .await
}

/// The plan `explain` shows for the statement `name` that `prepare` makes
/// in `session`, which is then deallocated.
async fn prepared_plan(session: &impl ConnectionTrait, name: &str, prepare: &str, explain: &str) -> String {
    let run = |sql: String| async move {
        session
            .query_all_raw(Statement::from_string(DbBackend::Postgres, sql))
            .await
            .expect("statement")
    };
    run(prepare.to_owned()).await;
    let plan: Vec<String> = run(explain.to_owned())
        .await
        .iter()
        .map(|row| row.try_get_by_index::<String>(0).expect("plan line"))
        .collect();
    run(format!("DEALLOCATE {name}")).await;
    plan.join("\n")
}
