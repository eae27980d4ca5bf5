//! The web console (docs/console.md): server-rendered pages under `/console`
//! for workspace owners, admins and members. It holds no database and no rule:
//! every page reads and every form acts through the core's `ConsoleService`,
//! with the user's session token (an HttpOnly cookie) and, on every change, the
//! session's CSRF token from the form; a form from another site is refused
//! before anything is done (`forms`). Templates escape what they render
//! (askama); the only script is a copy button, served from here, under a strict
//! Content-Security-Policy. Pages that show what the API shows (webhooks) call
//! the public services with the session in place of a key (docs/console.md).

mod billing;
mod board;
mod booking;
mod courier_fleet;
mod courier_pay;
mod couriers;
mod deliveries;
mod delivery_changes;
mod dispatch;
mod events;
mod flash;
mod forms;
mod geocoder;
mod import;
mod keys;
mod labels;
mod map;
mod members;
mod notifications;
mod operators;
mod overview;
mod page;
mod plans;
mod promises;
mod reports;
mod session;
mod times;
mod webhooks;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use courier::internal::v1::admin_service_client::AdminServiceClient;
use courier::internal::v1::billing_service_client::BillingServiceClient;
use courier::internal::v1::console_service_client::ConsoleServiceClient;
use courier::internal::v1::courier_service_client::CourierServiceClient;
use courier::internal::v1::dispatch_service_client::DispatchServiceClient;
use courier::internal::v1::notification_settings_service_client::NotificationSettingsServiceClient;
use courier::internal::v1::report_service_client::ReportServiceClient;
use courier::v1::delivery_service_client::DeliveryServiceClient;
use courier::v1::event_service_client::EventServiceClient;
use courier::v1::public_service_client::PublicServiceClient;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier::v1::tracking_service_client::TrackingServiceClient;
use courier::v1::vehicle_type_service_client::VehicleTypeServiceClient;
use courier::v1::webhook_service_client::WebhookServiceClient;
use tonic::transport::Channel;

pub use geocoder::{Geocoder, GeocoderApi, GeocoderArgs, GeocoderUrlError};
use keys::{create_key, keys_page, revoke_key};
use members::{accept_invitation, change_role, invitation_page, invite, members_page, remove_member};
use page::{MessagePage, bare_layout, render};
use session::{home, sign_in, sign_in_page, sign_out, switch};

/// The session cookie.
const COOKIE: &str = "courier_session";

/// An import's forms carry the file's text (up to `courier_import::MAX_BYTES`),
/// form-encoded: room for that and the mapping.
const IMPORT_BODY_BYTES: usize = 4 * courier_import::MAX_BYTES;
/// What the pages may load: only this origin's files (and, with map tiles,
/// that tile server's images); no frames.
fn content_security_policy(tile_origin: Option<&str>) -> String {
    let tiles = tile_origin.map(|origin| format!(" {origin}")).unwrap_or_default();
    format!(
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:{tiles}; \
form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'"
    )
}

/// The street tiles under the console's maps.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct MapTilesArgs {
    /// A tile server's URL template (`https://tiles.example.com/{z}/{x}/{y}.png`):
    /// the maps draw its street tiles, and the pages' CSP allows that
    /// origin's images. Without it the maps need no other site.
    #[arg(
        id = "map_tiles_url",
        long = "map-tiles-url",
        env = "COURIER_MAP_TILES_URL",
        value_name = "TEMPLATE"
    )]
    pub url: Option<String>,
    /// Whose map data the tiles show, written under every map that draws
    /// them (OpenStreetMap's licence asks for this credit).
    #[arg(
        long = "map-tiles-attribution",
        env = "COURIER_MAP_TILES_ATTRIBUTION",
        default_value = "© OpenStreetMap contributors"
    )]
    pub attribution: String,
}

/// `COURIER_MAP_TILES_URL` is not a tile URL template.
#[derive(Debug, thiserror::Error)]
#[error(
    "COURIER_MAP_TILES_URL must be an http(s) URL with {{z}}, {{x}} and {{y}}, such as https://tiles.example.com/{{z}}/{{x}}/{{y}}.png; got {0:?}"
)]
pub struct TilesUrlError(String);

