//! Starts core and edge on free loopback ports with a fresh database per
//! test: a temporary SQLite file, or a new PostgreSQL database when
//! PostgreSQL is reachable (`COURIER_TEST_POSTGRES_URL`, default
//! `postgres://postgres@127.0.0.1:5432/test`). With
//! `COURIER_TEST_REQUIRE_POSTGRES=1` an unreachable PostgreSQL fails the test
//! instead of skipping its PostgreSQL variant.

use std::time::Duration;

use courier::internal::v1 as admin_pb;
use courier::internal::v1::admin_service_client::AdminServiceClient;
use courier::internal::v1::billing_service_client::BillingServiceClient;
use courier::internal::v1::dispatch_service_client::DispatchServiceClient;
use courier_core::Core;
use courier_edge::ratelimit::RateLimitConfig;
use courier_edge::{CoreClients, EdgeState};
use courier_identity::auth::service_token::{self, Role};
use courier_server::workers::Role as ServeRole;
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use courier_store::db::ServeLock;
use prometheus_client::registry::Registry;
use sea_orm::{ConnectionTrait, Database};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running core + edge with a demo business workspace and its keys.
pub struct TestApp {
    pub base_url: String,
    pub grpc_url: String,
    pub http: reqwest::Client,
    pub core: Core,
    pub clock: Clock,
    pub admin_token: String,
    pub workspace_id: String,
    /// Full-permission keys of `workspace_id`.
    pub test_key: String,
    pub live_key: String,
    /// `GET /metrics` of the core and the edge (one operations listener, as
    /// the dev runner has).
    pub metrics_url: String,
    /// The edge's state (rate limiter, metrics).
    pub edge: EdgeState,
    servers: Servers,
    database: DatabaseGuard,
}

/// The tasks serving one core and edge.
struct Servers {
    /// Stops the core, its workers, the metrics listener and the edge.
    stop: CancellationToken,
    /// Stops the edge alone (a child of `stop`).
    edge_stop: CancellationToken,
    edge: tokio::task::JoinHandle<std::io::Result<()>>,
    core: tokio::task::JoinHandle<Result<(), Box<dyn std::error::Error + Send + Sync>>>,
    workers: tokio::task::JoinSet<()>,
    /// This core's claim on a SQLite database, as the binaries hold it.
    serving: Option<ServeLock>,
}

/// Rate limits high enough that no test meets them unless it sets its own.
pub fn unlimited() -> RateLimitConfig {
    RateLimitConfig::local(1_000_000, 1_000_000, 1_000_000, 1_000_000)
}

/// Binds core, edge and metrics listeners on free loopback ports: the core's
/// configuration gets the resulting addresses.
struct Listeners {
    http: tokio::net::TcpListener,
    grpc: tokio::net::TcpListener,
    ops: tokio::net::TcpListener,
    base_url: String,
    grpc_url: String,
    metrics_url: String,
    /// The stand-in Nominatim's search URL (`places.rs`).
    geocoder_url: String,
}

impl Listeners {
    async fn bind() -> Listeners {
        let bind = || tokio::net::TcpListener::bind("127.0.0.1:0");
        let (http, grpc, ops) = (
            bind().await.expect("bind http"),
            bind().await.expect("bind grpc"),
            bind().await.expect("bind ops"),
        );
        let url = |l: &tokio::net::TcpListener| format!("http://{}", l.local_addr().expect("addr"));
        Listeners {
            base_url: url(&http),
            grpc_url: url(&grpc),
            metrics_url: format!("{}/metrics", url(&ops)),
            geocoder_url: crate::places::serve().await,
            http,
            grpc,
            ops,
        }
    }

