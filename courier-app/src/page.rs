//! What every page shares: the layout, the core's refusals, the answers to
//! the outbox's requests, and times in the courier's own time zone.

use askama::Template;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use chrono_tz::Tz;

use crate::AppState;

/// The cookie in which the app's script leaves the phone's time zone
/// (`Europe/Berlin`), so that times read as the courier's clock does.
const TIME_ZONE_COOKIE: &str = "courier_tz";

/// The parts of the layout every page shows.
pub(crate) struct Layout {
    pub(crate) title: String,
    pub(crate) root: String,
    pub(crate) csrf: String,
    /// The phone shares its position while the page is open (online, or a
    /// job in hand).
    pub(crate) share_location: bool,
    /// What the page's script listens to besides the offers and alerts
    /// every signed-in page shows: `shift` (its live part) or `job:<id>`
    /// (that job's changes); `offers` for nothing more; empty for a page
    /// before sign-in.
    pub(crate) live: String,
    pub(crate) error: Option<String>,
}

pub(crate) fn bare_layout(state: &AppState, title: &str) -> Layout {
    Layout {
        title: title.to_owned(),
        root: state.root.clone(),
        csrf: String::new(),
        share_location: false,
        live: String::new(),
        error: None,
    }
}

#[derive(Template)]
#[template(path = "message.html")]
pub(crate) struct MessagePage {
    pub(crate) layout: Layout,
    pub(crate) message: String,
}

pub(crate) use courier::errors::Refusal;
pub(crate) use courier::pages::{cookie, render};

/// Whether the core refused what the courier asked (shown to them, with its
/// words) rather than failed.
pub(crate) fn is_refusal(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::InvalidArgument
            | tonic::Code::FailedPrecondition
            | tonic::Code::Aborted
            | tonic::Code::AlreadyExists
            | tonic::Code::OutOfRange
            | tonic::Code::ResourceExhausted
    )
}

/// The phone's time zone, as its script reported it; UTC until it has.
pub(crate) fn time_zone(headers: &HeaderMap) -> Tz {
    cookie(headers, TIME_ZONE_COOKIE)
        .and_then(|name| {
            let name = url::form_urlencoded::parse(format!("z={name}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())?;
            name.parse::<Tz>().ok()
        })
        .unwrap_or(Tz::UTC)
}

/// "14:05" in `zone`; empty without a time.
pub(crate) fn clock(at: Option<&prost_types::Timestamp>, zone: Tz) -> String {
    at.and_then(courier::time::from_proto)
        .map(|at| at.with_timezone(&zone).format("%H:%M").to_string())
        .unwrap_or_default()
}

/// A header value that can be built from text the app made itself.
pub(crate) fn header_value(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

/// Adds `Set-Cookie: cookie` to `response`.
pub(crate) fn set_cookie(response: &mut Response, cookie: &str) {
    if let Some(value) = header_value(cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}
