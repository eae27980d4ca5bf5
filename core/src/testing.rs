//! A core in this process for tests, without a server or the network: a
//! fresh SQLite database in a temporary directory, migrated, with the test
//! clock (`Clock::advance` moves it forward). The domain modules' unit tests
//! open one each ([`TestCore::open`]) and call the modules directly; the
//! end-to-end harness starts its servers with the same settings
//! ([`config`]). Always compiled: a feature for it would give the
//! workspace's test build a core of its own to compile (README "Figures: building").

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::access::{act, caller::command_line};
use crate::auth::{Mode, Principal};
use crate::deliveries::{self, Delivery, NewDelivery};
use crate::events::Event;
use crate::events::EventType;
use crate::fleet::FleetOrder;
use crate::idempotency::Idempotent;
use crate::quotes::RouteInput;
use crate::validate::{ContactInput, WaypointInput};
use crate::webhooks::endpoints::{self, NewEndpoint};
use crate::wire::Wire;
use crate::workspaces::{self, BillingSettings, NewWorkspace, Plan, Workspace, WorkspaceKind};
use crate::{Core, CoreResult};
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use courier_store::ids;
pub use courier_store::testing::wait_until;

/// The master secret of every test core.
pub const SECRET_KEY: &str = "test-secret-key";

/// The settings tests run with: the simulator, the billing check and the
/// webhook retry schedule fast; plain-HTTP and loopback webhook targets
/// allowed (the tests' receivers listen on loopback); no road router.
pub fn config(database_url: &str, blob_dir: PathBuf) -> CoreConfig {
    CoreConfig {
        database_url: database_url.to_owned(),
        database_max_connections: None,
        grpc_addr: "127.0.0.1:0".into(),
        metrics_addr: "127.0.0.1:0".into(),
        shutdown_grace: Duration::from_secs(5),
        public_base_url: "http://127.0.0.1:8080".into(),
        secret_key: Some(SECRET_KEY.into()),
        simulator_step: Duration::from_millis(50),
        billing_check_every: Duration::from_millis(50),
        routing_url: String::new(),
        routing_timeout: Duration::from_secs(2),
        routing_fallback: Default::default(),
        routing_breaker_cooldown: Duration::from_secs(30),
        webhook_allow_insecure: true,
        webhook_retry_scale: 0.002,
        webhook_disable_after: 20,
        webhook_disable_window: Duration::from_secs(24 * 3600),
        catalog_file: None,
        blob_dir,
        blob_s3: Default::default(),
        // Tests that drive automatic dispatch turn it on; the others
        // assign couriers themselves.
        dispatch: courier_store::config::DispatchMode::External,
        offer_timeout: Duration::from_secs(30),
        dispatch_radius_km: 15.0,
        positions_per_second: 20.0,
        position_burst: 3_600.0,
    }
}

/// A [`Core`] on a database of its own, removed with it. No worker runs
/// unless the test starts it.
pub struct TestCore {
    core: Core,
    dir: PathBuf,
}

impl TestCore {
    pub async fn open() -> TestCore {
        TestCore::open_with(|_| {}).await
    }

    /// Like [`TestCore::open`], with [`config`] adjusted by `configure`.
    pub async fn open_with(configure: impl FnOnce(&mut CoreConfig)) -> TestCore {
        let dir = std::env::temp_dir().join(format!("courier-core-test-{}", ids::random_base62(16)));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let url = format!("sqlite://{}?mode=rwc", dir.join("courier.db").display());
        let mut config = config(&url, dir.join("blobs"));
        configure(&mut config);
        let core = Core::start(config, Clock::default(), Arc::new(TestWire))
            .await
            .expect("the core opens");
        TestCore { core, dir }
    }

    /// A business workspace with invoice billing and a credit limit no
    /// test reaches, unless `billing` says otherwise.
    pub async fn workspace(&self, billing: Option<BillingSettings>) -> Workspace {
        let new = NewWorkspace {
            name: "Test workspace".into(),
            kind: WorkspaceKind::Business,
            plan: Plan::default(),
            billing: billing.unwrap_or(BillingSettings {
                invoice_billing_enabled: true,
                credit_limit_cents: 100_000_000,
                ..Default::default()
            }),
        };
        // Made as the operator's command line makes one.
        let granted = command_line::<act::Administer>().expect("the command line administers");
        workspaces::create(self, &granted, new).await.expect("a workspace")
    }
}