    /// Starts the core's server, its tasks for `role` and the edge on these
    /// listeners.
    fn serve(self, core: &Core, limits: &RateLimitConfig, role: ServeRole) -> (Servers, EdgeState) {
        let serving = ServeLock::claim(&core.config.database_url, self.grpc.local_addr().expect("grpc addr"))
            .expect("the database is not served yet");
        let stop = CancellationToken::new();
        let edge_stop = stop.child_token();
        let workers = courier_server::workers::spawn(core, &stop, role);
        let core_task = tokio::spawn(courier_server::serving::serve(
            core.clone(),
            self.grpc,
            stop.clone().cancelled_owned(),
        ));
        let edge = EdgeState::new(
            CoreClients::connect_lazy(&self.grpc_url).expect("edge channel"),
            &self.base_url,
            limits,
        )
        .expect("edge state");
        // The console and the courier app beside the edge under /console
        // and /courier, as the dev runner has them.
        // The fronts present a front's service token, as deployed ones do
        // (docs/access.md), and believe no proxy.
        let front = courier::client_address::FrontArgs {
            service_token: Some(
                service_token::mint(
                    &core.secrets.service_token,
                    Role::Front,
                    "e2e-front",
                    core.clock.now().timestamp(),
                    3600,
                )
                .expect("front token"),
            ),
            ..Default::default()
        };
        // The console finds places through a stand-in Nominatim on loopback.
        let geocoder = courier_console::Geocoder::of(&courier_console::GeocoderArgs {
            url: Some(self.geocoder_url.clone()),
            api: courier_console::GeocoderApi::Nominatim,
        })
        .expect("geocoder URL");
        let console = courier_console::ConsoleState::new(&self.grpc_url, &format!("{}/console", self.base_url))
            .expect("console state")
            .with_front(front.clone())
            .with_geocoder(geocoder);
        let courier_app = courier_app::AppState::new(&self.grpc_url, &format!("{}/courier", self.base_url))
            .expect("courier app state")
            .with_front(front);
        let app = courier_edge::routes::router(edge.clone())
            .merge(courier_console::mounted(console))
            .merge(courier_app::router(courier_app));
        let edge_task = tokio::spawn(courier_edge::serve_router(
            app,
            self.http,
            courier_edge::serving::HttpTimeouts::default(),
            &self.base_url,
            edge_stop.clone().cancelled_owned(),
        ));
        let mut registry = Registry::default();
        core.register_metrics(&mut registry);
        edge.metrics.register(&mut registry);
        tokio::spawn(courier::ops::serve_metrics(
            self.ops,
            vec![std::sync::Arc::new(registry)],
            stop.clone().cancelled_owned(),
        ));
        let servers = Servers {
            stop,
            edge_stop,
            edge: edge_task,
            core: core_task,
            workers,
            serving: Some(serving),
        };
        (servers, edge)
    }
}

/// An answer of the REST API.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub headers: reqwest::header::HeaderMap,
}

