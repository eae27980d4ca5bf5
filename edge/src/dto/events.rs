//! Event shapes (docs/guide.md "Events"): Event, EventDetails and EventList.
//! `data` is rendered by the same `EventDeliveryJson` the core uses for
//! webhook bodies, so both show an event identically.

use std::collections::HashMap;

use courier::json::{CourierNameJson, DeliveryJson, EventDataJson, time_out};
use courier::names::PublicName;
use courier::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

use super::common::ListQuery;
use crate::error::ApiError;

/// An Event: `{id, type, version, created_at, data}`. Webhook requests carry
/// the same envelope as their body.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Event)]
pub struct EventJson {
    pub id: String,
    #[schema(value_type = pb::EventType)]
    pub r#type: Option<&'static str>,
    /// Payload version, a year-month label.
    pub version: String,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Option<String>,
    /// The delivery right after the change, with the courier reduced to its
    /// name; on `delivery.updated` also `changed_fields`.
    #[schema(value_type = DeliveryJson<Option<CourierNameJson>>)]
    pub data: Option<EventDataJson>,
}

impl From<pb::Event> for EventJson {
    fn from(e: pb::Event) -> Self {
        let event_type = e.r#type();
        EventJson {
            r#type: event_type.public_name(),
            created_at: time_out(e.created_at.as_ref()),
            data: e
                .data
                .map(|delivery| EventDataJson::new(event_type, delivery, e.changed_fields)),
            id: e.id,
            version: e.version,
        }
    }
}

/// One webhook attempt of an event.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookAttempt)]
pub struct WebhookAttemptJson {
    pub webhook_id: String,
    #[schema(value_type = String, format = DateTime)]
    pub attempted_at: Option<String>,
    #[schema(value_type = pb::WebhookAttemptStatus)]
    pub status: Option<&'static str>,
    pub response_code: Option<i32>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

impl From<pb::WebhookAttempt> for WebhookAttemptJson {
    fn from(a: pb::WebhookAttempt) -> Self {
        WebhookAttemptJson {
            status: a.status().public_name(),
            attempted_at: time_out(a.attempted_at.as_ref()),
            webhook_id: a.webhook_id,
            response_code: a.response_code,
            latency_ms: a.latency_ms,
            error: a.error,
        }
    }
}

/// An event with every webhook attempt made for it, oldest first.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = EventDetails)]
pub struct EventDetailsJson {
    #[serde(flatten)]
    pub event: EventJson,
    pub webhook_attempts: Vec<WebhookAttemptJson>,
}

impl EventDetailsJson {
    pub fn from_response(r: pb::GetEventResponse) -> Option<Self> {
        Some(EventDetailsJson {
            event: r.event?.into(),
            webhook_attempts: r.webhook_attempts.into_iter().map(Into::into).collect(),
        })
    }
}

/// One page of events, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = EventList)]
pub struct EventListJson {
    pub events: Vec<EventJson>,
    pub next_page_token: Option<String>,
}

impl From<pb::ListEventsResponse> for EventListJson {
    fn from(r: pb::ListEventsResponse) -> Self {
        EventListJson {
            events: r.events.into_iter().map(Into::into).collect(),
            next_page_token: (!r.next_page_token.is_empty()).then_some(r.next_page_token),
        }
    }
}

/// `GET /v1/events` query.
pub fn list_request(query: &HashMap<String, String>) -> Result<pb::ListEventsRequest, ApiError> {
    let query = ListQuery::parse(query, &["delivery_id", "type"])?;
    Ok(pb::ListEventsRequest {
        page_size: query.page_size,
        page_token: query.page_token,
        delivery_id: query.filters.get("delivery_id").map(|id| (*id).to_owned()),
        r#type: event_type_in(query.filters.get("type").copied())? as i32,
        created_after: query.created_after,
        created_before: query.created_before,
    })
}

/// `GET /v1/events/stream`: the query's filters (`delivery_id`, `type`; a
/// stream has no pages and runs in time order, so none of the list's
/// others) and the `Last-Event-ID` header, as received.
pub fn stream_request(
    query: &HashMap<String, String>,
    last_event_id: Option<&[u8]>,
) -> Result<pb::StreamEventsRequest, ApiError> {
    const FILTERS: [&str; 2] = ["delivery_id", "type"];
    if let Some(unknown) = query.keys().find(|name| !FILTERS.contains(&name.as_str())) {
        return Err(ApiError::invalid(
            unknown.clone(),
            format!("{unknown} is not a known query parameter of the event stream."),
        ));
    }
    let after_event_id = last_event_id
        .map(|bytes| {
            std::str::from_utf8(bytes)
                .map(|id| id.trim().to_owned())
                .map_err(|_| ApiError::invalid("Last-Event-ID", "Last-Event-ID is not valid UTF-8 text."))
        })
        .transpose()?
        .filter(|id| !id.is_empty());
    Ok(pb::StreamEventsRequest {
        after_event_id,
        delivery_id: query.get("delivery_id").cloned(),
        r#type: event_type_in(query.get("type").map(String::as_str))? as i32,
    })
}

/// The `type` query parameter of the events list and stream.
fn event_type_in(name: Option<&str>) -> Result<pb::EventType, ApiError> {
    match name {
        None => Ok(pb::EventType::Unspecified),
        Some(name) => pb::EventType::from_public_name(name).ok_or_else(|| {
            ApiError::invalid(
                "type",
                format!("type must be one of {}.", pb::EventType::public_names()),
            )
        }),
    }
}
