//! `GET /v1/events`, `GET /v1/events/{event_id}` (docs/guide.md "Events")
//! and `GET /v1/events/stream` (docs/guide.md "Event stream").

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::events::{self, EventDetailsJson, EventJson, EventListJson};
use crate::error::{self, ApiError};
use crate::list_pages;
use crate::path_id::PathId;

/// How often an idle event stream sends a comment, so that proxies and
/// clients see a live connection.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// List events
///
/// Every event of the key's workspace and mode, whether or not an endpoint
/// received it; newest first. Follow `next_page_token` until it is null,
/// keeping the same filters. Events are kept 30 days.
#[utoipa::path(
    get,
    path = "/v1/events",
    operation_id = "listEvents",
    tag = "Events",
    params(
        ("limit" = Option<i32>, Query, description = "Page size, 1 to 100; default 20."),
        ("page_token" = Option<String>, Query, description = "The previous page's `next_page_token`, unchanged."),
        ("delivery_id" = Option<String>, Query, description = "Only events of this delivery."),
        ("type" = Option<pb::EventType>, Query, description = "Only events of this type."),
        ("created_after" = Option<String>, Query, format = DateTime, description = "Created at or after this time."),
        ("created_before" = Option<String>, Query, format = DateTime, description = "Created before this time."),
    ),
    responses((status = 200, description = "One page of events.", body = EventListJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parsed = parse_query(query.as_deref()).and_then(|q| events::list_request(&q));
    let request = ctx.request_for(parsed, Ok);
    let channel = state.core.channel.clone();
    let renderings = &state.renderings.events;
    list_pages::answer::<_, pb::Event, EventJson>(channel, &list_pages::LIST_EVENTS, renderings, request).await
}

/// Get an event
///
/// The event with every webhook attempt made for it, oldest first.
#[utoipa::path(
    get,
    path = "/v1/events/{eventId}",
    operation_id = "getEvent",
    tag = "Events",
    params(("eventId" = String, Path, description = "The event's id (`evt_…`).")),
    responses((status = 200, description = "The event and its attempts.", body = EventDetailsJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    event_id: Result<PathId, ApiError>,
) -> Result<Json<EventDetailsJson>, ApiError> {
    let request = ctx.request_for(event_id, |PathId(event_id)| Ok(pb::GetEventRequest { event_id }));
    let answer = state.core.events.clone().get_event(request).await?;
    EventDetailsJson::from_response(answer.into_inner())
        .map(Json)
        .ok_or_else(|| ApiError::new(ErrorCode::UpstreamError, "The core answered without an event."))
}

/// Stream events
///
/// Server-sent events: each event of the key's workspace and mode as it is
/// recorded, oldest first, its `data` the Event as `GET /v1/events/{eventId}`
/// shows it and its `id` the event's id. Reconnect with `Last-Event-ID` (the
/// last id received; browsers' `EventSource` sends it) to receive every later
/// event still kept, then the new ones: none lost, none repeated. Without it
/// the stream starts with the events recorded from then on. An event is sent
/// about a second after it is recorded; a comment (`: heartbeat`) is sent
/// every 15 seconds when no event is. A failure after the stream started
/// ends it with an `error` event whose data is the error shape. Counted once
/// by the rate limits, however long it runs.
#[utoipa::path(
    get,
    path = "/v1/events/stream",
    operation_id = "streamEvents",
    tag = "Events",
    params(
        ("delivery_id" = Option<String>, Query, description = "Only events of this delivery."),
        ("type" = Option<pb::EventType>, Query, description = "Only events of this type."),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event (`evt_…`), the last one received."),
    ),
    responses((
        status = 200,
        description = "A stream of server-sent events: `id:` the event's id, `data:` the Event as JSON.",
        content_type = "text/event-stream",
        body = String,
    )),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn stream(
    State(state): State<EdgeState>,
    ctx: CallContext,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let last_event_id = headers.get("last-event-id").map(|value| value.as_bytes());
    let parsed = parse_query(query.as_deref()).and_then(|q| events::stream_request(&q, last_event_id));
    let request = ctx.request_for(parsed, Ok);
    let mut messages = state.core.events.clone().stream_events(request).await?.into_inner();
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<SseEvent, Infallible>>(16);
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                () = sender.closed() => return,
                message = messages.message() => message,
            };
            let (sse, end) = match message {
                Ok(Some(pb::StreamEventsResponse { event: Some(event) })) => {
                    let id = event.id.clone();
                    match SseEvent::default().id(id).json_data(EventJson::from(event)) {
                        Ok(sse) => (sse, false),
                        Err(failure) => (
                            failed(
                                &ApiError::new(
                                    ErrorCode::InternalError,
                                    format!("An event could not be rendered: {failure}."),
                                ),
                                &ctx.request_id,
                                &state.base_url,
                            ),
                            true,
                        ),
                    }
                }
                Ok(Some(_)) => (
                    failed(
                        &ApiError::new(ErrorCode::UpstreamError, "The core sent a message without an event."),
                        &ctx.request_id,
                        &state.base_url,
                    ),
                    true,
                ),
                Ok(None) => return,
                Err(status) => (
                    failed(&ApiError::from_status(status), &ctx.request_id, &state.base_url),
                    true,
                ),
            };
            if sender.send(Ok(sse)).await.is_err() || end {
                return;
            }
        }
    });
    let mut response = Sse::new(tokio_stream::wrappers::ReceiverStream::new(receiver))
        .keep_alive(KeepAlive::new().interval(HEARTBEAT).text("heartbeat"))
        .into_response();
    // Proxies that buffer answers (nginx) pass this one on as it comes.
    response
        .headers_mut()
        .insert("x-accel-buffering", axum::http::HeaderValue::from_static("no"));
    Ok(response)
}

/// The `error` event that ends a stream: the error shape as its data.
fn failed(error: &ApiError, request_id: &str, base_url: &str) -> SseEvent {
    let body = error::body(error, request_id, base_url);
    SseEvent::default()
        .event("error")
        .json_data(&body)
        .unwrap_or_else(|_| SseEvent::default().event("error").data(error.message.clone()))
}
