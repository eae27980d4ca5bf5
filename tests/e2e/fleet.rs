//! Fleet orders (docs/guide.md "Fleet orders", "Idempotency") and the fleet
//! dispatch board of the internal `DispatchService`: intake with idempotency,
//! every field rule with its `param`, the fleet checks in their order, and
//! dispatchers moving board orders through the state machine with the status
//! visible publicly.

use std::collections::HashSet;
use std::time::Duration;

use courier::internal::v1 as ipb;
use courier::v1::{DeliveryStatus, Mode};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::harness::{TestApp, unique_suffix};
use crate::quotes::{alexanderplatz, kreuzberg, place};

const ORDERS: &str = "/v1/fleet/orders";

const FLEET_ORDER_FIELDS: [&str; 9] = [
    "id",
    "status",
    "reference",
    "order_id",
    "tracking_url",
    "created_at",
    "updated_at",
    "pickup_window",
    "dropoff_window",
];

/// A fleet workspace with API access and order intake (unless `intake` is
/// false); returns its id and a live key with every fleet permission.
pub async fn fleet(app: &TestApp, intake: bool) -> (String, String) {
    let plan = ipb::Plan {
        api_access: true,
        fleet_order_intake: intake,
        ..Default::default()
    };
    let workspace = app.create_workspace(ipb::WorkspaceKind::Fleet, plan).await;
    let key = app.create_key(&workspace, Mode::Live, &[]).await;
    (workspace, key)
}

/// The smallest valid fleet order inside Berlin.
pub fn minimal_order() -> Value {
    json!({
        "customer": { "name": "Lea Kundin", "phone": "+49 30 7654321" },
        "pickup": alexanderplatz(),
        "dropoff": kreuzberg(),
        "vehicle_type_id": "cargo_bike"
    })
}

/// A fleet order with every field.
pub fn full_order() -> Value {
    let mut order = minimal_order();
    order["customer"]["email"] = json!("lea@example.com");
    order["pickup"]["contact"] = json!({ "name": "Ana Sender", "phone": "+49 30 1234567" });
    order["pickup"]["instructions"] = json!("Back door");
    order["dropoff"]["contact"] =
        json!({ "name": "Rui Receiver", "phone": "+49 151 2345678", "email": "rui@example.com" });
    order["stops"] = json!([place("Torstraße 1, 10119 Berlin", 52.5290, 13.4010)]);
    order["items"] = json!([{ "description": "Flowers", "quantity": 2, "weight_kg": 1.5, "length_cm": 40, "width_cm": 30, "height_cm": 30 }]);
    order["reference"] = json!("SO-1001");
    order["requested_pickup_date"] = json!("2026-12-24");
    order["requested_pickup_time"] = json!("09:30");
    order["customer_timezone"] = json!("Europe/Berlin");
    order["notes"] = json!("Fragile");
    order
}

pub async fn create(app: &TestApp, key: &str, body: &Value) -> Value {
    let answer = app.post_idempotent(ORDERS, key, &unique_suffix(), body).await;
    assert_eq!(answer.status, 201, "{:#}", answer.body);
    answer.body
}

async fn count_orders(app: &TestApp) -> usize {
    courier_orders::fleet::entity::Entity::find()
        .all(&app.core.db)
        .await
        .expect("rows")
        .len()
}

fn id_of(order: &Value) -> String {
    order["id"].as_str().expect("id").to_owned()
}

fn order_id_of(order: &Value) -> String {
    order["order_id"].as_str().expect("order_id").to_owned()
}

/// An edit of a valid request body that breaks one rule.
type Change = Box<dyn Fn(&mut Value)>;

/// The public code of a refused gRPC call.
pub fn refused(status: &tonic::Status) -> (tonic::Code, &'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (status.code(), code.as_str(), param)
}

fn list(workspace_id: &str, status: DeliveryStatus, page_size: i32, page_token: &str) -> ipb::ListBoardOrdersRequest {
    ipb::ListBoardOrdersRequest {
        workspace_id: workspace_id.into(),
        status: status as i32,
        page_size,
        page_token: page_token.into(),
        newest_first: false,
    }
}

pub fn move_to(order_id: &str, status: DeliveryStatus) -> ipb::MoveBoardOrderRequest {
    ipb::MoveBoardOrderRequest {
        order_id: order_id.into(),
        status: status as i32,
    }
}

