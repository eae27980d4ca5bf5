//! gRPC transport: each service impl decodes its request, calls the domain
//! and encodes the answer. No business rule lives here.

pub mod admin;
pub mod billing;
pub mod console;
pub mod context;
pub mod convert;
pub mod courier_app;
pub mod couriers;
pub mod deliveries;
pub mod delivery_out;
pub mod dispatch;
pub mod dispatch_map_out;
pub mod enums;
pub mod events;
pub mod fleet;
pub mod notifications;
pub mod plans_out;
pub mod proofs_out;
pub mod public;
pub mod quotes;
pub mod reports;
pub mod request_text;
pub mod tracking;
pub mod tracking_out;
pub mod vehicle_types;
pub mod webhook_bodies;
pub mod webhooks;
pub mod wire;
