//! Assembles the gRPC server: public and internal services, health and
//! reflection, with a tracing span per call carrying the request id.

use std::future::Future;

use courier::internal::v1::admin_service_server::AdminServiceServer;
use courier::internal::v1::dispatch_service_server::DispatchServiceServer;
use courier::v1::delivery_service_server::DeliveryServiceServer;
use courier::v1::event_service_server::EventServiceServer;
use courier::v1::fleet_order_service_server::FleetOrderServiceServer;
use courier::v1::public_service_server::PublicServiceServer;
use courier::v1::quote_service_server::QuoteServiceServer;
use courier::v1::tracking_service_server::TrackingServiceServer;
use courier::v1::vehicle_type_service_server::VehicleTypeServiceServer;
use courier::v1::webhook_service_server::WebhookServiceServer;
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tower_http::trace::{DefaultOnFailure, DefaultOnResponse, TraceLayer};

use crate::Core;
use crate::grpc::fleet::FleetOrderApi;
use crate::grpc::{admin::AdminApi, deliveries::DeliveryApi, quotes::QuoteApi, vehicle_types::VehicleTypeApi};
use crate::grpc::{dispatch::DispatchApi, events::EventApi, tracking::TrackingApi, webhooks::WebhookApi};

/// Serves the core on `listener` until `shutdown` completes, then finishes
/// in-flight calls.
pub async fn serve(
    core: Core,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_serving::<QuoteServiceServer<QuoteApi>>().await;
    health_reporter.set_serving::<AdminServiceServer<AdminApi>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(courier::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    // One log line per call, in a span carrying the edge's request id.
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
        .on_response(DefaultOnResponse::new().level(tracing::Level::INFO))
        // Refusals are answers, not failures; real failures log where they happen.
        .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG));

    tonic::transport::Server::builder()
        .layer(trace)
        .add_service(health_service)
        .add_service(reflection)
        .add_service(AdminServiceServer::new(AdminApi(core.clone())))
        .add_service(VehicleTypeServiceServer::new(VehicleTypeApi(core.clone())))
        .add_service(QuoteServiceServer::new(QuoteApi(core.clone())))
        .add_service(PublicServiceServer::new(crate::grpc::public::PublicApi(core.clone())))
        .add_service(EventServiceServer::new(EventApi(core.clone())))
        .add_service(WebhookServiceServer::new(WebhookApi(core.clone())))
        .add_service(TrackingServiceServer::new(TrackingApi(core.clone())))
        .add_service(DispatchServiceServer::new(DispatchApi(core.clone())))
        .add_service(FleetOrderServiceServer::new(FleetOrderApi(core.clone())))
        .add_service(DeliveryServiceServer::new(DeliveryApi(core)))
        // Without TCP_NODELAY a response's trailers wait for the peer's
        // delayed ACK (40 ms) whenever the message spans two writes.
        .serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), shutdown)
        .await?;
    Ok(())
}
