//! Signing in and out, joining by an invitation link, and the signed-in
//! courier of a request: the session token the core issued, kept in an
//! HttpOnly cookie, and the CSRF token every change carries, derived from
//! it (so it needs no storage, survives a restart of the app and is the same
//! on every replica, yet cannot be made without the cookie's secret).

use askama::Template;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use courier::app::v1 as apb;
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::page::{Layout, MessagePage, Refusal, bare_layout, failure, is_refusal, render, set_cookie};

/// The session cookie.
const COOKIE: &str = "courier_app_session";
/// How long the browser keeps the cookie; the core ends an unused session
/// sooner (after 7 idle days) and the app then asks to sign in again.
const COOKIE_SECONDS: u32 = 30 * 24 * 3600;

/// The signed-in courier of a request.
#[derive(Clone)]
pub(crate) struct Signed {
    token: String,
    pub(crate) csrf: String,
}

impl Signed {
    fn of(token: String) -> Signed {
        let digest = Sha256::new()
            .chain_update(b"courier-app csrf\0")
            .chain_update(token.as_bytes())
            .finalize();
        Signed {
            csrf: hex::encode(&digest[..16]),
            token,
        }
    }

    /// `message` for the core on behalf of this courier.
    pub(crate) fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Ok(value) = format!("Bearer {}", self.token).parse() {
            request.metadata_mut().insert(courier::metadata::AUTHORIZATION, value);
        }
        request
    }

    /// Whether a form's CSRF token is this session's.
    pub(crate) fn sent(&self, csrf: &str) -> bool {
        csrf.len() == self.csrf.len()
            && csrf
                .bytes()
                .zip(self.csrf.bytes())
                .fold(0u8, |diff, (a, b)| diff | (a ^ b))
                == 0
    }

    pub(crate) fn layout(&self, state: &AppState, title: &str) -> Layout {
        Layout {
            csrf: self.csrf.clone(),
            ..bare_layout(state, title)
        }
    }
}

/// A page or call that needs a signed-in courier takes `Signed`; without a
/// session cookie a page is sent to sign in, a script's call gets `401`.
impl axum::extract::FromRequestParts<AppState> for Signed {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match cookie(&parts.headers, COOKIE).filter(|t| !t.is_empty()) {
            Some(token) => Ok(Signed::of(token)),
            None => Err(sign_in_first(state, &parts.headers)),
        }
    }
}

fn sign_in_first(state: &AppState, headers: &HeaderMap) -> Response {
    let sign_in = format!("{}/sign-in", state.root);
    let wants_page = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"));
    if wants_page {
        Redirect::to(&sign_in).into_response()
    } else {
        let body = serde_json::json!({ "error": "Sign in first.", "sign_in": sign_in });
        (StatusCode::UNAUTHORIZED, Json(body)).into_response()
    }
}

/// The cookie `name` of a request.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

fn set_session_cookie(state: &AppState, response: &mut Response, token: &str) {
    let secure = if state.secure { "; Secure" } else { "" };
    set_cookie(
        response,
        &format!(
            "{COOKIE}={token}; HttpOnly; SameSite=Lax; Path={}; Max-Age={COOKIE_SECONDS}{secure}",
            state.path
        ),
    );
}

pub(crate) fn clear_cookie(state: &AppState, response: &mut Response) {
    set_cookie(
        response,
        &format!("{COOKIE}=; HttpOnly; SameSite=Lax; Path={}; Max-Age=0", state.path),
    );
}

#[derive(Template)]
#[template(path = "sign_in.html")]
pub(crate) struct SignInPage {
    layout: Layout,
    login: String,
}

