//! Starts the real `courier-core` and `courier-edge` release binaries as
//! child processes on a fresh database, with a demo workspace and live key.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, Database};
use tokio::process::{Child, Command};

pub type BenchResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

/// A scratch database: a SQLite file in a temporary directory, or a new
/// PostgreSQL database that `drop_database` removes.
pub struct ScratchDatabase {
    pub url: String,
    pub dir: PathBuf,
    postgres: Option<(String, String)>,
}

impl ScratchDatabase {
    pub async fn create(backend: Backend, postgres_url: &str, label: &str) -> BenchResult<ScratchDatabase> {
        let dir = std::env::temp_dir().join(format!("courier-bench-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        match backend {
            Backend::Sqlite => Ok(ScratchDatabase {
                url: format!("sqlite://{}?mode=rwc", dir.join("courier.db").display()),
                dir,
                postgres: None,
            }),
            Backend::Postgres => {
                let name = format!("courier_bench_{label}_{}", std::process::id());
                let admin = Database::connect(postgres_url).await?;
                admin
                    .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name}"))
                    .await?;
                admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await?;
                let _ = admin.close().await;
                let base = postgres_url.rsplit_once('/').map_or(postgres_url, |(base, _)| base);
                Ok(ScratchDatabase {
                    url: format!("{base}/{name}"),
                    dir,
                    postgres: Some((postgres_url.to_owned(), name)),
                })
            }
        }
    }

