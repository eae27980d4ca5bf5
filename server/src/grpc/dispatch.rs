//! `courier.internal.v1.DispatchService`: live dispatch for the couriers'
//! backend (service token of role `dispatch`).

use courier::internal::v1 as ipb;
use courier::internal::v1::dispatch_service_server::DispatchService;
use courier::v1 as pb;
use tonic::{Request, Response, Status, Streaming};

use super::convert::{checkpoint_in, item_out, micros, proof_file_in, required};
use super::couriers::job_out;
use super::deliveries::status_in;
use super::delivery_out::{contact_out, to_proto, waypoint_out};
use super::dispatch_map_out;
use super::enums::ToProto;
use super::plans_out::plan_out;
use crate::caller;
use courier_core::couriers::Fleet;
use courier_core::dispatch::{self, LocationReport, Mover};
use courier_core::jobs::{self, Work};
use courier_core::plans::{self, Pin, PlanRequest};
use courier_core::{Core, CoreResult, dispatch_map};
use courier_identity::access::act;
use courier_identity::workspaces;
use courier_orders::deliveries::{Courier, CourierVehicle, Delivery};
use courier_orders::fleet::{self, FleetOrder};
use courier_orders::proofs::ProofSubmission;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

pub struct DispatchApi(pub Core);

impl DispatchApi {
    /// Live dispatch is the dispatch system's (docs/access.md).
    async fn authorize<T>(&self, request: &Request<T>) -> CoreResult<()> {
        caller::grant::<act::Dispatch, _>(&self.0, request, None, "delivery").await?;
        Ok(())
    }

    fn out(&self, d: &Delivery) -> Option<pb::Delivery> {
        Some(to_proto(d, &self.0.config.public_base_url))
    }
}

/// A board order with everything its customer sent, for dispatchers.
fn board_order_out(o: &FleetOrder) -> ipb::BoardOrder {
    ipb::BoardOrder {
        order_id: o.order_id.clone(),
        fleet_order_id: o.id.clone(),
        workspace_id: o.workspace_id.clone(),
        status: o.status.to_proto() as i32,
        reference: o.reference.clone(),
        customer: Some(contact_out(&o.customer)),
        pickup: Some(waypoint_out(&o.route.pickup)),
        dropoff: Some(waypoint_out(&o.route.dropoff)),
        stops: o.route.stops.iter().map(waypoint_out).collect(),
        vehicle_type_id: o.vehicle_type_id.clone(),
        items: o.route.items.iter().flatten().map(item_out).collect(),
        requested_pickup_date: o.requested_pickup_date.clone(),
        requested_pickup_time: o.requested_pickup_time.clone(),
        customer_timezone: o.customer_timezone.clone(),
        notes: o.notes.clone(),
        created_at: Some(courier::time::micros_to_proto(o.created_at)),
        updated_at: Some(courier::time::micros_to_proto(o.updated_at)),
        legal_moves: courier_orders::lifecycle::legal_moves(o.status)
            .into_iter()
            .map(|s| s.to_proto() as i32)
            .collect(),
    }
}

fn courier_in(c: pb::Courier) -> Courier {
    Courier {
        id: None,
        name: c.name,
        photo_url: c.photo_url,
        rating: c.rating,
        vehicle: c.vehicle.map(|v| CourierVehicle {
            make: v.make,
            model: v.model,
            color: v.color,
            license_plate: v.license_plate,
            photo_url: v.photo_url,
        }),
        location: None,
    }
}

fn submission_in(r: ipb::SubmitProofRequest) -> CoreResult<ProofSubmission> {
    let checkpoint = checkpoint_in(r.checkpoint)?;
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
        submission_id: None,
    })
}

#[tonic::async_trait]
impl DispatchService for DispatchApi {
    async fn list_open_jobs(
        &self,
        request: Request<ipb::ListOpenJobsRequest>,
    ) -> Result<Response<ipb::ListOpenJobsResponse>, Status> {
        self.authorize(&request).await?;
        let jobs = dispatch::open_jobs(&self.0, request.into_inner().page_size).await?;
        Ok(Response::new(ipb::ListOpenJobsResponse {
            jobs: jobs
                .iter()
                .map(|d| ipb::Job {
                    delivery: self.out(d),
                    workspace_id: d.workspace_id.clone(),
                })
                .collect(),
        }))
    }

    async fn accept_job(
        &self,
        request: Request<ipb::AcceptJobRequest>,
    ) -> Result<Response<ipb::AcceptJobResponse>, Status> {
        self.authorize(&request).await?;
        let r = request.into_inner();
        let courier = courier_in(required(r.courier, "courier")?);
        let pickup_eta = micros(r.pickup_eta, "pickup_eta")?;
        let d = dispatch::accept(&self.0, &r.delivery_id, courier, pickup_eta).await?;
        Ok(Response::new(ipb::AcceptJobResponse { delivery: self.out(&d) }))
    }

