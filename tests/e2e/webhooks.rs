//! Webhook endpoints and event delivery (docs/guide.md "Webhooks"), against
//! real receivers on loopback and an independent Standard Webhooks signature
//! check.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use courier::v1::Mode;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, wait_until};

/// The event types (docs/guide.md "Events").
pub const EVENT_TYPES: [&str; 10] = [
    "delivery.created",
    "delivery.status_updated",
    "delivery.courier_assigned",
    "delivery.courier_arrived",
    "delivery.eta_updated",
    "delivery.pod_submitted",
    "delivery.delivered",
    "delivery.cancelled",
    "delivery.delayed",
    "delivery.updated",
];

/// How a receiver answers one request.
#[derive(Clone, Debug)]
pub struct Reply {
    status: u16,
    delay: Duration,
    headers: Vec<(&'static str, String)>,
}

impl Reply {
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            delay: Duration::ZERO,
            headers: Vec::new(),
        }
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// One request a receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or_default()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

#[derive(Default)]
struct Script {
    received: Vec<Received>,
    next: VecDeque<Reply>,
    default: Option<Reply>,
}

/// A webhook receiver on a loopback port: records every request (headers and
/// raw body) and answers as scripted, `200` by default.
#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    script: Arc<Mutex<Script>>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let script = Arc::new(Mutex::new(Script::default()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind receiver");
        let url = format!("http://{}/hooks/courier", listener.local_addr().expect("addr"));
        let app = axum::Router::new().fallback(receive).with_state(script.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, script }
    }

    /// Answers the next requests with `replies`, in order, then the default.
    pub fn then(&self, replies: impl IntoIterator<Item = Reply>) -> &Self {
        self.script.lock().expect("lock").next.extend(replies);
        self
    }

    /// Answers every request not scripted with `reply`.
    pub fn always(&self, reply: Reply) -> &Self {
        self.script.lock().expect("lock").default = Some(reply);
        self
    }

    pub fn received(&self) -> Vec<Received> {
        self.script.lock().expect("lock").received.clone()
    }

    /// Waits until at least `count` requests arrived.
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        wait_until(format!("{count} webhook requests"), within, async || {
            let received = self.received();
            if received.len() >= count {
                Ok(received)
            } else {
                Err(format!("{} received", received.len()))
            }
        })
        .await
    }
}

async fn receive(State(script): State<Arc<Mutex<Script>>>, headers: HeaderMap, body: Bytes) -> Response {
    let reply = {
        let mut script = script.lock().expect("lock");
        script.received.push(Received {
            headers: headers
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), value.to_str().unwrap_or_default().to_owned()))
                .collect(),
            body: body.to_vec(),
            at: Instant::now(),
        });
        let default = script.default.clone().unwrap_or(Reply::status(200));
        script.next.pop_front().unwrap_or(default)
    };
    tokio::time::sleep(reply.delay).await;
    let mut response = StatusCode::from_u16(reply.status).expect("status").into_response();
    for (name, value) in reply.headers {
        response.headers_mut().insert(
            HeaderName::from_static(name),
            HeaderValue::from_str(&value).expect("header value"),
        );
    }
    response
}

/// The Standard Webhooks check, written from the specification: HMAC-SHA256
/// with the base64-decoded key after `whsec_`, over `id.timestamp.body`; the
/// header holds space-separated `v1,<base64>` signatures.
pub fn signature_is_valid(secret: &str, request: &Received) -> bool {
    let Some(key) = secret.strip_prefix("whsec_").and_then(|k| STANDARD.decode(k).ok()) else {
        return false;
    };
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).expect("any key length");
    mac.update(request.header("webhook-id").as_bytes());
    mac.update(b".");
    mac.update(request.header("webhook-timestamp").as_bytes());
    mac.update(b".");
    mac.update(&request.body);
    let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    let timestamp: i64 = request.header("webhook-timestamp").parse().unwrap_or(0);
    let fresh = (chrono::Utc::now().timestamp() - timestamp).abs() <= 300;
    fresh && request.header("webhook-signature").split(' ').any(|s| s == expected)
}

/// Registers an endpoint; returns its id and secret.
pub async fn create_endpoint(app: &TestApp, key: &str, url: &str, events: Value) -> (String, String) {
    let answer = app
        .post("/v1/webhooks", key, &json!({ "url": url, "events": events }))
        .await;
    assert_eq!(answer.status, 201, "{:#}", answer.body);
    (
        answer.body["id"].as_str().expect("id").to_owned(),
        answer.body["secret"].as_str().expect("secret").to_owned(),
    )
}

/// Creates a live delivery; returns its id.
pub async fn live_delivery(app: &TestApp) -> String {
    let delivery = app.create_delivery(&app.live_key, &berlin_delivery()).await;
    delivery["id"].as_str().expect("id").to_owned()
}

pub async fn patch(app: &TestApp, path: &str, key: &str, body: &Value) -> crate::harness::Answer {
    app.send(app.http.patch(app.url(path)).header("x-api-key", key).json(body))
        .await
}

pub async fn delete(app: &TestApp, path: &str, key: &str) -> crate::harness::Answer {
    app.send(app.http.delete(app.url(path)).header("x-api-key", key)).await
}

