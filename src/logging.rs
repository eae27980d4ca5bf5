//! Log set-up shared by the binaries: `text` or `json` lines on stderr,
//! filtered by `COURIER_LOG` (an env-filter expression, default `info`).
//!
//! Every line logged while serving a request belongs to that request's span,
//! which carries its `request_id` (edge: span `http`; core: span `grpc`, with
//! the id the edge sent as `x-request-id` metadata). In JSON lines the span's
//! fields are under `span` (and `spans`, outermost first), e.g.
//! `{"level":"INFO","message":"request","span":{"request_id":"req_…",…},…}`.

use tracing_subscriber::fmt::MakeWriter;

/// Log line format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Installs the global subscriber writing to stderr; a second call is a
/// no-op.
pub fn init(format: LogFormat) {
    install(format, std::io::stderr);
}

/// Installs the global subscriber writing to `writer`; a second call is a
/// no-op.
pub fn install<W>(format: LogFormat, writer: W)
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = tracing_subscriber::EnvFilter::try_from_env("COURIER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