/// What every request of the console shares.
#[derive(Clone)]
pub struct ConsoleState {
    core: ConsoleServiceClient<Channel>,
    /// The internal billing service, called with the session.
    billing: BillingServiceClient<Channel>,
    /// The internal admin service (the back office), called with the session.
    admin: AdminServiceClient<Channel>,
    /// The internal dispatch service (a fleet's board), called with the session.
    dispatch: DispatchServiceClient<Channel>,
    /// The internal courier service (couriers and drivers), called with the
    /// session.
    couriers: CourierServiceClient<Channel>,
    /// The internal notification settings service (a workspace's
    /// notifications and test inbox), called with the session.
    notifications: NotificationSettingsServiceClient<Channel>,
    /// The internal report service, called with the session.
    reports: ReportServiceClient<Channel>,
    /// The public services, called with the session in place of a key.
    webhooks: WebhookServiceClient<Channel>,
    deliveries: DeliveryServiceClient<Channel>,
    tracking: TrackingServiceClient<Channel>,
    events: EventServiceClient<Channel>,
    vehicle_types: VehicleTypeServiceClient<Channel>,
    quotes: QuoteServiceClient<Channel>,
    /// The keyless reads (proof files, through links the core signs).
    public: PublicServiceClient<Channel>,
    /// The channel to the cores, for the standalone console's `/readyz`.
    channel: Channel,
    /// The console's own URL (`…/console`), for links and cookies.
    root: String,
    /// Whether the console is served over HTTPS (cookies get `Secure`).
    secure: bool,
    /// The origin of `root` (`https://host[:port]`): where its forms come
    /// from (`forms::same_origin`).
    origin: String,
    /// The street tiles under the maps (`{z}/{x}/{y}` template).
    map_tiles: Option<String>,
    /// Whose map data the tiles show, written under every map with tiles.
    map_credit: String,
    /// Where the booking form finds places by address (`COURIER_GEOCODER_URL`).
    geocoder: Option<Geocoder>,
    /// The Content-Security-Policy of every page.
    policy: HeaderValue,
    /// How a visitor's address is read, and the token that makes the core
    /// believe it (sign-in throttle).
    front: Arc<courier::client_address::FrontArgs>,
}

impl ConsoleState {
    /// `core_url`: the cores' gRPC addresses (`courier::core_channel`); `root`: the console's public URL
    /// up to and including `/console`.
    pub fn new(core_url: &str, root: &str) -> Result<ConsoleState, courier::core_channel::CoreUrlError> {
        let channel = courier::core_channel::connect(core_url)?;
        Ok(ConsoleState {
            core: ConsoleServiceClient::new(channel.clone()),
            billing: BillingServiceClient::new(channel.clone()),
            admin: AdminServiceClient::new(channel.clone()),
            dispatch: DispatchServiceClient::new(channel.clone()),
            couriers: CourierServiceClient::new(channel.clone()),
            notifications: NotificationSettingsServiceClient::new(channel.clone()),
            reports: ReportServiceClient::new(channel.clone()),
            webhooks: WebhookServiceClient::new(channel.clone()),
            deliveries: DeliveryServiceClient::new(channel.clone()),
            tracking: TrackingServiceClient::new(channel.clone()),
            events: EventServiceClient::new(channel.clone()),
            vehicle_types: VehicleTypeServiceClient::new(channel.clone()),
            quotes: QuoteServiceClient::new(channel.clone()),
            public: PublicServiceClient::new(channel.clone()),
            channel,
            root: root.trim_end_matches('/').to_owned(),
            secure: root.starts_with("https://"),
            origin: url::Url::parse(root)
                .map(|url| url.origin().ascii_serialization())
                .unwrap_or_default(),
            map_tiles: None,
            map_credit: String::new(),
            geocoder: None,
            policy: HeaderValue::from_str(&content_security_policy(None))
                .unwrap_or(HeaderValue::from_static("default-src 'none'")),
            front: Arc::default(),
        })
    }

    /// Visitors' addresses read behind `front`'s trusted proxies, and sent
    /// to the core with its service token (`COURIER_TRUSTED_PROXIES`,
    /// `COURIER_SERVICE_TOKEN`).
    pub fn with_front(mut self, front: courier::client_address::FrontArgs) -> ConsoleState {
        self.front = Arc::new(front);
        self
    }

    /// The booking form finds places by address with `geocoder`.
    pub fn with_geocoder(mut self, geocoder: Option<Geocoder>) -> ConsoleState {
        self.geocoder = geocoder;
        self
    }