/// The event's attempts once none is under way (`pending`) and `done`
/// accepts them (polling).
pub async fn attempts_when(
    app: &TestApp,
    key: &str,
    event_id: &str,
    within: Duration,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    wait_until(format!("the attempts of {event_id} to settle"), within, async || {
        let answer = app.get(&format!("/v1/events/{event_id}"), key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let attempts = answer.body["webhook_attempts"].as_array().expect("attempts").clone();
        if attempts.iter().all(|a| a["status"] != "pending") && done(&attempts) {
            Ok(attempts)
        } else {
            Err(format!("{attempts:#?}"))
        }
    })
    .await
}

/// The newest event of `delivery_id` (live key).
pub async fn event_of(app: &TestApp, delivery_id: &str, event_type: &str) -> Value {
    let answer = app
        .get(
            &format!("/v1/events?delivery_id={delivery_id}&type={event_type}"),
            &app.live_key,
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["events"][0].clone()
}

fn ids(requests: &[Received]) -> Vec<String> {
    requests.iter().map(|r| r.header("x-event-id").to_owned()).collect()
}

const ENDPOINT_FIELDS: [&str; 8] = [
    "id",
    "url",
    "events",
    "description",
    "status",
    "disabled_reason",
    "created_at",
    "updated_at",
];

fn keys(value: &Value) -> HashSet<&str> {
    value.as_object().expect("object").keys().map(String::as_str).collect()
}

const SOON: Duration = Duration::from_secs(10);

/// Sends queued for endpoint `webhook_id`, whatever their state. Events are
/// queued in the transaction that records them, for the endpoints active
/// then: an endpoint with no row for an event never sends it.
async fn queued_for(app: &TestApp, webhook_id: &str) -> u64 {
    use courier_orders::webhooks::entity::webhook_delivery;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .count(&app.core.db)
        .await
        .expect("queued sends")
}

/// Waits until no webhook send is pending: every queued send has succeeded
/// or failed for good, its outcome written after the receiver answered, so
/// nothing more can reach a receiver until a new event is recorded.
async fn queue_settled(app: &TestApp) {
    wait_until("no webhook send pending", SOON, async || {
        let pending = courier_orders::webhooks::queue::pending_count(&app.core.db)
            .await
            .expect("pending count");
        if pending == 0 {
            Ok(())
        } else {
            Err(format!("{pending} pending"))
        }
    })
    .await;
}

e2e! {
    async fn endpoints_are_created_listed_changed_and_deleted(app: TestApp) {
        let url = "https://hooks.example.com/courier";
        let body = json!({
            "url": "http://127.0.0.1:9/hook",
            "events": ["delivery.created", "delivery.delivered"],
            "description": "Orders",
        });
        let created = app.post("/v1/webhooks", &app.test_key, &body).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        let mut expected_keys: HashSet<&str> = ENDPOINT_FIELDS.into_iter().collect();
        expected_keys.insert("secret");
        assert_eq!(keys(&created.body), expected_keys);
        let id = created.body["id"].as_str().expect("id").to_owned();
        assert!(id.starts_with("whe_"), "{id}");
        assert!(created.body["secret"].as_str().expect("secret").starts_with("whsec_"));
        assert_eq!(
            created.body["events"],
            json!(["delivery.created", "delivery.delivered"])
        );
        assert_eq!(
            (
                created.body["status"].as_str(),
                created.body["disabled_reason"].as_str()
            ),
            (Some("active"), None)
        );
        assert_eq!(created.body["description"], "Orders");
        assert!(created.body["created_at"].as_str().expect("time").ends_with('Z'));

        let listed = app.get("/v1/webhooks", &app.test_key).await;
        assert_eq!(listed.status, 200);
        let webhooks = listed.body["webhooks"].as_array().expect("webhooks");
        assert_eq!(webhooks.len(), 1);
        assert_eq!(
            keys(&webhooks[0]),
            ENDPOINT_FIELDS.into_iter().collect(),
            "no secret in lists"
        );
        // Other mode: invisible.
        let live = app.get("/v1/webhooks", &app.live_key).await;
        assert_eq!(live.body, json!({ "webhooks": [] }));
        patch(
            &app,
            &format!("/v1/webhooks/{id}"),
            &app.live_key,
            &json!({ "description": "x" }),
        )
        .await
        .assert_error(404, "not_found", None);
        delete(&app, &format!("/v1/webhooks/{id}"), &app.live_key)
            .await
            .assert_error(404, "not_found", None);
        app.post(&format!("/v1/webhooks/{id}/replay"), &app.live_key, &json!({}))
            .await
            .assert_error(404, "not_found", None);

        // PATCH: each field, and the status with its reason.
        let path = format!("/v1/webhooks/{id}");
        let changed = patch(
            &app,
            &path,
            &app.test_key,
            &json!({ "url": "http://127.0.0.1:10/other", "events": [], "description": null }),
        )
        .await;
        assert_eq!(changed.status, 200, "{:#}", changed.body);
        assert_eq!(changed.body["url"], "http://127.0.0.1:10/other");
        assert_eq!(changed.body["events"], json!([]));
        assert!(changed.body["description"].is_null());
        assert_eq!(keys(&changed.body), ENDPOINT_FIELDS.into_iter().collect());
        let disabled = patch(&app, &path, &app.test_key, &json!({ "status": "disabled" })).await;
        assert_eq!(
            (
                disabled.body["status"].as_str(),
                disabled.body["disabled_reason"].as_str()
            ),
            (Some("disabled"), Some("manual"))
        );
        app.post(&format!("/v1/webhooks/{id}/test"), &app.test_key, &json!({}))
            .await
            .assert_error(409, "endpoint_disabled", None);
        app.post(&format!("/v1/webhooks/{id}/replay"), &app.test_key, &json!({}))
            .await
            .assert_error(409, "endpoint_disabled", None);
        let active = patch(&app, &path, &app.test_key, &json!({ "status": "active" })).await;
        assert_eq!(
            (active.body["status"].as_str(), active.body["disabled_reason"].as_str()),
            (Some("active"), None)
        );

        // Bad PATCH bodies change nothing.
        patch(&app, &path, &app.test_key, &json!({ "status": "paused" }))
            .await
            .assert_error(400, "invalid_request", Some("status"));
        patch(&app, &path, &app.test_key, &json!({ "url": null }))
            .await
            .assert_error(400, "invalid_request", Some("url"));
        patch(&app, &path, &app.test_key, &json!({ "events": null }))
            .await
            .assert_error(400, "invalid_request", Some("events"));
        patch(&app, &path, &app.test_key, &json!({ "secret": "whsec_x" }))
            .await
            .assert_error(400, "invalid_request", Some("secret"));
        patch(&app, &path, &app.test_key, &json!({ "url": "ftp://example.com/x" }))
            .await
            .assert_error(400, "invalid_webhook_url", Some("url"));
        let unchanged = app.get("/v1/webhooks", &app.test_key).await;
        assert_eq!(unchanged.body["webhooks"][0], active.body);
        assert_ne!(url, active.body["url"]);

        let deleted = delete(&app, &path, &app.test_key).await;
        assert_eq!(
            (deleted.status, &deleted.body),
            (200, &json!({ "id": id, "deleted": true }))
        );
        delete(&app, &path, &app.test_key)
            .await
            .assert_error(404, "not_found", None);
        patch(&app, &path, &app.test_key, &json!({}))
            .await
            .assert_error(404, "not_found", None);
        assert_eq!(
            app.get("/v1/webhooks", &app.test_key).await.body,
            json!({ "webhooks": [] })
        );
    }

    async fn webhooks_need_the_webhooks_manage_permission(app: TestApp) {
        let reader = app
            .create_key(&app.workspace_id, Mode::Test, &["deliveries:read"])
            .await;
        app.get("/v1/webhooks", &reader)
            .await
            .assert_error(403, "permission_denied", None);
        let answer = app
            .post("/v1/webhooks", &reader, &json!({ "url": "not even a url" }))
            .await;
        answer.assert_error(403, "permission_denied", None);
        app.post("/v1/webhooks/whe_x/test", &reader, &json!({}))
            .await
            .assert_error(403, "permission_denied", None);
        app.post("/v1/webhooks", "mm_test_nope", &json!({}))
            .await
            .assert_error(401, "invalid_api_key", None);
        let manager = app
            .create_key(&app.workspace_id, Mode::Test, &["webhooks:manage"])
            .await;
        assert_eq!(app.get("/v1/webhooks", &manager).await.status, 200);
        app.get("/v1/events", &manager)
            .await
            .assert_error(403, "permission_denied", None);
    }

    async fn limits_hold_at_their_boundaries(app: TestApp) {
        // 10 endpoints per mode; the 11th is refused, the other mode is separate.
        for n in 0..10 {
            create_endpoint(&app, &app.live_key, &format!("http://127.0.0.1:9/hook{n}"), json!([])).await;
        }
        let eleventh = app
            .post(
                "/v1/webhooks",
                &app.live_key,
                &json!({ "url": "http://127.0.0.1:9/hook10" }),
            )
            .await;
        eleventh.assert_error(409, "endpoint_limit_reached", None);
        assert_eq!(
            app.get("/v1/webhooks", &app.live_key).await.body["webhooks"]
                .as_array()
                .map(Vec::len),
            Some(10)
        );

        // At most 8 entries (omitted means all).
        let all: Vec<&str> = EVENT_TYPES[..8].to_vec();
        let created = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/a", "events": all }),
            )
            .await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        assert_eq!(created.body["events"], json!(all));
        let mut nine = all.clone();
        nine.push("delivery.created");
        let answer = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/a", "events": nine }),
            )
            .await;
        answer.assert_error(400, "invalid_request", Some("events"));
        let answer = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/a", "events": ["delivery.created", "delivery.shipped"] }),
            )
            .await;
        answer.assert_error(400, "invalid_request", Some("events.1"));
        let twice = json!(["delivery.created", "delivery.cancelled", "delivery.created"]);
        let answer = app
            .post("/v1/webhooks", &app.test_key, &json!({ "url": "http://127.0.0.1:9/a", "events": twice }))
            .await;
        answer.assert_error(400, "invalid_request", Some("events.2"));
        let answer = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/a", "events": [1] }),
            )
            .await;
        answer.assert_error(400, "invalid_request", Some("events.0"));

        // url: 12 to 2000 characters.
        let base = "http://127.0.0.1:9/";
        let url_of = |chars: usize| format!("{base}{}", "a".repeat(chars - base.len()));
        let answer = app
            .post("/v1/webhooks", &app.test_key, &json!({ "url": url_of(2000) }))
            .await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        assert_eq!(answer.body["url"].as_str().map(str::len), Some(2000));
        let answer = app
            .post("/v1/webhooks", &app.test_key, &json!({ "url": url_of(2001) }))
            .await;
        answer.assert_error(400, "invalid_request", Some("url"));
        app.post("/v1/webhooks", &app.test_key, &json!({ "url": "http://a.io" }))
            .await
            .assert_error(400, "invalid_request", Some("url"));
        app.post("/v1/webhooks", &app.test_key, &json!({}))
            .await
            .assert_error(400, "invalid_request", Some("url"));
        app.post(
            "/v1/webhooks",
            &app.test_key,
            &json!({ "url": "http://127.0.0.1:9/a", "secret": "x" }),
        )
        .await
        .assert_error(400, "invalid_request", Some("secret"));

        // description: at most 500 characters.
        let answer = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/d", "description": "é".repeat(500) }),
            )
            .await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        let answer = app
            .post(
                "/v1/webhooks",
                &app.test_key,
                &json!({ "url": "http://127.0.0.1:9/d", "description": "d".repeat(501) }),
            )
            .await;
        answer.assert_error(400, "invalid_request", Some("description"));
        let id = answer_id(&app).await;
        patch(
            &app,
            &format!("/v1/webhooks/{id}"),
            &app.test_key,
            &json!({ "description": "d".repeat(501) }),
        )
        .await
        .assert_error(400, "invalid_request", Some("description"));
        patch(
            &app,
            &format!("/v1/webhooks/{id}"),
            &app.test_key,
            &json!({ "events": nine }),
        )
        .await
        .assert_error(400, "invalid_request", Some("events"));
        assert_eq!(
            app.get("/v1/webhooks", &app.test_key).await.body["webhooks"]
                .as_array()
                .map(Vec::len),
            Some(3)
        );
    }

    async fn events_are_signed_and_match_the_events_api(app: TestApp) {
        let receiver = Receiver::start().await;
        let (webhook_id, secret) = create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        let delivery_id = live_delivery(&app).await;
        let requests = receiver.wait_for(1, SOON).await;
        let request = &requests[0];
        let body = request.json();
        let event_id = body["id"].as_str().expect("id");
        assert!(event_id.starts_with("evt_"));
        assert_eq!(request.header("webhook-id"), event_id);
        assert_eq!(request.header("x-event-id"), event_id);
        assert_eq!(request.header("content-type"), "application/json");
        assert!(request.header("user-agent").starts_with("Courier-Webhooks/"));
        assert!(signature_is_valid(&secret, request), "{:?}", request.headers);
        assert!(!signature_is_valid("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", request));
        assert_eq!(body["type"], "delivery.created");
        assert_eq!(body["version"], "2026-11");
        assert_eq!(body["data"]["id"], delivery_id.as_str());
        let delivery = app
            .get(&format!("/v1/deliveries/{delivery_id}"), &app.live_key)
            .await
            .body;
        assert_eq!(body["data"], delivery, "data is the delivery as the API shows it");

        // The events API shows the same event, plus its attempts.
        let attempts = attempts_when(&app, &app.live_key, event_id, SOON, |a| !a.is_empty()).await;
        let details = app.get(&format!("/v1/events/{event_id}"), &app.live_key).await.body;
        let mut event = details.clone();
        event.as_object_mut().expect("object").remove("webhook_attempts");
        assert_eq!(event, body);
        assert_eq!(attempts.len(), 1);
        assert_eq!(
            keys(&attempts[0]),
            [
                "webhook_id",
                "attempted_at",
                "status",
                "response_code",
                "latency_ms",
                "error"
            ]
            .into_iter()
            .collect()
        );
        assert_eq!(attempts[0]["webhook_id"], webhook_id.as_str());
        assert_eq!(attempts[0]["status"], "succeeded");
        assert_eq!(attempts[0]["response_code"], 200);
        assert!(attempts[0]["latency_ms"].as_i64().is_some_and(|ms| ms >= 0));
        assert!(attempts[0]["error"].is_null());

        // The sample event: signed, data.test true, not listed.
        let answer = app
            .post(&format!("/v1/webhooks/{webhook_id}/test"), &app.live_key, &json!({}))
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert_eq!(
            keys(&answer.body),
            ["event_id", "succeeded", "response_code", "latency_ms", "error"]
                .into_iter()
                .collect()
        );
        assert_eq!(
            (
                answer.body["succeeded"].as_bool(),
                answer.body["response_code"].as_i64()
            ),
            (Some(true), Some(200))
        );
        assert!(answer.body["error"].is_null() && answer.body["latency_ms"].is_i64());
        let requests = receiver.wait_for(2, SOON).await;
        let sample = &requests[1];
        assert_eq!(
            sample.header("x-event-id"),
            answer.body["event_id"].as_str().expect("id")
        );
        assert!(signature_is_valid(&secret, sample));
        let sample_body = sample.json();
        assert_eq!(sample_body["type"], "delivery.status_updated");
        assert_eq!(
            (
                sample_body["data"]["test"].as_bool(),
                sample_body["data"]["status"].as_str()
            ),
            (Some(true), Some("picked_up"))
        );
        assert_eq!(sample_body["data"]["mode"], "live");
        app.get(
            &format!("/v1/events/{}", sample_body["id"].as_str().expect("id")),
            &app.live_key,
        )
        .await
        .assert_error(404, "not_found", None);
        let listed = app.get("/v1/events", &app.live_key).await.body;
        assert!(
            listed["events"]
                .as_array()
                .expect("events")
                .iter()
                .all(|e| e["id"] != sample_body["id"])
        );
        app.post(
            &format!("/v1/webhooks/{webhook_id}/test"),
            &app.live_key,
            &json!({ "x": 1 }),
        )
        .await
        .assert_error(400, "invalid_request", Some("x"));
        app.post("/v1/webhooks/whe_unknown/test", &app.live_key, &json!({}))
            .await
            .assert_error(404, "not_found", None);
    }

    async fn sample_event_reports_a_failing_receiver(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(503));
        let (webhook_id, _) = create_endpoint(&app, &app.test_key, &receiver.url, json!(["delivery.cancelled"])).await;
        let answer = app
            .post(&format!("/v1/webhooks/{webhook_id}/test"), &app.test_key, &json!({}))
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert_eq!(
            (
                answer.body["succeeded"].as_bool(),
                answer.body["response_code"].as_i64()
            ),
            (Some(false), Some(503))
        );
        assert!(answer.body["error"].as_str().is_some_and(|e| e.contains("503")));
        queue_settled(&app).await;
        assert_eq!(receiver.received().len(), 1, "the sample is sent once, never retried");
        assert_eq!(receiver.received()[0].json()["data"]["mode"], "test");
    }

    async fn retryable_answers_are_retried_with_the_same_event(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.then([Reply::status(500), Reply::status(429).header("retry-after", "1")]);
        let (_, secret) = create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        live_delivery(&app).await;
        let requests = receiver.wait_for(3, SOON).await;
        let first = &requests[0];
        for request in &requests {
            assert_eq!(request.header("x-event-id"), first.header("x-event-id"));
            assert_eq!(request.header("webhook-id"), first.header("x-event-id"));
            assert_eq!(request.body, first.body, "the same bytes every time");
            assert!(signature_is_valid(&secret, request));
        }
        let after_429 = requests[2].at - requests[1].at;
        assert!(
            after_429 >= Duration::from_millis(990),
            "Retry-After: 1 honoured, waited {after_429:?}"
        );
        let event_id = first.header("x-event-id").to_owned();
        let attempts = attempts_when(&app, &app.live_key, &event_id, SOON, |a| a.len() == 3).await;
        let summary: Vec<(&str, Option<i64>)> = attempts
            .iter()
            .map(|a| (a["status"].as_str().expect("status"), a["response_code"].as_i64()))
            .collect();
        assert_eq!(
            summary,
            [("failed", Some(500)), ("failed", Some(429)), ("succeeded", Some(200))]
        );
        assert!(attempts[0]["error"].as_str().is_some_and(|e| e.contains("500")));
        queue_settled(&app).await;
        assert_eq!(receiver.received().len(), 3);
    }

    async fn client_errors_are_not_retried(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.then([Reply::status(400), Reply::status(404)]);
        create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        live_delivery(&app).await;
        let requests = receiver.wait_for(1, SOON).await;
        let event_id = requests[0].header("x-event-id").to_owned();
        let attempts = attempts_when(&app, &app.live_key, &event_id, SOON, |a| !a.is_empty()).await;
        queue_settled(&app).await;
        assert_eq!(receiver.received().len(), 1, "a 400 is final");
        assert_eq!(attempts.len(), 1);
        assert_eq!(
            (attempts[0]["status"].as_str(), attempts[0]["response_code"].as_i64()),
            (Some("failed"), Some(400))
        );
    }

    async fn network_errors_are_retried(app: TestApp) {
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("addr")
        };
        create_endpoint(&app, &app.live_key, &format!("http://{closed}/hook"), json!([])).await;
        let delivery_id = live_delivery(&app).await;
        let event = event_of(&app, &delivery_id, "delivery.created").await;
        let attempts = attempts_when(&app, &app.live_key, event["id"].as_str().expect("id"), SOON, |a| {
            a.len() >= 3
        })
        .await;
        for attempt in &attempts[..2] {
            assert_eq!(attempt["status"], "failed");
            assert!(attempt["response_code"].is_null());
            assert!(
                attempt["error"].as_str().is_some_and(|e| e.contains("connect")),
                "{attempt}"
            );
        }
    }

    async fn a_slow_receiver_times_out_and_is_retried(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.then([Reply::status(200).after(Duration::from_secs(7))]);
        create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        live_delivery(&app).await;
        let requests = receiver.wait_for(2, Duration::from_secs(15)).await;
        assert_eq!(requests[0].header("x-event-id"), requests[1].header("x-event-id"));
        let gap = requests[1].at - requests[0].at;
        assert!(
            gap >= Duration::from_millis(4900),
            "the first attempt ran into the 5 s timeout ({gap:?})"
        );
        let event_id = requests[0].header("x-event-id").to_owned();
        let attempts = attempts_when(&app, &app.live_key, &event_id, SOON, |a| a.len() == 2).await;
        assert_eq!(attempts[0]["status"], "failed");
        assert!(attempts[0]["response_code"].is_null());
        assert!(
            attempts[0]["latency_ms"]
                .as_i64()
                .is_some_and(|ms| (4900..6500).contains(&ms)),
            "{}",
            attempts[0]
        );
        assert!(attempts[0]["error"].as_str().is_some_and(|e| e.contains("5 seconds")));
        assert_eq!(attempts[1]["status"], "succeeded");
    }

    async fn retries_follow_the_scaled_schedule_and_stop_after_eight(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(503));
        create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        live_delivery(&app).await;
        let requests = receiver.wait_for(8, Duration::from_secs(20)).await;
        // Scale 0.002: 5 s, 30 s, 2 min, 5 min, 10 min, 15 min, 15 min become
        // 10, 60, 240, 600, 1200, 1800, 1800 ms (±10 % jitter).
        let expected = [10.0, 60.0, 240.0, 600.0, 1200.0, 1800.0, 1800.0];
        let gaps: Vec<f64> = requests
            .windows(2)
            .map(|w| (w[1].at - w[0].at).as_secs_f64() * 1000.0)
            .collect();
        // Each retry waits at least its step of the schedule (the lower
        // bound is what shows the growing gaps: a ratio of two measured
        // gaps fails whenever a loaded machine delays the shorter one).
        for (gap, expected) in gaps.iter().zip(expected) {
            assert!(*gap >= expected * 0.9 - 2.0, "gaps {gaps:?}");
            // Generous slack above: a loaded CI machine delays wake-ups.
            assert!(*gap <= expected * 1.1 + 500.0, "gaps {gaps:?}");
        }
        queue_settled(&app).await;
        assert_eq!(receiver.received().len(), 8, "eight attempts in all");
        let event_id = requests[0].header("x-event-id").to_owned();
        assert!(ids(&receiver.received()).iter().all(|id| *id == event_id));
        let attempts = attempts_when(&app, &app.live_key, &event_id, SOON, |a| a.len() == 8).await;
        let statuses: Vec<&str> = attempts.iter().map(|a| a["status"].as_str().expect("status")).collect();
        assert_eq!(
            statuses,
            [
                "failed", "failed", "failed", "failed", "failed", "failed", "failed", "failed"
            ]
        );
    }

    async fn test_mode_endpoints_receive_only_test_events(app: TestApp) {
        let test_receiver = Receiver::start().await;
        let live_receiver = Receiver::start().await;
        create_endpoint(&app, &app.test_key, &test_receiver.url, json!(["delivery.created"])).await;
        create_endpoint(&app, &app.live_key, &live_receiver.url, json!(["delivery.created"])).await;
        let live_id = live_delivery(&app).await;
        let test_id = app.create_delivery(&app.test_key, &berlin_delivery()).await["id"]
            .as_str()
            .expect("id")
            .to_owned();
        test_receiver.wait_for(1, SOON).await;
        live_receiver.wait_for(1, SOON).await;
        queue_settled(&app).await;
        let test_bodies: Vec<Value> = test_receiver.received().iter().map(Received::json).collect();
        let live_bodies: Vec<Value> = live_receiver.received().iter().map(Received::json).collect();
        assert_eq!(test_bodies.len(), 1, "{test_bodies:#?}");
        assert_eq!(live_bodies.len(), 1, "{live_bodies:#?}");
        assert_eq!(
            (
                test_bodies[0]["data"]["id"].as_str(),
                test_bodies[0]["data"]["mode"].as_str()
            ),
            (Some(test_id.as_str()), Some("test"))
        );
        assert_eq!(
            (
                live_bodies[0]["data"]["id"].as_str(),
                live_bodies[0]["data"]["mode"].as_str()
            ),
            (Some(live_id.as_str()), Some("live"))
        );
    }

    async fn endpoints_receive_only_their_subscribed_types(app: TestApp) {
        let all = Receiver::start().await;
        let cancelled_only = Receiver::start().await;
        create_endpoint(&app, &app.live_key, &all.url, json!([])).await;
        create_endpoint(&app, &app.live_key, &cancelled_only.url, json!(["delivery.cancelled"])).await;
        let delivery_id = live_delivery(&app).await;
        let answer = app
            .post(
                &format!("/v1/deliveries/{delivery_id}/cancel"),
                &app.live_key,
                &json!({}),
            )
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        all.wait_for(2, SOON).await;
        cancelled_only.wait_for(1, SOON).await;
        queue_settled(&app).await;
        let mut types: Vec<String> = all
            .received()
            .iter()
            .map(|r| r.json()["type"].as_str().expect("type").to_owned())
            .collect();
        types.sort();
        assert_eq!(types, ["delivery.cancelled", "delivery.created"]);
        let only: Vec<Value> = cancelled_only.received().iter().map(Received::json).collect();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0]["type"], "delivery.cancelled");
        assert_eq!(only[0]["data"]["status"], "cancelled");
        assert!(only[0]["data"]["cancelled_at"].is_string());
    }

    async fn deleted_endpoints_receive_nothing_more(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(500));
        let (webhook_id, _) = create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        live_delivery(&app).await;
        receiver.wait_for(1, SOON).await;
        assert_eq!(
            delete(&app, &format!("/v1/webhooks/{webhook_id}"), &app.live_key)
                .await
                .status,
            200
        );
        // Its queue went with it, and a new event queues nothing for it:
        // only a send already in flight can still arrive.
        assert_eq!(queued_for(&app, &webhook_id).await, 0);
        let seen = receiver.received().len();
        live_delivery(&app).await;
        assert_eq!(queued_for(&app, &webhook_id).await, 0);
        assert!(
            receiver.received().len() <= seen + 1,
            "at most the send in flight finishes"
        );
    }
}

