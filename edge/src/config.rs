//! Edge configuration: flags mirrored by `COURIER_*` environment variables.

/// The edge's settings.
#[derive(clap::Args, Clone, Debug)]
pub struct EdgeConfig {
    /// Address the HTTP server listens on.
    #[arg(long, env = "COURIER_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: String,

    /// URL of the core's gRPC server.
    #[arg(long, env = "COURIER_CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// Base URL clients reach the API at (for `doc_url` links).
    #[arg(long, env = "COURIER_PUBLIC_BASE_URL", default_value = "http://127.0.0.1:8080")]
    pub public_base_url: String,
}
