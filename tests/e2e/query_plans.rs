//! How PostgreSQL plans the core's reads, where the plan, not the answer,
//! is what can go wrong.

use sea_orm::sea_query::{Alias, Expr, PostgresQueryBuilder, Query, SimpleExpr};
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use courier_store::db::Reader;

use crate::harness::{Backend, TestApp};

/// The read pool plans a read's generic plan, which it keeps for the
/// session, from the table as it grows, not as it was at the first read:
/// reads of a list of keys (`db::one_of`) planned on a fresh database,
/// whose tables are empty, look the keys up in the index; and a read no
/// index serves is not compiled before each run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_reads_planned_on_empty_tables_stay_lookups() {
    crate::harness::limited(async {
        let Some(app) = TestApp::spawn(Backend::Postgres).await else {
            return;
        };
        // A read pool of one connection, as the core opens it: statements
        // prepared on it are planned as the core's reads are.
        let reader = courier_store::db::open(app.database_url(), Some(1))
            .await
            .expect("pools")
            .reader;
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
            let plan = generic_plan(&reader, table, keys, r#"'["a", "b"]'"#).await;
            assert!(
                plan.contains("Index") && !plan.contains("Seq Scan"),
                "{table} by {column}:\n{plan}"
            );
        }
        // The round's partitions: the few fleets that dispatch
        // automatically, by no index.
        let fleets = Expr::cust_with_values("kind = $1", ["fleet"]);
        let plan = generic_plan(&reader, "workspaces", fleets, "'fleet'").await;
        assert!(!plan.contains("JIT"), "{plan}");
    })
    .await;
}

/// The generic plan of `SELECT * FROM table WHERE filter` on `reader`, as
/// it runs with `argument` (SQL text) for its one parameter.
async fn generic_plan(reader: &Reader, table: &str, filter: SimpleExpr, argument: &str) -> String {
    let run = |sql: String| async move {
        reader
            .query_all_raw(Statement::from_string(DbBackend::Postgres, sql))
            .await
            .expect("statement")
    };
    let (sql, _) = Query::select()
        .expr(Expr::cust("*"))
        .from(Alias::new(table))
        .and_where(filter)
        .build(PostgresQueryBuilder);
    run(format!("PREPARE read(text) AS {sql}")).await;
    let plan: Vec<String> = run(format!("EXPLAIN EXECUTE read({argument})"))
        .await
        .iter()
        .map(|row| row.try_get_by_index::<String>(0).expect("plan line"))
        .collect();
    run("DEALLOCATE read".to_owned()).await;
    plan.join("\n")
}
