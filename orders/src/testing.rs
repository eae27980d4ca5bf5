//! The rules of orders in this process for tests, without a server or the
//! network: a fresh SQLite database in a temporary directory, migrated,
//! with the test clock (`Clock::advance` moves it forward). This crate's
//! unit tests open one each ([`TestOrders::open`]); `courier_core::testing`
//! opens the whole core the same way and uses the helpers below. Always
//! compiled, like `courier_core::testing`.

use std::ops::Deref;
use std::sync::Arc;

use crate::deliveries::{self, Change, Delivery, NewDelivery};
use crate::events::{Event, EventType};
use crate::fleet::FleetOrder;
use crate::idempotency::Idempotent;
use crate::lifecycle::{self, Status};
use crate::quotes::RouteInput;
use crate::validate::{ContactInput, WaypointInput};
use crate::webhooks::endpoints::{self, NewEndpoint};
use crate::windows::Windows;
use crate::wire::Wire;
use crate::{CoreResult, Orders, Store};
use courier_identity::Identity;
use courier_identity::auth::{Mode, Principal};
use courier_identity::workspaces::{BillingSettings, Workspace};
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use courier_store::ids;
use courier_store::testing::TestDirectory;
pub use courier_store::testing::wait_until;

/// [`Orders`] on a database of its own, removed with it. No worker runs
/// unless the test starts it.
pub struct TestOrders {
    orders: Orders,
    _dir: TestDirectory,
}

impl TestOrders {
    pub async fn open() -> TestOrders {
        TestOrders::open_with(|_| {}).await
    }

    /// Like [`TestOrders::open`], with the test settings adjusted by
    /// `configure`.
    pub async fn open_with(configure: impl FnOnce(&mut CoreConfig)) -> TestOrders {
        let dir = TestDirectory::new("courier-orders-test");
        let mut config = dir.config();
        configure(&mut config);
        let store = Store::open(config, Clock::default()).await.expect("the store opens");
        let orders = Orders::new(Identity::new(store), Arc::new(TestWire)).expect("the rules of orders open");
        TestOrders { orders, _dir: dir }
    }

    /// [`workspace`] of this test's database.
    pub async fn workspace(&self, billing: Option<BillingSettings>) -> Workspace {
        workspace(self, billing).await
    }
}

impl Deref for TestOrders {
    type Target = Orders;

    fn deref(&self) -> &Orders {
        &self.orders
    }
}

/// A business workspace with invoice billing and a credit limit no test
/// reaches, unless `billing` says otherwise.
pub async fn workspace(identity: &Identity, billing: Option<BillingSettings>) -> Workspace {
    let billing = billing.unwrap_or(BillingSettings {
        invoice_billing_enabled: true,
        credit_limit_cents: 100_000_000,
        ..Default::default()
    });
    courier_identity::testing::workspace(identity, billing).await
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
pub async fn register_endpoint(orders: &Orders, principal: &Principal, events: Vec<EventType>) -> String {
    let new = NewEndpoint {
        url: "http://127.0.0.1:9/hooks".into(),
        events,
        description: None,
    };
    endpoints::create(orders, principal, new)
        .await
        .expect("endpoint")
        .endpoint
        .id
}

/// A delivery of `principal` across Berlin ([`new_delivery`]), created as
/// `POST /v1/deliveries` creates it, under a fresh idempotency key.
pub async fn create_delivery(orders: &Orders, principal: &Principal) -> CoreResult<Arc<Delivery>> {
    let key = ids::random_base62(16);
    let created = deliveries::create(
        orders,
        principal,
        Some(&key),
        key.as_bytes(),
        "req_test",
        new_delivery(),
    )
    .await?;
    deliveries::get(orders, principal, &answered_id(&created)).await
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

/// A plain test-mode delivery at pickup, across Berlin by car, for unit
/// tests to change the fields they look at.
pub fn sample_delivery() -> Delivery {
    let place = |address: &str| WaypointInput {
        address: address.into(),
        latitude: 52.5,
        longitude: 13.4,
        contact: None,
        instructions: None,
    };
    Delivery {
        id: "del_sample0000000000000001".into(),
        workspace_id: "wks_1".into(),
        mode: Mode::Test,
        status: crate::statuses::Status::AtPickup,
        external_id: None,
        quote_id: None,
        amount_cents: None,
        currency: None,
        breakdown: None,
        route: deliveries::StoredRoute {
            pickup: place("Alexanderplatz 1, 10178 Berlin"),
            dropoff: place("Oranienstraße 10, 10997 Berlin"),
            stops: vec![],
            extras: vec![],
            items: None,
        },
        vehicle_type_id: "car".into(),
        service_area_id: "berlin".into(),
        distance_km: 1.0,
        duration_min: 5,
        notes: None,
        scheduled_at: None,
        proof: deliveries::ProofRequirements::default(),
        test_scenario: None,
        tracking_token: "t".into(),
        tracking_available_at: None,
        courier: None,
        created_at: 0,
        updated_at: 0,
        cancelled_at: None,
        cancellation_reason: None,
        cancel_reason: None,
        delivered_at: None,
        next_step_at: None,
        pickup_eta: None,
        dropoff_eta: None,
        windows: Windows::default(),
        batching: deliveries::Batching::Allowed,
        promised_by: None,
        delayed_at: None,
        on_time: None,
        notifications: Default::default(),
        dropoff_pin: None,
        dropoff_pin_failures: 0,
        dropoff_pin_failed_submission: None,
        undeliverable_action: Default::default(),
        return_of: None,
        return_delivery_id: None,
        tip_cents: 0,
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
        batching: deliveries::Batching::Allowed,
        notifications: Default::default(),
        undeliverable_action: Default::default(),
        tip_cents: 0,
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
        windows: Windows::default(),
    }
}

/// Moves `delivery` to `to` with `change`, as a mover does, in a
/// transaction of its own: the delivery as it now is.
pub async fn advance(orders: &Orders, delivery: &Delivery, to: Status, change: Change) -> Delivery {
    let tx = orders.begin().await.expect("transaction");
    let now = orders.clock.now_micros();
    let moved = lifecycle::advance(orders, &tx, delivery, to, change, now)
        .await
        .expect("move")
        .expect("moved");
    tx.commit().await.expect("commit");
    moved
}
