//! `GET /v1/events` and `GET /v1/events/{event_id}` (docs/guide.md "Events").

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::events::{self, EventDetailsJson, EventJson, EventListJson};
use crate::error::ApiError;
use crate::list_pages;
use crate::path_id::PathId;

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
