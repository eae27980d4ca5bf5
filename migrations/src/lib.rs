//! SeaORM migrations of the core's database, one per file, written with
//! SeaQuery so that they run on SQLite and PostgreSQL alike.
//!
//! Conventions: ids are prefixed strings; times are unix microseconds (UTC) in
//! BIGINT columns so that ordering and keyset comparisons behave the same on
//! both databases; structured values are JSON text.

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_create_settings;
mod m20261122_000002_create_workspaces;
mod m20261122_000003_create_api_keys;
mod m20261122_000004_create_quotes;
mod m20261122_000005_create_deliveries;
mod m20261122_000006_create_idempotency_keys;
mod m20261122_000007_create_events;
mod m20261122_000008_add_delivery_etas;
mod m20261122_000009_create_proofs;
mod m20261122_000010_create_webhook_endpoints;
mod m20261122_000011_create_webhook_deliveries;
mod m20261122_000012_create_webhook_attempts;
mod m20261123_000013_create_fleet_orders;
mod m20261123_000014_add_workspace_open_amount;
mod m20261123_000015_index_webhook_claims;
mod m20261124_000016_create_statements;
mod m20261124_000017_attempt_status_as_ended;
mod m20261124_000018_create_accounts;
mod m20261124_000019_add_key_last_used;
mod m20261124_000020_create_audit_log;
mod m20261124_000021_partial_external_id_index;
mod m20261124_000022_create_fleet_order_moves;
mod m20261126_000030_create_couriers;
mod m20261128_000040_partition_history_by_day;
mod m20261128_000041_index_waiting_deliveries;
mod m20261130_000050_add_audit_courier;
mod m20261130_000051_add_windows;
mod m20261130_000052_add_routes;
mod m20261201_000053_add_shifts_and_plans;
mod m20261201_000054_add_notifications;
mod m20261202_000055_add_usage_charges;
mod m20261203_000056_add_changed_fields;
mod m20261204_000057_add_dropoff_pin;
mod m20261205_000058_add_returns;
mod m20261206_000059_add_pin_failed_submission;
mod m20261207_000060_create_courier_pay;
mod m20261208_000061_create_courier_statements;
mod m20261209_000062_add_tips;
mod m20261210_000063_add_reports;
mod m20261211_000064_index_waiting_messages;
mod m20261212_000065_mark_notification_sends;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_create_settings::Migration),
            Box::new(m20261122_000002_create_workspaces::Migration),
            Box::new(m20261122_000003_create_api_keys::Migration),
            Box::new(m20261122_000004_create_quotes::Migration),
            Box::new(m20261122_000005_create_deliveries::Migration),
            Box::new(m20261122_000006_create_idempotency_keys::Migration),
            Box::new(m20261122_000007_create_events::Migration),
            Box::new(m20261122_000008_add_delivery_etas::Migration),
            Box::new(m20261122_000009_create_proofs::Migration),
            Box::new(m20261122_000010_create_webhook_endpoints::Migration),
            Box::new(m20261122_000011_create_webhook_deliveries::Migration),
            Box::new(m20261122_000012_create_webhook_attempts::Migration),
            Box::new(m20261123_000013_create_fleet_orders::Migration),
            Box::new(m20261123_000014_add_workspace_open_amount::Migration),
            Box::new(m20261123_000015_index_webhook_claims::Migration),
            Box::new(m20261124_000016_create_statements::Migration),
            Box::new(m20261124_000017_attempt_status_as_ended::Migration),
            Box::new(m20261124_000018_create_accounts::Migration),
            Box::new(m20261124_000019_add_key_last_used::Migration),
            Box::new(m20261124_000020_create_audit_log::Migration),
            Box::new(m20261124_000021_partial_external_id_index::Migration),
            Box::new(m20261124_000022_create_fleet_order_moves::Migration),
            Box::new(m20261126_000030_create_couriers::Migration),
            Box::new(m20261128_000040_partition_history_by_day::Migration),
            Box::new(m20261128_000041_index_waiting_deliveries::Migration),
            Box::new(m20261130_000050_add_audit_courier::Migration),
            Box::new(m20261130_000051_add_windows::Migration),
            Box::new(m20261130_000052_add_routes::Migration),
            Box::new(m20261201_000053_add_shifts_and_plans::Migration),
            Box::new(m20261201_000054_add_notifications::Migration),
            Box::new(m20261202_000055_add_usage_charges::Migration),
            Box::new(m20261203_000056_add_changed_fields::Migration),
            Box::new(m20261204_000057_add_dropoff_pin::Migration),
            Box::new(m20261205_000058_add_returns::Migration),
            Box::new(m20261206_000059_add_pin_failed_submission::Migration),
            Box::new(m20261207_000060_create_courier_pay::Migration),
            Box::new(m20261208_000061_create_courier_statements::Migration),
            Box::new(m20261209_000062_add_tips::Migration),
            Box::new(m20261210_000063_add_reports::Migration),
            Box::new(m20261211_000064_index_waiting_messages::Migration),
            Box::new(m20261212_000065_mark_notification_sends::Migration),
        ]
    }
}
