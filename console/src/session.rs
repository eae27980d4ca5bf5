//! Signing in and out, and the workspace the user looks at.

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use courier::client_address::Peer;
use courier::internal::v1 as pb;

use crate::forms::{PreSession, pre_session_matches, refused};
use crate::page::{Layout, Signed, bare_layout, failure, field, fields, render};
use crate::{COOKIE, ConsoleState};

#[derive(Template)]
#[template(path = "sign_in.html")]
pub(crate) struct SignInPage {
    layout: Layout,
    email: String,
    /// The console page to return to once signed in.
    next: String,
}

#[derive(serde::Deserialize)]
pub(crate) struct SignInQuery {
    next: Option<String>,
}

/// `next` when it is a page of this console (a path under its own, not
/// another site's address), so that a link cannot send a user elsewhere
/// after signing in.
fn local_page(state: &ConsoleState, next: &str) -> Option<String> {
    let root_path = url::Url::parse(&state.root)
        .ok()?
        .path()
        .trim_end_matches('/')
        .to_owned();
    let local = next.starts_with(&format!("{root_path}/"))
        && !next.contains("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    local.then(|| format!("{}{next}", state.origin))
}

/// The sign-in page, its form bound to the browser's pre-session cookie.
fn sign_in_view(
    state: &ConsoleState,
    headers: &HeaderMap,
    (email, next): (String, String),
    refusal: Option<(String, StatusCode)>,
) -> Response {
    let pre_session = PreSession::of(headers);
    let mut layout = bare_layout(state, "Sign in");
    layout.csrf = pre_session.token.clone();
    let status = match refusal {
        Some((message, status)) => {
            layout.error = Some(message);
            status
        }
        None => StatusCode::OK,
    };
    pre_session.set_cookie(state, render(SignInPage { layout, email, next }, status))
}

pub(crate) async fn sign_in_page(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Query(query): Query<SignInQuery>,
) -> Response {
    sign_in_view(&state, &headers, (String::new(), query.next.unwrap_or_default()), None)
}

pub(crate) async fn sign_in(
    State(state): State<ConsoleState>,
    peer: Option<Peer>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if !pre_session_matches(&headers, field(&form, "csrf")) {
        return refused(&state);
    }
    let email = field(&form, "email").to_owned();
    let next = field(&form, "next").to_owned();
    let request = pb::SignInRequest {
        email: email.clone(),
        password: field(&form, "password").to_owned(),
        client_address: state.front.client_address(peer, &headers),
    };
    match state.core.clone().sign_in(state.front.sign_in(request)).await {
        Ok(answer) => {
            let token = answer.into_inner().session_token;
            let to = local_page(&state, &next).unwrap_or_else(|| state.root.clone());
            with_session_cookie(&state, Redirect::to(&to).into_response(), &token)
        }
        Err(status) => match courier::errors::sign_in_refused(&status) {
            Some(code) => {
                let code = StatusCode::from_u16(code).unwrap_or(StatusCode::UNAUTHORIZED);
                sign_in_view(
                    &state,
                    &headers,
                    (email, next),
                    Some((status.message().to_owned(), code)),
                )
            }
            None => failure(&state, &status),
        },
    }
}

/// `response` setting the session cookie of `token`.
pub(crate) fn with_session_cookie(state: &ConsoleState, mut response: Response, token: &str) -> Response {
    let secure = if state.secure { "; Secure" } else { "" };
    let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/console; Max-Age=43200{secure}");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

pub(crate) async fn sign_out(State(state): State<ConsoleState>, signed: Signed, body: Bytes) -> Response {
    let form = fields(&body);
    if let Err(status) = state
        .core
        .clone()
        .sign_out(signed.request(pb::SignOutRequest {}, Some(field(&form, "csrf"))))
        .await
    {
        return failure(&state, &status);
    }
    let mut response = Redirect::to(&format!("{}/sign-in", state.root)).into_response();
    let expired = format!("{COOKIE}=; HttpOnly; SameSite=Lax; Path=/console; Max-Age=0");
    if let Ok(value) = HeaderValue::from_str(&expired) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

#[derive(Template)]
#[template(path = "home.html")]
pub(crate) struct HomePage {
    layout: Layout,
}

pub(crate) async fn home(State(state): State<ConsoleState>, signed: Signed) -> Response {
    if let [only] = signed.session.memberships.as_slice() {
        return Redirect::to(&format!("{}/w/{}/overview", state.root, only.workspace_id)).into_response();
    }
    render(
        HomePage {
            layout: signed.layout(&state, "Workspaces", None, "test"),
        },
        StatusCode::OK,
    )
}

#[derive(serde::Deserialize)]
pub(crate) struct SwitchQuery {
    workspace: String,
}

pub(crate) async fn switch(State(state): State<ConsoleState>, Query(query): Query<SwitchQuery>) -> Response {
    let workspace: String = query
        .workspace
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Redirect::to(&format!("{}/w/{workspace}/overview", state.root)).into_response()
}
