//! What every page shares: the layout, the core's refusals, the answers to
//! the outbox's requests, and times in the courier's own time zone.

use askama::Template;
use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono_tz::Tz;

use crate::AppState;
use crate::session;

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
    /// What the page's script listens to: `shift` (offers and jobs) or
    /// `job:<id>` (that job's changes), or nothing.
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

pub(crate) fn render(template: impl Template, status: StatusCode) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => {
            tracing::error!(%error, "courier app page not rendered");
            (StatusCode::INTERNAL_SERVER_ERROR, "The page could not be rendered.").into_response()
        }
    }
}

#[derive(Template)]
#[template(path = "message.html")]
pub(crate) struct MessagePage {
    pub(crate) layout: Layout,
    pub(crate) message: String,
}

/// A refusal of the core: its message, and the field its `param` names.
pub(crate) struct Refusal {
    pub(crate) param: Option<String>,
    pub(crate) message: String,
}

impl Refusal {
    pub(crate) fn of(status: &tonic::Status) -> Refusal {
        let (_, param) = courier::errors::from_status(status);
        Refusal {
            param,
            message: status.message().to_owned(),
        }
    }

    /// The message, when the refusal is about the form's `field`.
    pub(crate) fn at(&self, field: &str) -> Option<&str> {
        let param = self.param.as_deref()?;
        let about = param
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
        about.then_some(self.message.as_str())
    }
}

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

/// A page for an answer of the core the app cannot act on, with the core's
/// words; an ended session signs the courier out.
pub(crate) fn failure(state: &AppState, status: &tonic::Status) -> Response {
    if status.code() == tonic::Code::Unauthenticated {
        return session::ended(state, status);
    }
    let (code, _) = courier::errors::from_status(status);
    let http = StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::BAD_GATEWAY);
    let (title, message) = match http {
        StatusCode::NOT_FOUND => ("Not found", status.message().to_owned()),
        _ if http.is_server_error() => (
            "Something went wrong",
            "The service could not answer; try again in a moment.".to_owned(),
        ),
        _ => ("Not possible", status.message().to_owned()),
    };
    let http = if http.is_server_error() {
        StatusCode::BAD_GATEWAY
    } else {
        http
    };
    render(
        MessagePage {
            layout: bare_layout(state, title),
            message,
        },
        http,
    )
}

/// Who asked for a change: a plain form (answered with a page or a
/// redirect) or the app's outbox, which sends what the courier did, perhaps
/// long after (answered in JSON, so that it can tell a refusal, which it
/// reports and forgets, from a failure, which it sends again later).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asker {
    Form,
    Outbox,
}

impl Asker {
    pub(crate) fn of(headers: &HeaderMap) -> Asker {
        if headers.contains_key("x-courier-outbox") {
            Asker::Outbox
        } else {
            Asker::Form
        }
    }

    /// Done: on to `to`.
    pub(crate) fn done(self, to: &str) -> Response {
        match self {
            Asker::Form => Redirect::to(to).into_response(),
            Asker::Outbox => Json(serde_json::json!({ "redirect": to })).into_response(),
        }
    }

    /// The outbox's answer for a refusal or a failure (`None` for a form,
    /// which shows a page instead).
    pub(crate) fn outbox_answer(self, state: &AppState, status: &tonic::Status) -> Option<Response> {
        if self == Asker::Form {
            return None;
        }
        let (code, param) = courier::errors::from_status(status);
        let http = StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::BAD_GATEWAY);
        let mut body = serde_json::json!({ "error": status.message(), "param": param });
        let http = if status.code() == tonic::Code::Unauthenticated {
            body["sign_in"] = format!("{}/sign-in", state.root).into();
            StatusCode::UNAUTHORIZED
        } else if http.is_server_error() {
            body["error"] = "The service could not answer; it is sent again later.".into();
            StatusCode::BAD_GATEWAY
        } else {
            http
        };
        let mut response = (http, Json(body)).into_response();
        if status.code() == tonic::Code::Unauthenticated {
            session::clear_cookie(state, &mut response);
        }
        Some(response)
    }
}

/// The outbox's answer for a form it may not send: refused, never resent.
pub(crate) fn forbidden_json(message: &str) -> Response {
    (StatusCode::FORBIDDEN, Json(serde_json::json!({ "error": message }))).into_response()
}

/// The phone's time zone, as its script reported it; UTC until it has.
pub(crate) fn time_zone(headers: &HeaderMap) -> Tz {
    session::cookie(headers, TIME_ZONE_COOKIE)
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
