//! End-to-end tests: the edge over HTTP and the core over gRPC, each test on
//! SQLite and (when reachable) PostgreSQL.

#[macro_use]
mod harness;

mod access;
mod auth;
mod auto_dispatch;
mod batching;
mod billing;
mod browser;
mod cli;
mod compose;
mod console_accounts;
mod console_browser;
mod console_couriers;
mod console_dispatch;
mod console_pages;
mod courier_app_browser;
mod courier_app_pages;
mod courier_moves;
mod courier_streams;
mod couriers;
mod deliveries;
mod delivery_changes;
mod dispatch;
mod dropoff_pin;
mod errors;
mod event_stream;
mod events;
mod fleet;
mod fleet_changes;
mod grpc;
mod hostile;
mod hostile_courier;
mod kubernetes;
mod lifecycle;
mod notifications;
mod notifications_api;
mod openapi;
mod operations;
mod pay;
mod places;
mod plans;
mod proofs;
mod query_plans;
mod quotes;
mod ratelimit;
mod redeliver;
mod replicas;
mod returns;
mod routing;
mod sign_in_throttle;
mod tracking_page;
mod webhook_crash;
mod webhooks;
mod windows;
