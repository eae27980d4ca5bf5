//! `courier.v1.EventService` (deliveries:read): the events list, an
//! event's details with its webhook attempts, and the live event stream.

use std::pin::Pin;

use courier::time::micros_to_proto;
use courier::v1 as pb;
use courier::v1::event_service_server::EventService;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::convert;
use super::delivery_out::snapshot;
use super::enums::ToProto;
use crate::caller;
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::Permission;
use courier_orders::events::Event;
use courier_orders::events::EventType;
use courier_orders::events::history::{self, EventFilter};
use courier_orders::events::stream::{self, StreamFilter};
use courier_orders::webhooks::attempts::{self, Attempt, AttemptStatus};

pub struct EventApi(pub Core);

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::StreamEventsResponse, Status>> + Send>>;

/// An event type of a request; `Unspecified` is `None`.
pub fn event_type_in(value: i32, param: &str) -> CoreResult<Option<EventType>> {
    use pb::EventType as T;
    match T::try_from(value) {
        Ok(T::Unspecified) => Ok(None),
        Ok(T::DeliveryCreated) => Ok(Some(EventType::Created)),
        Ok(T::DeliveryStatusUpdated) => Ok(Some(EventType::StatusUpdated)),
        Ok(T::DeliveryCourierAssigned) => Ok(Some(EventType::CourierAssigned)),
        Ok(T::DeliveryCourierArrived) => Ok(Some(EventType::CourierArrived)),
        Ok(T::DeliveryEtaUpdated) => Ok(Some(EventType::EtaUpdated)),
        Ok(T::DeliveryPodSubmitted) => Ok(Some(EventType::PodSubmitted)),
        Ok(T::DeliveryDelivered) => Ok(Some(EventType::Delivered)),
        Ok(T::DeliveryCancelled) => Ok(Some(EventType::Cancelled)),
        Ok(T::DeliveryDelayed) => Ok(Some(EventType::Delayed)),
        Ok(T::DeliveryUpdated) => Ok(Some(EventType::Updated)),
        Err(_) => Err(CoreError::invalid(param, format!("{param} is not a known event type."))),
    }
}

fn event_out(event: &Event) -> CoreResult<pb::Event> {
    Ok(pb::Event {
        id: event.id.clone(),
        r#type: event.event_type.to_proto() as i32,
        version: event.version.clone(),
        created_at: Some(micros_to_proto(event.created_at)),
        data: Some(snapshot(event)?),
        test: false,
        changed_fields: event.changed_fields.clone(),
    })
}

pub fn attempt_out(attempt: Attempt) -> pb::WebhookAttempt {
    pb::WebhookAttempt {
        webhook_id: attempt.webhook_id,
        attempted_at: Some(micros_to_proto(attempt.attempted_at)),
        status: match attempt.status {
            AttemptStatus::Pending => pb::WebhookAttemptStatus::Pending,
            AttemptStatus::Succeeded => pb::WebhookAttemptStatus::Succeeded,
            AttemptStatus::Failed => pb::WebhookAttemptStatus::Failed,
        } as i32,
        response_code: attempt.response_code,
        latency_ms: attempt.latency_ms,
        error: attempt.error,
    }
}

fn micros(value: Option<prost_types::Timestamp>, param: &str) -> CoreResult<Option<i64>> {
    Ok(convert::timestamp(value, param)?.map(|t| t.timestamp_micros()))
}

#[tonic::async_trait]
impl EventService for EventApi {
    async fn list_events(
        &self,
        request: Request<pb::ListEventsRequest>,
    ) -> Result<Response<pb::ListEventsResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let r = request.into_inner();
        let filter = EventFilter {
            delivery_id: r.delivery_id,
            event_type: event_type_in(r.r#type, "type")?,
            created_after: micros(r.created_after, "created_after")?,
            created_before: micros(r.created_before, "created_before")?,
        };
        let page = history::list(&self.0, &principal, &filter, r.page_size, Some(&r.page_token)).await?;
        Ok(Response::new(pb::ListEventsResponse {
            events: page
                .items
                .iter()
                .map(|event| event_out(event))
                .collect::<CoreResult<_>>()?,
            next_page_token: page.next_page_token.unwrap_or_default(),
        }))
    }

    async fn get_event(&self, request: Request<pb::GetEventRequest>) -> Result<Response<pb::GetEventResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let event = history::get(&self.0, &principal, &request.into_inner().event_id).await?;
        let attempts = attempts::of_event(&self.0.db, &event.id).await?;
        Ok(Response::new(pb::GetEventResponse {
            event: Some(event_out(&event)?),
            webhook_attempts: attempts.into_iter().map(attempt_out).collect(),
        }))
    }

    type StreamEventsStream = EventStream;

    async fn stream_events(
        &self,
        request: Request<pb::StreamEventsRequest>,
    ) -> Result<Response<Self::StreamEventsStream>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let r = request.into_inner();
        let filter = StreamFilter {
            delivery_id: r.delivery_id,
            event_type: event_type_in(r.r#type, "type")?,
        };
        let events = stream::follow(
            &self.0,
            &principal,
            filter,
            r.after_event_id.as_deref(),
            "Last-Event-ID",
        )
        .await?;
        let messages = ReceiverStream::new(events).map(|event| {
            event
                .and_then(|event| {
                    Ok(pb::StreamEventsResponse {
                        event: Some(event_out(&event)?),
                    })
                })
                .map_err(Status::from)
        });
        Ok(Response::new(Box::pin(messages)))
    }
}