e2e! {
    with |config| config.webhook_retry_scale = 0.2;

    async fn disabling_fails_queued_events_and_replay_restores_them(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(503));
        let (webhook_id, secret) = create_endpoint(&app, &app.live_key, &receiver.url, json!([])).await;
        let first = live_delivery(&app).await;
        live_delivery(&app).await;
        let queued = receiver.wait_for(2, SOON).await;
        let queued_ids: HashSet<String> = ids(&queued).into_iter().collect();
        assert_eq!(queued_ids.len(), 2);

        // Disabled: the queued events fail at once, without further requests.
        let path = format!("/v1/webhooks/{webhook_id}");
        let disabled = patch(&app, &path, &app.live_key, &json!({ "status": "disabled" })).await;
        assert_eq!(disabled.body["disabled_reason"], "manual");
        let sent_before = receiver.received().len();
        for event_id in &queued_ids {
            let attempts = attempts_when(&app, &app.live_key, event_id, SOON, |a| {
                a.last().is_some_and(|l| l["status"] == "failed")
            })
            .await;
            let last = attempts.last().expect("attempt");
            assert!(last["error"].as_str().is_some_and(|e| e.contains("disabled")), "{last}");
            assert!(last["response_code"].is_null() && last["latency_ms"].is_null());
        }
        // No new events while disabled.
        let cancelled = app
            .post(&format!("/v1/deliveries/{first}/cancel"), &app.live_key, &json!({}))
            .await;
        assert_eq!(cancelled.status, 200);
        // The cancel's event was recorded with the cancel, and queued for no
        // disabled endpoint: the two failed events are all the queue holds.
        assert_eq!(queued_for(&app, &webhook_id).await, 2);
        assert!(
            receiver.received().len() <= sent_before + 2,
            "at most the sends in flight finish"
        );
        let cancel_event = event_of(&app, &first, "delivery.cancelled").await;
        let details = app
            .get(
                &format!("/v1/events/{}", cancel_event["id"].as_str().expect("id")),
                &app.live_key,
            )
            .await;
        assert_eq!(details.body["webhook_attempts"], json!([]));
        app.post(&format!("{path}/replay"), &app.live_key, &json!({}))
            .await
            .assert_error(409, "endpoint_disabled", None);

        // Re-enabled and replayed: the failed events arrive with their ids.
        receiver.always(Reply::status(200));
        let active = patch(&app, &path, &app.live_key, &json!({ "status": "active" })).await;
        assert_eq!(
            (active.body["status"].as_str(), active.body["disabled_reason"].as_str()),
            (Some("active"), None)
        );
        let seen = receiver.received().len();
        let replayed = app.post(&format!("{path}/replay"), &app.live_key, &json!({})).await;
        assert_eq!((replayed.status, &replayed.body), (200, &json!({ "queued": 2 })));
        let requests = receiver.wait_for(seen + 2, SOON).await;
        let redelivered: HashSet<String> = ids(&requests[seen..]).into_iter().collect();
        assert_eq!(redelivered, queued_ids);
        assert!(requests[seen..].iter().all(|r| signature_is_valid(&secret, r)));
        for event_id in &queued_ids {
            attempts_when(&app, &app.live_key, event_id, SOON, |a| {
                a.last().is_some_and(|l| l["status"] == "succeeded")
            })
            .await;
        }
        let again = app.post(&format!("{path}/replay"), &app.live_key, &json!({})).await;
        assert_eq!(again.body, json!({ "queued": 0 }));
    }
}

