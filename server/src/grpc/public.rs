//! `courier.v1.PublicService`: the keyless reads behind signed proof-file
//! links, couriers' photo links and the tracking page. No API key is read; the domain functions
//! check the link's signature or the tracking token.

use courier::v1 as pb;
use courier::v1::public_service_server::PublicService;
use tonic::{Request, Response, Status};

use super::tracking_out::public_tracking_out;
use courier_core::{Core, couriers, public_tracking};
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
}
