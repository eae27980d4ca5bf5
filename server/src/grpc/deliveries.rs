use courier::errors::ErrorCode;
use courier::metadata;
use courier::v1 as pb;
use courier::v1::delivery_service_server::DeliveryService;
use prost::Message;
use tonic::{Request, Response, Status};

use super::context;
use super::convert::{self, RouteParts};
use super::delivery_out::to_proto;
use crate::caller;
use courier_core::Core;
use courier_core::{CoreError, CoreResult};
use courier_identity::access::Permission;
use courier_orders::deliveries::{
    self, Batching, CancelReason, Edit, ListFilter, NewDelivery, PromiseFilter, ProofRequest, Redelivery, TestScenario,
    UndeliverableAction, bulk,
};
use courier_orders::lifecycle::{self, Status as DeliveryStatus};
use courier_orders::notifications::{Language, Preferences};
use courier_orders::windows::Windows;

pub struct DeliveryApi(pub Core);

fn test_scenario_in(value: i32) -> CoreResult<Option<TestScenario>> {
    match pb::TestScenario::try_from(value) {
        Ok(pb::TestScenario::Unspecified) => Ok(None),
        Ok(pb::TestScenario::NoCourierFound) => Ok(Some(TestScenario::NoCourierFound)),
        Ok(pb::TestScenario::CourierCancelled) => Ok(Some(TestScenario::CourierCancelled)),
        Ok(pb::TestScenario::PickupNoShow) => Ok(Some(TestScenario::PickupNoShow)),
        Ok(pb::TestScenario::DeliveryFailed) => Ok(Some(TestScenario::DeliveryFailed)),
        Ok(pb::TestScenario::Delayed) => Ok(Some(TestScenario::Delayed)),
        Ok(pb::TestScenario::Returned) => Ok(Some(TestScenario::Returned)),
        Err(_) => Err(CoreError::invalid("test_scenario", "Unknown test_scenario.")),
    }
}

fn batching_in(value: i32) -> CoreResult<Batching> {
    match pb::Batching::try_from(value) {
        Ok(pb::Batching::Unspecified | pb::Batching::Allowed) => Ok(Batching::Allowed),
        Ok(pb::Batching::Never) => Ok(Batching::Never),
        Err(_) => Err(CoreError::invalid("batching", "Unknown batching.")),
    }
}

fn undeliverable_action_in(value: i32) -> CoreResult<UndeliverableAction> {
    match pb::UndeliverableAction::try_from(value) {
        Ok(pb::UndeliverableAction::Unspecified | pb::UndeliverableAction::ReturnToPickup) => {
            Ok(UndeliverableAction::ReturnToPickup)
        }
        Ok(pb::UndeliverableAction::Dispose) => Ok(UndeliverableAction::Dispose),
        Err(_) => Err(CoreError::invalid(
            "undeliverable_action",
            "Unknown undeliverable_action.",
        )),
    }
}

fn proof_in(p: Option<pb::ProofOfDeliveryRequest>) -> Option<ProofRequest> {
    p.map(|p| {
        let pickup = p.pickup.unwrap_or_default();
        let dropoff = p.dropoff.unwrap_or_default();
        ProofRequest {
            pickup_photos: pickup.photos,
            pickup_signature: pickup.signature,
            pickup_sender_name: pickup.sender_name,
            pickup_barcode: pickup.barcode,
            dropoff_photos: dropoff.photos,
            dropoff_signature: dropoff.signature,
            dropoff_recipient_name: dropoff.recipient_name,
            dropoff_barcode: dropoff.barcode,
            dropoff_age_check: dropoff.age_check,
            dropoff_leave_at_door: dropoff.leave_at_door,
            dropoff_pin: dropoff.pin,
        }
    })
}