    /// The maps draw street tiles from `args.url` (`COURIER_MAP_TILES_URL`,
    /// `https://host/{z}/{x}/{y}.png`), crediting `args.attribution` under
    /// them; the URL's origin alone joins the pages' `img-src`.
    pub fn with_map_tiles(mut self, args: &MapTilesArgs) -> Result<ConsoleState, TilesUrlError> {
        let Some(template) = args.url.as_deref() else {
            return Ok(self);
        };
        let refused = || TilesUrlError(template.to_owned());
        if !["{z}", "{x}", "{y}"].iter().all(|part| template.contains(part)) {
            return Err(refused());
        }
        let url = url::Url::parse(template).map_err(|_| refused())?;
        // The host is read as written: a URL parser takes `https:///{z}/…`
        // for the host `{z}`, which would put a placeholder in the policy.
        let written_host = template
            .split_once("://")
            .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
            .unwrap_or_default();
        if !matches!(url.scheme(), "https" | "http")
            || url.host().is_none()
            || written_host.is_empty()
            || written_host.contains(['{', '}'])
        {
            return Err(refused());
        }
        let policy = content_security_policy(Some(&url.origin().ascii_serialization()));
        self.policy = HeaderValue::from_str(&policy).map_err(|_| refused())?;
        self.map_tiles = Some(template.to_owned());
        self.map_credit = args.attribution.clone();
        Ok(self)
    }

    /// What a map shows under its service areas: the tiles over
    /// `projection`, and whose data they are.
    pub(crate) fn ground(&self, projection: &map::Projection) -> (Vec<map::Tile>, Option<String>) {
        match &self.map_tiles {
            Some(template) => (projection.tiles(template), Some(self.map_credit.clone())),
            None => (Vec::new(), None),
        }
    }
}

/// The console served on its own (`courier-console`): its routes under
/// `/console`, and `/healthz` and `/readyz` as on the edge (which answers
/// them itself where the console is mounted beside it). `base_url` is the
/// public API's, for the `doc_url` of errors.
pub fn standalone(state: ConsoleState, base_url: &str) -> Router {
    let health = courier_edge::routes::health::router(state.channel.clone(), base_url);
    mounted(state).merge(health)
}

/// The console under `/console`, where it is served beside the edge or on
/// its own; `/console/` (as typed) leads to it.
pub fn mounted(state: ConsoleState) -> Router {
    Router::new()
        .nest("/console", router(state))
        .route("/console/", get(|| async { Redirect::permanent("/console") }))
}

