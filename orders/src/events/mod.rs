//! Events: what happened to a delivery, written in the same transaction as the
//! change itself, read by the events API and delivered by the webhooks
//! dispatcher. Owns the `events` table. Webhooks build on events, never the
//! reverse: what [`record`] wrote goes to `webhooks::enqueue` in the same
//! transaction (`deliveries::record_events` does both).

pub mod cache;
pub mod entity;
pub mod history;
pub mod stream;

use sea_orm::ConnectionTrait;

use courier_identity::modes::Mode;
use courier_store::{CoreError, CoreResult};

/// Payload version of every event (a year-month label).
pub const VERSION: &str = "2026-11";

/// The ten public event types (docs/guide.md "Events").
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
    /// The predicted dropoff passed the dropoff window's end (once).
    Delayed,
    /// The client changed the delivery (`deliveries::edit`).
    Updated,
}

impl EventType {
    pub const ALL: [EventType; 10] = [
        EventType::Created,
        EventType::StatusUpdated,
        EventType::CourierAssigned,
        EventType::CourierArrived,
        EventType::EtaUpdated,
        EventType::PodSubmitted,
        EventType::Delivered,
        EventType::Cancelled,
        EventType::Delayed,
        EventType::Updated,
    ];

    /// As the API and the database name it (`delivery.created`); the
    /// server's tests hold it to the API's name table (`courier::names`).
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
            EventType::Delayed => "delivery.delayed",
            EventType::Updated => "delivery.updated",
        }
    }

    pub fn parse(text: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// An event as the API shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub event_type: EventType,
    pub version: String,
    pub created_at: i64,
    /// The delivery right after the change, as the transport keeps it
    /// (`Wire::event_snapshot`).
    pub data: Vec<u8>,
    /// On `delivery.updated`: the members that changed, as dot paths.
    pub changed_fields: Vec<String>,
}

/// An event as its row keeps it.
pub fn from_model(model: &entity::Model) -> CoreResult<Event> {
    Ok(Event {
        id: model.id.clone(),
        event_type: EventType::parse(&model.r#type)
            .ok_or_else(|| CoreError::Internal(format!("event {} has type {}", model.id, model.r#type)))?,
        version: model.version.clone(),
        created_at: model.created_at,
        data: model.data.clone(),
        changed_fields: split_fields(model.changed_fields.as_deref()),
    })
}

/// An event to record: what happened to a delivery.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub workspace_id: String,
    pub mode: Mode,
    pub event_type: EventType,
    pub delivery_id: String,
    /// The delivery right after the change, as the transport keeps it
    /// (`Wire::event_snapshot`).
    pub data: Vec<u8>,
    /// What [`Event::changed_fields`] reports; empty but on `delivery.updated`.
    pub changed_fields: Vec<String>,
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
            delivery_id: event.delivery_id,
            r#type: event.event_type.as_str().to_owned(),
            version: VERSION.to_owned(),
            data: event.data,
            changed_fields: join_fields(&event.changed_fields),
            created_at: event.at,
        })
        .collect();
    courier_store::db::insert_rows::<entity::Entity>(db, rows.iter().cloned().map(entity::ActiveModel::from).collect())
        .await?;
    Ok(Recorded(rows))
}

/// Changed members as a column keeps them: dot paths joined by commas
/// (no path has one); `None` for none.
pub fn join_fields(fields: &[String]) -> Option<String> {
    (!fields.is_empty()).then(|| fields.join(","))
}

/// The changed members a column kept with [`join_fields`].
pub fn split_fields(column: Option<&str>) -> Vec<String> {
    column
        .map(|text| text.split(',').filter(|f| !f.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default()
}
