//! `courier-console`: the web console on its own listener, under
//! `/console`, calling the core over gRPC; `/healthz` and `/readyz` for
//! probes.

use clap::{CommandFactory, Parser};
use courier::logging::{self, LogFormat};
use courier_console::{ConsoleState, Geocoder, GeocoderArgs, MapTilesArgs, standalone};

#[derive(Parser)]
#[command(name = "courier-console", version, about = "Courier web console")]
struct Cli {
    /// Address the console listens on.
    #[arg(long, env = "COURIER_CONSOLE_ADDR", default_value = "127.0.0.1:8081")]
    addr: String,
    /// The cores' gRPC URLs, separated by commas; a name may resolve to
    /// several cores (re-resolved every 5 s). Calls go to those that serve.
    #[arg(long, env = "COURIER_CORE_URL", default_value = "http://127.0.0.1:50051")]
    core_url: String,
    /// The console's public base URL (it serves `{base}/console`).
    #[arg(long, env = "COURIER_CONSOLE_BASE_URL", default_value = "http://127.0.0.1:8081")]
    base_url: String,
    /// The street tiles under the maps.
    #[command(flatten)]
    map_tiles: MapTilesArgs,
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Slow clients are cut off as on the API (the same server).
    #[command(flatten)]
    http_timeouts: courier_edge::serving::HttpTimeouts,
    /// Visitors' addresses for the sign-in throttle (docs/access.md).
    #[command(flatten)]
    front: courier::client_address::FrontArgs,
    /// The booking form's address search.
    #[command(flatten)]
    geocoder: GeocoderArgs,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    logging::init(cli.log_format);
    courier::env::warn_unknown(&[Cli::command()]);
    match run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let root = format!("{}/console", cli.base_url.trim_end_matches('/'));
    let state = ConsoleState::new(&cli.core_url, &root)?
        .with_front(cli.front)
        .with_geocoder(Geocoder::of(&cli.geocoder)?)
        .with_map_tiles(&cli.map_tiles)?;
    let listener = tokio::net::TcpListener::bind(&cli.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, %root, "courier-console serving");
    courier_edge::serve_router(
        standalone(state, &cli.base_url),
        listener,
        cli.http_timeouts,
        &cli.base_url,
        courier::shutdown::signal(),
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Flags flattened from several structs must not share an id: clap
    /// refuses such a command only when it parses, that is at start.
    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