/// The console's routes, to be served under `/console`.
fn router(state: ConsoleState) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/sign-in", get(sign_in_page).post(sign_in))
        .route("/sign-out", post(sign_out))
        .route("/switch", get(switch))
        .route(
            "/w/{workspace}/deliveries",
            get(deliveries::list_page).post(booking::book),
        )
        .route("/w/{workspace}/deliveries/find", get(deliveries::find))
        .route("/w/{workspace}/deliveries.csv", get(deliveries::export))
        .route("/w/{workspace}/deliveries/new", get(booking::form_page))
        .route("/w/{workspace}/deliveries/quote", post(booking::quote))
        .route(
            "/w/{workspace}/deliveries/import",
            get(import::page)
                .post(import::upload)
                .layer(DefaultBodyLimit::max(IMPORT_BODY_BYTES)),
        )
        .route("/w/{workspace}/deliveries/import/example.csv", get(import::example))
        .route(
            "/w/{workspace}/deliveries/import/check",
            post(import::check).layer(DefaultBodyLimit::max(IMPORT_BODY_BYTES)),
        )
        .route(
            "/w/{workspace}/deliveries/import/run",
            post(import::run).layer(DefaultBodyLimit::max(IMPORT_BODY_BYTES)),
        )
        .route("/w/{workspace}/deliveries/{delivery}", get(deliveries::detail_page))
        .route("/w/{workspace}/deliveries/{delivery}/live", get(deliveries::live))
        .route("/w/{workspace}/deliveries/{delivery}/cancel", post(deliveries::cancel))
        .route("/w/{workspace}/deliveries/{delivery}/change", post(deliveries::change))
        .route("/w/{workspace}/deliveries/{delivery}/tip", post(deliveries::tip))
        .route(
            "/w/{workspace}/deliveries/{delivery}/proof/{file}",
            get(deliveries::proof_file),
        )
        .route("/w/{workspace}/events", get(events::list_page))
        .route("/w/{workspace}/events/{event}", get(events::detail_page))
        .route("/ops", get(operators::workspaces_page))
        .route("/ops/workspaces", post(operators::create_workspace))
        .route("/ops/audit", get(operators::audit_page))
        .route("/ops/w/{workspace}", get(operators::workspace_page))
        .route("/ops/w/{workspace}/plan", post(operators::update_plan))
        .route("/ops/w/{workspace}/billing", post(operators::update_billing))
        .route("/ops/w/{workspace}/keys/{key}/revoke", post(operators::revoke_key))
        .route("/ops/w/{workspace}/statements/close", post(operators::close_statement))
        .route(
            "/ops/w/{workspace}/statements/{statement}/{outcome}",
            post(operators::settle_statement),
        )
        .route(
            "/ops/couriers",
            get(couriers::routes::platform).post(couriers::routes::invite_platform),
        )
        .route(
            "/ops/couriers/pay",
            get(couriers::routes::platform_pay_rules).post(couriers::routes::set_platform_pay_rule),
        )
        .route(
            "/ops/couriers/{courier}/statements/{statement}/{format}",
            get(couriers::routes::platform_statement),
        )
        .route(
            "/ops/couriers/{courier}/adjustments",
            post(couriers::routes::adjust_platform),
        )
        .route(
            "/ops/couriers/{courier}",
            get(couriers::routes::platform_courier).post(couriers::routes::update_platform),
        )
        .route(
            "/ops/couriers/{courier}/status",
            post(couriers::routes::platform_status),
        )
        .route(
            "/ops/couriers/{courier}/invitation",
            post(couriers::routes::platform_invitation),
        )
        .route(
            "/w/{workspace}/couriers",
            get(couriers::routes::drivers).post(couriers::routes::invite_driver),
        )
        .route(
            "/w/{workspace}/couriers/pay",
            get(couriers::routes::driver_pay_rules).post(couriers::routes::set_driver_pay_rule),
        )
        .route(
            "/w/{workspace}/couriers/{courier}/statements/{statement}/{format}",
            get(couriers::routes::driver_statement),
        )
        .route(
            "/w/{workspace}/couriers/{courier}/adjustments",
            post(couriers::routes::adjust_driver),
        )
        .route(
            "/w/{workspace}/couriers/{courier}",
            get(couriers::routes::driver).post(couriers::routes::update_driver),
        )
        .route(
            "/w/{workspace}/couriers/{courier}/status",
            post(couriers::routes::driver_status),
        )
        .route(
            "/w/{workspace}/couriers/{courier}/invitation",
            post(couriers::routes::driver_invitation),
        )
        .route("/ops/dispatch", get(dispatch::routes::platform))
        .route("/ops/dispatch/live", get(dispatch::routes::platform_live))
        .route("/ops/dispatch/{job}", get(dispatch::routes::platform_job))
        .route("/ops/dispatch/{job}/assign", post(dispatch::routes::platform_assign))
        .route(
            "/ops/dispatch/{job}/unassign",
            post(dispatch::routes::platform_unassign),
        )
        .route(
            "/ops/dispatch/{job}/reset-pin",
            post(dispatch::routes::platform_reset_pin),
        )
        .route("/w/{workspace}/dispatch", get(dispatch::routes::fleet_page))
        .route("/w/{workspace}/dispatch/live", get(dispatch::routes::fleet_live))
        .route("/w/{workspace}/dispatch/{job}", get(dispatch::routes::fleet_job))
        .route(
            "/w/{workspace}/dispatch/{job}/assign",
            post(dispatch::routes::fleet_assign),
        )
        .route(
            "/w/{workspace}/dispatch/{job}/unassign",
            post(dispatch::routes::fleet_unassign),
        )
        .route("/w/{workspace}/overview", get(overview::page))
        .route("/w/{workspace}/board", get(board::page))
        .route("/w/{workspace}/board/live", get(board::live))
        .route("/w/{workspace}/board/settings", post(couriers::routes::fleet_settings))
        .route("/w/{workspace}/board/{order}", get(board::order_page))
        .route("/w/{workspace}/board/{order}/move", post(board::move_order))
        .route("/w/{workspace}/board/{order}/assign", post(board::assign_order))
        .route("/w/{workspace}/plans", get(plans::page).post(plans::plan))
        .route("/w/{workspace}/plans/shifts", post(plans::set_shift))
        .route("/w/{workspace}/plans/shifts/{shift}/delete", post(plans::delete_shift))
        .route("/w/{workspace}/plans/{plan}", get(plans::plan_page))
        .route("/w/{workspace}/plans/{plan}/publish", post(plans::publish))
        .route("/w/{workspace}/plans/{plan}/move", post(plans::move_order))
        .route("/w/{workspace}/reports", get(reports::workspace_page))
        .route(
            "/w/{workspace}/reports/deliveries.csv",
            get(reports::workspace_deliveries_csv),
        )
        .route(
            "/w/{workspace}/reports/couriers.csv",
            get(reports::workspace_couriers_csv),
        )
        .route("/ops/reports", get(reports::platform_page))
        .route("/ops/reports/deliveries.csv", get(reports::platform_deliveries_csv))
        .route("/ops/reports/couriers.csv", get(reports::platform_couriers_csv))
        .route("/w/{workspace}/billing", get(billing::page))
        .route(
            "/w/{workspace}/billing/statements/{statement}",
            get(billing::statement_page),
        )
        .route("/w/{workspace}/billing/statements/{statement}/csv", get(billing::csv))
        .route(
            "/w/{workspace}/billing/statements/{statement}/print",
            get(billing::print),
        )
        .route("/w/{workspace}/keys", get(keys_page).post(create_key))
        .route("/w/{workspace}/keys/{key}/revoke", post(revoke_key))
        .route("/w/{workspace}/members", get(members_page))
        .route("/w/{workspace}/members/invite", post(invite))
        .route("/w/{workspace}/members/{user}/role", post(change_role))
        .route("/w/{workspace}/members/{user}/remove", post(remove_member))
        .route(
            "/w/{workspace}/webhooks",
            get(webhooks::list_page).post(webhooks::create),
        )
        .route(
            "/w/{workspace}/webhooks/{webhook}",
            get(webhooks::detail_page).post(webhooks::update),
        )
        .route("/w/{workspace}/webhooks/{webhook}/created", get(webhooks::created_page))
        .route("/w/{workspace}/webhooks/{webhook}/status", post(webhooks::set_status))
        .route("/w/{workspace}/webhooks/{webhook}/test", post(webhooks::send_test))
        .route("/w/{workspace}/webhooks/{webhook}/replay", post(webhooks::replay))
        .route("/w/{workspace}/webhooks/{webhook}/delete", post(webhooks::delete))
        .route(
            "/w/{workspace}/notifications",
            get(notifications::page).post(notifications::save),
        )
        .route("/w/{workspace}/notifications/inbox", get(notifications::inbox_page))
        .route(
            "/w/{workspace}/notifications/texts/{language}/{trigger}",
            get(notifications::text_page).post(notifications::text_post),
        )
        .route("/invitations/{token}", get(invitation_page).post(accept_invitation))
        .route("/assets/console.css", get(stylesheet))
        .route("/assets/console.js", get(script))
        .route("/assets/icon.svg", get(icon))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(flash::clear_after_reading))
        .layer(axum::middleware::from_fn_with_state(state.clone(), forms::same_origin))
        .layer(axum::middleware::map_response_with_state(
            state.clone(),
            security_headers,
        ))
        .with_state(state)
}