impl Deref for TestCore {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

impl Drop for TestCore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The caller a key of `workspace` in `mode` is, holding every permission
/// the workspace offers.
pub fn caller(workspace: &Workspace, mode: Mode) -> Principal {
    Principal {
        workspace: workspace.clone(),
        mode,
        permissions: workspace.kind.permissions(),
        audited_as: None,
    }
}

/// An endpoint of `principal` on loopback subscribed to `events` (empty:
/// every type), registered as `POST /v1/webhooks` registers it; its id.
pub async fn register_endpoint(core: &Core, principal: &Principal, events: Vec<EventType>) -> String {
    let new = NewEndpoint {
        url: "http://127.0.0.1:9/hooks".into(),
        events,
        description: None,
    };
    endpoints::create(core, principal, new)
        .await
        .expect("endpoint")
        .endpoint
        .id
}

/// A delivery of `principal` across Berlin ([`new_delivery`]), created as
/// `POST /v1/deliveries` creates it, under a fresh idempotency key.
pub async fn create_delivery(core: &Core, principal: &Principal) -> CoreResult<Arc<Delivery>> {
    let key = ids::random_base62(16);
    let created = deliveries::create(core, principal, Some(&key), key.as_bytes(), "req_test", new_delivery()).await?;
    deliveries::get(core, principal, &answered_id(&created)).await
}

/// The id of what a test core's answer is about ([`TestWire`]).
pub fn answered_id(created: &Idempotent) -> String {
    String::from_utf8_lossy(&created.answer).into_owned()
}

/// The wire of a test core: an answer or an event's snapshot is the id of
/// the record it is about (a domain test reads the record itself); a
/// webhook body is a small JSON naming the event.
pub struct TestWire;

impl Wire for TestWire {
    fn delivery(&self, delivery: &Delivery) -> Vec<u8> {
        delivery.id.clone().into_bytes()
    }

    fn fleet_order(&self, order: &FleetOrder) -> Vec<u8> {
        order.id.clone().into_bytes()
    }

    fn event_snapshot(&self, delivery: &Delivery) -> Vec<u8> {
        delivery.id.clone().into_bytes()
    }

    fn webhook_body(&self, event: &Event) -> CoreResult<Vec<u8>> {
        let delivery_id = String::from_utf8_lossy(&event.data);
        let body = serde_json::json!({"id": event.id, "type": event.event_type.as_str(), "delivery_id": delivery_id});
        Ok(body.to_string().into_bytes())
    }

    fn sample_webhook_body(&self, id: &str, mode: Mode, _now: i64) -> CoreResult<Vec<u8>> {
        let body =
            serde_json::json!({"id": id, "type": "delivery.status_updated", "mode": mode.as_str(), "test": true});
        Ok(body.to_string().into_bytes())
    }
}

/// A delivery across Berlin by cargo bike, with the contact its dropoff
/// needs, and nothing else asked for.
pub fn new_delivery() -> NewDelivery {
    NewDelivery {
        quote_id: None,
        route: berlin_route(),
        external_id: None,
        notes: None,
        proof: None,
        test_scenario: None,
    }
}

fn berlin_route() -> RouteInput {
    let place = |address: &str, latitude: f64, longitude: f64, contact: Option<&str>| WaypointInput {
        address: address.into(),
        latitude,
        longitude,
        contact: contact.map(|name| ContactInput {
            name: name.into(),
            phone: "+49 30 1234567".into(),
            email: None,
        }),
        instructions: None,
    };
    RouteInput {
        pickup: place("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132, Some("Ana Sender")),
        dropoff: place("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190, Some("Rui Receiver")),
        stops: vec![],
        vehicle_type_id: "cargo_bike".into(),
        extras: vec![],
        items: None,
        scheduled_at: None,
    }
}
