//! `GET /v1/events/stream` (docs/guide.md "Event stream"): events in order,
//! each as `GET /v1/events/{id}` shows it, a reconnect with `Last-Event-ID`
//! losing and repeating none, the key's workspace and mode, and refusals in
//! the error shape.

use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::harness::TestApp;
use crate::lifecycle::{RUN_LIMIT, default_run};

/// One server-sent message.
#[derive(Debug)]
pub struct Message {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// A server-sent event stream being read.
pub struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    /// Opens the stream with `key`, `query` (with its `?`) and
    /// `Last-Event-ID` when given; fails unless the answer is a stream.
    pub async fn open(app: &TestApp, key: &str, query: &str, last_event_id: Option<&str>) -> Stream {
        let mut request = app
            .http
            .get(app.url(&format!("/v1/events/stream{query}")))
            .header("x-api-key", key);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.expect("stream opened");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers().get("content-type").and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        Stream {
            response,
            buffer: String::new(),
        }
    }

    /// The next message (comments skipped), within [`RUN_LIMIT`].
    pub async fn next(&mut self) -> Message {
        tokio::time::timeout(RUN_LIMIT, self.read())
            .await
            .expect("a stream message within the run limit")
    }

    async fn read(&mut self) -> Message {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut message = Message {
                    id: None,
                    event: None,
                    data: String::new(),
                };
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "id" => message.id = Some(value.to_owned()),
                        "event" => message.event = Some(value.to_owned()),
                        "data" => message.data.push_str(value),
                        _ => {}
                    }
                }
                if message.id.is_some() || message.event.is_some() || !message.data.is_empty() {
                    return message;
                }
            }
            let chunk = self
                .response
                .chunk()
                .await
                .expect("stream chunk")
                .expect("stream still open");
            self.buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }

    /// The next event, as JSON, checked to carry its id as the message id.
    pub async fn next_event(&mut self) -> Value {
        let message = self.next().await;
        assert_eq!(message.event, None, "{message:?}");
        let event: Value = serde_json::from_str(&message.data).expect("event JSON");
        assert_eq!(message.id.as_deref(), event["id"].as_str());
        event
    }
}

/// `(type, data.status)` of a streamed event.
fn summary(event: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (text(&event["type"]), text(&event["data"]["status"]))
}

e2e! {
    async fn a_test_delivery_streams_in_order_and_a_reconnect_resumes(app: TestApp) {
        let mut first = Stream::open(&app, &app.test_key, "", None).await;
        let mut live = Stream::open(&app, &app.live_key, "", None).await;
        let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();

        // Three events, then the connection drops; the rest after a
        // reconnect with the last id received.
        let mut streamed = Vec::new();
        for _ in 0..3 {
            streamed.push(first.next_event().await);
        }
        drop(first);
        let last = streamed.last().and_then(|e| e["id"].as_str()).expect("id").to_owned();
        let mut resumed = Stream::open(&app, &app.test_key, "", Some(&last)).await;
        while streamed.last().map(|e| e["type"].clone()) != Some(json!("delivery.delivered")) {
            streamed.push(resumed.next_event().await);
        }
        assert!(streamed.iter().all(|e| e["data"]["id"] == id.as_str()));
        assert_eq!(streamed.iter().map(summary).collect::<Vec<_>>(), default_run());

        // Each exactly as its own page shows it, and the same events as the
        // list, oldest first.
        for event in &streamed {
            let event_id = event["id"].as_str().expect("id");
            let mut shown = app.get(&format!("/v1/events/{event_id}"), &app.test_key).await.body;
            shown.as_object_mut().expect("object").remove("webhook_attempts");
            assert_eq!(event, &shown);
        }
        let listed = app.get(&format!("/v1/events?delivery_id={id}&limit=100"), &app.test_key).await;
        let mut listed: Vec<Value> = listed.body["events"].as_array().expect("events").clone();
        listed.reverse();
        assert_eq!(&streamed, &listed);

        // A live key's stream shows its own mode's events only.
        let live_created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let event = live.next_event().await;
        assert_eq!(event["data"]["id"], live_created["id"]);
        assert_eq!(event["type"], "delivery.created");
    }

    async fn the_stream_filters_by_delivery_and_type(app: TestApp) {
        let mut cancelled_only = Stream::open(&app, &app.live_key, "?type=delivery.cancelled", None).await;
        let first = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let second = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let second_id = second["id"].as_str().expect("id");
        let mut of_second = Stream::open(&app, &app.live_key, &format!("?delivery_id={second_id}"), None).await;
        for delivery in [&first, &second] {
            let id = delivery["id"].as_str().expect("id");
            let answer = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.live_key, &json!({})).await;
            assert_eq!(answer.status, 200, "{:#}", answer.body);
        }
        for delivery in [&first, &second] {
            let event = cancelled_only.next_event().await;
            assert_eq!((&event["type"], &event["data"]["id"]), (&json!("delivery.cancelled"), &delivery["id"]));
        }
        let event = of_second.next_event().await;
        assert_eq!((&event["type"], &event["data"]["id"]), (&json!("delivery.cancelled"), &second["id"]));
    }

    async fn stream_refusals_have_the_error_shape(app: TestApp) {
        let wrong_key = app.get("/v1/events/stream", "sk_test_not_a_key").await;
        wrong_key.assert_error(401, "invalid_api_key", None);
        assert!(wrong_key.body["request_id"].as_str().is_some_and(|id| id.starts_with("req_")));

        let bad_type = app.get("/v1/events/stream?type=delivery.lost", &app.live_key).await;
        bad_type.assert_error(400, "invalid_request", Some("type"));
        let paged = app.get("/v1/events/stream?limit=5", &app.live_key).await;
        paged.assert_error(400, "invalid_request", Some("limit"));

        let unknown = app
            .send(
                app.http
                    .get(app.url("/v1/events/stream"))
                    .header("x-api-key", &app.live_key)
                    .header("last-event-id", "evt_unknown"),
            )
            .await;
        unknown.assert_error(400, "invalid_request", Some("Last-Event-ID"));

        // Another mode's event is no cursor for this key.
        app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let listed = app.get("/v1/events", &app.test_key).await;
        let test_event = listed.body["events"][0]["id"].as_str().expect("id").to_owned();
        let other_mode = app
            .send(
                app.http
                    .get(app.url("/v1/events/stream"))
                    .header("x-api-key", &app.live_key)
                    .header("last-event-id", test_event),
            )
            .await;
        other_mode.assert_error(400, "invalid_request", Some("Last-Event-ID"));
    }
}
