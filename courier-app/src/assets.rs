//! The app's own files, compiled in: styles, the small scripts, icons, the
//! web app manifest, the service worker, and the offline page it keeps.
//! Every asset answers with the same ETag, the version of all of them
//! together, so a phone revalidates cheaply and takes a new version at once;
//! the service worker carries that version too, so a changed asset installs
//! a new worker with a fresh copy of the shell.

use std::sync::OnceLock;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::page::{MessagePage, bare_layout, render};

/// The files under `{root}/assets/`: name, content type, bytes.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "app.css",
        "text/css; charset=utf-8",
        include_bytes!("../assets/app.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/app.js"),
    ),
    (
        "outbox.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/outbox.js"),
    ),
    (
        "location.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/location.js"),
    ),
    (
        "live.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/live.js"),
    ),
    (
        "proof.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/proof.js"),
    ),
    ("icon.svg", "image/svg+xml", include_bytes!("../assets/icon.svg")),
    ("icon-192.png", "image/png", include_bytes!("../assets/icon-192.png")),
    ("icon-512.png", "image/png", include_bytes!("../assets/icon-512.png")),
    (
        "icon-maskable-512.png",
        "image/png",
        include_bytes!("../assets/icon-maskable-512.png"),
    ),
    (
        "apple-touch-icon.png",
        "image/png",
        include_bytes!("../assets/apple-touch-icon.png"),
    ),
];
const MANIFEST: &[u8] = include_bytes!("../assets/manifest.webmanifest");
const SERVICE_WORKER: &str = include_str!("../assets/sw.js");
/// The service worker's version placeholder.
const VERSION_MARK: &str = "__VERSION__";

/// A short hash of every file the app serves (and of the offline page's
/// template, which the worker keeps too).
pub(crate) fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hash = Sha256::new();
        for (name, _, bytes) in FILES {
            hash.update(name.as_bytes());
            hash.update(bytes);
        }
        hash.update(MANIFEST);
        hash.update(SERVICE_WORKER.as_bytes());
        hash.update(include_bytes!("../templates/offline.html"));
        hash.update(include_bytes!("../templates/base.html"));
        hex::encode(&hash.finalize()[..8])
    })
}

fn etag() -> String {
    format!("\"{}\"", version())
}

/// `content` with its type and the version's ETag; `304` when the phone
/// holds this version already.
fn versioned(headers: &HeaderMap, content_type: &'static str, content: impl IntoResponse) -> Response {
    let etag = etag();
    let cached = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag));
    let mut response = if cached {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type)], content).into_response()
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    response
}

pub(crate) async fn file(State(state): State<AppState>, headers: HeaderMap, Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(file, _, _)| *file == name) {
        Some((_, content_type, bytes)) => versioned(&headers, content_type, *bytes),
        None => render(
            MessagePage {
                layout: bare_layout(&state, "Not found"),
                message: "The app has no such file.".into(),
            },
            StatusCode::NOT_FOUND,
        ),
    }
}

pub(crate) async fn manifest(headers: HeaderMap) -> Response {
    versioned(&headers, "application/manifest+json", MANIFEST)
}

/// The service worker, with the version that names its cache.
pub(crate) async fn service_worker(headers: HeaderMap) -> Response {
    versioned(
        &headers,
        "text/javascript; charset=utf-8",
        SERVICE_WORKER.replace(VERSION_MARK, version()),
    )
}

#[derive(askama::Template)]
#[template(path = "offline.html")]
struct OfflinePage {
    layout: crate::page::Layout,
}

/// The page the service worker shows for an address it cannot reach.
pub(crate) async fn offline_page(State(state): State<AppState>) -> Response {
    render(
        OfflinePage {
            layout: bare_layout(&state, "Offline"),
        },
        StatusCode::OK,
    )
}
