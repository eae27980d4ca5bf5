//! `courier-edge`: the public REST API server.

use clap::{CommandFactory, Parser};
use courier::logging::{self, LogFormat};
use courier_edge::config::EdgeConfig;
use courier_edge::{CoreClients, EdgeState};
use prometheus_client::registry::Registry;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// jemalloc: measured 10-30 % more requests per second than the system
/// allocator on the request paths, at a few MiB more resident memory
/// (BENCHMARKS.md). Release builds turn it on (feature `jemalloc`).
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    courier::env::warn_unknown(&[Cli::command()]);
    match run(cli.config).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(config: EdgeConfig) -> Result<(), Box<dyn std::error::Error>> {
    let state = EdgeState::new(
        CoreClients::connect_lazy(&config.core_url)?,
        &config.public_base_url,
        &config.rate_limits,
    )?;
    let mut registry = Registry::default();
    state.metrics.register(&mut registry);
    let listener = tokio::net::TcpListener::bind(&config.http_addr).await?;
    let ops_listener = tokio::net::TcpListener::bind(&config.metrics_addr).await?;
    tracing::info!(
        addr = %listener.local_addr()?,
        metrics = %ops_listener.local_addr()?,
        core = %config.core_url,
        "courier-edge serving HTTP"
    );
    let stop = CancellationToken::new();
    let signal = stop.clone();
    tokio::spawn(async move {
        courier::shutdown::signal().await;
        tracing::info!("stopping: refusing new connections, finishing requests in flight");
        signal.cancel();
    });
    let work = async {
        tokio::try_join!(
            courier_edge::serve(state, listener, config.timeouts, stop.clone().cancelled_owned()),
            courier::ops::serve_metrics(ops_listener, vec![Arc::new(registry)], stop.clone().cancelled_owned()),
        )
    };
    match courier::shutdown::with_grace(work, stop.cancelled(), config.shutdown_grace).await {
        Some(served) => {
            served?;
        }
        None => tracing::warn!(grace = ?config.shutdown_grace, "grace period over: exiting with requests in flight"),
    }
    Ok(())
}