e2e! {
    with |config| {
        config.webhook_disable_after = 2;
        config.webhook_disable_window = Duration::from_secs(3600);
    };

    async fn endpoints_failing_long_enough_are_disabled(app: TestApp) {
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(410));
        let (webhook_id, _) = create_endpoint(&app, &app.live_key, &receiver.url, json!(["delivery.created"])).await;
        live_delivery(&app).await;
        live_delivery(&app).await;
        let requests = receiver.wait_for(2, SOON).await;
        for request in &requests {
            attempts_when(&app, &app.live_key, request.header("x-event-id"), SOON, |a| {
                a.len() == 1
            })
            .await;
        }
        let listed = app.get("/v1/webhooks", &app.live_key).await;
        assert_eq!(
            listed.body["webhooks"][0]["status"], "active",
            "two failures, but not an hour of them yet"
        );

        app.clock.advance(Duration::from_secs(2 * 3600));
        live_delivery(&app).await;
        receiver.wait_for(3, SOON).await;
        let endpoint = wait_until(format!("{webhook_id} disabled"), SOON, async || {
            let endpoint = app.get("/v1/webhooks", &app.live_key).await.body["webhooks"][0].clone();
            if endpoint["status"] == "disabled" { Ok(endpoint) } else { Err(endpoint) }
        })
        .await;
        assert_eq!(endpoint["id"], webhook_id.as_str());
        assert_eq!(endpoint["disabled_reason"], "failing");
        app.post(&format!("/v1/webhooks/{webhook_id}/replay"), &app.live_key, &json!({}))
            .await
            .assert_error(409, "endpoint_disabled", None);
    }
}

