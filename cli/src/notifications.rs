//! What `courier listen` shows besides the events: the SMS and emails of
//! test deliveries (test mode sends nothing: they land in the test inbox),
//! read from `GET /v1/deliveries/{id}/notifications` after each event of
//! the delivery and printed once each, when the sender has taken them,
//! under the event that fired them (a message is written with its event,
//! at its time: one is printed once an event at least as recent was).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::api::Api;

/// How often a delivery's list is read again while a message of it waits
/// for the sender.
const POLL: Duration = Duration::from_millis(500);
/// How long after its last event a delivery's list is read; a message still
/// waiting then is printed as it stands.
const WATCH_FOR: Duration = Duration::from_secs(15);

/// The deliveries whose notifications are being read, fed event by event.
pub struct Watch {
    /// A test delivery's id and the time of its event, as [`sortable`].
    events: mpsc::UnboundedSender<(String, String)>,
}

impl Watch {
    /// Starts reading in the background; `print` gets each notification
    /// (the API's JSON) once.
    pub fn start(api: Api, print: impl FnMut(&Value) + Send + 'static) -> Watch {
        let (events, received) = mpsc::unbounded_channel();
        tokio::spawn(watch(api, received, print));
        Watch { events }
    }

    /// An event of `event` (the API's Event) was received: a test
    /// delivery's list is read from now on.
    pub fn saw(&self, event: &Value) {
        let data = &event["data"];
        if data["mode"] != "test" {
            return;
        }
        if let (Some(id), Some(at)) = (data["id"].as_str(), event["created_at"].as_str().and_then(sortable)) {
            // Only a stopped watcher refuses it, and then nothing is printed.
            let _ = self.events.send((id.to_owned(), at));
        }
    }
}

/// An RFC 3339 time of the API (UTC, `Z`, 0 to 9 fractional digits) as
/// text that sorts in time order.
fn sortable(at: &str) -> Option<String> {
    let at = at.strip_suffix('Z')?;
    let (seconds, fraction) = at.split_once('.').unwrap_or((at, ""));
    (seconds.len() == 19 && fraction.len() <= 9).then(|| format!("{seconds}.{fraction:0<9}"))
}

/// A delivery being watched.
struct Watched {
    /// Until when its list is read.
    until: Instant,
    /// The time of its latest event, as [`sortable`].
    latest_event: String,
}

async fn watch(api: Api, mut events: mpsc::UnboundedReceiver<(String, String)>, mut print: impl FnMut(&Value)) {
    let mut printed: HashSet<String> = HashSet::new();
    let mut watching: HashMap<String, Watched> = HashMap::new();
    loop {
        let event = if watching.is_empty() {
            match events.recv().await {
                Some(seen) => Some(seen),
                None => return,
            }
        } else {
            match tokio::time::timeout(POLL, events.recv()).await {
                Ok(Some(seen)) => Some(seen),
                Ok(None) => return,
                Err(_) => None,
            }
        };
        // An event: its delivery's list; a poll: every list being watched.
        let to_read: Vec<String> = match event {
            Some((id, at)) => {
                let until = Instant::now() + WATCH_FOR;
                let watched = watching.entry(id.clone()).or_insert_with(|| Watched {
                    until,
                    latest_event: at.clone(),
                });
                watched.until = until;
                watched.latest_event = watched.latest_event.clone().max(at);
                vec![id]
            }
            None => watching.keys().cloned().collect(),
        };
        let now = Instant::now();
        let mut done = Vec::new();
        for (id, watched) in to_read.iter().filter_map(|id| watching.get(id).map(|w| (id, w))) {
            let last_look = now >= watched.until;
            let path = format!("/v1/deliveries/{}/notifications", crate::encode(id));
            let list = match api.get(&path).await {
                Ok(list) => list,
                // Read again at the next poll (the stream may be
                // reconnecting too); said once the watch ends.
                Err(failure) => {
                    if last_look {
                        eprintln!("notifications of {id} not read: {failure}");
                        done.push(id.clone());
                    }
                    continue;
                }
            };
            let mut waiting = false;
            for notification in list["notifications"].as_array().map(Vec::as_slice).unwrap_or_default() {
                let Some(notification_id) = notification["id"].as_str() else {
                    continue;
                };
                if printed.contains(notification_id) {
                    continue;
                }
                // Its event is still to come: read again after that one.
                let created = notification["created_at"].as_str().and_then(sortable);
                if created.is_some_and(|created| created > watched.latest_event) && !last_look {
                    continue;
                }
                // Printed once the sender has taken it (sent, held by quiet
                // hours, dropped…), or when the watch ends.
                if notification["status"] == "queued" && !last_look {
                    waiting = true;
                    continue;
                }
                printed.insert(notification_id.to_owned());
                print(notification);
            }
            if !waiting {
                done.push(id.clone());
            }
        }
        for id in done {
            watching.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_sort_whatever_their_fraction() {
        let times = [
            "2026-12-01T01:36:36Z",
            "2026-12-01T01:36:36.4Z",
            "2026-12-01T01:36:36.411Z",
            "2026-12-01T01:36:36.411529Z",
            "2026-12-01T01:36:37Z",
        ];
        let keys: Vec<String> = times.iter().filter_map(|t| sortable(t)).collect();
        assert_eq!(keys.len(), times.len());
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]), "{keys:?}");
        assert_eq!(sortable("2026-12-01T01:36:36+01:00"), None);
    }
}
