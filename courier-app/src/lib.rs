//! The courier web app (docs/courier-app.md): phone-first pages under
//! `/courier` for couriers and fleet drivers, installable to the home screen.
//! It holds no database and no rule: every page reads and every form acts
//! through the core's `CourierAppService`, the API a native app uses, with the
//! courier's session token (an HttpOnly cookie) and, on every change, a CSRF
//! token derived from it. Templates escape what they render (askama); the
//! scripts are small, served from here under a strict Content-Security-Policy,
//! and only add to pages that work as plain forms: live offers (server-sent
//! events fed by `WatchAssignments`), location sharing, photo resizing, the
//! signature, and the outbox that keeps what was done offline until the
//! network returns.

mod answers;
mod assets;
mod earnings;
mod jobs;
mod page;
mod session;
mod shift;
mod signed;
mod view;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Redirect, Response};
use axum::routing::{get, post};
use courier::app::v1::courier_app_service_client::CourierAppServiceClient;
use tonic::transport::Channel;

use page::{MessagePage, bare_layout, render};

/// What the pages may load: only this origin's files; no frames. Photos are
/// previewed from `blob:` URLs before they are sent.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; script-src 'self'; \
img-src 'self' data: blob:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; \
form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A proof's photos and signature in one form: the core takes 32 MiB of
/// files per checkpoint (and says so past it); photos resized on the phone
/// are far smaller, a form sent without the script carries the camera's.
const PROOF_BODY_LIMIT: usize = 34 * 1024 * 1024;

/// What every request of the app shares.
#[derive(Clone)]
pub struct AppState {
    core: CourierAppServiceClient<Channel>,
    /// The channel to the cores, for the standalone app's `/readyz`.
    channel: Channel,
    /// The app's own URL (`…/courier`), for links, cookies and the manifest.
    root: String,
    /// The path part of `root` (`/courier`), the cookies' path.
    path: String,
    /// The origin of `root` (`https://host[:port]`): where its forms come
    /// from.
    origin: String,
    /// Whether the app is served over HTTPS (cookies get `Secure`).
    secure: bool,
    /// How a visitor's address is read, and the token that makes the core
    /// believe it (sign-in throttle).
    front: std::sync::Arc<courier::client_address::FrontArgs>,
}

impl AppState {
    /// `core_url`: the cores' gRPC addresses (`courier::core_channel`); `root`: the app's public URL up
    /// to and including `/courier`.
    pub fn new(core_url: &str, root: &str) -> Result<AppState, courier::core_channel::CoreUrlError> {
        let channel = courier::core_channel::connect(core_url)?;
        let root = root.trim_end_matches('/').to_owned();
        let url = url::Url::parse(&root).ok();
        let path = url
            .as_ref()
            .map_or_else(|| "/courier".into(), |u| u.path().trim_end_matches('/').to_owned());
        let origin = url.map(|u| u.origin().ascii_serialization()).unwrap_or_default();
        Ok(AppState {
            core: CourierAppServiceClient::new(channel.clone()),
            channel,
            secure: root.starts_with("https://"),
            path: if path.is_empty() { "/".into() } else { path },
            origin,
            root,
            front: std::sync::Arc::default(),
        })
    }

    /// Visitors' addresses read behind `front`'s trusted proxies, and sent
    /// to the core with its service token (`COURIER_TRUSTED_PROXIES`,
    /// `COURIER_SERVICE_TOKEN`).
    pub fn with_front(mut self, front: courier::client_address::FrontArgs) -> AppState {
        self.front = std::sync::Arc::new(front);
        self
    }
}

/// The app served on its own (`courier-app`): its routes, and `/healthz` and
/// `/readyz` as on the edge (which answers them itself where the app is
/// mounted beside it). `base_url` is the public API's, for the `doc_url` of
/// errors.
pub fn standalone(state: AppState, base_url: &str) -> Router {
    let health = courier_edge::routes::health::router(state.channel.clone(), base_url);
    router(state).merge(health)
}

/// The app's routes under `/courier`, to be merged into a server's router.
/// The shift page is `/courier/` (the service worker's scope and the
/// installed app's start); `/courier` leads there.
pub fn router(state: AppState) -> Router {
    let to_start = format!("{}/", state.root);
    let pages = Router::new()
        .route("/", get(move || async move { Redirect::permanent(&to_start) }))
        .route("/sign-in", get(session::sign_in_page).post(session::sign_in))
        .route("/sign-out", post(session::sign_out))
        .route("/join/{token}", get(session::join_page).post(session::join))
        .route("/availability", post(shift::set_availability))
        .route("/positions", post(shift::report_positions))
        .route("/live", get(shift::live))
        .route("/offers/{offer}/{answer}", post(shift::answer_offer))
        .route("/route/next", post(shift::choose_next_stop))
        .route("/earnings", get(earnings::page))
        .route("/statements/{statement}/{format}", get(earnings::statement))
        .route("/jobs/{job}", get(jobs::page))
        .route("/jobs/{job}/move", post(jobs::make_move))
        .route("/jobs/{job}/problem", post(jobs::report_problem))
        .route(
            "/jobs/{job}/proof/{checkpoint}",
            get(jobs::proof_page)
                .post(jobs::submit_proof)
                .layer(DefaultBodyLimit::max(PROOF_BODY_LIMIT)),
        )
        .route("/offline", get(assets::offline_page))
        .route("/manifest.webmanifest", get(assets::manifest))
        .route("/sw.js", get(assets::service_worker))
        .route("/assets/{file}", get(assets::file))
        .fallback(not_found);
    Router::new()
        .route("/courier/", get(shift::page))
        .nest("/courier", pages)
        .layer(axum::middleware::from_fn_with_state(state.clone(), same_site))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    // A page that says its own (a printable statement) keeps it.
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    // Pages carry a courier's jobs: never kept by a cache on the way (the
    // service worker keeps what it needs offline itself). Assets say their own.
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// Refuses every POST a browser says comes from another site (a sign-in or
/// a joining forged elsewhere included); the forms of a signed-in courier
/// carry the session's CSRF token besides.
async fn same_site(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() == Method::POST
        && !courier::pages::from_own_site(request.headers(), &state.origin, state.secure)
    {
        let message = "This form did not come from the app's own page, so nothing was done.";
        return match answers::Asker::of(request.headers()) {
            answers::Asker::Outbox => answers::forbidden_json(message),
            answers::Asker::Form => render(
                MessagePage {
                    layout: bare_layout(&state, "Form refused"),
                    message: message.into(),
                },
                StatusCode::FORBIDDEN,
            ),
        };
    }
    next.run(request).await
}

async fn not_found(State(state): State<AppState>) -> Response {
    render(
        MessagePage {
            layout: bare_layout(&state, "Not found"),
            message: "The app has no page at this address.".into(),
        },
        StatusCode::NOT_FOUND,
    )
}
