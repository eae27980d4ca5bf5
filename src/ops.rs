//! The operations listener shared by the binaries: Prometheus metrics in the
//! OpenMetrics text format, served apart from the public API.

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::encoding::text;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;

/// Latency buckets in seconds, 1 ms to about 16 s: request handling on the
/// fast side, webhook sends and slow database calls on the slow side.
pub fn latency_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.001, 2.0, 15,
    ))
}

/// Serves `GET /metrics` (every registry in `registries`, one exposition) on
/// `listener` until `shutdown` completes.
pub async fn serve_metrics(
    listener: TcpListener,
    registries: Vec<Arc<Registry>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let registries = Arc::new(registries);
    let app = Router::new().route("/metrics", get(move || render(registries.clone())));
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

async fn render(registries: Arc<Vec<Arc<Registry>>>) -> Response {
    let mut body = String::new();
    let encoded = registries
        .iter()
        .try_for_each(|registry| text::encode_registry(&mut body, registry))
        .and_then(|()| text::encode_eof(&mut body));
    match encoded {
        Ok(()) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            body,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
