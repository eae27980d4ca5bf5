//! Events of a workspace, per mode: the list with the API's filters and
//! keyset pages, and an event's page with its payload and every webhook
//! attempt. The public `EventService` with the session in place of a key.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::names::PublicName;
use courier::v1 as pb;

use crate::ConsoleState;
use crate::page::{Layout, ModeQuery, Refusal, Signed, mode_named, next_page, render};
use crate::times::{Moment, Zone};

const PAGE_SIZE: i32 = 25;

#[derive(serde::Deserialize, Default)]
pub(crate) struct ListQuery {
    mode: Option<String>,
    r#type: Option<String>,
    delivery_id: Option<String>,
    page_token: Option<String>,
}

impl ListQuery {
    fn mode(&self) -> &'static str {
        mode_named(self.mode.as_deref())
    }

    fn filters(&self) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("mode", self.mode());
        for (name, value) in [("type", &self.r#type), ("delivery_id", &self.delivery_id)] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                query.append_pair(name, value);
            }
        }
        query.finish()
    }
}

pub(crate) struct EventRow {
    id: String,
    event_type: &'static str,
    delivery_id: String,
    status: &'static str,
    created_at: Moment,
}

impl EventRow {
    fn of(event: &pb::Event, zone: Zone) -> EventRow {
        EventRow {
            id: event.id.clone(),
            event_type: event.r#type().public_name().unwrap_or("unknown"),
            delivery_id: event.data.as_ref().map(|d| d.id.clone()).unwrap_or_default(),
            status: event.data.as_ref().and_then(|d| d.status().public_name()).unwrap_or(""),
            created_at: zone.at(event.created_at.as_ref()),
        }
    }
}

#[derive(Template)]
#[template(path = "events.html")]
pub(crate) struct EventsPage {
    layout: Layout,
    workspace_id: String,
    rows: Vec<EventRow>,
    types: Vec<(&'static str, bool)>,
    delivery_id: String,
    filters: String,
    /// The query string of the next page, when there is one.
    next_page: Option<String>,
    first_page: bool,
    refusal: Option<Refusal>,
}

impl EventsPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

pub(crate) async fn list_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ListQuery>,
) -> Response {
    let mode = query.mode();
    let type_filter = query.r#type.as_deref().filter(|t| !t.is_empty());
    let request = pb::ListEventsRequest {
        page_size: Some(PAGE_SIZE),
        page_token: query.page_token.clone().unwrap_or_default(),
        delivery_id: query.delivery_id.clone().filter(|v| !v.is_empty()),
        r#type: type_filter
            .and_then(pb::EventType::from_public_name)
            .unwrap_or(pb::EventType::Unspecified) as i32,
        ..Default::default()
    };
    let (rows, next_page_token, refusal) = match state
        .events
        .clone()
        .list_events(signed.acting(request, &workspace, mode, None))
        .await
    {
        Ok(answer) => {
            let answer = answer.into_inner();
            (
                answer
                    .events
                    .iter()
                    .map(|event| EventRow::of(event, signed.zone(Some(&workspace))))
                    .collect(),
                answer.next_page_token,
                None,
            )
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            (Vec::new(), String::new(), Some(Refusal::of(&status)))
        }
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let mut layout = signed.layout(&state, "Events", Some(&workspace), mode);
    layout.section = "events";
    if let Some(refusal) = refusal.as_ref().filter(|r| r.at("delivery_id").is_none()) {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        EventsPage {
            layout,
            workspace_id: workspace,
            rows,
            types: pb::EventType::NAMES
                .iter()
                .map(|(_, name)| (*name, type_filter == Some(*name)))
                .collect(),
            delivery_id: query.delivery_id.clone().unwrap_or_default(),
            next_page: next_page(&next_page_token).map(|token| format!("{}&page_token={token}", query.filters())),
            filters: query.filters(),
            first_page: query.page_token.as_deref().is_none_or(str::is_empty),
            refusal,
        },
        status,
    )
}

pub(crate) struct AttemptRow {
    webhook_id: String,
    /// The endpoint's URL; `None` when it was deleted or the member may
    /// not see endpoints (its id is shown instead).
    url: Option<String>,
    attempted_at: Moment,
    status: &'static str,
    response_code: String,
    latency: String,
    error: String,
}

#[derive(Template)]
#[template(path = "event.html")]
pub(crate) struct EventPage {
    layout: Layout,
    workspace_id: String,
    event: EventRow,
    payload: String,
    attempts: Vec<AttemptRow>,
}

/// The event as webhook bodies and `GET /v1/events/{id}` show it, its
/// members in the same order.
fn payload(event: &pb::Event) -> String {
    #[derive(serde::Serialize)]
    struct Envelope {
        id: String,
        r#type: Option<&'static str>,
        version: String,
        created_at: Option<String>,
        data: Option<courier::json::EventDeliveryJson>,
    }
    let envelope = Envelope {
        id: event.id.clone(),
        r#type: event.r#type().public_name(),
        version: event.version.clone(),
        created_at: courier::json::time_out(event.created_at.as_ref()),
        data: event.data.clone().map(courier::json::EventDeliveryJson::from),
    };
    serde_json::to_string_pretty(&envelope).unwrap_or_default()
}

pub(crate) async fn detail_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = query.mode();
    let request = signed.acting(pb::GetEventRequest { event_id: id.clone() }, &workspace, mode, None);
    let answer = match state.events.clone().get_event(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    // Attempts name their endpoint by URL; a member without webhooks:manage
    // sees the endpoints' ids instead.
    let urls: HashMap<String, String> = match state
        .webhooks
        .clone()
        .list_webhook_endpoints(signed.acting(pb::ListWebhookEndpointsRequest {}, &workspace, mode, None))
        .await
    {
        Ok(list) => list.into_inner().endpoints.into_iter().map(|e| (e.id, e.url)).collect(),
        Err(status) if status.code() == tonic::Code::PermissionDenied => HashMap::new(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let event = answer.event.unwrap_or_default();
    let mut layout = signed.layout(&state, &format!("Event {id}"), Some(&workspace), mode);
    layout.section = "events";
    let zone = signed.zone(Some(&workspace));
    render(
        EventPage {
            layout,
            workspace_id: workspace,
            payload: payload(&event),
            event: EventRow::of(&event, zone),
            attempts: answer
                .webhook_attempts
                .iter()
                .map(|attempt| AttemptRow {
                    webhook_id: attempt.webhook_id.clone(),
                    url: urls.get(&attempt.webhook_id).cloned(),
                    attempted_at: zone.at(attempt.attempted_at.as_ref()),
                    status: attempt.status().public_name().unwrap_or("unknown"),
                    response_code: attempt
                        .response_code
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "none".into()),
                    latency: attempt
                        .latency_ms
                        .map(|ms| format!("{ms} ms"))
                        .unwrap_or_else(|| "none".into()),
                    error: attempt.error.clone().unwrap_or_default(),
                })
                .collect(),
        },
        StatusCode::OK,
    )
}
