//! Forms act only when they come from the console's own pages
//! (docs/console.md, "Forms from other sites"). Every POST is checked for
//! where the browser says it comes from (`Origin`, else `Sec-Fetch-Site`);
//! the forms that come before a session (sign-in, joining by invitation)
//! also carry a token bound to a pre-session cookie, and every form of a
//! signed-in user carries the session's CSRF token, which the core checks.
//! A refused form answers a page saying so and changes nothing.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rand::RngExt;

use crate::ConsoleState;
use crate::page::{MessagePage, Refusal, bare_layout, render};

/// Cents from a form's amount in major units (`1500` or `1500.50`); `None`
/// for anything else.
pub(crate) fn cents(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return Some(0);
    }
    let (units, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.chars().all(|c| c.is_ascii_digit());
    if units.is_empty() || !digits(units) || !digits(fraction) || fraction.len() > 2 {
        return None;
    }
    let fraction: i64 = format!("{fraction:0<2}").parse().ok()?;
    units.parse::<i64>().ok()?.checked_mul(100)?.checked_add(fraction)
}

/// A tip as typed ("3.50"; empty for none) in cents (docs/couriers.md
/// "Tips"), the booking's and the delivery page's; the core checks its
/// range.
pub(crate) fn tip_cents(text: &str) -> Result<i64, Refusal> {
    cents(text).ok_or_else(|| Refusal {
        param: Some("tip_cents".into()),
        message: "The tip is an amount such as 3.50, or empty for none.".into(),
    })
}

/// Cents from a form's amount that may be below 0 (`-5.00`); `None` for
/// anything else, an empty field included.
pub(crate) fn signed_cents(text: &str) -> Option<i64> {
    let text = text.trim();
    let (sign, digits) = text.strip_prefix('-').map_or((1, text), |rest| (-1, rest));
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    cents(digits).map(|cents| sign * cents)
}

/// The cookie of a browser that has no session yet.
const PRE_SESSION_COOKIE: &str = "courier_presession";

/// Refuses every POST a browser says comes from another site
/// (`courier::pages::from_own_site`).
pub(crate) async fn same_origin(State(state): State<ConsoleState>, request: Request, next: Next) -> Response {
    if request.method() == Method::POST
        && !courier::pages::from_own_site(request.headers(), &state.origin, state.secure)
    {
        return refused(&state);
    }
    next.run(request).await
}

/// The page of a refused form: nothing was done.
pub(crate) fn refused(state: &ConsoleState) -> Response {
    render(
        MessagePage {
            layout: bare_layout(state, "Form refused"),
            message: "This form did not come from the console's own page, so nothing was done. \
                      Open the console, reload the page and send the form from there."
                .into(),
        },
        StatusCode::FORBIDDEN,
    )
}

/// A browser's pre-session token: the one its cookie holds, or a new one
/// to be set with the page ([`PreSession::set_cookie`]).
pub(crate) struct PreSession {
    pub(crate) token: String,
    new: bool,
}

impl PreSession {
    pub(crate) fn of(headers: &HeaderMap) -> PreSession {
        match crate::page::cookie(headers, PRE_SESSION_COOKIE).filter(|token| !token.is_empty()) {
            Some(token) => PreSession { token, new: false },
            None => PreSession {
                token: rand::rng()
                    .sample_iter(rand::distr::Alphanumeric)
                    .take(32)
                    .map(char::from)
                    .collect(),
                new: true,
            },
        }
    }

    /// Sets the cookie on `response` when the token is new. `SameSite=Strict`:
    /// a post from another site does not even carry it.
    pub(crate) fn set_cookie(&self, state: &ConsoleState, mut response: Response) -> Response {
        if self.new {
            let secure = if state.secure { "; Secure" } else { "" };
            let cookie = format!(
                "{PRE_SESSION_COOKIE}={}; HttpOnly; SameSite=Strict; Path=/console; Max-Age=86400{secure}",
                self.token
            );
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
        }
        response
    }
}

/// Whether a pre-session form's `csrf` field is the token of the
/// browser's pre-session cookie.
pub(crate) fn pre_session_matches(headers: &HeaderMap, presented: &str) -> bool {
    let Some(expected) = crate::page::cookie(headers, PRE_SESSION_COOKIE).filter(|token| !token.is_empty()) else {
        return false;
    };
    presented.len() == expected.len()
        && presented
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_str(value).expect("value"));
        }
        headers
    }

    #[tokio::test]
    async fn a_pre_session_form_must_carry_its_cookies_token() {
        assert!(pre_session_matches(
            &headers(&[("cookie", "courier_presession=abc")]),
            "abc"
        ));
        assert!(!pre_session_matches(
            &headers(&[("cookie", "courier_presession=abc")]),
            "abd"
        ));
        assert!(!pre_session_matches(&headers(&[("cookie", "courier_presession=")]), ""));
        assert!(!pre_session_matches(&headers(&[]), ""));
        let fresh = PreSession::of(&headers(&[]));
        assert!(fresh.new && fresh.token.len() == 32);
        let kept = PreSession::of(&headers(&[("cookie", "a=b; courier_presession=xyz")]));
        assert_eq!((kept.token.as_str(), kept.new), ("xyz", false));
    }

    #[test]
    fn amounts_in_major_units() {
        assert_eq!(cents("1500"), Some(150_000));
        assert_eq!(cents(" 1500.5 "), Some(150_050));
        assert_eq!(cents("0.05"), Some(5));
        assert_eq!(cents(""), Some(0));
        for wrong in ["-5", "1.234", "1e3", "12,50", ".5", "abc"] {
            assert_eq!(cents(wrong), None, "{wrong}");
        }
        assert_eq!(signed_cents("-5.25"), Some(-525));
        assert_eq!(signed_cents("5"), Some(500));
        for wrong in ["", "-", "--5", "- 5"] {
            assert_eq!(signed_cents(wrong), None, "{wrong}");
        }
    }
}