    pub async fn drop_database(self) {
        if let Some((admin_url, name)) = &self.postgres
            && let Ok(admin) = Database::connect(admin_url.as_str()).await
        {
            let _ = admin
                .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .await;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A running core and edge.
pub struct Service {
    pub base_url: String,
    /// The core's gRPC address (`http://…`).
    pub grpc_url: String,
    pub workspace_id: String,
    pub live_key: String,
    pub core: Child,
    pub edge: Child,
    pub database: ScratchDatabase,
}

/// A free loopback port (bound and released).
pub fn free_addr() -> BenchResult<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.to_string())
}

/// How long a courier has to answer an offer: the core's default, set
/// here so that the dispatch run can tell when each offer was made.
pub const OFFER_TIMEOUT: Duration = Duration::from_secs(30);

/// The built-in catalogue with one job per courier for every vehicle: the
/// dispatch run's apps carry one job at a time (an offer while carrying is
/// read once the job is done), so it measures dispatch as it was before
/// couriers carried several; batching needs apps that follow a route.
fn one_job_catalogue(dir: &Path) -> BenchResult<PathBuf> {
    let mut catalogue: serde_json::Value = serde_json::from_str(courier_pricing::catalog::DEFAULT_CATALOG_JSON)?;
    for vehicle in catalogue["vehicle_types"].as_array_mut().into_iter().flatten() {
        vehicle["max_jobs"] = 1.into();
    }
    let path = dir.join("catalog-one-job.json");
    std::fs::write(&path, serde_json::to_vec(&catalogue)?)?;
    Ok(path)
}

fn core_command(bin_dir: &Path, database: &ScratchDatabase, grpc_addr: &str, base_url: &str) -> Command {
    let mut command = Command::new(bin_dir.join("courier-core"));
    if let Ok(catalogue) = one_job_catalogue(&database.dir) {
        command.env("COURIER_CATALOG_FILE", catalogue);
    }
    command
        .env("COURIER_DATABASE_URL", &database.url)
        .env("COURIER_GRPC_ADDR", grpc_addr)
        .env("COURIER_PUBLIC_BASE_URL", base_url)
        .env("COURIER_SECRET_KEY", "bench-secret")
        .env("COURIER_WEBHOOK_ALLOW_INSECURE", "true")
        .env("COURIER_BLOB_DIR", database.dir.join("blobs"))
        // The intake runs report flat out: no per-courier report limit.
        .env("COURIER_POSITIONS_PER_SECOND", "0")
        .env("COURIER_OFFER_TIMEOUT", format!("{}s", OFFER_TIMEOUT.as_secs()))
        // Any free port: the bench reads no metrics.
        .env("COURIER_METRICS_ADDR", "127.0.0.1:0")
        .kill_on_drop(true);
    command
}

/// Runs a `courier-core` admin command and returns its output.
async fn admin(bin_dir: &Path, database: &ScratchDatabase, args: &[&str]) -> BenchResult<String> {
    let output = core_command(bin_dir, database, "127.0.0.1:0", "http://127.0.0.1")
        .args(args)
        .output()
        .await?;
    if !output.status.success() {
        return Err(format!("courier-core {args:?}: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A `courier-edge` serving `http_addr` in front of the core at
/// `grpc_addr`, with per-key limits so high that the bench is never refused
/// (each request is still counted).
fn edge_command(bin_dir: &Path, http_addr: &str, grpc_addr: &str, base_url: &str) -> Command {
    let mut command = Command::new(bin_dir.join("courier-edge"));
    command
        .env("COURIER_HTTP_ADDR", http_addr)
        .env("COURIER_CORE_URL", format!("http://{grpc_addr}"))
        .env("COURIER_PUBLIC_BASE_URL", base_url)
        .env("COURIER_METRICS_ADDR", "127.0.0.1:0")
        // The bench measures the service, not the per-key rate limits.
        .env("COURIER_RATE_LIMIT_READS_PER_SECOND", "1000000")
        .env("COURIER_RATE_LIMIT_READ_BURST", "1000000")
        .env("COURIER_RATE_LIMIT_WRITES_PER_SECOND", "1000000")
        .env("COURIER_RATE_LIMIT_WRITE_BURST", "1000000")
        .env_remove("COURIER_RATE_LIMIT_REDIS_URL")
        .kill_on_drop(true);
    command
}

/// A second core on a running service's database.
pub struct Replica {
    pub grpc_url: String,
    process: Child,
}

impl Replica {
    pub async fn stop(mut self) {
        let _ = self.process.kill().await;
    }
}

/// A second edge on a running service's core, started with extra
/// environment (e.g. a Redis limiter); killed when dropped.
pub struct Edge {
    pub base_url: String,
    pub process: Child,
}

impl Edge {
    pub async fn stop(mut self) {
        let _ = self.process.kill().await;
    }
}

impl Service {
    /// Starts another edge in front of this service's core, with `env` on
    /// top of the bench edge's, and waits until it answers.
    pub async fn start_edge(&self, bin_dir: &Path, env: &[(&str, &str)], log_name: &str) -> BenchResult<Edge> {
        let http_addr = free_addr()?;
        let base_url = format!("http://{http_addr}");
        let grpc_addr = self.grpc_url.trim_start_matches("http://");
        let mut command = edge_command(bin_dir, &http_addr, grpc_addr, &self.base_url);
        for (name, value) in env {
            command.env(name, value);
        }
        let process = command
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(self.database.dir.join(log_name))?))
            .spawn()?;
        let edge = Edge { base_url, process };
        wait_ready(&edge.base_url, &self.live_key).await?;
        Ok(edge)
    }

    /// The service as production runs it (automatic dispatch, the default).
    pub async fn start(bin_dir: &Path, backend: Backend, postgres_url: &str) -> BenchResult<Service> {
        Service::start_labelled(bin_dir, backend, postgres_url, "service").await
    }

    /// A service of its own beside another, its database named after `label`.
    pub async fn start_labelled(
        bin_dir: &Path,
        backend: Backend,
        postgres_url: &str,
        label: &str,
    ) -> BenchResult<Service> {
        Service::start_with(bin_dir, backend, postgres_url, label, &[]).await
    }

    /// A service of its own whose core runs with `core_env` on top of the
    /// bench's, e.g. `COURIER_DISPATCH=external`.
    pub async fn start_with(
        bin_dir: &Path,
        backend: Backend,
        postgres_url: &str,
        label: &str,
        core_env: &[(&str, &str)],
    ) -> BenchResult<Service> {
        let database = ScratchDatabase::create(backend, postgres_url, label).await?;
        admin(bin_dir, &database, &["migrate"]).await?;
        let created = admin(
            bin_dir,
            &database,
            &[
                "workspace",
                "create",
                "--name",
                "Bench",
                "--kind",
                "business",
                "--invoice-billing-enabled",
                "--credit-limit-cents",
                "900000000000000",
            ],
        )
        .await?;
        let workspace = created
            .split_whitespace()
            .nth(1)
            .ok_or("workspace create printed no id")?
            .to_owned();
        let key = admin(
            bin_dir,
            &database,
            &[
                "key",
                "create",
                "--workspace",
                &workspace,
                "--mode",
                "live",
                "--label",
                "bench",
            ],
        )
        .await?;
        let live_key = key
            .lines()
            .find(|l| l.starts_with("mm_live_"))
            .ok_or("key create printed no key")?
            .to_owned();

        let (grpc_addr, http_addr) = (free_addr()?, free_addr()?);
        let base_url = format!("http://{http_addr}");
        // Logs at the production level (info), kept beside the database.
        let log = |name: &str| std::fs::File::create(database.dir.join(name)).map(Stdio::from);
        let core = core_command(bin_dir, &database, &grpc_addr, &base_url)
            .envs(core_env.iter().copied())
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(log("core.log")?)
            .spawn()?;
        let edge = edge_command(bin_dir, &http_addr, &grpc_addr, &base_url)
            .stdout(Stdio::null())
            .stderr(log("edge.log")?)
            .spawn()?;
        let service = Service {
            base_url,
            grpc_url: format!("http://{grpc_addr}"),
            workspace_id: workspace,
            live_key,
            core,
            edge,
            database,
        };
        service.wait_ready().await?;
        Ok(service)
    }

    /// Another core serving this service's database (a replica, as
    /// Kubernetes would run it), with `core_env` on top of the bench's;
    /// killed when dropped.
    pub async fn start_replica(
        &self,
        bin_dir: &Path,
        core_env: &[(&str, &str)],
        log_name: &str,
    ) -> BenchResult<Replica> {
        let grpc_addr = free_addr()?;
        let process = core_command(bin_dir, &self.database, &grpc_addr, &self.base_url)
            .envs(core_env.iter().copied())
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(self.database.dir.join(log_name))?))
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(60);
        while tokio::net::TcpStream::connect(&grpc_addr).await.is_err() {
            if Instant::now() > deadline {
                return Err("the replica did not start in 60 s".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(Replica {
            grpc_url: format!("http://{grpc_addr}"),
            process,
        })
    }

    /// Runs a `courier-core` admin command on this service's database.
    pub async fn admin(&self, bin_dir: &Path, args: &[&str]) -> BenchResult<String> {
        admin(bin_dir, &self.database, args).await
    }

    async fn wait_ready(&self) -> BenchResult<()> {
        wait_ready(&self.base_url, &self.live_key).await
    }

    /// Resident set of core plus edge, in MiB.
    pub fn resident_mib(&self) -> f64 {
        [self.core.id(), self.edge.id()]
            .into_iter()
            .flatten()
            .map(resident_kib)
            .sum::<u64>() as f64
            / 1024.0
    }

    pub async fn stop(mut self) {
        let _ = self.edge.kill().await;
        let _ = self.core.kill().await;
        self.database.drop_database().await;
    }

    /// Stops the processes and leaves the database and logs for a look
    /// afterwards (`--keep-scratch`): says where they are.
    pub async fn stop_keeping(mut self) {
        let _ = self.edge.kill().await;
        let _ = self.core.kill().await;
        println!(
            "kept: logs in {}, database {}",
            self.database.dir.display(),
            self.database.url
        );
    }
}

/// Waits until the edge at `base_url` answers a keyed read (60 s at most).
async fn wait_ready(base_url: &str, live_key: &str) -> BenchResult<()> {
    let client = reqwest::Client::builder().no_proxy().build()?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answer = client
            .get(format!("{base_url}/v1/vehicle-types"))
            .header("x-api-key", live_key)
            .send()
            .await;
        if answer.is_ok_and(|a| a.status().is_success()) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("the service at {base_url} did not become ready in 60 s").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `VmRSS` of process `pid` in KiB (0 when unreadable).
pub fn resident_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}
