//! Assembles the gRPC server: public and internal services, health and
//! reflection, with a tracing span per call carrying the request id, a
//! count and latency per method and status code, and every request's text
//! checked (`grpc::request_text`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use courier::app::v1::courier_app_service_server::CourierAppServiceServer;
use courier::internal::v1::admin_service_server::AdminServiceServer;
use courier::internal::v1::billing_service_server::BillingServiceServer;
use courier::internal::v1::console_service_server::ConsoleServiceServer;
use courier::internal::v1::courier_service_server::CourierServiceServer;
use courier::internal::v1::dispatch_service_server::DispatchServiceServer;
use courier::internal::v1::notification_settings_service_server::NotificationSettingsServiceServer;
use courier::internal::v1::report_service_server::ReportServiceServer;
use courier::v1::delivery_service_server::DeliveryServiceServer;
use courier::v1::event_service_server::EventServiceServer;
use courier::v1::fleet_order_service_server::FleetOrderServiceServer;
use courier::v1::notification_service_server::NotificationServiceServer;
use courier::v1::public_service_server::PublicServiceServer;
use courier::v1::quote_service_server::QuoteServiceServer;
use courier::v1::tracking_service_server::TrackingServiceServer;
use courier::v1::vehicle_type_service_server::VehicleTypeServiceServer;
use courier::v1::webhook_service_server::WebhookServiceServer;
use tokio::net::TcpListener;
use tonic::server::NamedService;
use tonic::transport::server::TcpIncoming;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;
use tower_http::trace::{DefaultOnFailure, DefaultOnResponse, TraceLayer};

use crate::grpc::billing::BillingApi;
use crate::grpc::console::ConsoleApi;
use crate::grpc::courier_app::CourierAppApi;
use crate::grpc::couriers::CourierApi;
use crate::grpc::fleet::FleetOrderApi;
use crate::grpc::notifications::{NotificationApi, NotificationSettingsApi};
use crate::grpc::request_text::CheckText;
use crate::grpc::{admin::AdminApi, deliveries::DeliveryApi, quotes::QuoteApi, vehicle_types::VehicleTypeApi};
use crate::grpc::{dispatch::DispatchApi, events::EventApi, tracking::TrackingApi, webhooks::WebhookApi};
use courier_core::{Core, CoreResult};
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use courier_store::metrics::CoreMetrics;

/// The core this server serves: opened with `config` and `clock`, keeping
/// answers, event snapshots and webhook bodies in the public API's shapes
/// (`grpc::wire`).
pub async fn open_core(config: CoreConfig, clock: Clock) -> CoreResult<Core> {
    let wire = Arc::new(crate::grpc::wire::ProtoWire::new(&config.public_base_url));
    Core::start(config, clock, wire).await
}

/// Every service the health service reports on; `""` is the server as a
/// whole.
const SERVICES: &[&str] = &[
    "",
    "grpc.health.v1.Health",
    <AdminServiceServer<AdminApi> as NamedService>::NAME,
    <BillingServiceServer<BillingApi> as NamedService>::NAME,
    <ConsoleServiceServer<ConsoleApi> as NamedService>::NAME,
    <DispatchServiceServer<DispatchApi> as NamedService>::NAME,
    <CourierServiceServer<CourierApi> as NamedService>::NAME,
    <CourierAppServiceServer<CourierAppApi> as NamedService>::NAME,
    <VehicleTypeServiceServer<VehicleTypeApi> as NamedService>::NAME,
    <QuoteServiceServer<QuoteApi> as NamedService>::NAME,
    <PublicServiceServer<crate::grpc::public::PublicApi> as NamedService>::NAME,
    <EventServiceServer<EventApi> as NamedService>::NAME,
    <WebhookServiceServer<WebhookApi> as NamedService>::NAME,
    <TrackingServiceServer<TrackingApi> as NamedService>::NAME,
    <DeliveryServiceServer<DeliveryApi> as NamedService>::NAME,
    <FleetOrderServiceServer<FleetOrderApi> as NamedService>::NAME,
    <NotificationServiceServer<NotificationApi> as NamedService>::NAME,
    <NotificationSettingsServiceServer<NotificationSettingsApi> as NamedService>::NAME,
    <ReportServiceServer<crate::grpc::reports::ReportApi> as NamedService>::NAME,
];

