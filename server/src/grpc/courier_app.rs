//! `courier.app.v1.CourierAppService`: the courier app's API (docs/couriers.md).
//! Every call but the invitation and sign-in carries the courier's session
//! as `authorization: Bearer <token>`.

use std::pin::Pin;

use courier::app::v1 as apb;
use courier::app::v1::courier_app_service_server::CourierAppService;
use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response, Status, Streaming};

use super::convert::{checkpoint_in, proof_file_in};
use super::couriers::{
    courier_out, courier_statement_out, earnings_line_out, earnings_out, job_out, offer_out, period_in, position_in,
    route_out,
};
use crate::caller;
use courier_core::couriers::{self, Availability, Courier, invitations, pay};
use courier_core::jobs::{self, Move, watch};
use courier_core::{Core, CoreError, CoreResult, positions};
use courier_identity::sessions;
use courier_orders::assignments::feed::Reason;
use courier_orders::proofs::ProofSubmission;
use courier_orders::routes::{Stop, StopKind};

pub struct CourierAppApi(pub Core);

type WatchStream = Pin<Box<dyn Stream<Item = Result<apb::WatchAssignmentsResponse, Status>> + Send>>;

impl CourierAppApi {
    /// The signed-in courier of `request` (read by the access layer), and
    /// their session token.
    fn courier<T>(&self, request: &Request<T>) -> Result<(String, couriers::Courier), Status> {
        let courier = caller::courier(request)?;
        Ok((courier.token.clone(), courier.session.subject.clone()))
    }

    async fn make_move<T>(
        &self,
        request: Request<T>,
        job_id: impl Fn(&T) -> &str,
        action: Move,
    ) -> Result<apb::Job, Status> {
        let (_, courier) = self.courier(&request)?;
        let job = jobs::make_move(&self.0, &courier, job_id(request.get_ref()), action).await?;
        Ok(job_out(&job))
    }
}

#[tonic::async_trait]
impl CourierAppService for CourierAppApi {
    type WatchAssignmentsStream = WatchStream;

    async fn get_invitation(
        &self,
        request: Request<apb::GetInvitationRequest>,
    ) -> Result<Response<apb::GetInvitationResponse>, Status> {
        let invitation = invitations::get(&self.0, &request.into_inner().token).await?;
        Ok(Response::new(apb::GetInvitationResponse {
            name: invitation.courier.name,
            fleet_name: invitation.fleet_name.unwrap_or_default(),
            phone: invitation.courier.phone,
            email: invitation.courier.email,
            expires_at: Some(courier::time::micros_to_proto(invitation.expires_at)),
        }))
    }

    async fn accept_invitation(
        &self,
        request: Request<apb::AcceptInvitationRequest>,
    ) -> Result<Response<apb::AcceptInvitationResponse>, Status> {
        let r = request.into_inner();
        let (session_token, courier) = invitations::accept(&self.0, &r.token, &r.password).await?;
        Ok(Response::new(apb::AcceptInvitationResponse {
            session_token,
            courier: Some(courier_out(&courier, None)),
        }))
    }

    async fn sign_in(&self, request: Request<apb::SignInRequest>) -> Result<Response<apb::SignInResponse>, Status> {
        let address = caller::sign_in_address(&request, &request.get_ref().client_address)?;
        let r = request.into_inner();
        let (session_token, session) = sessions::sign_in::<Courier>(&self.0, &r.login, &r.password, &address).await?;
        Ok(Response::new(apb::SignInResponse {
            session_token,
            courier: Some(courier_out(&session.subject, None)),
            expires_at: Some(courier::time::micros_to_proto(session.expires_at)),
        }))
    }

    async fn sign_out(&self, request: Request<apb::SignOutRequest>) -> Result<Response<apb::SignOutResponse>, Status> {
        let (token, _) = self.courier(&request)?;
        sessions::sign_out::<Courier>(&self.0, &token).await?;
        Ok(Response::new(apb::SignOutResponse {}))
    }

