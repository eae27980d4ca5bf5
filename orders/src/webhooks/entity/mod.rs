//! The three tables the webhooks module owns.

pub mod attempt;
pub mod endpoint;
pub mod webhook_delivery;