/// HTTP/2 flow control (docs/scaling.md "HTTP/2 settings"). The HTTP/2
/// library closes a whole connection (`GOAWAY ENHANCE_YOUR_CALM
/// too_many_data_frames`) when the small DATA frames it holds for calls not
/// yet read cost more than a budget: each frame under 256 bytes costs 256
/// less its length until read, and the budget is half the connection window.
/// A stream holds at most its window unread, so a window of 64 KiB per
/// stream and 8 MiB per connection (a 4 MiB budget) keeps even a stream of
/// empty messages (5-byte frames, about 3.3 MB of cost for a full window)
/// within the budget, and 10 streams of one-position reports (about 35
/// bytes a frame) whose handlers fell behind at once.
const STREAM_WINDOW: u32 = 64 * 1024;
const CONNECTION_WINDOW: u32 = 8 * 1024 * 1024;

async fn report(health: &HealthReporter, status: ServingStatus) {
    for service in SERVICES {
        health.set_service_status(*service, status).await;
    }
}

/// Serves the core on `listener` until `shutdown` completes: then its
/// streams end (`Core::stopping`), health turns `NOT_SERVING` for every
/// service, new connections are refused and in-flight calls finish.
pub async fn serve(
    core: Core,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (health, health_service) = tonic_health::server::health_reporter();
    report(&health, ServingStatus::Serving).await;
    let streams = core.stopping.clone();
    let stopping = async move {
        shutdown.await;
        streams.cancel();
        report(&health, ServingStatus::NotServing).await;
        tracing::info!("gRPC server stopping: health NOT_SERVING, finishing calls in flight");
    };
    // Reflection in both versions: grpcurl and most tools speak v1, older
    // ones (and some IDEs) only v1alpha.
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(courier::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(courier::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    // A span per call carrying the edge's request id, so that every line
    // logged while serving it carries the id. The line per finished call is
    // at debug: the edge writes one per public request (its access log),
    // and at info both lines cost a seventh of a read's time (BENCHMARKS.md).
    let trace = TraceLayer::new_for_grpc()
        .make_span_with(|request: &tonic::codegen::http::Request<_>| {
            let request_id = request
                .headers()
                .get(courier::metadata::REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-")
                .to_owned();
            tracing::info_span!("grpc", path = %request.uri().path(), request_id = %request_id)
        })
        .on_request(())
        .on_response(DefaultOnResponse::new().level(tracing::Level::DEBUG))
        // Refusals are answers, not failures; real failures log where they happen.
        .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG));

    let metrics = core.metrics.clone();
    tonic::transport::Server::builder()
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .layer(trace)
        .layer(tower::layer::layer_fn(move |inner| CallMetrics {
            inner,
            metrics: metrics.clone(),
        }))
        .layer(crate::caller::ReadCaller::new(core.clone()))
        .layer(CheckText)
        .add_service(health_service)
        .add_service(reflection)
        .add_service(reflection_v1alpha)
        .add_service(AdminServiceServer::new(AdminApi(core.clone())))
        .add_service(BillingServiceServer::new(BillingApi(core.clone())))
        .add_service(ConsoleServiceServer::new(ConsoleApi(core.clone())))
        .add_service(VehicleTypeServiceServer::new(VehicleTypeApi(core.clone())))
        .add_service(QuoteServiceServer::new(QuoteApi(core.clone())))
        .add_service(PublicServiceServer::new(crate::grpc::public::PublicApi(core.clone())))
        .add_service(EventServiceServer::new(EventApi(core.clone())))
        .add_service(WebhookServiceServer::new(WebhookApi(core.clone())))
        .add_service(TrackingServiceServer::new(TrackingApi(core.clone())))
        .add_service(DispatchServiceServer::new(DispatchApi(core.clone())))
        .add_service(CourierServiceServer::new(CourierApi(core.clone())))
        .add_service(
            // Proof photos from a phone: up to 10 files of a few MiB.
            CourierAppServiceServer::new(CourierAppApi(core.clone())).max_decoding_message_size(32 * 1024 * 1024),
        )
        .add_service(FleetOrderServiceServer::new(FleetOrderApi(core.clone())))
        .add_service(NotificationServiceServer::new(NotificationApi(core.clone())))
        .add_service(NotificationSettingsServiceServer::new(NotificationSettingsApi(
            core.clone(),
        )))
        .add_service(ReportServiceServer::new(crate::grpc::reports::ReportApi(core.clone())))
        .add_service(DeliveryServiceServer::new(DeliveryApi(core)))
        // Without TCP_NODELAY a response's trailers wait for the peer's
        // delayed ACK (40 ms) whenever the message spans two writes.
        .serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), stopping)
        .await?;
    Ok(())
}

