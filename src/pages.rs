//! What the server-rendered fronts (the console, the courier app) share:
//! reading a cookie, telling a form of another site, and rendering a page
//! (the browser's address: `client_address`).

use askama::Template;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

/// The cookie `name` of a request.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// Whether a request comes from the front's own pages, as the browser says:
/// an `Origin` that is the front's (`origin`, its configured URL's, or the
/// `Host` it was reached at, on its scheme), or without `Origin` a
/// `Sec-Fetch-Site` of `same-origin`. A request with neither is no browser's
/// form post from another site (browsers send `Origin` on every cross-origin
/// POST), and is left to the tokens.
pub fn from_own_site(headers: &HeaderMap, origin: &str, secure: bool) -> bool {
    let text = |name: header::HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(sent) = text(header::ORIGIN) {
        let scheme = if secure { "https" } else { "http" };
        let reached_at = text(header::HOST).map(|host| format!("{scheme}://{host}"));
        return sent == origin || reached_at.as_deref() == Some(sent);
    }
    headers
        .get("sec-fetch-site")
        .and_then(|value| value.to_str().ok())
        .is_none_or(|site| site == "same-origin")
}

/// `template` as an HTML answer with `status`.
pub fn render(template: impl Template, status: StatusCode) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => {
            tracing::error!(%error, "page not rendered");
            (StatusCode::INTERNAL_SERVER_ERROR, "The page could not be rendered.").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_str(value).expect("value"));
        }
        headers
    }

    #[test]
    fn posts_from_the_fronts_own_pages_pass_and_from_elsewhere_do_not() {
        let passes = |pairs: &[(&'static str, &str)]| from_own_site(&headers(pairs), "https://console.example", true);
        assert!(passes(&[("origin", "https://console.example")]));
        assert!(passes(&[
            ("origin", "https://10.0.0.5:8081"),
            ("host", "10.0.0.5:8081")
        ]));
        assert!(passes(&[("sec-fetch-site", "same-origin")]));
        assert!(passes(&[]));
        assert!(!passes(&[
            ("origin", "https://evil.example"),
            ("host", "console.example")
        ]));
        assert!(!passes(&[
            ("origin", "http://console.example"),
            ("host", "console.example")
        ]));
        assert!(!passes(&[("origin", "null")]));
        assert!(!passes(&[("sec-fetch-site", "cross-site")]));
        assert!(!passes(&[("sec-fetch-site", "same-site")]));
    }
}
