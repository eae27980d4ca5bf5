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
pub mod path_id;
pub mod ratelimit;
pub mod request_policy;
pub mod routes;
pub mod serving;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tonic::transport::Channel;

use courier::v1::delivery_service_client::DeliveryServiceClient;
use courier::v1::event_service_client::EventServiceClient;
use courier::v1::fleet_order_service_client::FleetOrderServiceClient;
use courier::v1::notification_service_client::NotificationServiceClient;
use courier::v1::public_service_client::PublicServiceClient;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier::v1::tracking_service_client::TrackingServiceClient;
use courier::v1::vehicle_type_service_client::VehicleTypeServiceClient;
use courier::v1::webhook_service_client::WebhookServiceClient;

/// The largest answer of the public service: a proof file (at most 10 MiB)
/// plus its envelope.
const PUBLIC_MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// gRPC clients of the core, sharing one lazily connected channel balanced
/// over the core replicas.
#[derive(Clone)]
pub struct CoreClients {
    pub vehicle_types: VehicleTypeServiceClient<Channel>,
    pub quotes: QuoteServiceClient<Channel>,
    pub deliveries: DeliveryServiceClient<Channel>,
    pub events: EventServiceClient<Channel>,
    pub webhooks: WebhookServiceClient<Channel>,
    pub tracking: TrackingServiceClient<Channel>,
    pub fleet_orders: FleetOrderServiceClient<Channel>,
    pub notifications: NotificationServiceClient<Channel>,
    /// Keyless calls: proof files (up to 10 MiB, hence the larger limit),
    /// the tracking page, the SMS provider's callbacks and unsubscribe links.
    pub public: PublicServiceClient<Channel>,
    /// The channel itself, for the list RPCs whose items the edge reads
    /// encoded ([`list_pages`]).
    pub channel: Channel,
}

impl CoreClients {
    /// Clients of the cores `core_url` names (`courier::core_channel`: one or
    /// more, balanced over those that serve); connects when first used.
    pub fn connect_lazy(core_url: &str) -> Result<CoreClients, courier::core_channel::CoreUrlError> {
        let channel = courier::core_channel::connect(core_url)?;
        Ok(CoreClients {
            vehicle_types: VehicleTypeServiceClient::new(channel.clone()),
            quotes: QuoteServiceClient::new(channel.clone()),
            tracking: TrackingServiceClient::new(channel.clone()),
            public: PublicServiceClient::new(channel.clone()).max_decoding_message_size(PUBLIC_MAX_MESSAGE),
            events: EventServiceClient::new(channel.clone()),
            webhooks: WebhookServiceClient::new(channel.clone()),
            fleet_orders: FleetOrderServiceClient::new(channel.clone()),
            notifications: NotificationServiceClient::new(channel.clone()),
            deliveries: DeliveryServiceClient::new(channel.clone()),
            channel,
        })
    }
}

/// What every handler can reach. Cloned for every request (each middleware
/// and handler takes it by value): one `Arc`, so a clone is one count.
#[derive(Clone)]
pub struct EdgeState(Arc<EdgeShared>);

/// The handles [`EdgeState`] shares.
pub struct EdgeShared {
    pub core: CoreClients,
    /// Public base URL, without a trailing slash (for `doc_url`, and the
    /// URL the SMS provider signs its callbacks over).
    pub base_url: Box<str>,
    /// Token buckets of the keys seen recently, here or in Redis.
    pub limits: ratelimit::RateLimiter,
    pub metrics: metrics::EdgeMetrics,
    /// The JSON of list items seen recently, under their encoded bytes.
    pub renderings: list_pages::Renderings,
}

impl std::ops::Deref for EdgeState {
    type Target = EdgeShared;

    fn deref(&self) -> &EdgeShared {
        &self.0
    }
}

impl EdgeState {
    /// `base_url` may end with a slash. Fails when the rate limits' Redis
    /// cannot be set up (it is not reached yet).
    pub fn new(
        core: CoreClients,
        base_url: &str,
        limits: &ratelimit::RateLimitConfig,
    ) -> Result<EdgeState, redis::RedisError> {
        let metrics = metrics::EdgeMetrics::default();
        Ok(EdgeState(Arc::new(EdgeShared {
            core,
            base_url: base_url.trim_end_matches('/').into(),
            limits: ratelimit::RateLimiter::new(limits, metrics.rate_limit_local_decisions())?,
            metrics,
            renderings: list_pages::Renderings::default(),
        })))
    }
}

/// Serves the REST API on `listener` until `shutdown` completes: then new
/// connections are refused and in-flight requests finish.
pub async fn serve(
    state: EdgeState,
    listener: TcpListener,
    timeouts: serving::HttpTimeouts,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let base_url = state.base_url.clone();
    serve_router(routes::router(state), listener, timeouts, &base_url, shutdown).await
}

/// Serves `router` as the edge serves its own ([`serving`]): TCP_NODELAY,
/// slow clients cut off after `timeouts`, a graceful shutdown. The console
/// is served so too, on its own or beside the edge on one listener (the dev
/// runner). `base_url` is the public API's, for the `doc_url` of the
/// answers the server makes itself.
pub fn serve_router(
    router: axum::Router,
    listener: TcpListener,
    timeouts: serving::HttpTimeouts,
    base_url: &str,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
    serving::serve(
        router,
        listener,
        timeouts,
        base_url.trim_end_matches('/').into(),
        shutdown,
    )
}
