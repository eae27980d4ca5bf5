//! The ceilings the service is compared with, each a child process of the
//! bench so that it competes for the same two cores as the service did:
//! a bare axum handler returning a fixed body (the HTTP limit), a bare tonic
//! server, and an axum handler that makes one trivial tonic call before
//! answering (the edge-to-core hop).

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::serve::ListenerExt;
use tokio::process::{Child, Command};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use crate::service::{BenchResult, free_addr};

/// The child roles of the bench binary: the ceiling servers.
#[derive(clap::Subcommand)]
pub enum Role {
    /// Serve `body_file` as JSON on every GET of `/v1/deliveries/{id}`.
    #[command(name = "http-ceiling")]
    Http {
        #[arg(long)]
        addr: String,
        #[arg(long)]
        body_file: PathBuf,
    },
    /// A tonic server with only the health service.
    #[command(name = "grpc-ceiling")]
    Grpc {
        #[arg(long)]
        addr: String,
    },
    /// `CourierAppService/ReportLocations` alone, counting the positions
    /// it reads (the position intake's ceiling, `dispatch.rs`).
    #[command(name = "stream-ceiling")]
    Stream {
        #[arg(long)]
        addr: String,
    },
    /// Like `http-ceiling`, with one health check to `grpc_url` per request.
    #[command(name = "hop-ceiling")]
    Hop {
        #[arg(long)]
        addr: String,
        #[arg(long)]
        grpc_url: String,
        #[arg(long)]
        body_file: PathBuf,
    },
}

#[derive(Clone)]
struct Ceiling {
    body: Arc<[u8]>,
    health: Option<HealthClient<tonic::transport::Channel>>,
}

async fn answer(State(ceiling): State<Ceiling>) -> axum::response::Response {
    if let Some(mut health) = ceiling.health.clone()
        && health.check(HealthCheckRequest::default()).await.is_err()
    {
        return axum::http::StatusCode::BAD_GATEWAY.into_response();
    }
    ([(header::CONTENT_TYPE, "application/json")], ceiling.body.to_vec()).into_response()
}

/// Runs a child role until killed.
pub async fn serve(role: Role) -> BenchResult<()> {
    match role {
        Role::Grpc { addr } => {
            let (reporter, service) = tonic_health::server::health_reporter();
            reporter
                .set_service_status("", tonic_health::ServingStatus::Serving)
                .await;
            tonic::transport::Server::builder()
                .add_service(service)
                .serve(addr.parse()?)
                .await?;
        }
        Role::Http { addr, body_file } => serve_http(&addr, &body_file, None).await?,
        Role::Stream { addr } => crate::dispatch::serve_stream_ceiling(&addr).await?,
        Role::Hop {
            addr,
            grpc_url,
            body_file,
        } => {
            let channel = tonic::transport::Endpoint::from_shared(grpc_url)?.connect_lazy();
            serve_http(&addr, &body_file, Some(HealthClient::new(channel))).await?;
        }
    }
    Ok(())
}

async fn serve_http(
    addr: &str,
    body_file: &PathBuf,
    health: Option<HealthClient<tonic::transport::Channel>>,
) -> BenchResult<()> {
    let ceiling = Ceiling {
        body: std::fs::read(body_file)?.into(),
        health,
    };
    let app = Router::new()
        .route("/v1/deliveries/{id}", get(answer))
        .with_state(ceiling);
    axum::serve(nodelay(tokio::net::TcpListener::bind(addr).await?), app).await?;
    Ok(())
}

/// `listener` with TCP_NODELAY on every connection, as the edge and the core
/// set it.
pub fn nodelay(
    listener: tokio::net::TcpListener,
) -> impl axum::serve::Listener<Io = tokio::net::TcpStream, Addr = std::net::SocketAddr> {
    listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    })
}

/// The running ceiling processes and the URL to load.
pub struct Ceilings {
    pub http_url: String,
    pub hop_url: String,
    children: Vec<Child>,
}

impl Ceilings {
    /// Starts the three ceiling processes, serving `body` (written to a file
    /// under `dir`).
    pub async fn start(dir: &std::path::Path, body: &[u8]) -> BenchResult<Ceilings> {
        let body_file = dir.join("ceiling-body.json");
        std::fs::write(&body_file, body)?;
        let body_arg = body_file.display().to_string();
        let (http, grpc, hop) = (free_addr()?, free_addr()?, free_addr()?);
        let grpc_url = format!("http://{grpc}");
        let me = std::env::current_exe()?;
        let spawn = |args: Vec<&str>| -> BenchResult<Child> {
            Ok(Command::new(&me)
                .args(args)
                .stdout(Stdio::null())
                .kill_on_drop(true)
                .spawn()?)
        };
        let children = vec![
            spawn(vec!["http-ceiling", "--addr", &http, "--body-file", &body_arg])?,
            spawn(vec!["grpc-ceiling", "--addr", &grpc])?,
            spawn(vec![
                "hop-ceiling",
                "--addr",
                &hop,
                "--grpc-url",
                &grpc_url,
                "--body-file",
                &body_arg,
            ])?,
        ];
        let ceilings = Ceilings {
            http_url: format!("http://{http}/v1/deliveries/ceiling"),
            hop_url: format!("http://{hop}/v1/deliveries/ceiling"),
            children,
        };
        let client = reqwest::Client::builder().no_proxy().build()?;
        let deadline = Instant::now() + Duration::from_secs(20);
        for url in [&ceilings.http_url, &ceilings.hop_url] {
            while !client.get(url).send().await.is_ok_and(|a| a.status().is_success()) {
                if Instant::now() > deadline {
                    return Err(format!("ceiling {url} did not start").into());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Ok(ceilings)
    }

    pub async fn stop(mut self) {
        for child in &mut self.children {
            let _ = child.kill().await;
        }
    }
}
