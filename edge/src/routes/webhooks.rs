//! `/v1/webhooks` (contract 4.10): register, list, change, delete, send a
//! sample event, replay failed events.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
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

fn missing_endpoint() -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, "The core answered without an endpoint.")
}

/// `POST /v1/webhooks`
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

/// `GET /v1/webhooks`
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

/// `PATCH /v1/webhooks/{webhook_id}`
pub async fn update(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(webhook_id): Path<String>,
    body: Result<JsonBody<UpdateWebhookBody>, ApiError>,
) -> Result<Json<WebhookEndpointJson>, ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| webhooks::update_request(webhook_id, b));
    let answer = state.core.webhooks.clone().update_webhook_endpoint(request).await?;
    let endpoint = answer.into_inner().endpoint.ok_or_else(missing_endpoint)?;
    Ok(Json(endpoint.into()))
}

/// `DELETE /v1/webhooks/{webhook_id}`
pub async fn delete(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(webhook_id): Path<String>,
) -> Result<Json<DeletedWebhookJson>, ApiError> {
    let request = ctx.request(pb::DeleteWebhookEndpointRequest { webhook_id });
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

/// `POST /v1/webhooks/{webhook_id}/test`
pub async fn test(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(webhook_id): Path<String>,
    body: Result<OptionalJsonBody<EmptyBody>, ApiError>,
) -> Result<Json<WebhookTestJson>, ApiError> {
    let request = ctx.request_for(body, |_| Ok(pb::TestWebhookEndpointRequest { webhook_id }));
    let answer = state.core.webhooks.clone().test_webhook_endpoint(request).await?;
    Ok(Json(answer.into_inner().into()))
}

/// `POST /v1/webhooks/{webhook_id}/replay`
pub async fn replay(
    State(state): State<EdgeState>,
    ctx: CallContext,
    Path(webhook_id): Path<String>,
    body: Result<OptionalJsonBody<EmptyBody>, ApiError>,
) -> Result<Json<ReplayJson>, ApiError> {
    let request = ctx.request_for(body, |_| Ok(pb::ReplayWebhookEndpointRequest { webhook_id }));
    let answer = state.core.webhooks.clone().replay_webhook_endpoint(request).await?;
    Ok(Json(ReplayJson {
        queued: answer.into_inner().queued,
    }))
}