pub fn status_in(value: i32, param: &str) -> CoreResult<Option<DeliveryStatus>> {
    use pb::DeliveryStatus as S;
    match S::try_from(value) {
        Ok(S::Unspecified) => Ok(None),
        Ok(S::Pending) => Ok(Some(DeliveryStatus::Pending)),
        Ok(S::CourierAssigned) => Ok(Some(DeliveryStatus::CourierAssigned)),
        Ok(S::AtPickup) => Ok(Some(DeliveryStatus::AtPickup)),
        Ok(S::PickedUp) => Ok(Some(DeliveryStatus::PickedUp)),
        Ok(S::InTransit) => Ok(Some(DeliveryStatus::InTransit)),
        Ok(S::AtDropoff) => Ok(Some(DeliveryStatus::AtDropoff)),
        Ok(S::Delivered) => Ok(Some(DeliveryStatus::Delivered)),
        Ok(S::Cancelled) => Ok(Some(DeliveryStatus::Cancelled)),
        Err(_) => Err(CoreError::invalid(param, format!("Unknown {param}."))),
    }
}

fn cancel_reason_in(value: i32) -> CoreResult<Option<CancelReason>> {
    use pb::CancelReason as R;
    match R::try_from(value) {
        Ok(R::Unspecified) => Ok(None),
        Ok(R::FoundAnotherService) => Ok(Some(CancelReason::FoundAnotherService)),
        Ok(R::WaitedTooLong) => Ok(Some(CancelReason::WaitedTooLong)),
        Ok(R::BookedByMistake) => Ok(Some(CancelReason::BookedByMistake)),
        Ok(R::NoLongerNeeded) => Ok(Some(CancelReason::NoLongerNeeded)),
        Ok(R::ChangeDetails) => Ok(Some(CancelReason::ChangeDetails)),
        Ok(R::Other) => Ok(Some(CancelReason::Other)),
        Err(_) => Err(CoreError::invalid("reason", "Unknown reason.")),
    }
}

fn notifications_in(preferences: Option<pb::NotificationPreferences>) -> CoreResult<Preferences> {
    let Some(p) = preferences else {
        return Ok(Preferences::default());
    };
    let language =
        match p.language.as_deref() {
            None => None,
            Some(text) => Some(Language::parse(text).ok_or_else(|| {
                CoreError::invalid("notifications.language", "notifications.language must be en or de.")
            })?),
        };
    Ok(Preferences {
        recipient: p.recipient,
        sender: p.sender,
        language,
    })
}

fn edit_in(r: pb::UpdateDeliveryRequest) -> CoreResult<Edit> {
    let dropoff_window = convert::window_change_in(r.dropoff_window, r.clear_dropoff_window)?;
    Ok(Edit {
        notes: convert::set_or_removed(r.notes),
        pickup: convert::waypoint_edit_in(r.pickup),
        dropoff: convert::waypoint_edit_in(r.dropoff),
        dropoff_window,
        tip_cents: r.tip_cents,
        if_updated_at: convert::micros(r.if_updated_at, "If-Match")?,
        accept_amount_cents: r.accept_amount_cents,
    })
}

