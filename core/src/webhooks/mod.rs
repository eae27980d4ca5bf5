//! Webhook endpoints, signing and delivery.

pub mod signature;
pub mod target;
