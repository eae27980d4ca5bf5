//! Log set-up shared by the binaries: `text` or `json` lines on stderr,
//! filtered by `COURIER_LOG` (an env-filter expression, default `info`).

/// Log line format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Installs the global subscriber; a second call is a no-op.
pub fn init(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("COURIER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
