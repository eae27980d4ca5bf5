//! `GET /v1/events` and `GET /v1/events/{event_id}` (contract 4.12).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::events::{self, EventDetailsJson, EventListJson};
use crate::error::ApiError;

/// `GET /v1/events`
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> Result<Json<EventListJson>, ApiError> {
    let parsed = parse_query(query.as_deref()).and_then(|q| events::list_request(&q));
    let request = ctx.request_for(parsed, Ok);
    let answer = state.core.events.clone().list_events(request).await?;
    Ok(Json(answer.into_inner().into()))
}

/// `GET /v1/events/{event_id}`
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(event_id): Path<String>,
) -> Result<Json<EventDetailsJson>, ApiError> {
    let request = ctx.request(pb::GetEventRequest { event_id });
    let answer = state.core.events.clone().get_event(request).await?;
    EventDetailsJson::from_response(answer.into_inner())
        .map(Json)
        .ok_or_else(|| ApiError::new(ErrorCode::UpstreamError, "The core answered without an event."))
}
