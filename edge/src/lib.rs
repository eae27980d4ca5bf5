//! The courier edge: the public JSON `/v1` REST API. It authenticates nothing
//! and decides nothing: it parses JSON into protobuf, forwards the caller's
//! key and request id as gRPC metadata, and renders the core's answer or error
//! in the public shape. It holds no database connection.

pub mod config;
pub mod context;
pub mod dto;
pub mod error;
pub mod json;
pub mod list_pages;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod ratelimit;
pub mod routes;

use std::future::Future;
use std::sync::Arc;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::health_client::HealthClient;

use courier::v1::delivery_service_client::DeliveryServiceClient;
use courier::v1::event_service_client::EventServiceClient;
use courier::v1::fleet_order_service_client::FleetOrderServiceClient;
use courier::v1::public_service_client::PublicServiceClient;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier::v1::tracking_service_client::TrackingServiceClient;
use courier::v1::vehicle_type_service_client::VehicleTypeServiceClient;
use courier::v1::webhook_service_client::WebhookServiceClient;

/// The largest answer of the public service: a proof file (at most 10 MiB)
/// plus its envelope.
const PUBLIC_MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// gRPC clients of the core, sharing one lazily connected channel.
#[derive(Clone)]
pub struct CoreClients {
    pub vehicle_types: VehicleTypeServiceClient<Channel>,
    pub quotes: QuoteServiceClient<Channel>,
    pub deliveries: DeliveryServiceClient<Channel>,
    pub events: EventServiceClient<Channel>,
    pub webhooks: WebhookServiceClient<Channel>,
    pub tracking: TrackingServiceClient<Channel>,
    pub fleet_orders: FleetOrderServiceClient<Channel>,
    /// Keyless reads: proof files (up to 10 MiB, hence the larger limit) and
    /// the tracking page.
    pub public: PublicServiceClient<Channel>,
    /// The core's gRPC health service, for `GET /readyz`.
    pub health: HealthClient<Channel>,
    /// The channel itself, for the list RPCs whose items the edge reads
    /// encoded ([`list_pages`]).
    pub channel: Channel,
}

impl CoreClients {
    pub fn connect_lazy(core_url: &str) -> Result<CoreClients, tonic::transport::Error> {
        let channel = Endpoint::from_shared(core_url.to_owned())?
            .connect_timeout(std::time::Duration::from_secs(5))
            .connect_lazy();
        Ok(CoreClients {
            vehicle_types: VehicleTypeServiceClient::new(channel.clone()),
            quotes: QuoteServiceClient::new(channel.clone()),
            tracking: TrackingServiceClient::new(channel.clone()),
            public: PublicServiceClient::new(channel.clone()).max_decoding_message_size(PUBLIC_MAX_MESSAGE),
            events: EventServiceClient::new(channel.clone()),
            webhooks: WebhookServiceClient::new(channel.clone()),
            fleet_orders: FleetOrderServiceClient::new(channel.clone()),
            health: HealthClient::new(channel.clone()),
            deliveries: DeliveryServiceClient::new(channel.clone()),
            channel,
        })
    }
}

/// What every handler can reach. Cloned for every request (each middleware
/// and handler takes it by value), so it holds only shared handles.
#[derive(Clone)]
pub struct EdgeState {
    pub core: Arc<CoreClients>,
    /// Public base URL, without a trailing slash (for `doc_url`).
    pub base_url: Arc<str>,
    /// Token buckets of the keys seen recently.
    pub limits: Arc<ratelimit::RateLimiter>,
    pub metrics: metrics::EdgeMetrics,
    /// The JSON of list items seen recently, under their encoded bytes.
    pub renderings: Arc<list_pages::Renderings>,
}

impl EdgeState {
    /// `base_url` may end with a slash.
    pub fn new(core: CoreClients, base_url: &str, limits: &ratelimit::RateLimitConfig) -> EdgeState {
        EdgeState {
            core: Arc::new(core),
            base_url: base_url.trim_end_matches('/').into(),
            limits: Arc::new(ratelimit::RateLimiter::new(limits)),
            metrics: metrics::EdgeMetrics::default(),
            renderings: Arc::default(),
        }
    }
}

/// Serves the REST API on `listener` until `shutdown` completes: then new
/// connections are refused and in-flight requests finish.
pub async fn serve(
    state: EdgeState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_router(routes::router(state), listener, shutdown).await
}

/// Serves `router` as the edge serves its own: with TCP_NODELAY and a
/// graceful shutdown (the dev runner serves the edge and the console on
/// one listener).
pub async fn serve_router(
    router: axum::Router,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // TCP_NODELAY: answers are written as soon as they are ready, never held
    // back waiting for the client's delayed ACK.
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
    });
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
