//! Edge configuration: flags mirrored by `COURIER_*` environment variables.

/// The edge's settings.
#[derive(clap::Args, Clone, Debug)]
pub struct EdgeConfig {
    /// Address the HTTP server listens on.
    #[arg(long, env = "COURIER_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: String,

    /// The cores' gRPC URLs, separated by commas; a name may resolve to
    /// several cores (re-resolved every 5 s). Calls go to those that serve.
    #[arg(long, env = "COURIER_CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// Base URL clients reach the API at (for `doc_url` links).
    #[arg(long, env = "COURIER_PUBLIC_BASE_URL", default_value = "http://127.0.0.1:8080")]
    pub public_base_url: String,

    /// Address of the operations listener: Prometheus `GET /metrics`.
    #[arg(long, env = "COURIER_METRICS_ADDR", default_value = "127.0.0.1:9090")]
    pub metrics_addr: String,

    /// After SIGTERM or Ctrl-C, how long in-flight requests get to finish
    /// before the process exits anyway (e.g. `30s`).
    #[arg(long, env = "COURIER_SHUTDOWN_GRACE", default_value = "30s", value_parser = courier::time::parse_duration)]
    pub shutdown_grace: std::time::Duration,

    #[command(flatten)]
    pub rate_limits: crate::ratelimit::RateLimitConfig,

    #[command(flatten)]
    pub timeouts: crate::serving::HttpTimeouts,
}
