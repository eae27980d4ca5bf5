//! The unsubscribe link of every notification email,
//! `{public_base_url}/v1/notifications/unsubscribe/{token}`: `GET` asks
//! (a link a mail scanner opens must change nothing), `POST` opts the
//! address out of the workspace's emails and says so. The `POST` is also
//! RFC 8058's one-click unsubscribe that mail clients send
//! (`List-Unsubscribe=One-Click`); the body is not needed, the token is
//! the capability, so no CSRF token either.
//!
//! Server-rendered HTML with no key, no script and no third-party resource,
//! like the tracking page (`tracking_page`), whose look it shares; its
//! errors are HTML pages too. The core decides what the token names
//! (`PublicService`); this file only lays it out.

use axum::Extension;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use courier::errors::ErrorCode;
use courier::v1 as pb;

use super::tracking_page::{STYLE, esc};
use crate::EdgeState;
use crate::error::ApiError;
use crate::middleware::RequestId;

/// Nothing but the inline style, and the form posting to this same page.
const POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The page's own additions to the shared look: the button.
const BUTTON_STYLE: &str = "\
form{margin:18px 0 0}\
button{font:inherit;font-weight:650;color:#fff;background:#b42318;border:0;border-radius:10px;\
padding:12px 22px;min-height:48px;width:100%;cursor:pointer}\
button:focus-visible{outline:3px solid #17202c;outline-offset:2px}";

/// `GET /v1/notifications/unsubscribe/{token}`: the question, or the
/// answer when the address already opted out.
pub async fn page(
    State(state): State<EdgeState>,
    request_id: Option<Extension<RequestId>>,
    token: Result<Path<String>, PathRejection>,
) -> Response {
    // A token that is not text (invalid UTF-8) names no address.
    let Ok(Path(token)) = token else {
        return html(StatusCode::NOT_FOUND, not_found_page());
    };
    let request = with_request_id(pb::GetUnsubscribeLinkRequest { token }, request_id);
    match state.core.public.clone().get_unsubscribe_link(request).await {
        Ok(answer) => {
            let link = answer.into_inner();
            let page = if link.opted_out {
                done_page(&link.business_name, &link.address)
            } else {
                question_page(&link.business_name, &link.address)
            };
            html(StatusCode::OK, page)
        }
        Err(status) => refused(status),
    }
}

/// `POST /v1/notifications/unsubscribe/{token}`: opts the address out
/// (again: nothing changes) and says so.
pub async fn unsubscribe(
    State(state): State<EdgeState>,
    request_id: Option<Extension<RequestId>>,
    token: Result<Path<String>, PathRejection>,
) -> Response {
    let Ok(Path(token)) = token else {
        return html(StatusCode::NOT_FOUND, not_found_page());
    };
    let request = with_request_id(pb::UnsubscribeRequest { token }, request_id);
    match state.core.public.clone().unsubscribe(request).await {
        Ok(answer) => {
            let done = answer.into_inner();
            html(StatusCode::OK, done_page(&done.business_name, &done.address))
        }
        Err(status) => refused(status),
    }
}

fn with_request_id<T>(message: T, request_id: Option<Extension<RequestId>>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = request_id.and_then(|Extension(RequestId(id))| id.parse().ok()) {
        request.metadata_mut().insert(courier::metadata::REQUEST_ID, value);
    }
    request
}

/// The page of a refusal: a link that is not ours is not found (a token
/// with characters no token has included); anything else is the service's
/// failure.
fn refused(status: tonic::Status) -> Response {
    let error = ApiError::from_status(status);
    if matches!(error.code, ErrorCode::NotFound | ErrorCode::InvalidRequest) {
        html(StatusCode::NOT_FOUND, not_found_page())
    } else {
        tracing::warn!(code = error.code.as_str(), "unsubscribe page unavailable");
        html(StatusCode::SERVICE_UNAVAILABLE, unavailable_page())
    }
}

/// An HTML answer with the page's security and caching headers.
fn html(status: StatusCode, body: String) -> Response {
    let mut response = (status, Html(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // The token is in the URL: never send it elsewhere as a referrer.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    response
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex, nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <title>{}</title><style>{STYLE}{BUTTON_STYLE}</style></head><body><main>{body}</main></body></html>",
        esc(title)
    )
}

/// "Stop emails from Acme to j***@example.com?" and the button.
pub fn question_page(business_name: &str, address: &str) -> String {
    let question = format!("Stop emails from {business_name} to {address}?");
    document(
        "Unsubscribe",
        &format!(
            "<h1 id=\"question\">{}</h1><p class=\"lead\">Unsubscribing stops the emails about deliveries from {}. \
             Text messages are not affected: reply STOP to one of them to stop those.</p>\
             <form method=\"post\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
             <button type=\"submit\">Unsubscribe</button></form>",
            esc(&question),
            esc(business_name)
        ),
    )
}

/// The answer: the address is opted out.
pub fn done_page(business_name: &str, address: &str) -> String {
    document(
        "Unsubscribed",
        &format!(
            "<h1 id=\"done\">You are unsubscribed</h1><p class=\"lead\">You will not get more emails from {} \
             at {}.</p>",
            esc(business_name),
            esc(address)
        ),
    )
}

fn not_found_page() -> String {
    document(
        "Unsubscribe link not found",
        "<h1>Unsubscribe link not found</h1><p class=\"lead\">This unsubscribe link is unknown. Check that you \
         opened the complete link from the email.</p>",
    )
}

fn unavailable_page() -> String {
    document(
        "Temporarily unavailable",
        "<h1>Temporarily unavailable</h1><p class=\"lead\">Nothing was changed. Please open the link again in a \
         few minutes.</p>",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_posts_to_this_page_and_escapes() {
        let page = question_page("Acme <Shop>", "j***@example.com");
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(
            page.contains("Stop emails from Acme &lt;Shop&gt; to j***@example.com?"),
            "{page}"
        );
        assert!(page.contains("<form method=\"post\">") && page.contains(">Unsubscribe</button>"));
        assert!(page.contains("name=\"viewport\""));
        assert!(!page.contains("<script") && !page.contains("src="));
        let done = done_page("Acme", "j***@example.com");
        assert!(done.contains("You will not get more emails from Acme at j***@example.com."));
        assert!(!done.contains("<form"));
    }
}