e2e! {
    async fn fleet_order_create_and_get(app: TestApp) {
        let (_, key) = fleet(&app, true).await;
        let answer = app.post_idempotent(ORDERS, &key, "o1", &full_order()).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        assert_eq!(answer.header("idempotent-replayed"), None);
        let order = &answer.body;
        let keys: HashSet<&str> = order.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(keys, FLEET_ORDER_FIELDS.into_iter().collect::<HashSet<_>>());
        assert!(id_of(order).starts_with("flo_"));
        assert!(order_id_of(order).starts_with("ord_"));
        assert_eq!(order["status"], "pending");
        assert_eq!(order["reference"], "SO-1001");
        assert!(order["tracking_url"].is_null());
        let created_at = order["created_at"].as_str().expect("created_at");
        assert!(created_at.ends_with('Z') && chrono::DateTime::parse_from_rfc3339(created_at).is_ok());
        assert_eq!(order["updated_at"], order["created_at"]);

        let got = app.get(&format!("{ORDERS}/{}", id_of(order)), &key).await;
        assert_eq!(got.status, 200, "{:#}", got.body);
        assert_eq!(&got.body, order);

        // Only the required fields: reference is null.
        let minimal = create(&app, &key, &minimal_order()).await;
        assert!(minimal["reference"].is_null());
        assert_ne!(id_of(&minimal), id_of(order));
        assert_ne!(order_id_of(&minimal), order_id_of(order));

        // The limits themselves are accepted.
        let mut edge_of_limits = minimal_order();
        edge_of_limits["stops"] = json!(vec![kreuzberg(); 10]);
        edge_of_limits["reference"] = json!("r".repeat(120));
        edge_of_limits["notes"] = json!("n".repeat(2000));
        edge_of_limits["customer_timezone"] = json!("America/Argentina/Buenos_Aires");
        edge_of_limits["requested_pickup_date"] = json!("2028-02-29");
        edge_of_limits["requested_pickup_time"] = json!("23:59");
        edge_of_limits["items"] = json!(vec![json!({ "description": "Box", "quantity": 1, "weight_kg": 0.5, "length_cm": 10, "width_cm": 10, "height_cm": 10 }); 100]);
        create(&app, &key, &edge_of_limits).await;
        assert_eq!(count_orders(&app).await, 3);
    }

    async fn fleet_order_idempotency(app: TestApp) {
        let (_, key) = fleet(&app, true).await;
        let body = full_order();
        app.post(ORDERS, &key, &body).await.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        app.post_idempotent(ORDERS, &key, &"k".repeat(256), &body).await
            .assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));
        assert_eq!(count_orders(&app).await, 0);

        let long = "k".repeat(255);
        let raw_post = |text: String| {
            app.http.post(app.url(ORDERS)).header("x-api-key", &key).header("idempotency-key", &long)
                .header("content-type", "application/json").body(text).send()
        };
        let response = raw_post(body.to_string()).await.expect("sent");
        assert_eq!((response.status().as_u16(), response.headers().get("idempotent-replayed")), (201, None));
        let first_bytes = response.bytes().await.expect("body");
        let first: Value = serde_json::from_slice(&first_bytes).expect("json");

        // Same key and body in another key order and spacing: the first answer, byte for byte.
        let text = format!(
            "  {{ \"vehicle_type_id\": \"cargo_bike\", \"notes\": \"Fragile\", \"reference\": \"SO-1001\",\n \"dropoff\": {}, \"pickup\": {}, \"customer\": {}, \"stops\": {}, \"items\": {}, \"customer_timezone\": \"Europe/Berlin\", \"requested_pickup_time\": \"09:30\", \"requested_pickup_date\": \"2026-12-24\" }}",
            body["dropoff"], body["pickup"], body["customer"], body["stops"], body["items"]
        );
        let response = raw_post(text).await.expect("sent");
        assert_eq!(response.status().as_u16(), 201);
        assert_eq!(response.headers().get("idempotent-replayed").and_then(|v| v.to_str().ok()), Some("true"));
        assert_eq!(response.bytes().await.expect("body"), first_bytes);
        let got = app.get(&format!("{ORDERS}/{}", id_of(&first)), &key).await;
        assert_eq!(got.body, first);

        // Same key, other body.
        let mut other = body.clone();
        other["notes"] = json!("Not fragile");
        app.post_idempotent(ORDERS, &key, &long, &other).await.assert_error(409, "idempotency_key_reused", Some("Idempotency-Key"));
        assert_eq!(count_orders(&app).await, 1);

        // Keys are scoped by endpoint: the same key creates a delivery.
        let delivery = app.post_idempotent("/v1/deliveries", &key, &long, &crate::deliveries::berlin_delivery()).await;
        assert_eq!(delivery.status, 201, "{:#}", delivery.body);
        assert!(delivery.body["id"].as_str().expect("id").starts_with("del_"));

        // A refusal is part of the key's answer and replayed as well.
        let mut invalid = body.clone();
        invalid["reference"] = json!("");
        let refused = app.post_idempotent(ORDERS, &key, "bad", &invalid).await;
        refused.assert_error(400, "invalid_request", Some("reference"));
        let again = app.post_idempotent(ORDERS, &key, "bad", &invalid).await;
        assert_eq!((again.status, again.code(), again.param()), (400, "invalid_request", Some("reference")));
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.body, refused.body);

        // Concurrent requests with one key make exactly one order.
        let same = unique_suffix();
        let post = || app.post_idempotent(ORDERS, &key, &same, &body);
        let (a, b, c, d, e, f) = tokio::join!(post(), post(), post(), post(), post(), post());
        let mut ids = HashSet::new();
        for answer in [a, b, c, d, e, f] {
            match answer.status {
                201 => { ids.insert(id_of(&answer.body)); }
                _ => answer.assert_error(409, "request_in_progress", Some("Idempotency-Key")),
            }
        }
        assert_eq!(ids.len(), 1);
        assert_eq!(count_orders(&app).await, 2);

        // A crash after the commit: the retry replays the stored order.
        app.core.faults.fail_after_commit.store(true, std::sync::atomic::Ordering::SeqCst);
        let crashed = app.post_idempotent(ORDERS, &key, "crash", &body).await;
        assert_eq!(crashed.status, 500, "{:#}", crashed.body);
        let retry = app.post_idempotent(ORDERS, &key, "crash", &body).await;
        assert_eq!((retry.status, retry.header("idempotent-replayed")), (201, Some("true")));
        assert_eq!(count_orders(&app).await, 3);
    }

    async fn fleet_order_field_rules(app: TestApp) {
        let (_, key) = fleet(&app, true).await;
        let four_stops = json!(vec![kreuzberg(); 4]);
        let item = json!({ "description": "Box", "quantity": 1, "weight_kg": 2.0, "length_cm": 20, "width_cm": 20, "height_cm": 20 });
        let cases: Vec<(&str, Change, &str, &str)> = vec![
            ("customer missing", Box::new(|b| { b.as_object_mut().expect("o").remove("customer"); }), "invalid_request", "customer"),
            ("customer name empty", Box::new(|b| b["customer"]["name"] = json!("")), "invalid_request", "customer.name"),
            ("customer name long", Box::new(|b| b["customer"]["name"] = json!("n".repeat(201))), "invalid_request", "customer.name"),
            ("customer phone missing", Box::new(|b| { b["customer"].as_object_mut().expect("o").remove("phone"); }), "invalid_request", "customer.phone"),
            ("customer phone short", Box::new(|b| b["customer"]["phone"] = json!("+491")), "invalid_request", "customer.phone"),
            ("customer phone national", Box::new(|b| b["customer"]["phone"] = json!("030 1234567")), "invalid_request", "customer.phone"),
            ("customer email", Box::new(|b| b["customer"]["email"] = json!("lea@")), "invalid_request", "customer.email"),
            ("customer unknown field", Box::new(|b| b["customer"]["company"] = json!("x")), "invalid_request", "customer.company"),
            ("pickup missing", Box::new(|b| { b.as_object_mut().expect("o").remove("pickup"); }), "invalid_request", "pickup"),
            ("pickup address short", Box::new(|b| b["pickup"]["address"] = json!("ab")), "invalid_request", "pickup.address"),
            ("pickup address long", Box::new(|b| b["pickup"]["address"] = json!("a".repeat(501))), "invalid_request", "pickup.address"),
            ("pickup latitude", Box::new(|b| b["pickup"]["latitude"] = json!(90.5)), "invalid_request", "pickup.latitude"),
            ("pickup longitude type", Box::new(|b| b["pickup"]["longitude"] = json!("east")), "invalid_request", "pickup.longitude"),
            ("pickup contact phone", Box::new(|b| b["pickup"]["contact"] = json!({ "name": "Ana", "phone": "12" })), "invalid_request", "pickup.contact.phone"),
            ("pickup instructions", Box::new(|b| b["pickup"]["instructions"] = json!("i".repeat(501))), "invalid_request", "pickup.instructions"),
            ("dropoff longitude", Box::new(|b| b["dropoff"]["longitude"] = json!(-180.5)), "invalid_request", "dropoff.longitude"),
            ("dropoff contact name", Box::new(|b| b["dropoff"]["contact"] = json!({ "name": "", "phone": "+49 30 1234567" })), "invalid_request", "dropoff.contact.name"),
            ("eleven stops", Box::new(|b| b["stops"] = json!(vec![kreuzberg(); 11])), "invalid_request", "stops"),
            ("stop address", { let stops = four_stops.clone(); Box::new(move |b| { b["stops"] = stops.clone(); b["stops"][3]["address"] = json!("ab"); }) }, "invalid_request", "stops.3.address"),
            ("stop latitude missing", { let stops = four_stops.clone(); Box::new(move |b| { b["stops"] = stops.clone(); b["stops"][2].as_object_mut().expect("o").remove("latitude"); }) }, "invalid_request", "stops.2.latitude"),
            ("vehicle type missing", Box::new(|b| { b.as_object_mut().expect("o").remove("vehicle_type_id"); }), "invalid_request", "vehicle_type_id"),
            ("vehicle type empty", Box::new(|b| b["vehicle_type_id"] = json!("")), "invalid_request", "vehicle_type_id"),
            ("vehicle type unknown", Box::new(|b| b["vehicle_type_id"] = json!("rocket")), "invalid_request", "vehicle_type_id"),
            ("no items", Box::new(|b| b["items"] = json!([])), "invalid_request", "items"),
            ("101 items", { let item = item.clone(); Box::new(move |b| b["items"] = json!(vec![item.clone(); 101])) }, "invalid_request", "items"),
            ("item quantity", { let item = item.clone(); Box::new(move |b| { b["items"] = json!([item.clone()]); b["items"][0]["quantity"] = json!(0); }) }, "invalid_items", "items.0.quantity"),
            ("item description", { let item = item.clone(); Box::new(move |b| { b["items"] = json!([item.clone(), item.clone()]); b["items"][1]["description"] = json!(""); }) }, "invalid_request", "items.1.description"),
            ("item weight", { let item = item.clone(); Box::new(move |b| { b["items"] = json!([item.clone()]); b["items"][0]["weight_kg"] = json!(-1); }) }, "invalid_items", "items.0.weight_kg"),
            ("item too heavy", { let item = item.clone(); Box::new(move |b| { b["items"] = json!([item.clone()]); b["items"][0]["weight_kg"] = json!(150); }) }, "vehicle_does_not_fit", "items.0"),
            ("reference empty", Box::new(|b| b["reference"] = json!("")), "invalid_request", "reference"),
            ("reference long", Box::new(|b| b["reference"] = json!("r".repeat(121))), "invalid_request", "reference"),
            ("date pattern", Box::new(|b| b["requested_pickup_date"] = json!("24.12.2026")), "invalid_request", "requested_pickup_date"),
            ("date not in calendar", Box::new(|b| b["requested_pickup_date"] = json!("2026-02-30")), "invalid_request", "requested_pickup_date"),
            ("time pattern", Box::new(|b| b["requested_pickup_time"] = json!("9:30")), "invalid_request", "requested_pickup_time"),
            ("time out of day", Box::new(|b| b["requested_pickup_time"] = json!("24:00")), "invalid_request", "requested_pickup_time"),
            ("time zone unknown", Box::new(|b| b["customer_timezone"] = json!("Mars/Olympus_Mons")), "invalid_request", "customer_timezone"),
            ("time zone long", Box::new(|b| b["customer_timezone"] = json!(format!("Europe/{}", "B".repeat(58)))), "invalid_request", "customer_timezone"),
            ("notes long", Box::new(|b| b["notes"] = json!("n".repeat(2001))), "invalid_request", "notes"),
            ("extras are not fleet fields", Box::new(|b| b["extras"] = json!([])), "invalid_request", "extras"),
            ("scheduled_at is not a fleet field", Box::new(|b| b["scheduled_at"] = json!("2026-12-24T09:30:00Z")), "invalid_request", "scheduled_at"),
        ];
        for (name, change, code, param) in cases {
            let mut body = minimal_order();
            change(&mut body);
            let answer = app.post_idempotent(ORDERS, &key, &unique_suffix(), &body).await;
            assert_eq!((answer.status, answer.code(), answer.param()), (400, code, Some(param)), "{name}: {:#}", answer.body);
            answer.assert_error(400, code, Some(param));
        }
        // A body that is not JSON.
        let request = app.http.post(app.url(ORDERS)).header("x-api-key", &key).header("idempotency-key", "nj")
            .header("content-type", "application/json").body("{not json");
        app.send(request).await.assert_error(400, "invalid_request", Some("body"));
        // Nothing was created by any refusal.
        assert_eq!(count_orders(&app).await, 0);
    }

    async fn fleet_checks_come_in_the_decided_order(app: TestApp) {
        let get_unknown = format!("{ORDERS}/flo_unknown");
        // A business workspace's keys: fleet_key_required, even for test keys.
        for key in [&app.test_key, &app.live_key] {
            app.post_idempotent(ORDERS, key, "k", &minimal_order()).await.assert_error(403, "fleet_key_required", None);
            app.get(&get_unknown, key).await.assert_error(403, "fleet_key_required", None);
        }

        // A fleet's test key: live_key_required on create and read, before the body is looked at.
        let (with_intake, _) = fleet(&app, true).await;
        let test_key = app.create_key(&with_intake, Mode::Test, &[]).await;
        app.post_idempotent(ORDERS, &test_key, "k", &minimal_order()).await.assert_error(403, "live_key_required", None);
        app.post(ORDERS, &test_key, &json!({ "bogus": 1 })).await.assert_error(403, "live_key_required", None);
        app.get(&get_unknown, &test_key).await.assert_error(403, "live_key_required", None);

        // A fleet without order intake: its test key still hears about the mode first.
        let (without_intake, live_key) = fleet(&app, false).await;
        let test_key = app.create_key(&without_intake, Mode::Test, &[]).await;
        app.get(&get_unknown, &test_key).await.assert_error(403, "live_key_required", None);
        app.post_idempotent(ORDERS, &live_key, "k", &minimal_order()).await.assert_error(403, "fleet_orders_not_available", None);
        app.get(&get_unknown, &live_key).await.assert_error(403, "fleet_orders_not_available", None);
        // The plan comes before the permission.
        let read_only = app.create_key(&without_intake, Mode::Live, &["fleet_orders:read"]).await;
        app.post_idempotent(ORDERS, &read_only, "k", &minimal_order()).await.assert_error(403, "fleet_orders_not_available", None);

        // With intake, the permission is checked last, before the body.
        let read_only = app.create_key(&with_intake, Mode::Live, &["fleet_orders:read"]).await;
        app.post_idempotent(ORDERS, &read_only, "k", &minimal_order()).await.assert_error(403, "permission_denied", None);
        app.post(ORDERS, &read_only, &json!({ "bogus": 1 })).await.assert_error(403, "permission_denied", None);
        app.get(&get_unknown, &read_only).await.assert_error(404, "not_found", None);
        let create_only = app.create_key(&with_intake, Mode::Live, &["fleet_orders:create"]).await;
        let created = create(&app, &create_only, &minimal_order()).await;
        app.get(&format!("{ORDERS}/{}", id_of(&created)), &create_only).await.assert_error(403, "permission_denied", None);
        assert_eq!(app.get(&format!("{ORDERS}/{}", id_of(&created)), &read_only).await.status, 200);
        // Only now is the body judged.
        app.post(ORDERS, &create_only, &json!({ "bogus": 1 })).await.assert_error(400, "invalid_request", Some("bogus"));
        app.post(ORDERS, &create_only, &minimal_order()).await.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        // Other methods on the collection.
        assert_eq!(app.get(ORDERS, &create_only).await.status, 405);
    }

    async fn fleet_orders_of_others_are_not_found(app: TestApp) {
        let (_, key_a) = fleet(&app, true).await;
        let (_, key_b) = fleet(&app, true).await;
        let order = create(&app, &key_a, &minimal_order()).await;
        let path = format!("{ORDERS}/{}", id_of(&order));
        assert_eq!(app.get(&path, &key_a).await.status, 200);
        app.get(&path, &key_b).await.assert_error(404, "not_found", None);
        app.get(&format!("{ORDERS}/flo_doesnotexist"), &key_a).await.assert_error(404, "not_found", None);
        // The board id is not the public id.
        app.get(&format!("{ORDERS}/{}", order_id_of(&order)), &key_a).await.assert_error(404, "not_found", None);
    }

    async fn dispatchers_work_the_fleet_board(app: TestApp) {
        let (workspace, key) = fleet(&app, true).await;
        let (other_workspace, other_key) = fleet(&app, true).await;
        let mut orders = Vec::new();
        for n in 0..3 {
            let mut body = full_order();
            body["reference"] = json!(format!("SO-{n}"));
            orders.push(create(&app, &key, &body).await);
        }
        create(&app, &other_key, &minimal_order()).await;
        let mut dispatch = app.dispatch().await;

        // Without a dispatch token the board stays closed.
        let status = dispatch.list_board_orders(list(&workspace, DeliveryStatus::Unspecified, 0, "")).await.expect_err("no token");
        assert_eq!(status.code(), tonic::Code::Unauthenticated);

        // Oldest first, two per page, then the rest; only this fleet's orders.
        let first = dispatch.list_board_orders(app.dispatch_request(list(&workspace, DeliveryStatus::Unspecified, 2, ""))).await.expect("page 1").into_inner();
        assert_eq!(first.orders.len(), 2);
        assert!(!first.next_page_token.is_empty());
        let second = dispatch.list_board_orders(app.dispatch_request(list(&workspace, DeliveryStatus::Unspecified, 2, &first.next_page_token))).await.expect("page 2").into_inner();
        assert_eq!(second.orders.len(), 1);
        assert!(second.next_page_token.is_empty());
        let board: Vec<&ipb::BoardOrder> = first.orders.iter().chain(&second.orders).collect();
        let ids: Vec<String> = board.iter().map(|o| o.order_id.clone()).collect();
        assert_eq!(ids, orders.iter().map(order_id_of).collect::<Vec<_>>());
        let top = board[0];
        assert_eq!((top.fleet_order_id.as_str(), top.workspace_id.as_str()), (id_of(&orders[0]).as_str(), workspace.as_str()));
        assert_eq!(top.status(), DeliveryStatus::Pending);
        assert_eq!(top.reference.as_deref(), Some("SO-0"));
        let customer = top.customer.as_ref().expect("customer");
        assert_eq!((customer.name.as_str(), customer.email.as_deref()), ("Lea Kundin", Some("lea@example.com")));
        assert_eq!(top.pickup.as_ref().expect("pickup").instructions.as_deref(), Some("Back door"));
        assert_eq!(top.stops.len(), 1);
        assert_eq!((top.items.len(), top.items[0].quantity), (1, 2));
        assert_eq!((top.requested_pickup_date.as_deref(), top.requested_pickup_time.as_deref()), (Some("2026-12-24"), Some("09:30")));
        assert_eq!((top.customer_timezone.as_deref(), top.notes.as_deref()), (Some("Europe/Berlin"), Some("Fragile")));

        // A page token is bound to its board and filter.
        let status = dispatch.list_board_orders(app.dispatch_request(list(&workspace, DeliveryStatus::Pending, 2, &first.next_page_token))).await.expect_err("other filter");
        assert_eq!(refused(&status), (tonic::Code::InvalidArgument, "invalid_page_token", Some("page_token".into())));
        let status = dispatch.list_board_orders(app.dispatch_request(list(&other_workspace, DeliveryStatus::Unspecified, 2, &first.next_page_token))).await.expect_err("other board");
        assert_eq!(refused(&status).1, "invalid_page_token");
        let status = dispatch.list_board_orders(app.dispatch_request(list("", DeliveryStatus::Unspecified, 0, ""))).await.expect_err("no workspace");
        assert_eq!(refused(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("workspace_id".into())));
        let status = dispatch.list_board_orders(app.dispatch_request(list(&app.workspace_id, DeliveryStatus::Unspecified, 0, ""))).await.expect_err("business");
        assert_eq!(refused(&status).1, "not_found");

        let order_id = order_id_of(&orders[0]);
        let public = format!("{ORDERS}/{}", id_of(&orders[0]));
        let got = dispatch.get_board_order(app.dispatch_request(ipb::GetBoardOrderRequest { order_id: order_id.clone() })).await.expect("get").into_inner();
        assert_eq!(got.order.as_ref(), Some(top));
        let status = dispatch.get_board_order(app.dispatch_request(ipb::GetBoardOrderRequest { order_id: "ord_unknown".into() })).await.expect_err("unknown");
        assert_eq!(refused(&status).0, tonic::Code::NotFound);

        // An illegal move is refused and changes nothing.
        let conflict = (tonic::Code::FailedPrecondition, "conflict", None);
        let status = dispatch.move_board_order(app.dispatch_request(move_to(&order_id, DeliveryStatus::AtPickup))).await.expect_err("skips a status");
        assert_eq!(refused(&status), conflict);
        let status = dispatch.move_board_order(app.dispatch_request(move_to(&order_id, DeliveryStatus::Unspecified))).await.expect_err("no status");
        assert_eq!(refused(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("status".into())));
        let status = dispatch.move_board_order(app.dispatch_request(move_to("ord_unknown", DeliveryStatus::CourierAssigned))).await.expect_err("unknown");
        assert_eq!(refused(&status).0, tonic::Code::NotFound);
        assert_eq!(app.get(&public, &key).await.body, orders[0]);

        // Legal moves, one status at a time, each visible through the public read.
        let mut updated_at = orders[0]["updated_at"].clone();
        for (to, name) in [
            (DeliveryStatus::CourierAssigned, "courier_assigned"),
            (DeliveryStatus::AtPickup, "at_pickup"),
            (DeliveryStatus::PickedUp, "picked_up"),
            (DeliveryStatus::InTransit, "in_transit"),
            (DeliveryStatus::AtDropoff, "at_dropoff"),
            (DeliveryStatus::Delivered, "delivered"),
        ] {
            app.clock.advance(Duration::from_secs(1));
            let moved = dispatch.move_board_order(app.dispatch_request(move_to(&order_id, to))).await.expect("move").into_inner();
            assert_eq!(moved.order.expect("order").status(), to);
            let read = app.get(&public, &key).await;
            assert_eq!(read.body["status"], name);
            assert_ne!(read.body["updated_at"], updated_at);
            assert_eq!(read.body["created_at"], orders[0]["created_at"]);
            updated_at = read.body["updated_at"].clone();
        }
        // An ended order moves no more.
        let status = dispatch.move_board_order(app.dispatch_request(move_to(&order_id, DeliveryStatus::Cancelled))).await.expect_err("ended");
        assert_eq!(refused(&status), conflict);
        assert_eq!(app.get(&public, &key).await.body["status"], "delivered");

        // Cancelled before the end; the board filters by status.
        let cancelled_id = order_id_of(&orders[1]);
        dispatch.move_board_order(app.dispatch_request(move_to(&cancelled_id, DeliveryStatus::Cancelled))).await.expect("cancel");
        assert_eq!(app.get(&format!("{ORDERS}/{}", id_of(&orders[1])), &key).await.body["status"], "cancelled");
        let status = dispatch.move_board_order(app.dispatch_request(move_to(&cancelled_id, DeliveryStatus::CourierAssigned))).await.expect_err("cancelled");
        assert_eq!(refused(&status), conflict);
        for (filter, expected) in [
            (DeliveryStatus::Cancelled, vec![cancelled_id.clone()]),
            (DeliveryStatus::Delivered, vec![order_id.clone()]),
            (DeliveryStatus::Pending, vec![order_id_of(&orders[2])]),
        ] {
            let page = dispatch.list_board_orders(app.dispatch_request(list(&workspace, filter, 0, ""))).await.expect("filtered").into_inner();
            assert_eq!(page.orders.iter().map(|o| o.order_id.clone()).collect::<Vec<_>>(), expected);
        }

        // The stored rows agree.
        let row = courier_orders::fleet::entity::Entity::find()
            .filter(courier_orders::fleet::entity::Column::OrderId.eq(order_id.as_str()))
            .one(&app.core.db).await.expect("query").expect("row");
        assert_eq!((row.status.as_str(), row.mode.as_str()), ("delivered", "live"));
    }
}
