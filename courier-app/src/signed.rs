//! The signed-in courier of a request: the session token the core issued,
//! kept in an HttpOnly cookie, and the CSRF token every change carries,
//! derived from it (so it needs no storage, survives a restart of the app and
//! is the same on every replica, yet cannot be made without the cookie's
//! secret).

use axum::Json;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::page::{Layout, bare_layout, cookie, set_cookie};

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
            // Offers reach the courier on every page (a page may follow
            // more: the shift's jobs, a job's changes).
            live: "offers".into(),
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

pub(crate) fn set_session_cookie(state: &AppState, response: &mut Response, token: &str) {
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
