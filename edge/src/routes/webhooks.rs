//! `/v1/webhooks` (docs/guide.md "Webhooks"): register, list, change, delete,
//! send a sample event, replay failed events.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::webhooks::{
    self, CreateWebhookBody, CreatedWebhookJson, DeletedWebhookJson, EmptyBody, ReplayJson, UpdateWebhookBody,
    WebhookEndpointJson, WebhookListJson, WebhookTestJson,
};
use crate::error::ApiError;
use crate::json::{JsonBody, OptionalJsonBody};
use crate::path_id::PathId;

fn missing_endpoint() -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, "The core answered without an endpoint.")
}

/// Register a webhook endpoint
///
/// The answer carries the signing `secret`, shown only here. An endpoint
/// registered with a test key receives events of test deliveries only.
#[utoipa::path(
    post,
    path = "/v1/webhooks",
    operation_id = "createWebhookEndpoint",
    tag = "Webhooks",
    request_body = CreateWebhookBody,
    responses((status = 201, description = "The endpoint and its secret.", body = CreatedWebhookJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateWebhookBody>, ApiError>,
) -> Result<(StatusCode, Json<CreatedWebhookJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| pb::CreateWebhookEndpointRequest::try_from(b));
    let answer = state
        .core
        .webhooks
        .clone()
        .create_webhook_endpoint(request)
        .await?
        .into_inner();
    let endpoint = answer.endpoint.ok_or_else(missing_endpoint)?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedWebhookJson {
            endpoint: endpoint.into(),
            secret: answer.secret,
        }),
    ))
}

/// List webhook endpoints
///
/// The key mode's endpoints, oldest first.
#[utoipa::path(
    get,
    path = "/v1/webhooks",
    operation_id = "listWebhookEndpoints",
    tag = "Webhooks",
    responses((status = 200, description = "The endpoints.", body = WebhookListJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> Result<Json<WebhookListJson>, ApiError> {
    let parsed = parse_query(query.as_deref()).and_then(|q| match q.keys().next() {
        Some(unknown) => Err(ApiError::invalid(
            unknown.clone(),
            format!("{unknown} is not a known query parameter."),
        )),
        None => Ok(pb::ListWebhookEndpointsRequest {}),
    });
    let request = ctx.request_for(parsed, Ok);
    let answer = state.core.webhooks.clone().list_webhook_endpoints(request).await?;
    Ok(Json(WebhookListJson {
        webhooks: answer.into_inner().endpoints.into_iter().map(Into::into).collect(),
    }))
}

/// Change a webhook endpoint
///
/// Absent fields stay as they are. `status: "active"` re-enables a disabled
/// endpoint; replay its failed events afterwards.
#[utoipa::path(
    patch,
    path = "/v1/webhooks/{webhookId}",
    operation_id = "updateWebhookEndpoint",
    tag = "Webhooks",
    params(("webhookId" = String, Path, description = "The endpoint's id (`whe_…`).")),
    request_body = UpdateWebhookBody,
    responses((status = 200, description = "The endpoint as it now is.", body = WebhookEndpointJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn update(
    State(state): State<EdgeState>,
    ctx: CallContext,
    webhook_id: Result<PathId, ApiError>,
    body: Result<JsonBody<UpdateWebhookBody>, ApiError>,
) -> Result<Json<WebhookEndpointJson>, ApiError> {
    let parsed = webhook_id.and_then(|id| Ok((id, body?)));
    let request = ctx.request_for(parsed, |(PathId(webhook_id), JsonBody(b))| {
        webhooks::update_request(webhook_id, b)
    });
    let answer = state.core.webhooks.clone().update_webhook_endpoint(request).await?;
    let endpoint = answer.into_inner().endpoint.ok_or_else(missing_endpoint)?;
    Ok(Json(endpoint.into()))
}

/// Delete a webhook endpoint
///
/// For good: its queued events are dropped; its attempts stay in the events'
/// history.
#[utoipa::path(
    delete,
    path = "/v1/webhooks/{webhookId}",
    operation_id = "deleteWebhookEndpoint",
    tag = "Webhooks",
    params(("webhookId" = String, Path, description = "The endpoint's id (`whe_…`).")),
    responses((status = 200, description = "The endpoint is deleted.", body = DeletedWebhookJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn delete(
    State(state): State<EdgeState>,
    ctx: CallContext,
    webhook_id: Result<PathId, ApiError>,
) -> Result<Json<DeletedWebhookJson>, ApiError> {
    let request = ctx.request_for(webhook_id, |PathId(webhook_id)| {
        Ok(pb::DeleteWebhookEndpointRequest { webhook_id })
    });
    let answer = state
        .core
        .webhooks
        .clone()
        .delete_webhook_endpoint(request)
        .await?
        .into_inner();
    Ok(Json(DeletedWebhookJson {
        id: answer.id,
        deleted: answer.deleted,
    }))
}

/// Send a sample event
///
/// Sends one signed `delivery.status_updated` event with `data.test` true and
/// reports the receiver's answer, whatever it was. The sample is not stored,
/// retried or listed.
#[utoipa::path(
    post,
    path = "/v1/webhooks/{webhookId}/test",
    operation_id = "testWebhookEndpoint",
    tag = "Webhooks",
    params(("webhookId" = String, Path, description = "The endpoint's id (`whe_…`).")),
    request_body(content = Option<EmptyBody>, description = "Empty or `{}`."),
    responses((status = 200, description = "The attempt's result.", body = WebhookTestJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn test(
    State(state): State<EdgeState>,
    ctx: CallContext,
    webhook_id: Result<PathId, ApiError>,
    body: Result<OptionalJsonBody<EmptyBody>, ApiError>,
) -> Result<Json<WebhookTestJson>, ApiError> {
    let parsed = webhook_id.and_then(|id| body.map(|_| id));
    let request = ctx.request_for(parsed, |PathId(webhook_id)| {
        Ok(pb::TestWebhookEndpointRequest { webhook_id })
    });
    let answer = state.core.webhooks.clone().test_webhook_endpoint(request).await?;
    Ok(Json(answer.into_inner().into()))
}

/// Replay failed events
///
/// Queues every event that ended failed for the endpoint (and is still kept)
/// again, with the same id and a full 8 attempts.
#[utoipa::path(
    post,
    path = "/v1/webhooks/{webhookId}/replay",
    operation_id = "replayWebhookEndpoint",
    tag = "Webhooks",
    params(("webhookId" = String, Path, description = "The endpoint's id (`whe_…`).")),
    request_body(content = Option<EmptyBody>, description = "Empty or `{}`."),
    responses((status = 200, description = "How many events were queued.", body = ReplayJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn replay(
    State(state): State<EdgeState>,
    ctx: CallContext,
    webhook_id: Result<PathId, ApiError>,
    body: Result<OptionalJsonBody<EmptyBody>, ApiError>,
) -> Result<Json<ReplayJson>, ApiError> {
    let parsed = webhook_id.and_then(|id| body.map(|_| id));
    let request = ctx.request_for(parsed, |PathId(webhook_id)| {
        Ok(pb::ReplayWebhookEndpointRequest { webhook_id })
    });
    let answer = state.core.webhooks.clone().replay_webhook_endpoint(request).await?;
    Ok(Json(ReplayJson {
        queued: answer.into_inner().queued,
    }))
}