#[tonic::async_trait]
impl DeliveryService for DeliveryApi {
    async fn create_delivery(
        &self,
        request: Request<pb::CreateDeliveryRequest>,
    ) -> Result<Response<pb::CreateDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesWrite)).await?;
        let idempotency_key = context::header(&request, metadata::IDEMPOTENCY_KEY);
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let r = request.into_inner();
        let canonical = context::canonical(&r);
        let new = new_delivery_in(r)?;
        let created = deliveries::create(
            &self.0,
            &principal,
            idempotency_key.as_deref(),
            &canonical,
            &request_id,
            new,
        )
        .await?;
        Ok(context::created(&created, |delivery| pb::CreateDeliveryResponse {
            delivery: Some(delivery),
        })?)
    }

    async fn batch_create_deliveries(
        &self,
        request: Request<pb::BatchCreateDeliveriesRequest>,
    ) -> Result<Response<pb::BatchCreateDeliveriesResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesWrite)).await?;
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let request = request.into_inner();
        let validate_only = request.validate_only;
        let items = request
            .items
            .into_iter()
            .map(|item| {
                let delivery = item.delivery.unwrap_or_default();
                let canonical = context::canonical(&delivery);
                bulk::Item {
                    idempotency_key: item.idempotency_key,
                    canonical,
                    delivery: match item.request_error {
                        Some(error) => Err(request_error_in(&error)),
                        None => new_delivery_in(delivery),
                    },
                }
            })
            .collect();
        if validate_only {
            let results = bulk::check_many(&self.0, &principal, items)
                .await?
                .into_iter()
                .map(|answer| {
                    Ok(pb::BatchCreateDeliveryResult {
                        result: Some(match answer {
                            Ok(checked) => {
                                pb::batch_create_delivery_result::Result::Checked(pb::BatchCreateDeliveryCheck {
                                    amount_cents: checked.amount_cents,
                                    currency: checked.currency,
                                    distance_km: checked.distance_km,
                                    duration_min: checked.duration_min,
                                })
                            }
                            Err(error) => pb::batch_create_delivery_result::Result::Error(error_out(error)?),
                        }),
                        replayed: false,
                    })
                })
                .collect::<CoreResult<Vec<_>>>()?;
            return Ok(Response::new(pb::BatchCreateDeliveriesResponse { results }));
        }
        let answers = bulk::create_many(&self.0, &principal, &request_id, items).await?;
        let results = answers
            .into_iter()
            .map(|answer| match answer {
                Ok(created) => {
                    let delivery = pb::Delivery::decode(created.answer.as_slice())
                        .map_err(|error| CoreError::Internal(format!("corrupt idempotent answer: {error}")))?;
                    Ok(pb::BatchCreateDeliveryResult {
                        result: Some(pb::batch_create_delivery_result::Result::Delivery(Box::new(delivery))),
                        replayed: created.replayed,
                    })
                }
                Err(error) => Ok(pb::BatchCreateDeliveryResult {
                    replayed: matches!(error, CoreError::Replayed { .. }),
                    result: Some(pb::batch_create_delivery_result::Result::Error(error_out(error)?)),
                }),
            })
            .collect::<CoreResult<Vec<_>>>()?;
        Ok(Response::new(pb::BatchCreateDeliveriesResponse { results }))
    }

    async fn get_delivery(
        &self,
        request: Request<pb::GetDeliveryRequest>,
    ) -> Result<Response<pb::GetDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let delivery = deliveries::get(&self.0, &principal, &request.into_inner().delivery_id).await?;
        let delivery = courier_core::tracking::located(&self.0, delivery).await?;
        Ok(Response::new(pb::GetDeliveryResponse {
            delivery: Some(to_proto(&delivery, &self.0.config.public_base_url)),
        }))
    }

    async fn list_deliveries(
        &self,
        request: Request<pb::ListDeliveriesRequest>,
    ) -> Result<Response<pb::ListDeliveriesResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let r = request.into_inner();
        let filter = ListFilter {
            status: status_in(r.status, "status")?,
            external_id: r.external_id,
            created_after: convert::micros(r.created_after, "created_after")?,
            created_before: convert::micros(r.created_before, "created_before")?,
            promise: match pb::PromiseState::try_from(r.promise) {
                Ok(pb::PromiseState::Unspecified) => None,
                Ok(pb::PromiseState::AtRisk) => Some(PromiseFilter::AtRisk),
                Ok(pb::PromiseState::Late) => Some(PromiseFilter::Late),
                Err(_) => return Err(CoreError::invalid("promise", "Unknown promise.").into()),
            },
        };
        let page = deliveries::list(&self.0, &principal, &filter, r.page_size, Some(&r.page_token)).await?;
        Ok(Response::new(pb::ListDeliveriesResponse {
            deliveries: page
                .items
                .iter()
                .map(|d| to_proto(d, &self.0.config.public_base_url))
                .collect(),
            next_page_token: page.next_page_token.unwrap_or_default(),
        }))
    }

    async fn update_delivery(
        &self,
        request: Request<pb::UpdateDeliveryRequest>,
    ) -> Result<Response<pb::UpdateDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesWrite)).await?;
        let idempotency_key = context::header(&request, metadata::IDEMPOTENCY_KEY);
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let r = request.into_inner();
        // If-Match is a header, not the body: a retry with a fresh one is
        // the same request under its key.
        let canonical = context::canonical(&pb::UpdateDeliveryRequest {
            if_updated_at: None,
            ..r.clone()
        });
        let delivery_id = r.delivery_id.clone();
        let edit = edit_in(r)?;
        let edited = deliveries::edit(
            &self.0,
            &principal,
            idempotency_key.as_deref(),
            &canonical,
            &request_id,
            &delivery_id,
            edit,
        )
        .await?;
        if edited.replans()
            && let Err(error) = courier_core::jobs::tracking::replan_after_edit(&self.0, &delivery_id).await
        {
            // The change is committed; the route and ETAs follow at the
            // courier's next move or position report.
            tracing::warn!(%error, delivery = %delivery_id, "route not planned again after a change");
        }
        Ok(context::created(&edited.answer, |delivery| {
            pb::UpdateDeliveryResponse {
                delivery: Some(delivery),
            }
        })?)
    }

    async fn redeliver_delivery(
        &self,
        request: Request<pb::RedeliverDeliveryRequest>,
    ) -> Result<Response<pb::RedeliverDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesWrite)).await?;
        let idempotency_key = context::header(&request, metadata::IDEMPOTENCY_KEY);
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let r = request.into_inner();
        let canonical = context::canonical(&r);
        let redelivery = Redelivery {
            scheduled_at: convert::timestamp(r.scheduled_at, "scheduled_at")?,
            windows: Windows {
                pickup: convert::window_in(r.pickup_window, "pickup_window")?,
                dropoff: convert::window_in(r.dropoff_window, "dropoff_window")?,
            },
            external_id: r.external_id,
            test_scenario: test_scenario_in(r.test_scenario)?,
        };
        let created = deliveries::redeliver(
            &self.0,
            &principal,
            idempotency_key.as_deref(),
            &canonical,
            &request_id,
            &r.delivery_id,
            redelivery,
        )
        .await?;
        Ok(context::created(&created, |delivery| pb::RedeliverDeliveryResponse {
            delivery: Some(delivery),
        })?)
    }

    async fn cancel_delivery(
        &self,
        request: Request<pb::CancelDeliveryRequest>,
    ) -> Result<Response<pb::CancelDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesWrite)).await?;
        let r = request.into_inner();
        let delivery = lifecycle::cancel(&self.0, &principal, &r.delivery_id, cancel_reason_in(r.reason)?).await?;
        Ok(Response::new(pb::CancelDeliveryResponse {
            delivery: Some(to_proto(&delivery, &self.0.config.public_base_url)),
        }))
    }
}