pub(crate) async fn sign_in_page(State(state): State<AppState>) -> Response {
    render(
        SignInPage {
            layout: bare_layout(&state, "Sign in"),
            login: String::new(),
        },
        StatusCode::OK,
    )
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

/// The browser's address as the proxy in front reports it, for the core's
/// throttling of wrong passwords.
fn client_address(headers: &HeaderMap) -> String {
    headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[derive(serde::Deserialize)]
pub(crate) struct SignInForm {
    #[serde(default)]
    login: String,
    #[serde(default)]
    password: String,
}

pub(crate) async fn sign_in(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<SignInForm>,
) -> Response {
    let request = apb::SignInRequest {
        login: form.login.clone(),
        password: form.password,
        client_address: client_address(&headers),
    };
    match state.core.clone().sign_in(request).await {
        Ok(answer) => {
            let mut response = Redirect::to(&format!("{}/", state.root)).into_response();
            set_session_cookie(&state, &mut response, &answer.into_inner().session_token);
            response
        }
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::Unauthenticated | tonic::Code::ResourceExhausted | tonic::Code::InvalidArgument
            ) =>
        {
            let mut layout = bare_layout(&state, "Sign in");
            layout.error = Some(status.message().to_owned());
            let code = if status.code() == tonic::Code::ResourceExhausted {
                StatusCode::TOO_MANY_REQUESTS
            } else {
                StatusCode::UNAUTHORIZED
            };
            render(
                SignInPage {
                    layout,
                    login: form.login,
                },
                code,
            )
        }
        Err(status) => failure(&state, &status),
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

pub(crate) async fn sign_out(
    State(state): State<AppState>,
    signed: Signed,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Response {
    if !signed.sent(&form.csrf) {
        return stale_form(&state);
    }
    match state
        .core
        .clone()
        .sign_out(signed.request(apb::SignOutRequest {}))
        .await
    {
        // Already ended: signed out all the same.
        Ok(_) => {}
        Err(status) if status.code() == tonic::Code::Unauthenticated => {}
        Err(status) => return failure(&state, &status),
    }
    let mut response = Redirect::to(&format!("{}/sign-in", state.root)).into_response();
    clear_cookie(&state, &mut response);
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

#[derive(Template)]
#[template(path = "join.html")]
pub(crate) struct JoinPage {
    layout: Layout,
    token: String,
    name: String,
    fleet_name: String,
    login: String,
    refusal: Option<Refusal>,
}

async fn join_view(state: &AppState, token: String, refusal: Option<Refusal>) -> Response {
    let request = apb::GetInvitationRequest { token: token.clone() };
    let invitation = match state.core.clone().get_invitation(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) if status.code() == tonic::Code::NotFound => {
            return render(
                MessagePage {
                    layout: bare_layout(state, "Invitation not valid"),
                    message: status.message().to_owned(),
                },
                StatusCode::NOT_FOUND,
            );
        }
        Err(status) => return failure(state, &status),
    };
    let status = if refusal.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    render(
        JoinPage {
            layout: bare_layout(state, "Join"),
            token,
            name: invitation.name,
            fleet_name: invitation.fleet_name,
            login: invitation.email.or(invitation.phone).unwrap_or_default(),
            refusal,
        },
        status,
    )
}

pub(crate) async fn join_page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    join_view(&state, token, None).await
}

#[derive(serde::Deserialize)]
pub(crate) struct JoinForm {
    #[serde(default)]
    password: String,
}

pub(crate) async fn join(
    State(state): State<AppState>,
    Path(token): Path<String>,
    axum::Form(form): axum::Form<JoinForm>,
) -> Response {
    let request = apb::AcceptInvitationRequest {
        token: token.clone(),
        password: form.password,
    };
    match state.core.clone().accept_invitation(request).await {
        Ok(answer) => {
            let mut response = Redirect::to(&format!("{}/", state.root)).into_response();
            set_session_cookie(&state, &mut response, &answer.into_inner().session_token);
            response
        }
        // A weak password, or a link used or expired meanwhile: the page
        // again, with the core's words.
        Err(status) if is_refusal(&status) || status.code() == tonic::Code::NotFound => {
            join_view(&state, token, Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}