    async fn stream_courier_locations(
        &self,
        request: Request<Streaming<ipb::StreamCourierLocationsRequest>>,
    ) -> Result<Response<ipb::StreamCourierLocationsResponse>, Status> {
        self.authorize(&request).await?;
        let mut positions = request.into_inner();
        let mut accepted = 0;
        while let Some(position) = positions.message().await? {
            let report = LocationReport {
                recorded_at: micros(position.recorded_at, "recorded_at")?,
                dropoff_eta: micros(position.dropoff_eta, "dropoff_eta")?,
                delivery_id: position.delivery_id,
                latitude: position.latitude,
                longitude: position.longitude,
            };
            dispatch::report_location(&self.0, report).await?;
            accepted += 1;
        }
        Ok(Response::new(ipb::StreamCourierLocationsResponse { accepted }))
    }

    async fn arrive_at_pickup(
        &self,
        request: Request<ipb::ArriveAtPickupRequest>,
    ) -> Result<Response<ipb::ArriveAtPickupResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::arrive_at_pickup(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::ArriveAtPickupResponse { delivery: self.out(&d) }))
    }

    async fn pick_up(&self, request: Request<ipb::PickUpRequest>) -> Result<Response<ipb::PickUpResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::pick_up(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::PickUpResponse { delivery: self.out(&d) }))
    }

    async fn start_transit(
        &self,
        request: Request<ipb::StartTransitRequest>,
    ) -> Result<Response<ipb::StartTransitResponse>, Status> {
        self.authorize(&request).await?;
        let r = request.into_inner();
        let dropoff_eta = micros(r.dropoff_eta, "dropoff_eta")?;
        let d = dispatch::start_transit(&self.0, Mover::Dispatch, &r.delivery_id, dropoff_eta).await?;
        Ok(Response::new(ipb::StartTransitResponse { delivery: self.out(&d) }))
    }

    async fn arrive_at_dropoff(
        &self,
        request: Request<ipb::ArriveAtDropoffRequest>,
    ) -> Result<Response<ipb::ArriveAtDropoffResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::arrive_at_dropoff(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::ArriveAtDropoffResponse { delivery: self.out(&d) }))
    }

    async fn submit_proof(
        &self,
        request: Request<ipb::SubmitProofRequest>,
    ) -> Result<Response<ipb::SubmitProofResponse>, Status> {
        self.authorize(&request).await?;
        let r = request.into_inner();
        let delivery_id = r.delivery_id.clone();
        let d = dispatch::submit_proof(&self.0, Mover::Dispatch, &delivery_id, submission_in(r)?).await?;
        Ok(Response::new(ipb::SubmitProofResponse { delivery: self.out(&d) }))
    }

    async fn reset_dropoff_pin(
        &self,
        request: Request<ipb::ResetDropoffPinRequest>,
    ) -> Result<Response<ipb::ResetDropoffPinResponse>, Status> {
        let work = jobs::work(&self.0.db, &request.get_ref().delivery_id).await?;
        let granted = caller::grant::<act::AssignJobs, _>(&self.0, &request, job_workspace(&work), "job").await?;
        let d = jobs::reset_dropoff_pin(&self.0, &granted, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::ResetDropoffPinResponse { delivery: self.out(&d) }))
    }

    async fn complete_handover(
        &self,
        request: Request<ipb::CompleteHandoverRequest>,
    ) -> Result<Response<ipb::CompleteHandoverResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::complete_handover(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::CompleteHandoverResponse { delivery: self.out(&d) }))
    }

    async fn fail_handover(
        &self,
        request: Request<ipb::FailHandoverRequest>,
    ) -> Result<Response<ipb::FailHandoverResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::fail_handover(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::FailHandoverResponse { delivery: self.out(&d) }))
    }

    async fn report_pickup_no_show(
        &self,
        request: Request<ipb::ReportPickupNoShowRequest>,
    ) -> Result<Response<ipb::ReportPickupNoShowResponse>, Status> {
        self.authorize(&request).await?;
        let d = dispatch::report_pickup_no_show(&self.0, Mover::Dispatch, &request.into_inner().delivery_id).await?;
        Ok(Response::new(ipb::ReportPickupNoShowResponse {
            delivery: self.out(&d),
        }))
    }

    async fn list_board_orders(
        &self,
        request: Request<ipb::ListBoardOrdersRequest>,
    ) -> Result<Response<ipb::ListBoardOrdersResponse>, Status> {
        caller::grant::<act::ReadBoard, _>(&self.0, &request, Some(&request.get_ref().workspace_id), "workspace")
            .await?;
        let r = request.into_inner();
        let status = status_in(r.status, "status")?;
        let page = fleet::board(
            &self.0,
            &r.workspace_id,
            status,
            r.newest_first,
            r.page_size,
            Some(&r.page_token),
        )
        .await?;
        Ok(Response::new(ipb::ListBoardOrdersResponse {
            orders: page.items.iter().map(board_order_out).collect(),
            next_page_token: page.next_page_token.unwrap_or_default(),
        }))
    }

    async fn get_board_order(
        &self,
        request: Request<ipb::GetBoardOrderRequest>,
    ) -> Result<Response<ipb::GetBoardOrderResponse>, Status> {
        let order = fleet::board_order(&self.0.db, &request.get_ref().order_id).await?;
        // Another workspace's order is as unknown as a missing one.
        caller::grant::<act::ReadBoard, _>(&self.0, &request, Some(&order.workspace_id), "board order").await?;
        let moves = fleet::moves::history(&self.0.db, &order.id).await?;
        Ok(Response::new(ipb::GetBoardOrderResponse {
            order: Some(board_order_out(&order)),
            moves: moves
                .iter()
                .map(|m| ipb::BoardOrderMove {
                    from_status: m.from.to_proto() as i32,
                    to_status: m.to.to_proto() as i32,
                    actor: m.actor.clone(),
                    moved_at: Some(courier::time::micros_to_proto(m.moved_at)),
                })
                .collect(),
        }))
    }

    async fn move_board_order(
        &self,
        request: Request<ipb::MoveBoardOrderRequest>,
    ) -> Result<Response<ipb::MoveBoardOrderResponse>, Status> {
        let order = fleet::board_order(&self.0.db, &request.get_ref().order_id).await?;
        // Another workspace's order is as unknown as a missing one.
        let granted =
            caller::grant::<act::MoveBoardOrders, _>(&self.0, &request, Some(&order.workspace_id), "board order")
                .await?;
        let r = request.into_inner();
        let to = required(status_in(r.status, "status")?, "status")?;
        let order = fleet::move_order(&self.0, &granted, &r.order_id, to).await?;
        Ok(Response::new(ipb::MoveBoardOrderResponse {
            order: Some(board_order_out(&order)),
        }))
    }

    async fn assign_job(
        &self,
        request: Request<ipb::AssignJobRequest>,
    ) -> Result<Response<ipb::AssignJobResponse>, Status> {
        let work = jobs::work(&self.0.db, &request.get_ref().job_id).await?;
        let granted = caller::grant::<act::AssignJobs, _>(&self.0, &request, job_workspace(&work), "job").await?;
        let r = request.into_inner();
        let job = jobs::assign(&self.0, &granted, &r.job_id, &r.courier_id).await?;
        Ok(Response::new(ipb::AssignJobResponse {
            job: Some(job_out(&job)),
        }))
    }

    type WatchDispatchMapStream =
        std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<ipb::WatchDispatchMapResponse, Status>> + Send>>;

    async fn watch_dispatch_map(
        &self,
        request: Request<ipb::WatchDispatchMapRequest>,
    ) -> Result<Response<Self::WatchDispatchMapStream>, Status> {
        let fleet = Fleet::from_workspace_id(&request.get_ref().workspace_id);
        caller::grant::<act::ReadCouriers, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        let updates = dispatch_map::watch(&self.0, fleet);
        let stream =
            ReceiverStream::new(updates).map(|update| update.map(dispatch_map_out::update_out).map_err(Status::from));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn rank_couriers(
        &self,
        request: Request<ipb::RankCouriersRequest>,
    ) -> Result<Response<ipb::RankCouriersResponse>, Status> {
        let work = jobs::work(&self.0.db, &request.get_ref().job_id).await?;
        caller::grant::<act::AssignJobs, _>(&self.0, &request, job_workspace(&work), "job").await?;
        let ranked = dispatch_map::rank(&self.0, &work).await?;
        Ok(Response::new(ipb::RankCouriersResponse {
            couriers: ranked
                .into_iter()
                .map(|r| ipb::RankedCourier {
                    courier_id: r.courier.id,
                    name: r.courier.name,
                    vehicle_type_id: r.courier.vehicle.vehicle_type_id,
                    seconds_to_pickup: r.seconds_to_pickup,
                    distance_km: r.distance_km,
                    jobs_held: i32::try_from(r.jobs_held).unwrap_or(i32::MAX),
                    added_seconds: r.added_seconds,
                })
                .collect(),
        }))
    }

    async fn unassign_job(
        &self,
        request: Request<ipb::UnassignJobRequest>,
    ) -> Result<Response<ipb::UnassignJobResponse>, Status> {
        let work = jobs::work(&self.0.db, &request.get_ref().job_id).await?;
        let granted = caller::grant::<act::AssignJobs, _>(&self.0, &request, job_workspace(&work), "job").await?;
        let work = jobs::unassign(&self.0, &granted, &request.get_ref().job_id).await?;
        Ok(Response::new(ipb::UnassignJobResponse {
            job: Some(unassigned_out(&work)),
        }))
    }

    async fn plan_routes(
        &self,
        request: Request<ipb::PlanRoutesRequest>,
    ) -> Result<Response<ipb::PlanRoutesResponse>, Status> {
        let workspace_id = request.get_ref().workspace_id.clone();
        let fleet = Fleet::from_workspace_id(&workspace_id);
        let granted = caller::grant::<act::PlanRoutes, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        let r = request.into_inner();
        let plan = plans::plan(
            &self.0,
            &granted,
            PlanRequest {
                workspace_id: r.workspace_id,
                area_id: r.area_id,
                day: r.day,
                courier_ids: r.courier_ids,
                budget_seconds: r.budget_seconds,
                pins: r
                    .pins
                    .into_iter()
                    .map(|pin| Pin {
                        order_id: pin.order_id,
                        courier_id: pin.courier_id,
                    })
                    .collect(),
            },
        )
        .await?;
        Ok(Response::new(ipb::PlanRoutesResponse {
            plan: Some(plan_out(&plan)),
        }))
    }

    async fn get_plan(&self, request: Request<ipb::GetPlanRequest>) -> Result<Response<ipb::GetPlanResponse>, Status> {
        let plan = plans::get(&self.0.db, &request.get_ref().plan_id).await?;
        caller::grant::<act::ReadBoard, _>(&self.0, &request, plan.workspace(), "plan").await?;
        Ok(Response::new(ipb::GetPlanResponse {
            plan: Some(plan_out(&plan)),
        }))
    }

    async fn publish_plan(
        &self,
        request: Request<ipb::PublishPlanRequest>,
    ) -> Result<Response<ipb::PublishPlanResponse>, Status> {
        let plan = plans::get(&self.0.db, &request.get_ref().plan_id).await?;
        let granted = caller::grant::<act::AssignJobs, _>(&self.0, &request, plan.workspace(), "plan").await?;
        let plan = plans::publish(&self.0, &granted, &plan.id).await?;
        Ok(Response::new(ipb::PublishPlanResponse {
            plan: Some(plan_out(&plan)),
        }))
    }

    async fn get_fleet_settings(
        &self,
        request: Request<ipb::GetFleetSettingsRequest>,
    ) -> Result<Response<ipb::GetFleetSettingsResponse>, Status> {
        let workspace_id = &request.get_ref().workspace_id;
        caller::grant::<act::ReadBoard, _>(&self.0, &request, Some(workspace_id), "workspace").await?;
        let workspace = workspaces::get(&self.0.db, workspace_id).await?;
        Ok(Response::new(ipb::GetFleetSettingsResponse {
            settings: Some(fleet_settings_out(&workspace)),
        }))
    }

    async fn update_fleet_settings(
        &self,
        request: Request<ipb::UpdateFleetSettingsRequest>,
    ) -> Result<Response<ipb::UpdateFleetSettingsResponse>, Status> {
        let settings = required(request.get_ref().settings.clone(), "settings")?;
        let granted =
            caller::grant::<act::AssignJobs, _>(&self.0, &request, Some(&settings.workspace_id), "workspace").await?;
        let workspace =
            workspaces::set_auto_dispatch(&self.0, &granted, &settings.workspace_id, settings.auto_dispatch).await?;
        Ok(Response::new(ipb::UpdateFleetSettingsResponse {
            settings: Some(fleet_settings_out(&workspace)),
        }))
    }
}

/// A job taken back, as the map shows it: waiting, no offer yet.
fn unassigned_out(work: &Work) -> ipb::MapJob {
    dispatch_map_out::job_out(dispatch_map::map_job(work, None, None))
}

/// Whose a job is: live deliveries are the platform's (`None`), a board
/// order its fleet's.
fn job_workspace(work: &Work) -> Option<&str> {
    match work {
        Work::Delivery(_) => None,
        Work::FleetOrder(order) => Some(order.workspace_id.as_str()),
    }
}

fn fleet_settings_out(workspace: &workspaces::Workspace) -> ipb::FleetSettings {
    ipb::FleetSettings {
        workspace_id: workspace.id.clone(),
        auto_dispatch: workspace.plan.auto_dispatch,
    }
}
