use courier::v1::{CreateQuoteRequest, CreateQuoteResponse, quote_service_server::QuoteService};
use tonic::{Request, Response, Status};

use super::convert::{self, RouteParts};
use crate::caller;
use courier_core::Core;
use courier_identity::access::Permission;

pub struct QuoteApi(pub Core);

#[tonic::async_trait]
impl QuoteService for QuoteApi {
    async fn create_quote(
        &self,
        request: Request<CreateQuoteRequest>,
    ) -> Result<Response<CreateQuoteResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::QuotesCreate)).await?;
        let r = request.into_inner();
        let route = convert::route_in(RouteParts {
            pickup: r.pickup,
            dropoff: r.dropoff,
            stops: r.stops,
            vehicle_type_id: r.vehicle_type_id,
            extras: r.extras,
            items: r.items,
            scheduled_at: r.scheduled_at,
            pickup_window: r.pickup_window,
            dropoff_window: r.dropoff_window,
        })?;
        let quote = courier_orders::quotes::create(&self.0, &principal, route).await?;
        Ok(Response::new(CreateQuoteResponse {
            quote: Some(convert::quote_out(&quote)),
        }))
    }
}