/// Counts each call and measures the time to its answer's headers. The code
/// is the `grpc-status` header: refusals are trailers-only answers that carry
/// it there; an answer without it is `Ok` (a stream's later failure is not
/// seen).
#[derive(Clone)]
struct CallMetrics<S> {
    inner: S,
    metrics: Arc<CoreMetrics>,
}

impl<S, B, R> tower::Service<tonic::codegen::http::Request<B>> for CallMetrics<S>
where
    S: tower::Service<tonic::codegen::http::Request<B>, Response = tonic::codegen::http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: tonic::codegen::http::Request<B>) -> Self::Future {
        let method = request.uri().path().to_owned();
        let started = Instant::now();
        let metrics = self.metrics.clone();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            let code = response
                .headers()
                .get("grpc-status")
                .map_or(tonic::Code::Ok, |value| tonic::Code::from_bytes(value.as_bytes()));
            // Unknown paths share one label, so probing cannot grow the series.
            let method = if code == tonic::Code::Unimplemented {
                "unknown"
            } else {
                &method
            };
            metrics.grpc_call(method, &format!("{code:?}"), started.elapsed());
            Ok(response)
        })
    }
}

/// Where a client on this machine reaches a core listening at `addr`: an
/// unspecified host (`0.0.0.0`) means this machine.
pub(crate) fn local_url(mut addr: std::net::SocketAddr) -> String {
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    format!("http://{addr}")
}

/// Asks the core serving gRPC at `addr` (a listen address such as
/// `0.0.0.0:50051`) whether it serves, within `timeout`: the container
/// health check (`courier-core health`). `Err` says why not.
pub async fn probe(addr: &str, timeout: std::time::Duration) -> Result<(), String> {
    use tonic_health::pb::health_check_response::ServingStatus as Answer;
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

    let target = local_url(addr.parse().map_err(|_| format!("{addr} is not an address"))?);
    let check = async {
        let channel = tonic::transport::Endpoint::from_shared(target.clone())
            .map_err(|e| e.to_string())?
            .connect()
            .await
            .map_err(|e| format!("cannot connect to {target}: {e}"))?;
        let answer = HealthClient::new(channel)
            .check(HealthCheckRequest { service: String::new() })
            .await
            .map_err(|status| format!("health check failed: {}", status.message()))?;
        match answer.get_ref().status() {
            Answer::Serving => Ok(()),
            other => Err(format!("the core is {}", other.as_str_name())),
        }
    };
    tokio::time::timeout(timeout, check)
        .await
        .unwrap_or_else(|_| Err(format!("no answer from {target} within {timeout:?}")))
}