impl Answer {
    /// The error code of an error answer.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("<none>")
    }

    pub fn param(&self) -> Option<&str> {
        self.body["error"]["param"].as_str()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts an error answer with `status`, `code` and `param`, in the
    /// public shape.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str, param: Option<&str>) {
        assert_eq!(
            (self.status, self.code(), self.param()),
            (status, code, param),
            "answer: {:#}",
            self.body
        );
        let request_id = self.body["request_id"].as_str().expect("request_id in body");
        assert!(request_id.starts_with("req_"));
        assert_eq!(self.header("request-id"), Some(request_id));
        let doc_url = self.body["error"]["doc_url"].as_str().expect("doc_url");
        assert!(doc_url.ends_with(&format!("/v1/docs/errors#{code}")), "{doc_url}");
        assert!(self.body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

impl TestApp {
    pub async fn spawn(backend: Backend) -> Option<TestApp> {
        TestApp::spawn_with(backend, |_| {}).await
    }

    /// Like [`TestApp::spawn`], with the core's configuration adjusted by
    /// `configure` before the core starts.
    pub async fn spawn_with(backend: Backend, configure: impl FnOnce(&mut CoreConfig)) -> Option<TestApp> {
        TestApp::spawn_configured(backend, configure, |_| {}).await
    }

    /// Like [`TestApp::spawn`], with the core serving as `role`.
    pub async fn spawn_as(backend: Backend, role: ServeRole) -> Option<TestApp> {
        TestApp::spawn_full(backend, |_| {}, |_| {}, role).await
    }

    /// Like [`TestApp::spawn_with`], with the edge's rate limits (by default
    /// [`unlimited`]) adjusted by `limit`.
    pub async fn spawn_configured(
        backend: Backend,
        configure: impl FnOnce(&mut CoreConfig),
        limit: impl FnOnce(&mut RateLimitConfig),
    ) -> Option<TestApp> {
        TestApp::spawn_full(backend, configure, limit, ServeRole::All).await
    }

    async fn spawn_full(
        backend: Backend,
        configure: impl FnOnce(&mut CoreConfig),
        limit: impl FnOnce(&mut RateLimitConfig),
        role: ServeRole,
    ) -> Option<TestApp> {
        let database = match backend {
            Backend::Sqlite => DatabaseGuard::sqlite(),
            Backend::Postgres => DatabaseGuard::postgres().await?,
        };
        let listeners = Listeners::bind().await;
        let (base_url, grpc_url, metrics_url) = (
            listeners.base_url.clone(),
            listeners.grpc_url.clone(),
            listeners.metrics_url.clone(),
        );
        let mut config = CoreConfig {
            grpc_addr: grpc_url.clone(),
            metrics_addr: metrics_url.clone(),
            public_base_url: base_url.clone(),
            ..courier_store::testing::config(&database.url, database.blob_dir.clone())
        };
        configure(&mut config);
        let mut limits = unlimited();
        limit(&mut limits);
        let clock = Clock::default();
        let core = courier_server::serving::open_core(config, clock.clone())
            .await
            .expect("core starts");
        let (servers, edge) = listeners.serve(&core, &limits, role);

        let now = clock.now().timestamp();
        let admin_token =
            service_token::mint(&core.secrets.service_token, Role::Admin, "e2e", now, 3600).expect("token");
        let mut app = TestApp {
            base_url,
            grpc_url,
            // Pooled connections are dropped well before the edge closes
            // an idle one (`HttpTimeouts::header`, 20 s): a request sent on
            // a connection the edge is closing fails as an incomplete
            // message.
            http: reqwest::Client::builder()
                .no_proxy()
                .pool_idle_timeout(Duration::from_secs(10))
                .build()
                .expect("client"),
            core,
            clock,
            admin_token,
            workspace_id: String::new(),
            test_key: String::new(),
            live_key: String::new(),
            metrics_url,
            edge,
            servers,
            database,
        };
        let workspace = app
            .create_workspace(admin_pb::WorkspaceKind::Business, Default::default())
            .await;
        app.test_key = app.create_key(&workspace, courier::v1::Mode::Test, &[]).await;
        app.live_key = app.create_key(&workspace, courier::v1::Mode::Live, &[]).await;
        app.workspace_id = workspace;
        Some(app)
    }

    /// Restarts the core: stops its gRPC server, workers and the edge (the
    /// workers finish what they are doing), then starts a new core, workers
    /// and edge on the same database and clock, on new ports.
    pub async fn restart_core(&mut self) {
        self.servers.stop.cancel();
        while self.servers.workers.join_next().await.is_some() {}
        self.servers.serving = None;
        let listeners = Listeners::bind().await;
        let mut config = (*self.core.config).clone();
        config.grpc_addr = listeners.grpc_url.clone();
        config.metrics_addr = listeners.metrics_url.clone();
        config.public_base_url = listeners.base_url.clone();
        let core = courier_server::serving::open_core(config, self.clock.clone())
            .await
            .expect("core restarts");
        let (base_url, grpc_url, metrics_url) = (
            listeners.base_url.clone(),
            listeners.grpc_url.clone(),
            listeners.metrics_url.clone(),
        );
        let (servers, edge) = listeners.serve(&core, &unlimited(), ServeRole::All);
        (self.core, self.servers, self.edge) = (core, servers, edge);
        (self.base_url, self.grpc_url, self.metrics_url) = (base_url, grpc_url, metrics_url);
    }

    /// Shuts down as the binaries do on SIGTERM: the core's streams end,
    /// the edge refuses new connections and finishes its requests in
    /// flight, then the core turns health `NOT_SERVING`, finishes its
    /// calls, and its workers their work.
    pub async fn shutdown(&mut self) {
        self.core.stopping.cancel();
        self.servers.edge_stop.cancel();
        (&mut self.servers.edge).await.expect("edge task").expect("edge served");
        self.servers.stop.cancel();
        (&mut self.servers.core).await.expect("core task").expect("core served");
        while self.servers.workers.join_next().await.is_some() {}
        // The process would exit now: its claim on a SQLite file ends.
        self.servers.serving = None;
    }

    /// The URL of this app's database.
    pub fn database_url(&self) -> &str {
        &self.database.url
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.expect("body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        Answer { status, body, headers }
    }

    pub async fn get(&self, path: &str, key: &str) -> Answer {
        self.send(self.http.get(self.url(path)).header("x-api-key", key)).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Answer {
        self.send(self.http.post(self.url(path)).header("x-api-key", key).json(body))
            .await
    }

    /// The metrics page at `metrics_url` (this app's, or a replica's), as
    /// text.
    pub async fn metrics_text(&self, metrics_url: &str) -> String {
        let answer = self.http.get(metrics_url).send().await.expect("metrics answer");
        answer.text().await.expect("metrics text")
    }

    /// Series `name` of the metrics page at `metrics_url`, summed over its
    /// lines whose labels contain `labels` (0 before its first count).
    pub async fn metric(&self, metrics_url: &str, name: &str, labels: &str) -> f64 {
        (self.metrics_text(metrics_url).await.lines())
            .filter(|line| line.starts_with(name) && line.contains(labels))
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    /// `POST` with an `Idempotency-Key`.
    pub async fn post_idempotent(&self, path: &str, key: &str, idempotency_key: &str, body: &Value) -> Answer {
        let request = self
            .http
            .post(self.url(path))
            .header("x-api-key", key)
            .header("idempotency-key", idempotency_key);
        self.send(request.json(body)).await
    }

    /// Creates a delivery with a fresh idempotency key; panics unless 201.
    pub async fn create_delivery(&self, key: &str, body: &Value) -> Value {
        let answer = self
            .post_idempotent("/v1/deliveries", key, &unique_suffix(), body)
            .await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        answer.body
    }

    /// An admin gRPC client; `admin_request` adds the service token.
    pub async fn admin(&self) -> AdminServiceClient<Channel> {
        AdminServiceClient::connect(self.grpc_url.clone())
            .await
            .expect("admin client")
    }

    pub fn admin_request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let value = format!("Bearer {}", self.admin_token).parse().expect("metadata");
        request.metadata_mut().insert("authorization", value);
        request
    }

    /// A dispatch gRPC client; `dispatch_request` adds a dispatch service token.
    pub async fn dispatch(&self) -> DispatchServiceClient<Channel> {
        DispatchServiceClient::connect(self.grpc_url.clone())
            .await
            .expect("dispatch client")
    }

    pub fn dispatch_request<T>(&self, message: T) -> tonic::Request<T> {
        self.service_request(Role::Dispatch, message)
    }

    /// A billing gRPC client; `billing_request` adds a billing service token.
    pub async fn billing(&self) -> BillingServiceClient<Channel> {
        BillingServiceClient::connect(self.grpc_url.clone())
            .await
            .expect("billing client")
    }

    pub fn billing_request<T>(&self, message: T) -> tonic::Request<T> {
        self.service_request(Role::Billing, message)
    }

    /// `message` with a fresh service token of `role`.
    pub fn service_request<T>(&self, role: Role, message: T) -> tonic::Request<T> {
        let now = self.clock.now().timestamp();
        let token = service_token::mint(&self.core.secrets.service_token, role, "e2e-service", now, 600)
            .expect("service token");
        let mut request = tonic::Request::new(message);
        let value = format!("Bearer {token}").parse().expect("metadata");
        request.metadata_mut().insert("authorization", value);
        request
    }

    /// Polls `GET /v1/deliveries/{id}` until its status is `status`; fails
    /// after `limit`, showing the last answer.
    pub async fn wait_for_status(&self, key: &str, id: &str, status: &str, limit: Duration) -> Value {
        wait_until(format!("delivery {id} {status}"), limit, async || {
            let answer = self.get(&format!("/v1/deliveries/{id}"), key).await;
            assert_eq!(answer.status, 200, "{:#}", answer.body);
            if answer.body["status"] == status {
                Ok(answer.body)
            } else {
                Err(answer.body)
            }
        })
        .await
    }

    /// The events of delivery `id`, oldest first, as `(type, data.status)`.
    pub async fn delivery_events(&self, key: &str, id: &str) -> Vec<(String, String)> {
        let answer = self.get(&format!("/v1/events?delivery_id={id}&limit=100"), key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let mut events: Vec<(String, String)> = answer.body["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| {
                let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
                (text(&e["type"]), text(&e["data"]["status"]))
            })
            .collect();
        events.reverse();
        events
    }

    /// A workspace with invoice billing enabled and a generous credit limit,
    /// unless `billing` says otherwise.
    pub async fn create_workspace(&self, kind: admin_pb::WorkspaceKind, plan: admin_pb::Plan) -> String {
        self.create_workspace_with(
            kind,
            plan,
            admin_pb::BillingState {
                invoice_billing_enabled: true,
                credit_limit_cents: 10_000_000,
                ..Default::default()
            },
        )
        .await
    }

    pub async fn create_workspace_with(
        &self,
        kind: admin_pb::WorkspaceKind,
        plan: admin_pb::Plan,
        billing: admin_pb::BillingState,
    ) -> String {
        let request = admin_pb::CreateWorkspaceRequest {
            name: "E2E workspace".into(),
            kind: kind as i32,
            plan: Some(plan),
            billing: Some(billing),
        };
        let answer = self
            .admin()
            .await
            .create_workspace(self.admin_request(request))
            .await
            .expect("create workspace");
        answer.into_inner().workspace.expect("workspace").id
    }

    /// A key of `workspace`; no permissions means all the workspace offers.
    pub async fn create_key(&self, workspace: &str, mode: courier::v1::Mode, permissions: &[&str]) -> String {
        self.create_key_with(workspace, mode, permissions, admin_pb::KeyExpiry::Never)
            .await
            .1
    }

    /// Returns the key's id and its secret.
    pub async fn create_key_with(
        &self,
        workspace: &str,
        mode: courier::v1::Mode,
        permissions: &[&str],
        expiry: admin_pb::KeyExpiry,
    ) -> (String, String) {
        let request = admin_pb::CreateApiKeyRequest {
            workspace_id: workspace.into(),
            mode: mode as i32,
            label: "e2e".into(),
            permissions: permissions.iter().map(|p| p.to_string()).collect(),
            expiry: expiry as i32,
        };
        let answer = self
            .admin()
            .await
            .create_api_key(self.admin_request(request))
            .await
            .expect("create key");
        let answer = answer.into_inner();
        (answer.api_key.expect("key").id, answer.secret)
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.servers.stop.cancel();
    }
}

/// Another core replica with its own workers and edge, on the PostgreSQL
/// database of a [`TestApp`] (a SQLite database is served by one process).
pub struct Replica {
    pub base_url: String,
    pub grpc_url: String,
    pub metrics_url: String,
    servers: Servers,
}

impl TestApp {
    /// Starts a replica beside this app's core, and waits until both hear
    /// each other's cache announcements.
    pub async fn spawn_replica(&self) -> Replica {
        self.spawn_replica_as(ServeRole::All).await
    }

    /// Like [`TestApp::spawn_replica`], the replica serving as `role`.
    pub async fn spawn_replica_as(&self, role: ServeRole) -> Replica {
        let listeners = Listeners::bind().await;
        let mut config = (*self.core.config).clone();
        config.grpc_addr = listeners.grpc_url.clone();
        config.metrics_addr = listeners.metrics_url.clone();
        config.public_base_url = listeners.base_url.clone();
        let core = courier_server::serving::open_core(config, self.clock.clone())
            .await
            .expect("replica starts");
        let (base_url, grpc_url, metrics_url) = (
            listeners.base_url.clone(),
            listeners.grpc_url.clone(),
            listeners.metrics_url.clone(),
        );
        let (servers, _edge) = listeners.serve(&core, &unlimited(), role);
        for feed in [&self.core.cache_feed, &core.cache_feed] {
            let what = "both replicas' announcement listeners";
            wait_until(what, Duration::from_secs(10), async || {
                if feed.is_connected() {
                    Ok(())
                } else {
                    Err("not connected")
                }
            })
            .await;
        }
        Replica {
            base_url,
            grpc_url,
            metrics_url,
            servers,
        }
    }
}

impl Replica {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.servers.stop.cancel();
    }
}

/// Another edge on a [`TestApp`]'s core, with rate limits of its own and its
/// own metrics listener (the REST API alone, no console).
pub struct TestEdge {
    pub base_url: String,
    pub metrics_url: String,
    stop: CancellationToken,
}

impl TestApp {
    /// Starts another edge on this app's core with `limits`.
    pub async fn spawn_edge(&self, limits: &RateLimitConfig) -> TestEdge {
        self.spawn_edge_to(&self.grpc_url, limits).await
    }

    /// Starts another edge on the cores `core_url` names (`COURIER_CORE_URL`).
    pub async fn spawn_edge_to(&self, core_url: &str, limits: &RateLimitConfig) -> TestEdge {
        let listeners = Listeners::bind().await;
        let edge = EdgeState::new(
            CoreClients::connect_lazy(core_url).expect("edge channel"),
            &listeners.base_url,
            limits,
        )
        .expect("edge state");
        let stop = CancellationToken::new();
        let mut registry = Registry::default();
        edge.metrics.register(&mut registry);
        tokio::spawn(courier::ops::serve_metrics(
            listeners.ops,
            vec![std::sync::Arc::new(registry)],
            stop.clone().cancelled_owned(),
        ));
        tokio::spawn(courier_edge::serve(
            edge,
            listeners.http,
            courier_edge::serving::HttpTimeouts::default(),
            stop.clone().cancelled_owned(),
        ));
        TestEdge {
            base_url: listeners.base_url,
            metrics_url: listeners.metrics_url,
            stop,
        }
    }
}

impl TestEdge {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }
}

impl Drop for TestEdge {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A database that exists for one test and is removed after it.
struct DatabaseGuard {
    url: String,
    /// The local blob store's directory (proof files), removed with it.
    blob_dir: std::path::PathBuf,
    cleanup: Cleanup,
}

enum Cleanup {
    File(std::path::PathBuf),
    Postgres { admin_url: String, name: String },
}

/// Moves delivery `id` from `from` to `to` with `change` in a transaction of
/// its own, as a mover of the core does; whether it moved.
pub async fn move_delivery(
    core: &Core,
    id: &str,
    from: courier_orders::lifecycle::Status,
    to: courier_orders::lifecycle::Status,
    change: courier_orders::deliveries::Change,
) -> bool {
    let tx = core.begin().await.expect("transaction");
    let now = core.clock.now_micros();
    let moved = courier_orders::lifecycle::compare_and_set(core, &tx, id, from, to, now, change)
        .await
        .expect("move");
    tx.commit().await.expect("commit");
    moved
}

/// Runs `requests` at the same time; their outputs in order.
pub async fn together<F>(requests: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let tasks: Vec<_> = requests.map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(tasks.len());
    for task in tasks {
        outputs.push(task.await.expect("request task"));
    }
    outputs
}

/// How long one end-to-end test may run, start-up of its servers included.
/// Past it the test fails, naming what it was waiting for.
pub const TEST_LIMIT: Duration = Duration::from_secs(120);

tokio::task_local! {
    /// The waits of the running test under way now: read when its time
    /// limit passes.
    static WAITS: Waits;
}

/// The waits under way in one test, oldest first.
#[derive(Clone, Default)]
struct Waits(std::sync::Arc<std::sync::Mutex<Vec<Wait>>>);

struct Wait {
    id: u64,
    what: String,
    last_seen: Option<String>,
}

impl Waits {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Wait>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Runs one test's body: records its wall time ([`Timing`]) and fails it
/// when it runs past [`TEST_LIMIT`], saying what it was waiting for.
pub fn limited<F: std::future::Future>(test: F) -> impl std::future::Future<Output = F::Output> {
    // Here, before the first poll: the test's thread names it.
    let timing = Timing::start();
    async move {
        let _timing = timing;
        let waits = Waits::default();
        let test = std::pin::pin!(WAITS.scope(waits.clone(), test));
        tokio::select! {
            output = test => output,
            () = tokio::time::sleep(TEST_LIMIT) => {
                // Read while the test, and so its waits, still exist.
                match waits.lock().last() {
                    Some(Wait { what, last_seen, .. }) => panic!(
                        "the test did not end within {TEST_LIMIT:?}; it was waiting for {what}; last seen: {}",
                        last_seen.as_deref().unwrap_or("nothing yet")
                    ),
                    None => panic!(
                        "the test did not end within {TEST_LIMIT:?}; it was in no wait: a call or a step of its own took that long"
                    ),
                }
            }
        }
    }
}

/// Asks `check` until it answers `Ok`, and returns that; fails the test
/// after `limit`, naming `what` it waited for and what `check` last saw
/// (its `Err`). The one way the tests wait for something to happen:
/// `courier_core::testing::wait_until`, with the wait listed for the test's
/// time limit ([`limited`]).
pub async fn wait_until<T, E: std::fmt::Display>(
    what: impl std::fmt::Display,
    limit: Duration,
    mut check: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let what = what.to_string();
    let wait = Waiting::enter(&what);
    courier_core::testing::wait_until(&what, limit, async || {
        let answer = check().await;
        if let Err(last) = &answer {
            wait.saw(format!("{last:#}"));
        }
        answer
    })
    .await
}

/// One wait listed in the test's [`WAITS`] while it lasts. Waits in tasks
/// the test spawned are not listed (the list belongs to the test's task).
struct Waiting(Option<(Waits, u64)>);

impl Waiting {
    fn enter(what: &str) -> Waiting {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let waits = WAITS.try_with(Waits::clone).ok();
        if let Some(waits) = &waits {
            let what = what.to_owned();
            waits.lock().push(Wait {
                id,
                what,
                last_seen: None,
            });
        }
        Waiting(waits.map(|waits| (waits, id)))
    }

    fn saw(&self, last: String) {
        if let Some((waits, id)) = &self.0
            && let Some(wait) = waits.lock().iter_mut().find(|wait| wait.id == *id)
        {
            wait.last_seen = Some(last);
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some((waits, id)) = &self.0 {
            waits.lock().retain(|wait| wait.id != *id);
        }
    }
}

/// A test's wall time, written to `e2e-timings.tsv` in Cargo's temporary
/// directory for integration tests (`target/tmp`) when the test ends: one
/// line per test of the last run, name and seconds, so the slow ones can be
/// listed with `sort -t$'\t' -k2 -n target/tmp/e2e-timings.tsv | tail`.
pub struct Timing {
    started: std::time::Instant,
    name: String,
}

/// The run's timings file, started empty by the run's first test.
fn timings_file() -> Option<&'static std::sync::Mutex<std::fs::File>> {
    static FILE: std::sync::OnceLock<Option<std::sync::Mutex<std::fs::File>>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-timings.tsv");
        std::fs::File::create(path).ok().map(std::sync::Mutex::new)
    })
    .as_ref()
}

impl Timing {
    pub fn start() -> Timing {
        timings_file();
        Timing {
            started: std::time::Instant::now(),
            name: std::thread::current().name().unwrap_or("unnamed").to_owned(),
        }
    }
}

impl Drop for Timing {
    fn drop(&mut self) {
        use std::io::Write;
        let line = format!("{}\t{:.2}\n", self.name, self.started.elapsed().as_secs_f64());
        if let Some(file) = timings_file() {
            let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let _ = file.write_all(line.as_bytes());
        }
    }
}

pub fn unique_suffix() -> String {
    use rand::RngExt;
    let n: u64 = rand::rng().random();
    format!("{n:016x}")
}

impl DatabaseGuard {
    fn sqlite() -> DatabaseGuard {
        let dir = std::env::temp_dir().join(format!("courier-e2e-{}", unique_suffix()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        DatabaseGuard {
            url: format!("sqlite://{}?mode=rwc", dir.join("courier.db").display()),
            blob_dir: dir.join("blobs"),
            cleanup: Cleanup::File(dir),
        }
    }

    async fn postgres() -> Option<DatabaseGuard> {
        let admin_url = std::env::var("COURIER_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let required = std::env::var("COURIER_TEST_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
        let admin = match tokio::time::timeout(Duration::from_secs(5), Database::connect(&admin_url)).await {
            Ok(Ok(db)) => db,
            failure => {
                assert!(
                    !required,
                    "PostgreSQL required but unreachable at {admin_url}: {failure:?}"
                );
                // Straight to the process's stderr: the test harness captures
                // `eprintln!` of passing tests, and a skip must not hide.
                use std::io::Write;
                let test = std::thread::current().name().unwrap_or("a test").to_owned();
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED {test}: PostgreSQL unreachable at {admin_url} (set COURIER_TEST_REQUIRE_POSTGRES=1 to fail instead)"
                );
                return None;
            }
        };
        let name = format!("courier_e2e_{}", unique_suffix());
        admin
            .execute_unprepared(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create database");
        let _ = admin.close().await;
        let base = admin_url.rsplit_once('/').map(|(base, _)| base).unwrap_or(&admin_url);
        Some(DatabaseGuard {
            url: format!("{base}/{name}"),
            blob_dir: std::env::temp_dir().join(format!("courier-e2e-blobs-{name}")),
            cleanup: Cleanup::Postgres { admin_url, name },
        })
    }
}

impl Drop for DatabaseGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.blob_dir);
        match &self.cleanup {
            Cleanup::File(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Postgres { admin_url, name } => {
                let (admin_url, name) = (admin_url.clone(), name.clone());
                // Drop runs inside the test's runtime: use a thread of its own.
                let _ = std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("runtime");
                    runtime.block_on(async {
                        if let Ok(admin) = Database::connect(&admin_url).await {
                            let _ = admin
                                .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                                .await;
                        }
                    });
                })
                .join();
            }
        }
    }
}

/// Declares each test once and runs it on SQLite and on PostgreSQL, each
/// within [`TEST_LIMIT`] ([`limited`]).
#[macro_export]
macro_rules! e2e {
    // `e2e! { with |config| …; async fn … }`: the core's configuration is
    // adjusted first (see `TestApp::spawn_with`).
    (with $configure:expr; $($tests:tt)*) => {
        $crate::e2e!(@each [|backend| $crate::harness::TestApp::spawn_with(backend, $configure)] $($tests)*);
    };
    // `e2e! { edge |limits| …; async fn … }`: the edge's rate limits are
    // adjusted first (see `TestApp::spawn_configured`).
    (edge $limit:expr; $($tests:tt)*) => {
        $crate::e2e!(@each [|backend| $crate::harness::TestApp::spawn_configured(backend, |_| {}, $limit)] $($tests)*);
    };
    (@each [$($spawn:tt)*] async fn $name:ident($app:ident: TestApp) $body:block $($rest:tt)*) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($app: $crate::harness::TestApp) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $crate::harness::limited(async {
                    let app = ($($spawn)*)($crate::harness::Backend::Sqlite).await.expect("sqlite app");
                    run(app).await;
                })
                .await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                $crate::harness::limited(async {
                    if let Some(app) = ($($spawn)*)($crate::harness::Backend::Postgres).await {
                        run(app).await;
                    }
                })
                .await;
            }
        }
        $crate::e2e!(@each [$($spawn)*] $($rest)*);
    };
    (@each [$($spawn:tt)*]) => {};
    ($(async fn $name:ident($app:ident: TestApp) $body:block)*) => {
        $crate::e2e!(@each [$crate::harness::TestApp::spawn] $(async fn $name($app: TestApp) $body)*);
    };
}
