//! The edge's own JSON shapes: request bodies with `deny_unknown_fields`, and
//! response bodies where every field is always present (`null` where unset;
//! docs/guide.md "Conventions"). Converted to and from protobuf explicitly.

pub mod common;
pub mod deliveries;
pub mod events;
pub mod fleet;
pub mod notifications;
pub mod proofs;
pub mod quotes;
pub mod tracking;
pub mod vehicle_types;
pub mod webhooks;
