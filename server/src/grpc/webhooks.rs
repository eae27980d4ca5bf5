//! `courier.v1.WebhookService` (webhooks:manage): webhook endpoints of the
//! caller's workspace and mode.

use courier::time::micros_to_proto;
use courier::v1 as pb;
use courier::v1::webhook_service_server::WebhookService;
use tonic::{Request, Response, Status};

use super::enums::ToProto;
use super::events::{attempt_out, event_type_in};
use crate::caller;
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::Permission;
use courier_orders::events::EventType;
use courier_orders::webhooks::endpoints::{self, DisabledReason, Endpoint, EndpointPatch, EndpointStatus, NewEndpoint};

pub struct WebhookApi(pub Core);

/// `events` of a request: every entry a known type.
fn event_types_in(values: &[i32]) -> CoreResult<Vec<EventType>> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let param = format!("events.{index}");
            event_type_in(*value, &param)?
                .ok_or_else(|| CoreError::invalid(param.clone(), format!("{param} is not a known event type.")))
        })
        .collect()
}

fn status_in(value: i32) -> CoreResult<Option<EndpointStatus>> {
    use pb::WebhookEndpointStatus as S;
    match S::try_from(value) {
        Ok(S::Unspecified) => Ok(None),
        Ok(S::Active) => Ok(Some(EndpointStatus::Active)),
        Ok(S::Disabled) => Ok(Some(EndpointStatus::Disabled)),
        Err(_) => Err(CoreError::invalid("status", "status must be active or disabled.")),
    }
}

fn endpoint_out(endpoint: Endpoint) -> pb::WebhookEndpoint {
    pb::WebhookEndpoint {
        id: endpoint.id,
        url: endpoint.url,
        events: endpoint.events.into_iter().map(|t| t.to_proto() as i32).collect(),
        description: endpoint.description,
        status: match endpoint.status {
            EndpointStatus::Active => pb::WebhookEndpointStatus::Active,
            EndpointStatus::Disabled => pb::WebhookEndpointStatus::Disabled,
        } as i32,
        disabled_reason: match endpoint.disabled_reason {
            None => pb::WebhookDisabledReason::Unspecified,
            Some(DisabledReason::Manual) => pb::WebhookDisabledReason::Manual,
            Some(DisabledReason::Failing) => pb::WebhookDisabledReason::Failing,
        } as i32,
        created_at: Some(micros_to_proto(endpoint.created_at)),
        updated_at: Some(micros_to_proto(endpoint.updated_at)),
    }
}

#[tonic::async_trait]
impl WebhookService for WebhookApi {
    async fn create_webhook_endpoint(
        &self,
        request: Request<pb::CreateWebhookEndpointRequest>,
    ) -> Result<Response<pb::CreateWebhookEndpointResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let r = request.into_inner();
        let new = NewEndpoint {
            url: r.url,
            events: event_types_in(&r.events)?,
            description: r.description,
        };
        let created = endpoints::create(&self.0, &principal, new).await?;
        Ok(Response::new(pb::CreateWebhookEndpointResponse {
            endpoint: Some(endpoint_out(created.endpoint)),
            secret: created.secret,
        }))
    }

    async fn list_webhook_endpoints(
        &self,
        request: Request<pb::ListWebhookEndpointsRequest>,
    ) -> Result<Response<pb::ListWebhookEndpointsResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let list = endpoints::list(&self.0, &principal).await?;
        Ok(Response::new(pb::ListWebhookEndpointsResponse {
            endpoints: list.into_iter().map(endpoint_out).collect(),
        }))
    }

    async fn update_webhook_endpoint(
        &self,
        request: Request<pb::UpdateWebhookEndpointRequest>,
    ) -> Result<Response<pb::UpdateWebhookEndpointResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let r = request.into_inner();
        let patch = EndpointPatch {
            url: r.url,
            events: r.events.map(|list| event_types_in(&list.events)).transpose()?,
            description: r.description,
            status: status_in(r.status)?,
        };
        let endpoint = endpoints::update(&self.0, &principal, &r.webhook_id, patch).await?;
        Ok(Response::new(pb::UpdateWebhookEndpointResponse {
            endpoint: Some(endpoint_out(endpoint)),
        }))
    }

    async fn delete_webhook_endpoint(
        &self,
        request: Request<pb::DeleteWebhookEndpointRequest>,
    ) -> Result<Response<pb::DeleteWebhookEndpointResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let id = endpoints::delete(&self.0, &principal, &request.into_inner().webhook_id).await?;
        Ok(Response::new(pb::DeleteWebhookEndpointResponse { id, deleted: true }))
    }

    async fn test_webhook_endpoint(
        &self,
        request: Request<pb::TestWebhookEndpointRequest>,
    ) -> Result<Response<pb::TestWebhookEndpointResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let result = endpoints::test(&self.0, &principal, &request.into_inner().webhook_id).await?;
        Ok(Response::new(pb::TestWebhookEndpointResponse {
            event_id: result.event_id,
            succeeded: result.succeeded,
            response_code: result.response_code.map(i32::from),
            latency_ms: result.latency_ms,
            error: result.error,
        }))
    }

    async fn replay_webhook_endpoint(
        &self,
        request: Request<pb::ReplayWebhookEndpointRequest>,
    ) -> Result<Response<pb::ReplayWebhookEndpointResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let queued = endpoints::replay(&self.0, &principal, &request.into_inner().webhook_id).await?;
        Ok(Response::new(pb::ReplayWebhookEndpointResponse {
            queued: i64::try_from(queued).unwrap_or(i64::MAX),
        }))
    }

    async fn list_webhook_endpoint_attempts(
        &self,
        request: Request<pb::ListWebhookEndpointAttemptsRequest>,
    ) -> Result<Response<pb::ListWebhookEndpointAttemptsResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::WebhooksManage)).await?;
        let r = request.into_inner();
        let limit = match r.page_size {
            None => 20,
            Some(size @ 1..=100) => size.unsigned_abs().into(),
            Some(_) => return Err(CoreError::invalid("page_size", "page_size must be from 1 to 100.").into()),
        };
        let activity = endpoints::activity(&self.0, &principal, &r.webhook_id, limit).await?;
        Ok(Response::new(pb::ListWebhookEndpointAttemptsResponse {
            attempts: activity
                .attempts
                .into_iter()
                .map(|(event_id, event_type, attempt)| pb::WebhookEndpointAttempt {
                    event_id,
                    event_type: event_type.to_proto() as i32,
                    attempt: Some(attempt_out(attempt)),
                })
                .collect(),
            failing_streak: activity.failing_streak,
            pending_retries: i64::try_from(activity.pending_retries).unwrap_or(i64::MAX),
            disable_after: i32::try_from(activity.disable_after).unwrap_or(i32::MAX),
            disable_window: prost_types::Duration::try_from(activity.disable_window).ok(),
        }))
    }
}
