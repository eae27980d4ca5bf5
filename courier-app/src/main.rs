//! `courier-app`: the courier web app on its own listener, under
//! `/courier`, calling the core over gRPC; `/healthz` and `/readyz` for
//! probes.

use clap::{CommandFactory, Parser};
use courier::logging::{self, LogFormat};
use courier_app::{AppState, standalone};

#[derive(Parser)]
#[command(name = "courier-app", version, about = "Courier web app for couriers and drivers")]
struct Cli {
    /// Address the app listens on.
    #[arg(long, env = "COURIER_APP_ADDR", default_value = "127.0.0.1:8082")]
    addr: String,
    /// The cores' gRPC URLs, separated by commas; a name may resolve to
    /// several cores (re-resolved every 5 s). Calls go to those that serve.
    #[arg(long, env = "COURIER_CORE_URL", default_value = "http://127.0.0.1:50051")]
    core_url: String,
    /// The app's public base URL (it serves `{base}/courier`); phones need
    /// HTTPS for location, the camera and installing the app.
    #[arg(long, env = "COURIER_APP_BASE_URL", default_value = "http://127.0.0.1:8082")]
    base_url: String,
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Slow clients are cut off as on the API (the same server); a page's
    /// event stream is an answer under way, which no timeout ends.
    #[command(flatten)]
    http_timeouts: courier_edge::serving::HttpTimeouts,
    /// Visitors' addresses for the sign-in throttle (docs/access.md).
    #[command(flatten)]
    front: courier::client_address::FrontArgs,
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
    let root = format!("{}/courier", cli.base_url.trim_end_matches('/'));
    let state = AppState::new(&cli.core_url, &root)?.with_front(cli.front);
    let listener = tokio::net::TcpListener::bind(&cli.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, %root, "courier-app serving");
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
