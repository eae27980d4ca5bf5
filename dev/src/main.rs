//! `courier-dev`: the whole service in one process for development — core,
//! workers and edge on an embedded SQLite file under `./data`. On an empty
//! database it creates a demo business workspace and prints its keys once.

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use courier::logging::{self, LogFormat};
use courier_core::clock::Clock;
use courier_core::config::CoreConfig;
use courier_core::{Core, demo};
use courier_edge::{CoreClients, EdgeState};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "courier-dev",
    version,
    about = "Courier core, workers and edge in one process"
)]
struct Cli {
    #[command(flatten)]
    core: CoreConfig,

    /// Address the public HTTP API listens on.
    #[arg(long, env = "COURIER_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    http_addr: String,

    /// Log line format.
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let matches = Cli::command().get_matches();
    let base_url_defaulted = matches.value_source("public_base_url") == Some(ValueSource::DefaultValue);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    logging::init(cli.log_format);
    courier_core::config::warn_unknown_env();
    match run(cli, base_url_defaulted).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(mut cli: Cli, base_url_defaulted: bool) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let http = tokio::net::TcpListener::bind(&cli.http_addr).await?;
    let grpc = tokio::net::TcpListener::bind(&cli.core.grpc_addr).await?;
    let http_addr = http.local_addr()?;
    if base_url_defaulted {
        cli.core.public_base_url = format!("http://{http_addr}");
    }
    let core = Core::start(cli.core, Clock::default()).await?;
    if let Some(keys) = demo::bootstrap(&core).await? {
        keys.print();
    }

    let stop = CancellationToken::new();
    let grpc_url = format!("http://{}", grpc.local_addr()?);
    let edge = EdgeState {
        core: CoreClients::connect_lazy(&grpc_url)?,
        base_url: core.config.public_base_url.trim_end_matches('/').to_owned(),
    };
    let mut workers = courier_core::workers::spawn(&core, &stop);
    let core_task = tokio::spawn(courier_core::server::serve(core, grpc, stop.clone().cancelled_owned()));
    let edge_task = tokio::spawn(courier_edge::serve(edge, http, stop.clone().cancelled_owned()));
    println!("Courier API listening on http://{http_addr}/v1 (gRPC core on {grpc_url})");

    courier::shutdown::signal().await;
    tracing::info!("shutting down: finishing in-flight requests");
    stop.cancel();
    edge_task.await??;
    core_task.await??;
    while workers.join_next().await.is_some() {}
    Ok(())
}
