//! The human-readable output of each command (`--json` prints the API's
//! JSON instead).

use serde_json::Value;

use crate::listen::Forwarded;
use crate::stream::Streamed;

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("-")
}

fn money(cents: &Value, currency: &Value) -> String {
    match cents.as_i64() {
        Some(cents) => format!("{}.{:02} {}", cents / 100, (cents % 100).abs(), text(currency)),
        None => "-".to_owned(),
    }
}

/// `created_at  type  delivery  status  (event id)`.
pub fn event(event: &Value) -> String {
    let line = format!(
        "{}  {:<26} {}  {:<16} {}",
        text(&event["created_at"]),
        text(&event["type"]),
        text(&event["data"]["id"]),
        text(&event["data"]["status"]),
        text(&event["id"]),
    );
    // `delivery.updated` names what the client changed.
    match event["data"]["changed_fields"].as_array() {
        Some(fields) => {
            let fields: Vec<&str> = fields.iter().filter_map(Value::as_str).collect();
            format!("{line}  changed: {}", fields.join(", "))
        }
        None => line,
    }
}

/// One forwarded event: when, what, and the local answer.
pub fn forwarded(streamed: &Streamed, forwarded: &Forwarded) -> String {
    let answer = match &forwarded.status {
        Ok(status) => format!("[{status}]"),
        Err(error) => format!("[failed: {error}]"),
    };
    format!(
        "{}  --> {:<26} {}  {answer} {} ms",
        text(&streamed.event["created_at"]),
        text(&streamed.event["type"]),
        streamed.id,
        forwarded.latency.as_millis(),
    )
}

pub fn delivery(d: &Value) -> String {
    let mut lines = vec![
        format!("{}  {}  {}", text(&d["id"]), text(&d["status"]), text(&d["mode"])),
        format!(
            "  {}  ->  {}",
            text(&d["pickup"]["address"]),
            text(&d["dropoff"]["address"])
        ),
        format!(
            "  {}  {}",
            text(&d["vehicle_type_id"]),
            money(&d["amount_cents"], &d["currency"])
        ),
    ];
    for (what, window, eta) in [
        ("pickup", &d["pickup_window"], &d["pickup_eta"]),
        ("dropoff", &d["dropoff_window"], &d["dropoff_eta"]),
    ] {
        if let Some(line) = promise(what, window, eta) {
            lines.push(line);
        }
    }
    if let Some(reason) = d["cancellation_reason"].as_str() {
        lines.push(format!("  cancelled: {reason}"));
    }
    if let Some(url) = d["tracking_url"].as_str() {
        lines.push(format!("  tracking: {url}"));
    }
    lines.join("\n")
}

pub fn delivery_list(page: &Value) -> String {
    let mut lines: Vec<String> = page["deliveries"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|d| {
            format!(
                "{}  {:<16} {}  {}",
                text(&d["id"]),
                text(&d["status"]),
                text(&d["created_at"]),
                money(&d["amount_cents"], &d["currency"])
            )
        })
        .collect();
    if lines.is_empty() {
        lines.push("No deliveries.".to_owned());
    }
    if let Some(token) = page["next_page_token"].as_str() {
        lines.push(format!("More: --page-token {token}"));
    }
    lines.join("\n")
}

/// The longest text of a notification shown on its line.
const NOTIFICATION_TEXT_CHARS: usize = 72;

/// `sms → +49********12 [arriving] sent: "Acme: Sam is arriving…"`: one
/// notification, its email's subject or its SMS's first line.
pub fn notification(n: &Value) -> String {
    let line = n["subject"]
        .as_str()
        .or_else(|| n["body"].as_str())
        .and_then(|words| words.lines().next())
        .unwrap_or_default();
    let shown: String = if line.chars().count() > NOTIFICATION_TEXT_CHARS {
        let cut: String = line.chars().take(NOTIFICATION_TEXT_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        line.to_owned()
    };
    format!(
        "{} → {} [{}] {}: \"{shown}\"",
        text(&n["channel"]),
        text(&n["address"]),
        text(&n["trigger"]),
        text(&n["status"]),
    )
}

/// A batch's results, a line each: its index, then the delivery or the
/// error.
pub fn batch_results(answer: &Value) -> String {
    let results = answer["results"].as_array().map(Vec::as_slice).unwrap_or_default();
    let created = results.iter().filter(|r| r["delivery"].is_object()).count();
    let mut lines = vec![format!("{created} of {} created", results.len())];
    for (index, result) in results.iter().enumerate() {
        let d = &result["delivery"];
        lines.push(match &result["error"] {
            Value::Null => format!(
                "{index}  {}  {}  {}",
                text(&d["id"]),
                text(&d["status"]),
                text(&d["external_id"])
            ),
            error => format!(
                "{index}  {}  {}: {}",
                text(&error["code"]),
                text(&error["param"]),
                text(&error["message"])
            ),
        });
    }
    lines.join("\n")
}

/// A delivery's notifications, a line each with its time.
pub fn notification_list(list: &Value) -> String {
    let lines: Vec<String> = list["notifications"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|n| format!("{}  {}", text(&n["created_at"]), notification(n)))
        .collect();
    if lines.is_empty() {
        "No notifications.".to_owned()
    } else {
        lines.join("\n")
    }
}

pub fn quote(q: &Value) -> String {
    let mut lines = vec![format!(
        "{}  {}  {} km, {} min, valid until {}",
        text(&q["id"]),
        money(&q["amount_cents"], &q["currency"]),
        q["distance_km"].as_f64().map_or("-".to_owned(), |km| km.to_string()),
        q["duration_min"].as_i64().map_or("-".to_owned(), |min| min.to_string()),
        text(&q["valid_until"]),
    )];
    for (what, window, eta) in [
        ("pickup", &q["pickup_window"], &q["pickup_eta"]),
        ("dropoff", &q["dropoff_window"], &q["dropoff_eta"]),
    ] {
        lines.extend(promise(what, window, eta));
    }
    lines.join("\n")
}

/// "  pickup 2026-12-01T13:00:00Z (window 13:00:00Z … 15:00:00Z)": the ETA
/// and the window it keeps, when there is either.
fn promise(what: &str, window: &Value, eta: &Value) -> Option<String> {
    let eta = eta.as_str();
    let window = window["start"].as_str().zip(window["end"].as_str());
    match (eta, window) {
        (None, None) => None,
        (eta, None) => Some(format!("  {what} {}", eta.unwrap_or("-"))),
        (eta, Some((start, end))) => Some(format!("  {what} {} (window {start} to {end})", eta.unwrap_or("-"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_notification_is_one_line() {
        let sms = json!({
            "channel": "sms", "address": "+49********12", "trigger": "arriving", "status": "sent",
            "subject": null, "body": "Acme: Sam is arriving in a few minutes with your delivery. https://example.com/t/abc",
            "created_at": "2026-12-01T10:00:00Z"
        });
        assert_eq!(
            notification(&sms),
            "sms → +49********12 [arriving] sent: \"Acme: Sam is arriving in a few minutes with your delivery. https://exam…\""
        );
        let email = json!({
            "channel": "email", "address": "j***@example.com", "trigger": "delivered", "status": "held",
            "subject": "Acme: delivered", "body": "Hello Jana,\n\nYour delivery…"
        });
        assert_eq!(
            notification(&email),
            "email → j***@example.com [delivered] held: \"Acme: delivered\""
        );
        assert_eq!(notification_list(&json!({ "notifications": [] })), "No notifications.");
        assert!(notification_list(&json!({ "notifications": [sms] })).starts_with("2026-12-01T10:00:00Z  sms → "));
    }
}
