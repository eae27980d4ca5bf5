//! Requests a hostile client sends (docs/guide.md "Conventions", "Errors"):
//! oversized headers of each kind, control characters in every free-text
//! field, filter and id, invalid UTF-8 in every path parameter and in query
//! parameters, bad and conflicting `Content-Length`, an HTTP/2 preface,
//! repeated and conflicting key and idempotency headers; and clients too
//! slow to finish a request.
//! Each is answered with a 4xx in the error shape carrying a `request_id`
//! (or, where the HTTP server refuses a request it cannot read, a bare 4xx
//! as docs/guide.md lists), never a 5xx, and stores nothing.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::{Answer, TestApp, unique_suffix};
use crate::quotes::place;

/// Writes `request` on a new connection to the edge at `base_url` and reads
/// until the edge closes it (at most 10 s): the raw answer, if any.
pub async fn exchange(base_url: &str, request: &[u8]) -> String {
    let mut stream = tokio::net::TcpStream::connect(base_url.trim_start_matches("http://"))
        .await
        .expect("connect");
    stream.write_all(request).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the edge answers and closes within 10 s")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

/// Writes `request` and reads until the edge closes the connection, however
/// long that takes: how long it took after the write, and the raw answer.
async fn stalled(address: String, request: String) -> (Duration, String) {
    let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let started = Instant::now();
    let mut answer = Vec::new();
    // A reset after the answer loses nothing already read.
    let _ = stream.read_to_end(&mut answer).await;
    (started.elapsed(), String::from_utf8_lossy(&answer).into_owned())
}

/// The JSON body of a raw answer.
fn body_of(raw: &str) -> Value {
    let (_, body) = raw.split_once("\r\n\r\n").expect("a head and a body");
    serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON body: {raw}"))
}

/// The ids of the deliveries `GET /v1/deliveries` lists for `key`.
async fn delivery_ids(app: &TestApp, key: &str) -> Vec<String> {
    let answer = app.get("/v1/deliveries?limit=100", key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    let deliveries = answer.body["deliveries"].as_array().expect("deliveries");
    deliveries
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_owned())
        .collect()
}

/// A valid delivery with every text field filled: stops, items, extras,
/// `external_id` and `notes` beside the waypoints' contacts.
fn full_delivery() -> Value {
    let mut body = crate::deliveries::berlin_delivery();
    body["stops"] = json!([place("Torstraße 1, 10119 Berlin", 52.5290, 13.4010)]);
    body["items"] = json!([{ "description": "Box", "quantity": 1, "weight_kg": 1, "length_cm": 20, "width_cm": 20, "height_cm": 20 }]);
    body["external_id"] = json!(format!("order-{}", unique_suffix()));
    body["notes"] = json!("Fragile");
    body
}

/// `body` with the string at dot path `path` set to `text`.
fn with_text(body: &Value, path: &str, text: &str) -> Value {
    let mut body = body.clone();
    let pointer = format!("/{}", path.replace('.', "/"));
    *body
        .pointer_mut(&pointer)
        .unwrap_or_else(|| panic!("{path} in the body")) = json!(text);
    body
}

async fn create_delivery(app: &TestApp, body: &Value) -> Answer {
    app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), body)
        .await
}

/// Another edge, on the core at `grpc_url`, whose server gives slow clients
/// `timeouts`; its base URL.
pub async fn edge_for(grpc_url: &str, timeouts: courier_edge::serving::HttpTimeouts) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base_url = format!("http://{}", listener.local_addr().expect("addr"));
    let clients = courier_edge::CoreClients::connect_lazy(grpc_url).expect("channel");
    let state = courier_edge::EdgeState::new(clients, &base_url, &crate::harness::unlimited()).expect("edge state");
    tokio::spawn(courier_edge::serve(state, listener, timeouts, std::future::pending()));
    base_url
}