e2e! {
    with |config| config.webhook_allow_insecure = false;

    async fn only_public_https_targets_are_accepted(app: TestApp) {
        for url in [
            "http://example.com/hook",
            "https://127.0.0.1/hook",
            "https://localhost/hook",
            "https://10.0.0.1/hook",
            "https://[::1]/hook",
            "https://169.254.169.254/latest",
            "https://user:pw@example.com/hook",
        ] {
            let answer = app.post("/v1/webhooks", &app.live_key, &json!({ "url": url })).await;
            answer.assert_error(400, "invalid_webhook_url", Some("url"));
        }
        let (webhook_id, _) = create_endpoint(&app, &app.live_key, "https://93.184.215.14/hook", json!([])).await;
        let path = format!("/v1/webhooks/{webhook_id}");
        patch(&app, &path, &app.live_key, &json!({ "url": "https://[::1]/hook" }))
            .await
            .assert_error(400, "invalid_webhook_url", Some("url"));
        assert_eq!(
            app.get("/v1/webhooks", &app.live_key).await.body["webhooks"][0]["url"],
            "https://93.184.215.14/hook"
        );

        // Checked again before every send: a target that is not public now
        // fails the event without a request and without retries.
        use courier_orders::webhooks::entity::endpoint;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
        endpoint::Entity::update_many()
            .col_expr(endpoint::Column::Url, Expr::value("https://127.0.0.1:9/hook"))
            .filter(endpoint::Column::Id.eq(webhook_id.as_str()))
            .exec(&app.core.writer)
            .await
            .expect("update");
        let delivery_id = live_delivery(&app).await;
        let event = event_of(&app, &delivery_id, "delivery.created").await;
        let event_id = event["id"].as_str().expect("id");
        let attempts = attempts_when(&app, &app.live_key, event_id, SOON, |a| !a.is_empty()).await;
        queue_settled(&app).await;
        let attempts_later = attempts_when(&app, &app.live_key, event_id, SOON, |_| true).await;
        assert_eq!(attempts_later, attempts, "not retried");
        assert_eq!(attempts[0]["status"], "failed");
        assert!(attempts[0]["response_code"].is_null() && attempts[0]["latency_ms"].is_null());
        assert!(
            attempts[0]["error"].as_str().is_some_and(|e| e.contains("public")),
            "{}",
            attempts[0]
        );
    }
}

