//! Events: what happened to a delivery, written in the same transaction as the
//! change itself, read by the events API and delivered by the webhooks
//! dispatcher. Owns the `events` table.

pub mod entity;
pub mod history;

use prost::Message;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait};

use crate::CoreResult;
use crate::auth::Mode;

/// Payload version of every event (a year-month label).
pub const VERSION: &str = "2026-11";

/// The eight public event types (contract section 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    Created,
    StatusUpdated,
    CourierAssigned,
    CourierArrived,
    EtaUpdated,
    PodSubmitted,
    Delivered,
    Cancelled,
}

impl EventType {
    pub const ALL: [EventType; 8] = [
        EventType::Created,
        EventType::StatusUpdated,
        EventType::CourierAssigned,
        EventType::CourierArrived,
        EventType::EtaUpdated,
        EventType::PodSubmitted,
        EventType::Delivered,
        EventType::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Created => "delivery.created",
            EventType::StatusUpdated => "delivery.status_updated",
            EventType::CourierAssigned => "delivery.courier_assigned",
            EventType::CourierArrived => "delivery.courier_arrived",
            EventType::EtaUpdated => "delivery.eta_updated",
            EventType::PodSubmitted => "delivery.pod_submitted",
            EventType::Delivered => "delivery.delivered",
            EventType::Cancelled => "delivery.cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// Records that `event_type` happened to a delivery, whose state after the
/// change is `data` (the courier already reduced to its name). Call it inside
/// the transaction that made the change.
pub async fn record(
    db: &impl ConnectionTrait,
    workspace_id: &str,
    mode: Mode,
    event_type: EventType,
    data: &courier::v1::Delivery,
    now: i64,
) -> CoreResult<String> {
    let id = crate::ids::new_id("evt");
    let row = entity::ActiveModel {
        id: Set(id.clone()),
        workspace_id: Set(workspace_id.to_owned()),
        mode: Set(mode.as_str().to_owned()),
        delivery_id: Set(data.id.clone()),
        r#type: Set(event_type.as_str().to_owned()),
        version: Set(VERSION.to_owned()),
        data: Set(data.encode_to_vec()),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    crate::webhooks::enqueue(db, &row).await?;
    Ok(id)
}
