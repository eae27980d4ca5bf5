//! `courier-edge`: the public REST API server.

use clap::Parser;
use courier::logging::{self, LogFormat};
use courier_edge::config::EdgeConfig;
use courier_edge::{CoreClients, EdgeState};

#[derive(Parser)]
#[command(name = "courier-edge", version, about = "Courier edge: the public /v1 REST API")]
struct Cli {
    #[command(flatten)]
    config: EdgeConfig,

    /// Log line format.
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    logging::init(cli.log_format);
    match run(cli.config).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(config: EdgeConfig) -> Result<(), Box<dyn std::error::Error>> {
    let state = EdgeState {
        core: CoreClients::connect_lazy(&config.core_url)?,
        base_url: config.public_base_url.trim_end_matches('/').to_owned(),
    };
    let listener = tokio::net::TcpListener::bind(&config.http_addr).await?;
    tracing::info!(addr = %listener.local_addr()?, core = %config.core_url, "courier-edge serving HTTP");
    courier_edge::serve(state, listener, courier::shutdown::signal()).await?;
    Ok(())
}
