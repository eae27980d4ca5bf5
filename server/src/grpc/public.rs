//! `courier.v1.PublicService`: the keyless reads behind signed proof-file
//! links, couriers' photo links and the tracking page, the SMS provider's
//! callbacks and the unsubscribe link. No API key is read; the domain
//! functions check the link's or the provider's signature, or the tracking
//! token.

use courier::v1 as pb;
use courier::v1::public_service_server::PublicService;
use tonic::{Request, Response, Status};

use super::tracking_out::public_tracking_out;
use courier_core::{Core, couriers, public_tracking};
use courier_orders::notifications::inbound::{self, SignedRequest};
use courier_orders::proofs;

pub struct PublicApi(pub Core);

#[tonic::async_trait]
impl PublicService for PublicApi {
    async fn get_proof_file(
        &self,
        request: Request<pb::GetProofFileRequest>,
    ) -> Result<Response<pb::GetProofFileResponse>, Status> {
        let r = request.into_inner();
        let file = proofs::download(&self.0, &r.artifact_id, r.expires, &r.signature).await?;
        Ok(Response::new(pb::GetProofFileResponse {
            content: file.content,
            content_type: file.content_type,
            file_name: file.file_name,
        }))
    }

    async fn get_courier_photo(
        &self,
        request: Request<pb::GetCourierPhotoRequest>,
    ) -> Result<Response<pb::GetCourierPhotoResponse>, Status> {
        let r = request.into_inner();
        let photo = couriers::photo_by_link(&self.0, &r.courier_id, &r.signature).await?;
        Ok(Response::new(pb::GetCourierPhotoResponse {
            content: photo.content,
            content_type: photo.content_type,
        }))
    }

    async fn get_public_tracking(
        &self,
        request: Request<pb::GetPublicTrackingRequest>,
    ) -> Result<Response<pb::GetPublicTrackingResponse>, Status> {
        let view = public_tracking::by_token(&self.0, &request.into_inner().token).await?;
        Ok(Response::new(pb::GetPublicTrackingResponse {
            tracking: Some(public_tracking_out(view)),
        }))
    }

    async fn receive_sms_callback(
        &self,
        request: Request<pb::ReceiveSmsCallbackRequest>,
    ) -> Result<Response<pb::ReceiveSmsCallbackResponse>, Status> {
        let r = request.into_inner();
        let kind = pb::SmsCallbackKind::try_from(r.kind).unwrap_or(pb::SmsCallbackKind::Unspecified);
        let signed = SignedRequest {
            url: r.url,
            fields: r.fields.into_iter().map(|f| (f.name, f.value)).collect(),
            signature: r.signature,
        };
        match kind {
            pb::SmsCallbackKind::Status => inbound::sms_status(&self.0, &signed).await?,
            pb::SmsCallbackKind::Inbound => inbound::sms_inbound(&self.0, &signed).await?,
            pb::SmsCallbackKind::Unspecified => {
                return Err(courier_core::CoreError::invalid("kind", "kind must be status or inbound.").into());
            }
        }
        Ok(Response::new(pb::ReceiveSmsCallbackResponse {}))
    }

    async fn get_unsubscribe_link(
        &self,
        request: Request<pb::GetUnsubscribeLinkRequest>,
    ) -> Result<Response<pb::GetUnsubscribeLinkResponse>, Status> {
        let link = inbound::unsubscribe_link(&self.0, &request.into_inner().token).await?;
        Ok(Response::new(pb::GetUnsubscribeLinkResponse {
            business_name: link.business_name,
            address: link.masked_address,
            opted_out: link.opted_out,
        }))
    }

    async fn unsubscribe(
        &self,
        request: Request<pb::UnsubscribeRequest>,
    ) -> Result<Response<pb::UnsubscribeResponse>, Status> {
        let link = inbound::unsubscribe(&self.0, &request.into_inner().token).await?;
        Ok(Response::new(pb::UnsubscribeResponse {
            business_name: link.business_name,
            address: link.masked_address,
        }))
    }
}
