//! What a page says once, after the action that led to it (post, redirect,
//! get): the confirmation of the action, and a secret shown once (a new
//! key, an endpoint's signing secret, an invitation link). It travels in a
//! short-lived cookie signed with the session's token (HMAC-SHA256): no
//! store and no shared key, nothing another site or another session can
//! forge. The page that reads it clears it (`clear_after_reading`), so a
//! reload neither shows the secret again nor repeats the action.

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The cookie carrying a flash.
const COOKIE: &str = "courier_flash";
/// Long enough for the redirect to be followed, short enough that a
/// forgotten one does not linger.
const MAX_AGE_SECONDS: u32 = 120;

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Flash {
    /// What was done, in a sentence.
    pub(crate) notice: String,
    /// A secret to show this once.
    pub(crate) secret: Option<String>,
    /// The page the secret belongs to (`key`, `webhook`, `invitation`), so
    /// that no other page shows it.
    pub(crate) kind: String,
}

impl Flash {
    pub(crate) fn notice(notice: impl Into<String>) -> Flash {
        Flash {
            notice: notice.into(),
            ..Flash::default()
        }
    }

    pub(crate) fn secret(kind: &str, notice: impl Into<String>, secret: String) -> Flash {
        Flash {
            notice: notice.into(),
            secret: Some(secret),
            kind: kind.to_owned(),
        }
    }

    /// A `303` to `to` carrying this flash for the session of `token`.
    pub(crate) fn redirect(&self, token: &str, to: &str) -> Response {
        let mut response = Redirect::to(to).into_response();
        let Ok(json) = serde_json::to_vec(self) else {
            return response;
        };
        let value = format!("{}.{}", hex::encode(&json), hex::encode(signature(token, &json)));
        let cookie = format!("{COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/console; Max-Age={MAX_AGE_SECONDS}");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
        response
    }

    /// The flash the request carries for the session of `token`, if its
    /// signature holds.
    pub(crate) fn read(headers: &axum::http::HeaderMap, token: &str) -> Option<Flash> {
        let value = courier::pages::cookie(headers, COOKIE)?;
        let (json, mac) = value.split_once('.')?;
        let (json, mac) = (hex::decode(json).ok()?, hex::decode(mac).ok()?);
        let mut expected = <Hmac<Sha256> as KeyInit>::new_from_slice(token.as_bytes()).ok()?;
        expected.update(&json);
        expected.verify_slice(&mac).ok()?;
        serde_json::from_slice(&json).ok()
    }

    /// The secret, if it is one of `kind`'s.
    pub(crate) fn secret_of(&self, kind: &str) -> Option<&str> {
        self.secret.as_deref().filter(|_| self.kind == kind)
    }
}

fn signature(token: &str, json: &[u8]) -> Vec<u8> {
    match <Hmac<Sha256> as KeyInit>::new_from_slice(token.as_bytes()) {
        Ok(mut mac) => {
            mac.update(json);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// Clears the flash cookie on every answer to a request that carried one,
/// except a redirect (which passes it on to the page it leads to, or sets
/// its own).
pub(crate) async fn clear_after_reading(request: Request, next: Next) -> Response {
    let carried = courier::pages::cookie(request.headers(), COOKIE).is_some();
    let mut response = next.run(request).await;
    if carried && !response.status().is_redirection() {
        let expired = format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/console; Max-Age=0");
        if let Ok(value) = HeaderValue::from_str(&expired) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flash_reads_back_only_for_its_session_and_unaltered() {
        let flash = Flash::secret("key", "Key created.", "mm_test_abc".into());
        let response = flash.redirect("session-a", "/console/w/x/keys");
        let cookie = response.headers()[header::SET_COOKIE].to_str().expect("cookie");
        let value = cookie.split(';').next().expect("pair");
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(value).expect("header"));
        let read = Flash::read(&headers, "session-a").expect("read");
        assert_eq!(
            (read.notice.as_str(), read.secret_of("key")),
            ("Key created.", Some("mm_test_abc"))
        );
        assert_eq!(read.secret_of("webhook"), None, "another page's secret is not shown");
        assert!(Flash::read(&headers, "session-b").is_none(), "another session's");
        let tampered = value.replacen("7b", "7c", 1);
        headers.insert(header::COOKIE, HeaderValue::from_str(&tampered).expect("header"));
        assert!(Flash::read(&headers, "session-a").is_none(), "altered");
    }
}