e2e! {
    with |config| config.webhook_retry_scale = 0.5;

    async fn a_core_restart_loses_no_queued_event(app: TestApp) {
        let mut app = app;
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(503));
        create_endpoint(&app, &app.live_key, &receiver.url, json!(["delivery.created"])).await;
        let mut delivery_ids = HashSet::new();
        for _ in 0..3 {
            delivery_ids.insert(live_delivery(&app).await);
        }
        // Each failed once; the retries are due 2.5 s later, after the restart.
        let first_round = receiver.wait_for(3, SOON).await;
        let event_ids: HashSet<String> = ids(&first_round).into_iter().collect();
        assert_eq!(event_ids.len(), 3);
        app.restart_core().await;
        receiver.always(Reply::status(200));
        let requests = receiver.wait_for(6, Duration::from_secs(15)).await;
        let redelivered: HashSet<String> = ids(&requests[3..]).into_iter().collect();
        assert_eq!(redelivered, event_ids);
        let data_ids: HashSet<String> = requests[3..]
            .iter()
            .map(|r| r.json()["data"]["id"].as_str().expect("id").to_owned())
            .collect();
        assert_eq!(data_ids, delivery_ids);
        for event_id in &event_ids {
            let attempts = attempts_when(&app, &app.live_key, event_id, SOON, |a| a.len() == 2).await;
            assert_eq!(
                (attempts[0]["status"].as_str(), attempts[1]["status"].as_str()),
                (Some("failed"), Some("succeeded"))
            );
        }
        queue_settled(&app).await;
        assert_eq!(receiver.received().len(), 6, "nothing sent twice");
    }
}