async fn security_headers(State(state): State<ConsoleState>, mut response: Response) -> Response {
    let headers = response.headers_mut();
    // A page that is a document of its own (the printable statement) brings
    // its own policy.
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(state.policy.clone());
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn not_found(State(state): State<ConsoleState>) -> Response {
    render(
        MessagePage {
            layout: bare_layout(&state, "Not found"),
            message: "No console page has this address.".into(),
        },
        StatusCode::NOT_FOUND,
    )
}

async fn stylesheet() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../assets/console.css"),
    )
}

async fn icon() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "image/svg+xml")],
        include_str!("../assets/icon.svg"),
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../assets/console.js"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(url: &str) -> MapTilesArgs {
        MapTilesArgs {
            url: Some(url.to_owned()),
            attribution: "© OpenStreetMap contributors".into(),
        }
    }

    #[tokio::test]
    async fn map_tiles_add_their_origin_alone_to_img_src() {
        let state = ConsoleState::new("http://127.0.0.1:1", "http://127.0.0.1:8081/console").expect("state");
        assert!(state.policy.to_str().expect("ascii").contains("img-src 'self' data:;"));
        let tiled = state
            .clone()
            .with_map_tiles(&tiles("https://tiles.example.com/osm/{z}/{x}/{y}.png?key=k"))
            .expect("a template");
        let policy = tiled.policy.to_str().expect("ascii");
        assert!(
            policy.contains("img-src 'self' data: https://tiles.example.com;"),
            "{policy}"
        );
        assert!(policy.contains("script-src 'self';"), "{policy}");
        assert_eq!(
            tiled.map_credit, "© OpenStreetMap contributors",
            "credited under the maps"
        );
        for refused in [
            "tiles.example.com/{z}/{x}/{y}.png",
            "https://tiles.example.com/{z}/{x}.png",
            "ftp://tiles.example.com/{z}/{x}/{y}.png",
            "https:///{z}/{x}/{y}.png",
        ] {
            assert!(state.clone().with_map_tiles(&tiles(refused)).is_err(), "{refused}");
        }
    }
}