e2e! {
    async fn oversized_headers_answer_their_own_codes(app: TestApp) {
        let key = app.test_key.clone();
        let get = |path: &str| app.http.get(app.url(path));
        let post = |path: &str, body: &Value| app.http.post(app.url(path)).json(body);

        // The key headers: the key's code, whatever their size.
        for length in [15_500, 16_000, 100_000] {
            let answer = app.send(get("/v1/vehicle-types").header("x-api-key", "k".repeat(length))).await;
            answer.assert_error(401, "invalid_api_key", Some("x-api-key"));
        }
        let bearer = format!("Bearer {}", "k".repeat(100_000));
        let answer = app.send(get("/v1/vehicle-types").header("authorization", bearer)).await;
        answer.assert_error(401, "invalid_api_key", Some("Authorization"));

        // Idempotency-Key: its own code on every route; the 255 rule on
        // creates.
        let idempotency = |length: usize| "i".repeat(length);
        let answer = app.send(get("/v1/deliveries").header("x-api-key", &key).header("idempotency-key", idempotency(20_000))).await;
        answer.assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));
        let quote = crate::quotes::berlin_quote();
        let answer = app.send(post("/v1/quotes", &quote).header("x-api-key", &key).header("idempotency-key", idempotency(20_000))).await;
        answer.assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));
        let delivery = crate::deliveries::berlin_delivery();
        for length in [256, 10_000, 300_000] {
            let request = post("/v1/deliveries", &delivery).header("x-api-key", &key).header("idempotency-key", idempotency(length));
            app.send(request).await.assert_error(400, "invalid_idempotency_key", Some("Idempotency-Key"));
        }

        // Any other header: 431, naming the largest.
        let answer = app.send(get("/v1/vehicle-types").header("x-api-key", &key).header("x-filler", "f".repeat(40_000))).await;
        answer.assert_error(431, "headers_too_large", Some("x-filler"));

        // A body whose refusal names a huge member, or echoes a huge value,
        // still reaches the core and comes back a 400.
        let mut unknown = crate::quotes::berlin_quote();
        unknown[&"m".repeat(500_000)] = json!(1);
        let answer = app.post("/v1/quotes", &key, &unknown).await;
        assert!(answer.param().is_some_and(|p| p.starts_with("mmm") && p.ends_with('…') && p.len() < 2000), "{:?}", answer.param());
        answer.assert_error(400, "invalid_request", answer.param());
        let vehicle = with_text(&crate::quotes::berlin_quote(), "vehicle_type_id", &"v".repeat(900_000));
        app.post("/v1/quotes", &key, &vehicle).await.assert_error(400, "invalid_request", Some("vehicle_type_id"));

        assert!(delivery_ids(&app, &key).await.is_empty(), "nothing is stored");
    }

    async fn control_characters_in_text_fields_filters_and_ids_are_refused_by_name(app: TestApp) {
        assert_eq!(create_delivery(&app, &full_delivery()).await.status, 201);
        let mut every = full_delivery();
        every["extras"] = json!([{ "extra_id": "insurance", "option_id": "basic" }]);
        every["quote_id"] = json!("quo_1");
        for (path, text) in [
            ("notes", "Fragile\u{0}"),
            ("external_id", "order\u{0}1"),
            ("external_id", "order\n1"),
            ("vehicle_type_id", "car\u{0}"),
            ("pickup.address", "Alexanderplatz\u{0} 1"),
            ("pickup.contact.name", "\u{1b}[31mAna"),
            ("pickup.contact.phone", "+49 30 1234\u{0}"),
            ("dropoff.contact.email", "rui\u{0}@example.com"),
            ("dropoff.instructions", "Ring\u{7}twice"),
            ("stops.0.address", "Torstraße\u{0} 1"),
            ("items.0.description", "Box\u{7f}"),
            ("extras.0.extra_id", "insurance\u{0}"),
            ("extras.0.option_id", "basic\u{85}"),
            ("quote_id", "quo_\u{0}"),
        ] {
            let answer = create_delivery(&app, &with_text(&every, path, text)).await;
            answer.assert_error(400, "invalid_request", Some(path));
            let message = answer.body["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("control characters"), "{:#}", answer.body);
        }
        let quote = with_text(&crate::quotes::berlin_quote(), "pickup.address", "Alexanderplatz\u{0}");
        app.post("/v1/quotes", &app.test_key, &quote).await.assert_error(400, "invalid_request", Some("pickup.address"));

        // The key is checked first, and the refusal is not kept under the
        // idempotency key: the corrected request with it creates.
        let bad = with_text(&full_delivery(), "notes", "\u{0}");
        let keyless = app.http.post(app.url("/v1/deliveries")).header("idempotency-key", "k1").json(&bad);
        app.send(keyless).await.assert_error(401, "missing_api_key", None);
        app.post_idempotent("/v1/deliveries", &app.test_key, "k1", &bad).await.assert_error(400, "invalid_request", Some("notes"));
        let retried = app.post_idempotent("/v1/deliveries", &app.test_key, "k1", &full_delivery()).await;
        assert_eq!((retried.status, retried.header("idempotent-replayed")), (201, None), "{:#}", retried.body);

        // Free text keeps its tabs and line breaks.
        let lines = "Ring twice.\nSecond floor,\tleft.\r\n";
        let mut multiline = with_text(&full_delivery(), "notes", lines);
        multiline["dropoff"]["instructions"] = json!(lines);
        multiline["pickup"]["address"] = json!("Alexanderplatz 1\n10178 Berlin");
        let created = create_delivery(&app, &multiline).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        assert_eq!(created.body["notes"], lines);

        // Webhook endpoints and fleet orders.
        let hook = json!({ "url": "http://127.0.0.1:9/hooks", "description": "Orders" });
        let answer = app.post("/v1/webhooks", &app.test_key, &with_text(&hook, "description", "Orders\u{0}")).await;
        answer.assert_error(400, "invalid_request", Some("description"));
        let answer = app.post("/v1/webhooks", &app.test_key, &with_text(&hook, "url", "http://127.0.0.1:9/\u{0}")).await;
        answer.assert_error(400, "invalid_request", Some("url"));
        let endpoint = app.post("/v1/webhooks", &app.test_key, &hook).await;
        assert_eq!(endpoint.status, 201, "{:#}", endpoint.body);
        let endpoint_path = format!("/v1/webhooks/{}", endpoint.body["id"].as_str().expect("id"));
        let answer = crate::webhooks::patch(&app, &endpoint_path, &app.test_key, &json!({ "description": "a\u{0}" })).await;
        answer.assert_error(400, "invalid_request", Some("description"));
        let (_, fleet_key) = crate::fleet::fleet(&app, true).await;
        for path in ["customer.name", "reference", "notes", "customer_timezone"] {
            let order = with_text(&crate::fleet::full_order(), path, "x\u{0}");
            let answer = app.post_idempotent("/v1/fleet/orders", &fleet_key, &unique_suffix(), &order).await;
            answer.assert_error(400, "invalid_request", Some(path));
        }
        let placed = crate::fleet::create(&app, &fleet_key, &crate::fleet::minimal_order()).await;
        let order_path = format!("/v1/fleet/orders/{}", placed["id"].as_str().expect("id"));
        for (body, param) in [
            (json!({ "notes": "x\u{0}" }), "notes"),
            (json!({ "reference": "SO\u{1b}1" }), "reference"),
            (json!({ "customer": { "name": "Lea\u{0}", "phone": "+49 30 7654321" } }), "customer.name"),
            (json!({ "dropoff": { "instructions": 5 } }), "dropoff.instructions"),
            (json!({ "dropoff_window": "tomorrow" }), "dropoff_window"),
            (json!([1]), "body"),
        ] {
            let request = app.http.patch(app.url(&order_path)).header("x-api-key", &fleet_key).header("idempotency-key", unique_suffix());
            app.send(request.json(&body)).await.assert_error(400, "invalid_request", Some(param));
        }

        // Filters and ids: refused by name on both databases.
        for (path, param) in [
            ("/v1/deliveries?external_id=a%00b", "external_id"),
            ("/v1/deliveries?external_id=a%1Bb", "external_id"),
            ("/v1/deliveries?page_token=%00", "page_token"),
            ("/v1/events?delivery_id=del_%00", "delivery_id"),
            ("/v1/deliveries/del_%00", "delivery_id"),
            ("/v1/deliveries/del_%00/tracking", "delivery_id"),
            ("/v1/deliveries/del_%00/proof-of-delivery", "delivery_id"),
            ("/v1/events/evt_%00", "event_id"),
        ] {
            app.get(path, &app.test_key).await.assert_error(400, "invalid_request", Some(param));
        }
        let cancel = app.post("/v1/deliveries/del_%00/cancel", &app.test_key, &json!({})).await;
        cancel.assert_error(400, "invalid_request", Some("delivery_id"));
        for (method, path) in [
            ("PATCH", "/v1/webhooks/whe_%00"),
            ("DELETE", "/v1/webhooks/whe_%00"),
            ("POST", "/v1/webhooks/whe_%00/test"),
            ("POST", "/v1/webhooks/whe_%00/replay"),
        ] {
            let request = app.http.request(method.parse().expect("method"), app.url(path)).header("x-api-key", &app.test_key);
            let request = if method == "PATCH" { request.json(&json!({ "description": "d" })) } else { request };
            app.send(request).await.assert_error(400, "invalid_request", Some("webhook_id"));
        }
        app.get("/v1/fleet/orders/flo_%00", &fleet_key).await.assert_error(400, "invalid_request", Some("fleet_order_id"));
        let file = app.send(app.http.get(app.url("/v1/proof-files/art_%00?expires=1&signature=x"))).await;
        file.assert_error(400, "invalid_request", Some("artifact_id"));
        let page = app.send(app.http.get(app.url("/t/tok%00"))).await;
        assert_eq!(page.status, 404, "the tracking page names no delivery: {:?}", page.body);
        assert!(page.header("request-id").is_some_and(|id| id.starts_with("req_")));

        // Nothing else was stored.
        assert_eq!(delivery_ids(&app, &app.test_key).await.len(), 3);
        let hooks = app.get("/v1/webhooks", &app.test_key).await;
        assert_eq!(hooks.body["webhooks"].as_array().map(Vec::len), Some(1), "{:#}", hooks.body);
    }

    async fn invalid_utf8_in_paths_and_query_parameters_answers_the_error_shape(app: TestApp) {
        let (_, fleet_key) = crate::fleet::fleet(&app, true).await;
        for (method, path, param, key) in [
            ("GET", "/v1/deliveries/%FF", "delivery_id", &app.test_key),
            ("POST", "/v1/deliveries/%FF/cancel", "delivery_id", &app.test_key),
            ("GET", "/v1/deliveries/%FF/tracking", "delivery_id", &app.test_key),
            ("GET", "/v1/deliveries/%FF/proof-of-delivery", "delivery_id", &app.test_key),
            ("PATCH", "/v1/webhooks/%FF", "webhook_id", &app.test_key),
            ("DELETE", "/v1/webhooks/%C3", "webhook_id", &app.test_key),
            ("POST", "/v1/webhooks/%FF/test", "webhook_id", &app.test_key),
            ("POST", "/v1/webhooks/%FF/replay", "webhook_id", &app.test_key),
            ("GET", "/v1/events/evt_%FF", "event_id", &app.test_key),
            ("GET", "/v1/fleet/orders/%FF", "fleet_order_id", &fleet_key),
            ("GET", "/v1/proof-files/%FF?expires=1&signature=x", "artifact_id", &app.test_key),
            ("GET", "/v1/docs/%FF", "asset", &app.test_key),
            ("GET", "/v1/deliveries?external_id=%FF", "external_id", &app.test_key),
            ("GET", "/v1/events?type=%FF", "type", &app.test_key),
            ("GET", "/v1/deliveries?%FF=1", "query", &app.test_key),
        ] {
            let request = app.http.request(method.parse().expect("method"), app.url(path)).header("x-api-key", key.as_str());
            let request = if method == "PATCH" { request.json(&json!({ "description": "d" })) } else { request };
            let answer = app.send(request).await;
            answer.assert_error(400, "invalid_request", Some(param));
            let message = answer.body["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("UTF-8"), "{path}: {:#}", answer.body);
        }
        // The key is checked first.
        app.send(app.http.get(app.url("/v1/deliveries/%FF"))).await.assert_error(401, "missing_api_key", None);
        // The tracking page is a browser page: its own 404.
        let page = app.send(app.http.get(app.url("/t/%FF%FE"))).await;
        assert_eq!(page.status, 404);
        assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")));
    }

    async fn bad_and_conflicting_content_length(app: TestApp) {
        let quote = serde_json::to_string(&crate::quotes::berlin_quote()).expect("json");
        let head = |lengths: &[&str]| {
            let lengths: String = lengths.iter().map(|l| format!("Content-Length: {l}\r\n")).collect();
            format!("POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: {}\r\nContent-Type: application/json\r\n{lengths}\r\n", app.test_key)
        };
        // A body over the limit is refused by its length, at once, without
        // being read: the edge answers and closes the connection.
        let started = Instant::now();
        let answer = exchange(&app.base_url, head(&["2147483648"]).as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(2), "answered at once: {:?}", started.elapsed());
        assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
        let body = body_of(&answer);
        assert_eq!(body["error"]["code"], "request_too_large");
        assert!(body["request_id"].as_str().is_some_and(|id| answer.contains(id)), "{answer}");
        // The largest length the HTTP server reads is refused the same way.
        let answer = exchange(&app.base_url, head(&["18446744073709551613"]).as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");

        // A length that is no number, or two that differ: the HTTP server's
        // own 400 without a body (docs/guide.md "Errors").
        for lengths in [&["-1"][..], &["abc"], &["5", "6"], &["18446744073709551616"]] {
            let answer = exchange(&app.base_url, head(lengths).as_bytes()).await;
            assert!(answer.starts_with("HTTP/1.1 400 "), "{lengths:?}: {answer}");
        }
        // The same length twice is one length.
        let length = quote.len().to_string();
        let mut request = head(&[&length, &length]).replace("HTTP/1.1\r\n", "HTTP/1.1\r\nConnection: close\r\n");
        request.push_str(&quote);
        let answer = exchange(&app.base_url, request.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 201 "), "{answer}");
    }

    async fn an_http2_preface_is_answered_400_without_a_body(app: TestApp) {
        // A client speaking HTTP/2 unasked (prior knowledge): the preface
        // alone, and with the SETTINGS frame that follows it.
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        let settings = [0, 0, 0, 4, 0, 0, 0, 0, 0];
        for request in [preface.clone(), [preface.as_slice(), &settings].concat()] {
            let answer = exchange(&app.base_url, &request).await;
            assert!(answer.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{answer:?}");
            let head = answer.to_ascii_lowercase();
            assert!(head.contains("\r\ncontent-length: 0\r\n"), "{answer:?}");
            assert!(head.contains("\r\nconnection: close\r\n"), "{answer:?}");
            assert!(answer.ends_with("\r\n\r\n"), "no body: {answer:?}");
        }
        // The listener (the console's and the courier app's too) serves on.
        let answer = app.get("/v1/vehicle-types", &app.test_key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let page = app.send(app.http.get(app.url("/courier/sign-in"))).await;
        assert_eq!(page.status, 200);
    }

    async fn repeated_and_conflicting_key_and_idempotency_headers(app: TestApp) {
        let list = || app.http.get(app.url("/v1/deliveries"));
        let answer = app.send(list().header("x-api-key", &app.test_key).header("x-api-key", &app.live_key)).await;
        answer.assert_error(400, "invalid_request", Some("x-api-key"));
        let message = answer.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("x-api-key is sent 2 times"), "{message}");
        let same = app.send(list().header("x-api-key", &app.test_key).header("x-api-key", &app.test_key)).await;
        assert_eq!(same.status, 200, "{:#}", same.body);
        let bearer = |key: &str| format!("Bearer {key}");
        let answer = app.send(list().header("authorization", bearer(&app.test_key)).header("authorization", bearer(&app.live_key))).await;
        answer.assert_error(400, "invalid_request", Some("Authorization"));
        // x-api-key beside a bearer token: x-api-key is used (the live key
        // sees the live delivery, the test key would not).
        let live = crate::webhooks::live_delivery(&app).await;
        let both = app.send(list().header("x-api-key", &app.live_key).header("authorization", bearer(&app.test_key))).await;
        assert_eq!(both.status, 200, "{:#}", both.body);
        assert_eq!(both.body["deliveries"][0]["id"], json!(live));

        let create = app.http.post(app.url("/v1/deliveries")).header("x-api-key", &app.test_key)
            .header("idempotency-key", "one").header("idempotency-key", "two").json(&crate::deliveries::berlin_delivery());
        app.send(create).await.assert_error(400, "invalid_request", Some("Idempotency-Key"));
        assert!(delivery_ids(&app, &app.test_key).await.is_empty(), "nothing is stored");
    }

    async fn hostile_changes_of_a_delivery_answer_4xx_naming_the_member(app: TestApp) {
        let created = create_delivery(&app, &full_delivery()).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        let id = created.body["id"].as_str().expect("id").to_owned();
        let patch = || {
            app.http.patch(app.url(&format!("/v1/deliveries/{id}"))).header("x-api-key", &app.test_key).header("idempotency-key", unique_suffix())
        };
        let mut huge_name = serde_json::Map::new();
        huge_name.insert("m".repeat(500_000), json!(1));
        for (body, param) in [
            (json!({ "notes": "Fragile\u{0}" }), "notes"),
            (json!({ "dropoff": { "instructions": "Ring\u{7}twice" } }), "dropoff.instructions"),
            (json!({ "pickup": { "contact": { "name": "\u{1b}[31mAna", "phone": "+49 30 1234567" } } }), "pickup.contact.name"),
            (json!({ "pickup": { "contact": { "name": "Ana", "phone": "+49 30 1234\u{0}" } } }), "pickup.contact.phone"),
            (json!({ "notes": ["a"] }), "notes"),
            (json!({ "notes": { "text": "a" } }), "notes"),
            (json!({ "dropoff": "Kreuzberg" }), "dropoff"),
            (json!({ "dropoff": { "contact": { "name": 1, "phone": "+49 30 1234567" } } }), "dropoff.contact.name"),
            (json!({ "dropoff": { "contact": { "name": "Rui", "phone": "+49 30 1234567", "pin": "1" } } }), "dropoff.contact.pin"),
            (json!({ "dropoff_window": { "start": 5, "end": "2026-12-01T10:00:00Z" } }), "dropoff_window.start"),
            (json!({ "dropoff_window": { "start": "2026-12-01T09:00:00Z", "end": true } }), "dropoff_window.end"),
            (json!({ "dropoff_window": { "start": "2026-13-45T99:00:00Z", "end": "later" } }), "dropoff_window.start"),
            (json!({ "dropoff_window": [] }), "dropoff_window"),
            (json!({ "tip_cents": "500" }), "tip_cents"),
            (json!({ "tip_cents": 12.5 }), "tip_cents"),
            (json!([{ "notes": "a" }]), "body"),
            (json!("notes"), "body"),
        ] {
            let answer = app.send(patch().json(&body)).await;
            answer.assert_error(400, "invalid_request", Some(param));
        }
        let answer = app.send(patch().json(&Value::Object(huge_name))).await;
        assert!(answer.param().is_some_and(|p| p.starts_with("mmm") && p.len() < 2000), "{:?}", answer.param());
        answer.assert_error(400, "invalid_request", answer.param());
        let repeated = patch().header("content-type", "application/json").body(r#"{"notes":"a","notes":"b"}"#);
        app.send(repeated).await.assert_error(400, "invalid_request", Some("notes"));
        let cut = patch().header("content-type", "application/json").body(r#"{"notes":"#);
        app.send(cut).await.assert_error(400, "invalid_request", Some("body"));
        let huge = json!({ "notes": "n".repeat(1_100_000) });
        app.send(patch().json(&huge)).await.assert_error(413, "request_too_large", None);
        let long_notes = json!({ "notes": "n".repeat(900_000) });
        app.send(patch().json(&long_notes)).await.assert_error(400, "invalid_request", Some("notes"));
        let if_match = patch().header("if-match", "2026-12-01T10:00:00Z").header("if-match", "2026-12-01T11:00:00Z");
        app.send(if_match.json(&json!({ "notes": "a" }))).await.assert_error(400, "invalid_request", Some("If-Match"));
        let if_match = patch().header("if-match", "\"\"");
        app.send(if_match.json(&json!({ "notes": "a" }))).await.assert_error(400, "invalid_request", Some("If-Match"));
        let zero = app.http.patch(app.url("/v1/deliveries/del_%00")).header("x-api-key", &app.test_key).header("idempotency-key", "z").json(&json!({ "notes": "a" }));
        app.send(zero).await.assert_error(400, "invalid_request", Some("delivery_id"));

        // Nothing was changed (the simulator moves the delivery meanwhile).
        let unchanged = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await;
        assert_eq!((&unchanged.body["notes"], &unchanged.body["dropoff"]), (&created.body["notes"], &created.body["dropoff"]));
        let events = app.delivery_events(&app.test_key, &id).await;
        assert!(events.iter().all(|(event_type, _)| event_type != "delivery.updated"), "{events:?}");
    }

    async fn slow_clients_are_cut_off_while_others_are_served(app: TestApp) {
        let timeouts = courier_edge::serving::HttpTimeouts {
            header: Duration::from_secs(1),
            body: Duration::from_secs(1),
            request: Duration::from_secs(3),
        };
        let base_url = edge_for(&app.grpc_url, timeouts).await;
        let address = base_url.trim_start_matches("http://").to_owned();
        let key = app.test_key.clone();
        // Half a header block, then nothing; a declared body that never
        // comes; one that stops half way.
        let half_header = format!("GET /v1/vehicle-types HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\n");
        let post = |sent: &str| format!("POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{sent}");
        let half_header = tokio::spawn(stalled(address.clone(), half_header));
        let no_body = tokio::spawn(stalled(address.clone(), post("")));
        let half_body = tokio::spawn(stalled(address.clone(), post("{\"pickup\": {")));

        // Until they are dealt with, the edge serves everyone else at once.
        let client = reqwest::Client::builder().no_proxy().build().expect("client");
        let mut served = 0;
        while !(half_header.is_finished() && no_body.is_finished() && half_body.is_finished()) {
            let started = Instant::now();
            let answer = client.get(format!("{base_url}/v1/vehicle-types")).header("x-api-key", &key).send().await.expect("answer");
            assert_eq!(answer.status(), 200);
            assert!(started.elapsed() < Duration::from_millis(500), "served at once: {:?}", started.elapsed());
            served += 1;
            // A pace, not a wait: the loop ends when the slow clients are done.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(served >= 10, "served {served} requests meanwhile");

        let (waited, answer) = half_header.await.expect("task");
        assert!(answer.is_empty(), "no answer to a header block never finished: {answer}");
        assert!(waited >= Duration::from_millis(900) && waited < Duration::from_secs(3), "closed after {waited:?}");
        for stalled in [no_body, half_body] {
            let (waited, answer) = stalled.await.expect("task");
            assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
            assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
            let body = body_of(&answer);
            assert_eq!(body["error"]["code"], "request_timeout", "{answer}");
            let id = body["request_id"].as_str().unwrap_or_default();
            assert!(id.starts_with("req_") && answer.contains(&format!("request-id: {id}")), "{answer}");
            assert!(waited >= Duration::from_millis(900) && waited < Duration::from_secs(3), "answered after {waited:?}");
        }
        assert!(delivery_ids(&app, &key).await.is_empty());
    }
}
