//! `courier-dev`: the whole service in one process for development — core,
//! workers, edge, console and courier app on an embedded SQLite file under `./data`, and one
//! metrics listener exposing both. On an empty database it creates a demo
//! business workspace and prints its keys once.

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use courier::logging::{self, LogFormat};
use courier_core::demo;
use courier_edge::ratelimit::RateLimitConfig;
use courier_edge::serving::HttpTimeouts;
use courier_edge::{CoreClients, EdgeState};
use courier_identity::auth::service_token::{self, Role};
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The fronts' token lives as long as the process, which restarts long
/// before a year.
const FRONT_TOKEN_TTL: i64 = 365 * 24 * 3600;

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

    #[command(flatten)]
    rate_limits: RateLimitConfig,

    #[command(flatten)]
    http_timeouts: HttpTimeouts,

    /// The street tiles under the console's maps, as for `courier-console`.
    #[command(flatten)]
    map_tiles: courier_console::MapTilesArgs,

    /// The console booking form's address search, as for `courier-console`.
    #[command(flatten)]
    geocoder: courier_console::GeocoderArgs,

    /// Visitors' addresses for the sign-in throttle, as for the console
    /// and the courier app; without a service token the runner mints its
    /// fronts one.
    #[command(flatten)]
    front: courier::client_address::FrontArgs,

    /// Log line format.
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,

    /// The core the separate fronts call: not read here, where the core runs
    /// inside the runner; accepted so that an environment shared with the
    /// separate binaries (a `.env`) starts the runner without a warning.
    #[arg(long = "core-url", env = "COURIER_CORE_URL", hide = true)]
    _core_url: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let matches = Cli::command().get_matches();
    let base_url_defaulted = matches.value_source("public_base_url") == Some(ValueSource::DefaultValue);
    // The demo courier, signed in to the courier app in any browser that
    // shares its location, receives the demo's live deliveries wherever that
    // browser is: no dispatch radius unless one is set.
    let radius_defaulted = matches.value_source("dispatch_radius_km") == Some(ValueSource::DefaultValue);
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    logging::init(cli.log_format);
    courier::env::warn_unknown(&[Cli::command()]);
    if radius_defaulted {
        cli.core.dispatch_radius_km = 0.0;
    }
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
    let core = courier_server::serving::open_core(cli.core, Clock::default()).await?;
    let _serving = courier_store::db::ServeLock::claim(&core.config.database_url, grpc.local_addr()?)?;
    if let Some(keys) = demo::bootstrap(&core).await? {
        keys.print();
    }

    // The console and the courier app sign in as the core's fronts.
    let mut front = cli.front;
    if front.service_token.is_none() {
        let now = core.clock.now_micros() / 1_000_000;
        let key = &core.secrets.service_token;
        front.service_token = Some(service_token::mint(
            key,
            Role::Front,
            "courier-dev",
            now,
            FRONT_TOKEN_TTL,
        )?);
    }
    let grpc_url = format!("http://{}", grpc.local_addr()?);
    let edge = EdgeState::new(
        CoreClients::connect_lazy(&grpc_url)?,
        &core.config.public_base_url,
        &cli.rate_limits,
    )?;
    let base_url = core.config.public_base_url.clone();
    let ops = tokio::net::TcpListener::bind(&core.config.metrics_addr).await?;
    let ops_addr = ops.local_addr()?;
    let mut registry = Registry::default();
    core.register_metrics(&mut registry);
    edge.metrics.register(&mut registry);
    let grace = core.config.shutdown_grace;

    // The edge stops first, so that its requests in flight still reach the
    // core; then the core, its workers and the metrics listener.
    let (edge_stop, core_stop) = (CancellationToken::new(), CancellationToken::new());
    let mut workers = courier_server::workers::spawn(&core, &core_stop, courier_server::workers::Role::All);
    // The core's streams end as the edge stops: the pages that follow them
    // (server-sent events) close, so the edge drains without waiting for
    // its grace period.
    let core_streams = core.stopping.clone();
    let core_task = tokio::spawn(courier_server::serving::serve(
        core,
        grpc,
        core_stop.clone().cancelled_owned(),
    ));
    // The console and the courier app beside the edge, on the same
    // listener, under /console and /courier.
    let console = courier_console::ConsoleState::new(&grpc_url, &format!("{base_url}/console"))?
        .with_front(front.clone())
        .with_geocoder(courier_console::Geocoder::of(&cli.geocoder)?)
        .with_map_tiles(&cli.map_tiles)?;
    let courier_app = courier_app::AppState::new(&grpc_url, &format!("{base_url}/courier"))?.with_front(front);
    let app = courier_edge::routes::router(edge)
        .merge(courier_console::mounted(console))
        .merge(courier_app::router(courier_app));
    let edge_task = tokio::spawn(courier_edge::serve_router(
        app,
        http,
        cli.http_timeouts,
        &base_url,
        edge_stop.clone().cancelled_owned(),
    ));
    let ops_task = tokio::spawn(courier::ops::serve_metrics(
        ops,
        vec![Arc::new(registry)],
        core_stop.clone().cancelled_owned(),
    ));
    println!(
        "Courier API listening on http://{http_addr}/v1 (gRPC core on {grpc_url}, metrics on http://{ops_addr}/metrics)"
    );
    println!("Console on {base_url}/console");
    println!("Courier app on {base_url}/courier");

    courier::shutdown::signal().await;
    tracing::info!("shutting down: finishing in-flight requests");
    core_streams.cancel();
    edge_stop.cancel();
    let drained = async {
        edge_task.await??;
        core_stop.cancel();
        core_task.await??;
        ops_task.await??;
        while workers.join_next().await.is_some() {}
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    };
    match tokio::time::timeout(grace, drained).await {
        Ok(drained) => drained,
        Err(_) => {
            tracing::warn!(?grace, "grace period over: exiting with work in flight");
            Ok(())
        }
    }
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
