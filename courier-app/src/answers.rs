//! How the app answers what the core said: a page for what it cannot act
//! on (an ended session signs the courier out), and the outbox's answers.

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

use askama::Template;

use crate::AppState;
use crate::page::{Layout, MessagePage, bare_layout, render};
use crate::signed::clear_cookie;

/// A page for an answer of the core the app cannot act on, with the core's
/// words; an ended session signs the courier out.
pub(crate) fn failure(state: &AppState, status: &tonic::Status) -> Response {
    if status.code() == tonic::Code::Unauthenticated {
        return ended(state, status);
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
            clear_cookie(state, &mut response);
        }
        Some(response)
    }
}

/// The outbox's answer for a form it may not send: refused, never resent.
pub(crate) fn forbidden_json(message: &str) -> Response {
    (StatusCode::FORBIDDEN, Json(serde_json::json!({ "error": message }))).into_response()
}

#[derive(Template)]
#[template(path = "sign_in.html")]
pub(crate) struct SignInPage {
    pub(crate) layout: Layout,
    pub(crate) login: String,
}

/// The sign-in page after the core ended the session (signed out elsewhere,
/// suspended, idle too long), with the core's words; the cookie goes.
pub(crate) fn ended(state: &AppState, status: &tonic::Status) -> Response {
    let mut layout = bare_layout(state, "Sign in");
    layout.error = Some(status.message().to_owned());
    let mut response = render(
        SignInPage {
            layout,
            login: String::new(),
        },
        StatusCode::UNAUTHORIZED,
    );
    clear_cookie(state, &mut response);
    response
}

/// A form whose CSRF token is not the session's: made before a sign-in, or
/// not by this app.
pub(crate) fn stale_form(state: &AppState) -> Response {
    render(
        MessagePage {
            layout: bare_layout(state, "Not sent"),
            message: "This form belongs to an earlier sign-in; open the page again and retry.".into(),
        },
        StatusCode::FORBIDDEN,
    )
}
