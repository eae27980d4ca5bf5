//! Log set-up shared by the binaries: `text` or `json` lines on stderr,
//! filtered by `COURIER_LOG` (an env-filter expression, default `info`).
//!
//! Every line logged while serving a request belongs to that request's span,
//! which carries its `request_id` (edge: span `http`; core: span `grpc`, with
//! the id the edge sent as `x-request-id` metadata). In JSON lines the span's
//! fields are under `span` (and `spans`, outermost first), e.g.
//! `{"level":"INFO","message":"request","span":{"request_id":"req_…",…},…}`.

use tracing_subscriber::fmt::MakeWriter;

/// The variable holding the env-filter expression.
pub const FILTER_VARIABLE: &str = "COURIER_LOG";

/// Targets whose `info` lines are too many to read: the migrator writes
/// two lines per migration (88 on a new database) where the core writes
/// one summary. Kept at `warn` unless the filter names them itself.
const QUIET_TARGETS: &[&str] = &["sea_orm_migration"];

/// Log line format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Installs the global subscriber writing to stderr, coloured only when it
/// is a terminal (a file or a log collector gets plain text); a second call
/// is a no-op.
pub fn init(format: LogFormat) {
    let colours = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let filter = std::env::var(FILTER_VARIABLE).unwrap_or_else(|_| "info".to_owned());
    install(format, std::io::stderr, colours, &quiet(&filter));
}

/// `filter` with [`QUIET_TARGETS`] at `warn`, unless it names them.
fn quiet(filter: &str) -> String {
    QUIET_TARGETS
        .iter()
        .filter(|target| !filter.contains(*target))
        .fold(filter.to_owned(), |filter, target| format!("{filter},{target}=warn"))
}

/// Installs the global subscriber writing to `writer` the lines `filter`
/// (env-filter directives) lets through, with terminal colours in text
/// lines when `colours`; a second call is a no-op.
pub fn install<W>(format: LogFormat, writer: W, colours: bool, filter: &str)
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter =
        tracing_subscriber::EnvFilter::try_new(filter).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(colours);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrators_lines_stay_quiet_unless_asked_for() {
        assert_eq!(quiet("info"), "info,sea_orm_migration=warn");
        assert_eq!(quiet("debug,sea_orm_migration=info"), "debug,sea_orm_migration=info");
    }
}
