//! `courier.v1.FleetOrderService`: fleet orders for live keys of fleet
//! workspaces (docs/guide.md "Fleet orders").

use courier::metadata;
use courier::v1 as pb;
use courier::v1::fleet_order_service_server::FleetOrderService;
use tonic::{Request, Response, Status};

use super::context;
use super::convert::{self, RouteParts, contact_in, required, set_or_removed, waypoint_edit_in};
use super::delivery_out::fleet_order_out;
use crate::caller;
use courier_core::{Core, CoreResult};
use courier_identity::access::Permission;
use courier_identity::auth::Principal;
use courier_orders::fleet::edit::FleetOrderEdit;
use courier_orders::fleet::{self, NewFleetOrder};

pub struct FleetOrderApi(pub Core);

/// The caller of a fleet endpoint: its key, the fleet checks in the order
/// docs/guide.md "Fleet orders" gives (permission last), then a body the edge
/// could not parse.
async fn fleet_principal<T>(core: &Core, request: &Request<T>, permission: Permission) -> CoreResult<Principal> {
    caller::api_admitted(core, request, Some(permission), fleet::admit).await
}

#[tonic::async_trait]
impl FleetOrderService for FleetOrderApi {
    async fn create_fleet_order(
        &self,
        request: Request<pb::CreateFleetOrderRequest>,
    ) -> Result<Response<pb::CreateFleetOrderResponse>, Status> {
        let principal = fleet_principal(&self.0, &request, Permission::FleetOrdersCreate).await?;
        let idempotency_key = context::header(&request, metadata::IDEMPOTENCY_KEY);
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let r = request.into_inner();
        let canonical = context::canonical(&r);
        let new = NewFleetOrder {
            customer: contact_in(required(r.customer, "customer")?),
            route: convert::route_in(RouteParts {
                pickup: r.pickup,
                dropoff: r.dropoff,
                stops: r.stops,
                vehicle_type_id: r.vehicle_type_id,
                extras: Vec::new(),
                items: r.items,
                scheduled_at: None,
                pickup_window: r.pickup_window,
                dropoff_window: r.dropoff_window,
            })?,
            reference: r.reference,
            requested_pickup_date: r.requested_pickup_date,
            requested_pickup_time: r.requested_pickup_time,
            customer_timezone: r.customer_timezone,
            notes: r.notes,
        };
        let created = fleet::create(
            &self.0,
            &principal,
            idempotency_key.as_deref(),
            &canonical,
            &request_id,
            new,
        )
        .await?;
        Ok(context::created(&created, |order| pb::CreateFleetOrderResponse {
            fleet_order: Some(order),
        })?)
    }

    async fn get_fleet_order(
        &self,
        request: Request<pb::GetFleetOrderRequest>,
    ) -> Result<Response<pb::GetFleetOrderResponse>, Status> {
        let principal = fleet_principal(&self.0, &request, Permission::FleetOrdersRead).await?;
        let order = fleet::get(&self.0.db, &principal, &request.into_inner().fleet_order_id).await?;
        Ok(Response::new(pb::GetFleetOrderResponse {
            fleet_order: Some(fleet_order_out(&order)),
        }))
    }

    async fn update_fleet_order(
        &self,
        request: Request<pb::UpdateFleetOrderRequest>,
    ) -> Result<Response<pb::UpdateFleetOrderResponse>, Status> {
        // Putting orders on the board and changing them is one permission.
        let principal = fleet_principal(&self.0, &request, Permission::FleetOrdersCreate).await?;
        let idempotency_key = context::header(&request, metadata::IDEMPOTENCY_KEY);
        let request_id = context::header(&request, metadata::REQUEST_ID).unwrap_or_default();
        let r = request.into_inner();
        // If-Match is a header, not the body: a retry with a fresh one is
        // the same request under its key.
        let canonical = context::canonical(&pb::UpdateFleetOrderRequest {
            if_updated_at: None,
            ..r.clone()
        });
        let edit = FleetOrderEdit {
            notes: set_or_removed(r.notes),
            reference: set_or_removed(r.reference),
            customer: r.customer.map(contact_in),
            pickup: waypoint_edit_in(r.pickup),
            dropoff: waypoint_edit_in(r.dropoff),
            dropoff_window: convert::window_change_in(r.dropoff_window, r.clear_dropoff_window)?,
            if_updated_at: convert::micros(r.if_updated_at, "If-Match")?,
        };
        let edited = fleet::edit::edit(
            &self.0,
            &principal,
            idempotency_key.as_deref(),
            (&canonical, &request_id),
            &r.fleet_order_id,
            edit,
        )
        .await?;
        Ok(context::created(&edited, |order| pb::UpdateFleetOrderResponse {
            fleet_order: Some(order),
        })?)
    }
}
