//! `courier.v1.TrackingService`: tracking, proof of delivery and the live
//! watch of one delivery (deliveries:read).

use std::pin::Pin;

use courier::v1 as pb;
use courier::v1::tracking_service_server::TrackingService;
use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response, Status};

use super::proofs_out::proof_out;
use super::tracking_out::{tracking_out, watch_update_out};
use crate::caller;
use courier_core::{Core, tracking};
use courier_identity::access::Permission;
use courier_orders::proofs;

pub struct TrackingApi(pub Core);

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchDeliveryResponse, Status>> + Send>>;

#[tonic::async_trait]
impl TrackingService for TrackingApi {
    async fn get_delivery_tracking(
        &self,
        request: Request<pb::GetDeliveryTrackingRequest>,
    ) -> Result<Response<pb::GetDeliveryTrackingResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let tracking = tracking::get(&self.0, &principal, &request.into_inner().delivery_id).await?;
        Ok(Response::new(pb::GetDeliveryTrackingResponse {
            tracking: Some(tracking_out(&tracking, &self.0.config.public_base_url)),
        }))
    }

    async fn get_proof_of_delivery(
        &self,
        request: Request<pb::GetProofOfDeliveryRequest>,
    ) -> Result<Response<pb::GetProofOfDeliveryResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let proof = proofs::proof_of_delivery(&self.0, &principal, &request.into_inner().delivery_id).await?;
        Ok(Response::new(pb::GetProofOfDeliveryResponse {
            proof_of_delivery: Some(proof_out(proof)),
        }))
    }

    type WatchDeliveryStream = WatchStream;

    async fn watch_delivery(
        &self,
        request: Request<pb::WatchDeliveryRequest>,
    ) -> Result<Response<Self::WatchDeliveryStream>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let updates = tracking::watch(&self.0, &principal, &request.into_inner().delivery_id).await?;
        let public_base_url = self.0.config.public_base_url.clone();
        let stream = ReceiverStream::new(updates).map(move |update| {
            update
                .map(|update| watch_update_out(&update, &public_base_url))
                .map_err(Status::from)
        });
        Ok(Response::new(Box::pin(stream)))
    }
}
