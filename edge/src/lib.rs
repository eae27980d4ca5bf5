//! The courier edge: the public JSON `/v1` REST API. It authenticates nothing
//! and decides nothing: it parses JSON into protobuf, forwards the caller's
//! key and request id as gRPC metadata, and renders the core's answer or error
//! in the public shape. It holds no database connection.

pub mod config;
pub mod context;
pub mod dto;
pub mod error;
pub mod json;
pub mod middleware;
pub mod routes;

use std::future::Future;

use tokio::net::TcpListener;
use tonic::transport::{Channel, Endpoint};

use courier::v1::delivery_service_client::DeliveryServiceClient;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier::v1::vehicle_type_service_client::VehicleTypeServiceClient;

/// gRPC clients of the core, sharing one lazily connected channel.
#[derive(Clone)]
pub struct CoreClients {
    pub vehicle_types: VehicleTypeServiceClient<Channel>,
    pub quotes: QuoteServiceClient<Channel>,
    pub deliveries: DeliveryServiceClient<Channel>,
}

impl CoreClients {
    pub fn connect_lazy(core_url: &str) -> Result<CoreClients, tonic::transport::Error> {
        let channel = Endpoint::from_shared(core_url.to_owned())?
            .connect_timeout(std::time::Duration::from_secs(5))
            .connect_lazy();
        Ok(CoreClients {
            vehicle_types: VehicleTypeServiceClient::new(channel.clone()),
            quotes: QuoteServiceClient::new(channel.clone()),
            deliveries: DeliveryServiceClient::new(channel),
        })
    }
}

/// What every handler can reach.
#[derive(Clone)]
pub struct EdgeState {
    pub core: CoreClients,
    /// Public base URL, without a trailing slash (for `doc_url`).
    pub base_url: String,
}

/// Serves the REST API on `listener` until `shutdown` completes, letting
/// in-flight requests finish.
pub async fn serve(
    state: EdgeState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, routes::router(state))
        .with_graceful_shutdown(shutdown)
        .await
}