/// The id of the test-mode endpoint created last.
async fn answer_id(app: &TestApp) -> String {
    let listed = app.get("/v1/webhooks", &app.test_key).await;
    listed.body["webhooks"]
        .as_array()
        .and_then(|list| list.last())
        .and_then(|e| e["id"].as_str())
        .expect("an endpoint")
        .to_owned()
}

e2e! {
    // The harness runs with the development setting on (plain HTTP and
    // loopback receivers): it opens nothing else.
    async fn the_development_setting_opens_loopback_only(app: TestApp) {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/hook",
            "http://172.16.0.1/hook",
            "http://192.168.1.1/hook",
            "http://100.64.0.1/hook",
            "http://0.0.0.0/hook",
            "http://[fc00::1]/hook",
            "http://[fe80::1]/hook",
            "http://[::ffff:10.0.0.1]/hook",
            "http://intranet/hook",
            "http://printer.local/hook",
            "http://metadata.google.internal/hook",
        ] {
            let answer = app.post("/v1/webhooks", &app.live_key, &json!({ "url": url })).await;
            answer.assert_error(400, "invalid_webhook_url", Some("url"));
        }
        for url in ["http://127.0.0.1:9/hook", "http://localhost:9/hook", "http://[::1]:9/hook"] {
            let answer = app.post("/v1/webhooks", &app.live_key, &json!({ "url": url })).await;
            assert_eq!(answer.status, 201, "{url}: {:#}", answer.body);
        }
        assert_eq!(app.get("/v1/webhooks", &app.live_key).await.body["webhooks"].as_array().map(Vec::len), Some(3));
    }
}
