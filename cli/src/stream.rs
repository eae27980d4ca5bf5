//! `GET /v1/events/stream` read as server-sent events, reconnecting with
//! `Last-Event-ID` after a dropped connection (docs/guide.md "Event
//! stream"), so that no event is lost or repeated.

use std::time::Duration;

use serde_json::Value;

use crate::api::{Api, Failure};

/// Longest silence before the connection is taken for dead: the service
/// sends a heartbeat every 15 s.
const SILENCE: Duration = Duration::from_secs(45);
/// First and longest wait between reconnection attempts.
const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// One event as the stream sent it.
pub struct Streamed {
    pub id: String,
    /// The message's data as sent: the Event's JSON, byte for byte.
    pub data: String,
    pub event: Value,
}

/// The stream, with the position of the last event received.
pub struct EventStream {
    api: Api,
    query: String,
    last_id: Option<String>,
    response: Option<reqwest::Response>,
    buffer: Vec<u8>,
}

enum Block {
    Event(Streamed),
    /// The service ended the stream with an error (its error shape).
    Error(String),
}

impl EventStream {
    /// The stream with `query` (`?…` or empty), not yet open.
    pub fn new(api: Api, query: String) -> EventStream {
        EventStream {
            api,
            query,
            last_id: None,
            response: None,
            buffer: Vec::new(),
        }
    }

    /// Opens the stream: the first connection's refusal or unreachable
    /// service is the caller's to report.
    pub async fn connect(&mut self) -> Result<(), Failure> {
        let mut request = self
            .api
            .request(reqwest::Method::GET, &format!("/v1/events/stream{}", self.query))
            .header("accept", "text/event-stream");
        if let Some(id) = &self.last_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.map_err(|error| self.api.unreachable(&error))?;
        self.response = Some(self.api.accepted(response).await?);
        self.buffer.clear();
        Ok(())
    }

    /// The next event. A dropped connection is opened again after the last
    /// event received, each time said on stderr; only a refusal other than a
    /// service failure (`5xx`, `429`) ends the stream.
    pub async fn next(&mut self) -> Result<Streamed, Failure> {
        loop {
            let lost = match self.read().await {
                Ok(Block::Event(streamed)) => {
                    self.last_id = Some(streamed.id.clone());
                    return Ok(streamed);
                }
                Ok(Block::Error(error)) => format!("the service ended the stream: {error}"),
                Err(reason) => reason,
            };
            self.response = None;
            eprintln!("event stream lost ({lost}); reconnecting");
            self.reconnect().await?;
        }
    }

    async fn reconnect(&mut self) -> Result<(), Failure> {
        let mut wait = RETRY_FIRST;
        loop {
            tokio::time::sleep(wait).await;
            match self.connect().await {
                Ok(()) => {
                    match &self.last_id {
                        Some(id) => eprintln!("event stream reconnected, resuming after {id}"),
                        None => eprintln!("event stream reconnected"),
                    }
                    return Ok(());
                }
                Err(Failure::Refused { status, .. }) if status >= 500 || status == 429 => {}
                Err(Failure::Unreachable { .. }) => {}
                Err(other) => return Err(other),
            }
            wait = (wait * 2).min(RETRY_MAX);
        }
    }

    /// The next message of the open connection, or why it ended.
    async fn read(&mut self) -> Result<Block, String> {
        loop {
            while let Some(end) = self.buffer.windows(2).position(|pair| pair == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let block = std::str::from_utf8(&block).map_err(|_| "the stream is not UTF-8 text".to_owned())?;
                if let Some(parsed) = parse(block)? {
                    return Ok(parsed);
                }
            }
            let Some(response) = self.response.as_mut() else {
                return Err("not connected".into());
            };
            let chunk = match tokio::time::timeout(SILENCE, response.chunk()).await {
                Err(_) => return Err(format!("nothing heard for {} s", SILENCE.as_secs())),
                Ok(Err(error)) => return Err(error.to_string()),
                Ok(Ok(None)) => return Err("the connection closed".into()),
                Ok(Ok(Some(chunk))) => chunk,
            };
            self.buffer.extend_from_slice(&chunk);
        }
    }
}

/// One message block; `None` for comments (the heartbeat).
fn parse(block: &str) -> Result<Option<Block>, String> {
    let (mut id, mut kind, mut data) = (None, None, Vec::new());
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "event" => kind = Some(value.to_owned()),
            "data" => data.push(value),
            _ => {}
        }
    }
    let data = data.join("\n");
    match (kind.as_deref(), id) {
        (Some("error"), _) => Ok(Some(Block::Error(data))),
        (None, Some(id)) => {
            let event = serde_json::from_str(&data).map_err(|error| format!("an event is not JSON: {error}"))?;
            Ok(Some(Block::Event(Streamed { id, data, event })))
        }
        _ => Ok(None),
    }
}
