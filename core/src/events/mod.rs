//! Events: what happened to a delivery, written in the same transaction as the
//! change itself, read by the events API and delivered by the webhooks
//! dispatcher. Owns the `events` table. Webhooks build on events, never the
//! reverse: what [`record`] wrote goes to `webhooks::enqueue` in the same
//! transaction (`deliveries::record_events` does both).

pub mod cache;
pub mod entity;
pub mod history;
pub mod stream;

use prost::Message;
use sea_orm::ConnectionTrait;

use courier::names::PublicName;
use courier::v1 as pb;

use crate::CoreResult;
use crate::auth::Mode;

/// Payload version of every event (a year-month label).
pub const VERSION: &str = "2026-11";

/// The eight public event types (docs/guide.md "Events").
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

    /// As the API and the database name it (`delivery.created`): the API's
    /// name table (`courier::names`), so the two cannot differ.
    pub fn as_str(self) -> &'static str {
        self.to_proto().public_name().unwrap_or_default()
    }

    pub fn parse(text: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == text)
    }

    pub fn to_proto(self) -> pb::EventType {
        match self {
            EventType::Created => pb::EventType::DeliveryCreated,
            EventType::StatusUpdated => pb::EventType::DeliveryStatusUpdated,
            EventType::CourierAssigned => pb::EventType::DeliveryCourierAssigned,
            EventType::CourierArrived => pb::EventType::DeliveryCourierArrived,
            EventType::EtaUpdated => pb::EventType::DeliveryEtaUpdated,
            EventType::PodSubmitted => pb::EventType::DeliveryPodSubmitted,
            EventType::Delivered => pb::EventType::DeliveryDelivered,
            EventType::Cancelled => pb::EventType::DeliveryCancelled,
        }
    }
}

/// An event to record: what happened to a delivery.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub workspace_id: String,
    pub mode: Mode,
    pub event_type: EventType,
    /// The delivery after the change, its courier reduced to its name
    /// (`deliveries::event_data`).
    pub data: courier::v1::Delivery,
    pub at: i64,
}

/// Events written in a transaction and not yet queued for webhooks: pass
/// them to `webhooks::enqueue` in that same transaction.
#[must_use = "recorded events are queued for webhooks in the same transaction (webhooks::enqueue)"]
#[derive(Debug)]
pub struct Recorded(Vec<entity::Model>);

impl Recorded {
    pub fn rows(&self) -> &[entity::Model] {
        &self.0
    }
}

/// Records `events` in `db`, the transaction of the change they report: one
/// insert of all the events, however many.
pub async fn record(db: &impl ConnectionTrait, events: Vec<NewEvent>) -> CoreResult<Recorded> {
    if events.is_empty() {
        return Ok(Recorded(Vec::new()));
    }
    let rows: Vec<entity::Model> = events
        .into_iter()
        .map(|event| entity::Model {
            id: courier_store::ids::new_id("evt"),
            workspace_id: event.workspace_id,
            mode: event.mode.as_str().to_owned(),
            delivery_id: event.data.id.clone(),
            r#type: event.event_type.as_str().to_owned(),
            version: VERSION.to_owned(),
            data: event.data.encode_to_vec(),
            created_at: event.at,
        })
        .collect();
    courier_store::db::insert_rows::<entity::Entity>(db, rows.iter().cloned().map(entity::ActiveModel::from).collect())
        .await?;
    Ok(Recorded(rows))
}