/// A create as the core reads it.
fn new_delivery_in(r: pb::CreateDeliveryRequest) -> CoreResult<NewDelivery> {
    Ok(NewDelivery {
        test_scenario: test_scenario_in(r.test_scenario)?,
        batching: batching_in(r.batching)?,
        undeliverable_action: undeliverable_action_in(r.undeliverable_action)?,
        notifications: notifications_in(r.notifications)?,
        tip_cents: r.tip_cents.unwrap_or(0),
        proof: proof_in(r.proof_of_delivery),
        quote_id: r.quote_id,
        external_id: r.external_id,
        notes: r.notes,
        route: convert::route_in(RouteParts {
            pickup: r.pickup,
            dropoff: r.dropoff,
            stops: r.stops,
            vehicle_type_id: r.vehicle_type_id,
            extras: r.extras,
            items: r.items,
            scheduled_at: r.scheduled_at,
            pickup_window: r.pickup_window,
            dropoff_window: r.dropoff_window,
        })?,
    })
}

/// A batch item's request error as the edge sent it, in the core's terms.
fn request_error_in(error: &pb::ErrorDetail) -> CoreError {
    match ErrorCode::parse(&error.code) {
        Some(code) => CoreError::Rejected {
            code,
            message: error.message.clone(),
            param: (!error.param.is_empty()).then(|| error.param.clone()),
        },
        None => CoreError::invalid("request_error", format!("Unknown error code {:?}.", error.code)),
    }
}

/// An item's refusal as data; an internal failure fails the whole call.
fn error_out(error: CoreError) -> CoreResult<pb::ErrorDetail> {
    let code = error.code().as_str().to_owned();
    let (param, message) = match error {
        CoreError::Rejected { param, message, .. } | CoreError::Replayed { param, message, .. } => (param, message),
        CoreError::PriceChanged { message, .. } => (Some("accept_amount_cents".to_owned()), message),
        CoreError::Throttled { message, .. } => (None, message),
        CoreError::Database(_) | CoreError::Internal(_) => return Err(error),
    };
    Ok(pb::ErrorDetail {
        code,
        param: param.unwrap_or_default(),
        message,
    })
}