    async fn get_profile(
        &self,
        request: Request<apb::GetProfileRequest>,
    ) -> Result<Response<apb::GetProfileResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let position = positions::latest(&self.0, &courier.id).await?;
        Ok(Response::new(apb::GetProfileResponse {
            courier: Some(courier_out(&courier, position.as_ref())),
        }))
    }

    async fn set_availability(
        &self,
        request: Request<apb::SetAvailabilityRequest>,
    ) -> Result<Response<apb::SetAvailabilityResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let availability = match apb::Availability::try_from(request.get_ref().availability) {
            Ok(apb::Availability::Online) => Availability::Online,
            Ok(apb::Availability::Offline) => Availability::Offline,
            _ => {
                return Err(CoreError::invalid("availability", "availability must be online or offline.").into());
            }
        };
        let tx = self.0.begin().await?;
        let courier = couriers::set_availability(&self.0, &tx, &courier.id, availability).await?;
        tx.commit().await?;
        let position = positions::latest(&self.0, &courier.id).await?;
        Ok(Response::new(apb::SetAvailabilityResponse {
            courier: Some(courier_out(&courier, position.as_ref())),
        }))
    }

    async fn report_locations(
        &self,
        request: Request<Streaming<apb::ReportLocationsRequest>>,
    ) -> Result<Response<apb::ReportLocationsResponse>, Status> {
        let (token, courier) = self.courier(&request)?;
        let _streaming = positions::streaming(&self.0, &courier.id);
        let mut stream = request.into_inner();
        let mut accepted = 0i64;
        // The stream ends with the session: a sign-out, a new password or a
        // suspension, woken at once on every replica.
        let mut ended = std::pin::pin!(couriers::sessions::ended(&self.0, &token, &courier.id));
        loop {
            let report = tokio::select! {
                error = &mut ended => return Err(error.into()),
                report = stream.message() => report?,
            };
            let Some(report) = report else { break };
            let reported = report
                .positions
                .into_iter()
                .enumerate()
                .map(|(i, p)| position_in(p, i))
                .collect::<CoreResult<Vec<_>>>()?;
            accepted += match positions::accept(&self.0, &courier.id, reported).await {
                Ok(taken) => taken as i64,
                // The app learns how much of its stream was taken.
                Err(CoreError::Throttled {
                    message, retry_after, ..
                }) => {
                    return Err(CoreError::Throttled {
                        message: format!("{message} This stream's first {accepted} positions were accepted."),
                        retry_after,
                        accepted: Some(accepted),
                    }
                    .into());
                }
                Err(error) => return Err(error.into()),
            };
        }
        Ok(Response::new(apb::ReportLocationsResponse { accepted }))
    }

    async fn watch_assignments(
        &self,
        request: Request<apb::WatchAssignmentsRequest>,
    ) -> Result<Response<Self::WatchAssignmentsStream>, Status> {
        let (token, _) = self.courier(&request)?;
        let resume = match request.get_ref().resume_token.trim() {
            "" => None,
            text => Some(
                text.parse::<i64>()
                    .map_err(|_| CoreError::invalid("resume_token", "resume_token is not one this stream sent."))?,
            ),
        };
        let updates = watch::watch(&self.0, &token, resume).await?;
        let stream = ReceiverStream::new(updates).map(|update| update.map(update_out).map_err(Status::from));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn accept_offer(
        &self,
        request: Request<apb::AcceptOfferRequest>,
    ) -> Result<Response<apb::AcceptOfferResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let job = jobs::accept_offer(&self.0, &courier, &request.get_ref().offer_id).await?;
        Ok(Response::new(apb::AcceptOfferResponse {
            job: Some(job_out(&job)),
        }))
    }

    async fn decline_offer(
        &self,
        request: Request<apb::DeclineOfferRequest>,
    ) -> Result<Response<apb::DeclineOfferResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        jobs::decline_offer(&self.0, &courier, &request.get_ref().offer_id).await?;
        Ok(Response::new(apb::DeclineOfferResponse {}))
    }

    async fn list_jobs(
        &self,
        request: Request<apb::ListJobsRequest>,
    ) -> Result<Response<apb::ListJobsResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let r = request.into_inner();
        let (jobs, next) = jobs::list(&self.0, &courier, r.finished, r.page_size, &r.page_token).await?;
        Ok(Response::new(apb::ListJobsResponse {
            jobs: jobs.iter().map(job_out).collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn get_job(&self, request: Request<apb::GetJobRequest>) -> Result<Response<apb::GetJobResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let job = jobs::get(&self.0, &courier, &request.get_ref().job_id).await?;
        Ok(Response::new(apb::GetJobResponse {
            job: Some(job_out(&job)),
        }))
    }

    async fn list_earnings(
        &self,
        request: Request<apb::ListEarningsRequest>,
    ) -> Result<Response<apb::ListEarningsResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let r = request.get_ref();
        let earnings = pay::list(&self.0, &courier, period_in(r.period)?, &r.day).await?;
        Ok(Response::new(earnings_out(&earnings)))
    }

    async fn list_statements(
        &self,
        request: Request<apb::ListStatementsRequest>,
    ) -> Result<Response<apb::ListStatementsResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let statements = pay::statements_of(&self.0, &courier).await?;
        Ok(Response::new(apb::ListStatementsResponse {
            statements: statements
                .iter()
                .map(|s| courier_statement_out(s, self.0.catalog.home_time_zone().name()))
                .collect(),
        }))
    }

    async fn get_statement(
        &self,
        request: Request<apb::GetStatementRequest>,
    ) -> Result<Response<apb::GetStatementResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let (statement, lines, owner) = pay::statement(&self.0, &request.get_ref().statement_id).await?;
        if owner.id != courier.id {
            return Err(CoreError::not_found("statement").into());
        }
        Ok(Response::new(apb::GetStatementResponse {
            statement: Some(courier_statement_out(
                &statement,
                self.0.catalog.home_time_zone().name(),
            )),
            lines: lines.iter().map(earnings_line_out).collect(),
            courier_name: owner.name,
        }))
    }

    async fn get_route(
        &self,
        request: Request<apb::GetRouteRequest>,
    ) -> Result<Response<apb::GetRouteResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let route = jobs::route::current(&self.0, &courier).await?;
        Ok(Response::new(apb::GetRouteResponse {
            route: Some(route_out(&route.stops, None)),
        }))
    }

    async fn choose_next_stop(
        &self,
        request: Request<apb::ChooseNextStopRequest>,
    ) -> Result<Response<apb::ChooseNextStopResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let r = request.get_ref();
        let kind = match apb::StopKind::try_from(r.kind) {
            Ok(apb::StopKind::Pickup) => StopKind::Pickup,
            Ok(apb::StopKind::Dropoff) => StopKind::Dropoff,
            _ => return Err(CoreError::invalid("kind", "kind must be STOP_KIND_PICKUP or STOP_KIND_DROPOFF.").into()),
        };
        let stop = Stop {
            job_id: r.job_id.clone(),
            kind,
        };
        let route = jobs::route::choose(&self.0, &courier, stop).await?;
        Ok(Response::new(apb::ChooseNextStopResponse {
            route: Some(route_out(&route.stops, None)),
        }))
    }

    async fn arrive_at_pickup(
        &self,
        request: Request<apb::ArriveAtPickupRequest>,
    ) -> Result<Response<apb::ArriveAtPickupResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::ArriveAtPickup).await?;
        Ok(Response::new(apb::ArriveAtPickupResponse { job: Some(job) }))
    }

    async fn pick_up(&self, request: Request<apb::PickUpRequest>) -> Result<Response<apb::PickUpResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::PickUp).await?;
        Ok(Response::new(apb::PickUpResponse { job: Some(job) }))
    }

    async fn start_transit(
        &self,
        request: Request<apb::StartTransitRequest>,
    ) -> Result<Response<apb::StartTransitResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::StartTransit).await?;
        Ok(Response::new(apb::StartTransitResponse { job: Some(job) }))
    }

    async fn arrive_at_dropoff(
        &self,
        request: Request<apb::ArriveAtDropoffRequest>,
    ) -> Result<Response<apb::ArriveAtDropoffResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::ArriveAtDropoff).await?;
        Ok(Response::new(apb::ArriveAtDropoffResponse { job: Some(job) }))
    }

    async fn submit_proof(
        &self,
        request: Request<apb::SubmitProofRequest>,
    ) -> Result<Response<apb::SubmitProofResponse>, Status> {
        let (_, courier) = self.courier(&request)?;
        let r = request.into_inner();
        let job_id = r.job_id.clone();
        let job = jobs::submit_proof(&self.0, &courier, &job_id, submission_in(r)?).await?;
        Ok(Response::new(apb::SubmitProofResponse {
            job: Some(job_out(&job)),
        }))
    }

    async fn complete_handover(
        &self,
        request: Request<apb::CompleteHandoverRequest>,
    ) -> Result<Response<apb::CompleteHandoverResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::CompleteHandover).await?;
        Ok(Response::new(apb::CompleteHandoverResponse { job: Some(job) }))
    }

    async fn fail_handover(
        &self,
        request: Request<apb::FailHandoverRequest>,
    ) -> Result<Response<apb::FailHandoverResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::FailHandover).await?;
        Ok(Response::new(apb::FailHandoverResponse { job: Some(job) }))
    }

    async fn report_pickup_no_show(
        &self,
        request: Request<apb::ReportPickupNoShowRequest>,
    ) -> Result<Response<apb::ReportPickupNoShowResponse>, Status> {
        let job = self.make_move(request, |r| &r.job_id, Move::ReportPickupNoShow).await?;
        Ok(Response::new(apb::ReportPickupNoShowResponse { job: Some(job) }))
    }
}

