//! How PostgreSQL plans the core's reads, where the plan, not the answer,
//! is what can go wrong.

use sea_orm::sea_query::{Alias, Expr, PostgresQueryBuilder, Query};
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use crate::harness::{Backend, TestApp};

/// Reads of a list of keys (`db::one_of`) plan a lookup in the key's index
/// even when their generic plan, which the read pool keeps for the
/// session, was made while the table was empty, as on a fresh database:
/// such a plan is never made again as the table grows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_reads_by_key_lists_use_the_index_planned_on_an_empty_table() {
    crate::harness::limited(async {
        let Some(app) = TestApp::spawn(Backend::Postgres).await else {
            return;
        };
        // Every table read by a list of keys, with the key.
        let reads = [
            ("deliveries", "id"),
            ("fleet_orders", "order_id"),
            ("courier_assignments", "courier_id"),
            ("courier_routes", "courier_id"),
            ("courier_locations", "courier_id"),
        ];
        // A read pool of one connection, as the core opens it: statements
        // prepared on it are planned as the core's reads are.
        let reader = courier_store::db::open(app.database_url(), Some(1))
            .await
            .expect("pools")
            .reader;
        let run = |sql: String| {
            let reader = reader.clone();
            async move {
                reader
                    .query_all_raw(Statement::from_string(DbBackend::Postgres, sql))
                    .await
                    .expect("statement")
            }
        };
        for (table, column) in reads {
            let (sql, _) = Query::select()
                .expr(Expr::cust("*"))
                .from(Alias::new(table))
                .and_where(courier_store::db::one_of(DbBackend::Postgres, column, &[]))
                .build(PostgresQueryBuilder);
            run(format!("PREPARE by_keys(text) AS {sql}")).await;
            let plan: Vec<String> = run(r#"EXPLAIN EXECUTE by_keys('["a", "b"]')"#.to_owned())
                .await
                .iter()
                .map(|row| row.try_get_by_index::<String>(0).expect("plan line"))
                .collect();
            run("DEALLOCATE by_keys".to_owned()).await;
            assert!(
                plan.iter().any(|line| line.contains("Index")) && !plan.iter().any(|line| line.contains("Seq Scan")),
                "{table} by {column}:\n{}",
                plan.join("\n")
            );
        }
    })
    .await;
}