fn update_out(update: watch::Update) -> apb::WatchAssignmentsResponse {
    use apb::watch_assignments_response::Update as Out;
    let mut changed = Vec::new();
    let update_message = match update.change {
        watch::Change::Snapshot { jobs, offer, route } => Out::Snapshot(apb::AssignmentSnapshot {
            jobs: jobs.iter().map(job_out).collect(),
            offer: offer.map(|offer| offer_out(&offer)),
            route: Some(route_out(&route.stops, None)),
        }),
        watch::Change::Route(route) => Out::Route(route_out(&route.stops, None)),
        watch::Change::Offer(offer) => Out::Offer(offer_out(&offer)),
        watch::Change::Job { job, changed_fields } => {
            changed = changed_fields;
            Out::Job(job_out(&job))
        }
        watch::Change::Withdrawal {
            job_id,
            offer_id,
            reason,
        } => Out::Withdrawal(apb::Withdrawal {
            job_id,
            offer_id,
            reason: match reason {
                Reason::Cancelled => apb::WithdrawalReason::Cancelled,
                Reason::Reassigned => apb::WithdrawalReason::Reassigned,
                Reason::OfferExpired => apb::WithdrawalReason::OfferExpired,
                Reason::OfferWithdrawn => apb::WithdrawalReason::OfferWithdrawn,
            } as i32,
        }),
    };
    apb::WatchAssignmentsResponse {
        resume_token: update.position.to_string(),
        update: Some(update_message),
        changed_fields: changed,
    }
}

fn submission_in(r: apb::SubmitProofRequest) -> CoreResult<ProofSubmission> {
    let checkpoint = checkpoint_in(r.checkpoint)?;
    let submission_id = match r.submission_id.trim() {
        "" => None,
        id if (8..=64).contains(&id.len())
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(id.to_owned())
        }
        _ => {
            return Err(CoreError::invalid(
                "submission_id",
                "submission_id must be 8 to 64 letters, digits, '-' or '_'.",
            ));
        }
    };
    let files = r
        .files
        .into_iter()
        .enumerate()
        .map(|(i, f)| proof_file_in(i, f.kind, f.file_name, f.content_type, f.content))
        .collect::<CoreResult<Vec<_>>>()?;
    Ok(ProofSubmission {
        checkpoint,
        files,
        person_name: r.person_name,
        barcode: r.barcode,
        age_checked: r.age_checked,
        left_at_door: r.left_at_door,
        pin: r.pin,
        submission_id,
    })
}
