//! The public tracking page, `GET /t/{token}`: the link a business shares
//! with its recipient. Server-rendered HTML with no key, no script and no
//! third-party resource (inline CSS and an inline SVG route drawing), so it
//! loads on any phone, and a strict content security policy can forbid
//! everything else. Every 15 seconds one small inline script (allowed by its
//! hash alone) reads the page again and swaps in what changed, keeping the
//! reader's place and focus; without script, a refresh inside `<noscript>`
//! reloads it (a meta refresh a screen reader cannot stop is an
//! accessibility failure).
//!
//! The core decides what a link holder may see (`PublicService`); this file
//! only lays it out. Being a browser page, its errors are HTML pages, not the
//! JSON error shape of the API.

use std::fmt::Write as _;

use axum::Extension;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use chrono::{DateTime, FixedOffset, Offset, Utc};
use courier::errors::ErrorCode;
use courier::v1 as pb;
use courier::v1::DeliveryStatus as S;

use crate::EdgeState;
use crate::error::ApiError;
use crate::middleware::RequestId;

/// Seconds between the page's own reloads.
const REFRESH_SECS: u32 = 15;

/// Reads the page again every [`REFRESH_SECS`] and swaps in its `main`
/// when it changed; stops once the delivery has ended (no refresh asked).
const UPDATER: &str = "setInterval(async()=>{if(!document.querySelector('meta[name=refresh-every]'))return;\
try{const r=await fetch(location.href,{cache:'no-store'});if(!r.ok)return;\
const d=new DOMParser().parseFromString(await r.text(),'text/html');const n=d.querySelector('main');\
const o=document.querySelector('main');if(n&&o&&n.innerHTML!==o.innerHTML){o.innerHTML=n.innerHTML;document.title=d.title;}\
if(!d.querySelector('meta[name=refresh-every]'))document.querySelector('meta[name=refresh-every]')?.remove();}catch(e){}},15000);";

/// The page's policy: nothing but its inline style and the updater (by
/// its hash), which may read this same page.
fn policy() -> &'static str {
    static POLICY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        use base64::Engine as _;
        use sha2::Digest as _;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(UPDATER.as_bytes()));
        format!(
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{hash}'; \
             connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
    });
    &POLICY
}

/// `GET /t/{token}`
pub async fn page(
    State(state): State<EdgeState>,
    request_id: Option<Extension<RequestId>>,
    token: Result<Path<String>, PathRejection>,
) -> Response {
    // A token that is not text (invalid UTF-8) names no delivery.
    let Ok(Path(token)) = token else {
        return html(StatusCode::NOT_FOUND, not_found_page());
    };
    let mut request = tonic::Request::new(pb::GetPublicTrackingRequest { token });
    if let Some(value) = request_id.and_then(|Extension(RequestId(id))| id.parse().ok()) {
        request.metadata_mut().insert(courier::metadata::REQUEST_ID, value);
    }
    match state.core.public.clone().get_public_tracking(request).await {
        Ok(answer) => match answer.into_inner().tracking {
            Some(tracking) => html(StatusCode::OK, render(&tracking)),
            None => unavailable(),
        },
        Err(status) => {
            let error = ApiError::from_status(status);
            // A token with characters no token has names no delivery either.
            if matches!(error.code, ErrorCode::NotFound | ErrorCode::InvalidRequest) {
                html(StatusCode::NOT_FOUND, not_found_page())
            } else {
                tracing::warn!(code = error.code.as_str(), "tracking page unavailable");
                unavailable()
            }
        }
    }
}

fn unavailable() -> Response {
    html(StatusCode::SERVICE_UNAVAILABLE, unavailable_page())
}

/// An HTML answer with the page's security and caching headers.
fn html(status: StatusCode, body: String) -> Response {
    let mut response = (status, Html(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(policy) = HeaderValue::from_str(policy()) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // The token is in the URL: never send it elsewhere as a referrer.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    response
}

/// Text for HTML content and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The status in words: a headline and a sentence.
fn status_words(status: S, courier: Option<&str>) -> (&'static str, String) {
    let who = courier.unwrap_or("Your courier");
    match status {
        S::Pending | S::Unspecified => (
            "Finding a courier",
            "We are looking for a courier for this delivery.".into(),
        ),
        S::CourierAssigned => (
            "Courier on the way to pickup",
            format!("{who} is heading to the pickup."),
        ),
        S::AtPickup => ("Courier at pickup", format!("{who} is collecting the goods.")),
        S::PickedUp => ("Picked up", format!("{who} has collected the goods.")),
        S::InTransit => ("On the way", format!("{who} is on the way to the dropoff.")),
        S::AtDropoff => ("Courier has arrived", format!("{who} has arrived at the dropoff.")),
        S::Delivered => ("Delivered", "The goods have been delivered.".into()),
        S::Cancelled => ("Cancelled", "This delivery was cancelled.".into()),
    }
}

fn time(ts: Option<&prost_types::Timestamp>) -> Option<DateTime<Utc>> {
    ts.and_then(courier::time::from_proto)
}

/// A clock time in the service area's local time.
fn clock(at: DateTime<Utc>, offset: FixedOffset) -> String {
    at.with_timezone(&offset).format("%H:%M").to_string()
}

/// "in about 12 min", or "any minute now".
fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let minutes = (at - now).num_seconds().div_euclid(60) + i64::from((at - now).num_seconds() % 60 != 0);
    match minutes {
        ..=1 => "any minute now".into(),
        2..=90 => format!("in about {minutes} min"),
        _ => format!("in about {} h {} min", minutes / 60, minutes % 60),
    }
}

/// The look of the keyless pages (this one and the unsubscribe page).
pub(crate) const STYLE: &str = "\
*{box-sizing:border-box}\
body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:18px;line-height:1.45;\
color:#17202c;background:#f3f5f8}\
main{max-width:560px;margin:0 auto;padding:20px 16px 32px}\
h1{font-size:1.75rem;line-height:1.2;margin:.2em 0 .3em}\
.lead{font-size:1.1rem;margin:0 0 1rem;color:#334155}\
.card{background:#fff;border-radius:14px;padding:14px 16px;margin:12px 0;box-shadow:0 1px 3px rgba(15,23,42,.12)}\
.label{font-size:.85rem;text-transform:uppercase;letter-spacing:.06em;color:#475569;margin:0}\
.big{font-size:1.5rem;font-weight:650;margin:.1em 0}\
.pin{font-variant-numeric:tabular-nums;letter-spacing:.3em}\
.muted{color:#475569;margin:0}\
.badge{display:inline-block;background:#fff3cd;color:#7a5200;border-radius:999px;padding:2px 12px;\
font-size:.85rem;font-weight:600;margin:0}\
svg{width:100%;height:auto;display:block;border-radius:10px}\
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:.95rem;margin:10px 0 0;padding:0;list-style:none}\
.dot{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:6px;vertical-align:-.05em}\
footer{font-size:.85rem;color:#475569;margin-top:18px}";

fn document(title: &str, refresh: bool, body: &str) -> String {
    let refresh = if refresh {
        format!(
            "<meta name=\"refresh-every\" content=\"{REFRESH_SECS}\"><script>{UPDATER}</script>\
             <noscript><meta http-equiv=\"refresh\" content=\"{REFRESH_SECS}\"></noscript>"
        )
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">{refresh}\
         <meta name=\"robots\" content=\"noindex, nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        esc(title)
    )
}

fn not_found_page() -> String {
    document(
        "Tracking link not found",
        false,
        "<h1>Tracking link not found</h1><p class=\"lead\">This tracking link is unknown. Check that you \
         opened the complete link you were sent, or ask the sender for a new one.</p>",
    )
}

fn unavailable_page() -> String {
    document(
        "Tracking temporarily unavailable",
        true,
        "<h1>Tracking is temporarily unavailable</h1><p class=\"lead\">This page tries again by itself in a \
         few seconds.</p>",
    )
}

/// The page for `t`.
pub fn render(t: &pb::PublicTracking) -> String {
    let status = S::try_from(t.status).unwrap_or(S::Unspecified);
    let courier = t.courier.as_ref();
    let name = courier.and_then(|c| c.name.as_deref()).filter(|n| !n.is_empty());
    let (headline, sentence) = status_words(status, name);
    let offset = FixedOffset::east_opt(t.utc_offset_minutes.saturating_mul(60)).unwrap_or_else(|| Utc.fix());
    let now = time(t.generated_at.as_ref()).unwrap_or_else(Utc::now);
    let mut body = String::new();
    if t.test {
        body.push_str("<p class=\"badge\">Test delivery: simulated courier</p>");
    }
    let _ = write!(
        body,
        "<h1 id=\"status\">{}</h1><p class=\"lead\">{}</p>",
        esc(headline),
        esc(&sentence)
    );

    // ETA: of the pickup until the goods are collected, then of the dropoff.
    let (eta_label, eta) = match status {
        S::Pending | S::CourierAssigned | S::AtPickup => ("Courier at pickup", time(t.pickup_eta.as_ref())),
        S::PickedUp | S::InTransit | S::AtDropoff => ("Estimated arrival", time(t.dropoff_eta.as_ref())),
        _ => ("", None),
    };
    if let Some(at) = eta {
        let _ = write!(
            body,
            "<section class=\"card\" id=\"eta\"><p class=\"label\">{}</p><p class=\"big\">{}</p>\
             <p class=\"muted\">{}</p>{}</section>",
            esc(eta_label),
            clock(at, offset),
            esc(&relative(at, now)),
            t.stops_before_dropoff
                .map(|stops| format!("<p id=\"stops-before\">{}</p>", stops_words(stops)))
                .unwrap_or_default()
        );
    }
    if let Some(pin) = t.dropoff_pin.as_deref() {
        let _ = write!(
            body,
            "<section class=\"card\" id=\"dropoff-pin\"><p class=\"label\">Your PIN</p>\
             <p class=\"big pin\">{}</p><p class=\"muted\">Tell it to the courier at the door: \
             the goods are handed over only against it.</p></section>",
            esc(pin)
        );
    }
    if status == S::Delivered
        && let Some(at) = time(t.delivered_at.as_ref())
    {
        let _ = write!(
            body,
            "<section class=\"card\"><p class=\"label\">Delivered at</p><p class=\"big\">{}</p></section>",
            clock(at, offset)
        );
    }

    if let Some(c) = courier {
        let vehicle = c.vehicle.as_ref().map(vehicle_text).unwrap_or_default();
        let _ = write!(
            body,
            "<section class=\"card\" id=\"courier\"><p class=\"label\">Your courier</p>\
             <p class=\"big\" id=\"courier-name\">{}</p>{}</section>",
            esc(name.unwrap_or("Courier")),
            if vehicle.is_empty() {
                String::new()
            } else {
                format!("<p class=\"muted\" id=\"vehicle\">{}</p>", esc(&vehicle))
            }
        );
    }

    body.push_str(&route_card(t));
    // An ended delivery changes no more: its page stops updating.
    let ended = matches!(status, S::Delivered | S::Cancelled);
    let _ = write!(
        body,
        "<footer>Updated {} ({}).{}</footer>",
        time(t.updated_at.as_ref())
            .map(|at| clock(at, offset))
            .unwrap_or_else(|| "–".into()),
        esc(&t.time_zone),
        if ended {
            String::new()
        } else {
            format!(" This page refreshes every {REFRESH_SECS} seconds.")
        }
    );
    document(&format!("Delivery: {headline}"), !ended, &body)
}

/// The courier's stops before this dropoff, in words: they may carry
/// several deliveries (docs/guide.md "Several jobs per courier").
fn stops_words(stops: i32) -> String {
    match stops {
        ..=0 => "Yours is the courier's next stop.".to_owned(),
        1 => "1 stop before yours.".to_owned(),
        n => format!("{n} stops before yours."),
    }
}

/// "Blue Volkswagen ID.3 · B-MM 1234"
fn vehicle_text(v: &pb::CourierVehicle) -> String {
    let mut model: Vec<String> = Vec::new();
    if let Some(color) = v.color.as_deref().filter(|c| !c.is_empty()) {
        let mut chars = color.chars();
        let capitalised: String = chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        model.push(capitalised);
    }
    model.extend(
        [v.make.as_deref(), v.model.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    );
    let mut parts = vec![model.join(" ")];
    if let Some(plate) = v.license_plate.as_deref().filter(|p| !p.is_empty()) {
        parts.push(plate.to_owned());
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" · ")
}

const PICKUP_COLOR: &str = "#1f9d55";
const STOP_COLOR: &str = "#64748b";
const DROPOFF_COLOR: &str = "#d64545";
const COURIER_COLOR: &str = "#2f6fde";

/// The route drawing: pickup (A), stops (1, 2, …), dropoff (B) joined in
/// driving order, and the courier's position, on a flat projection fitted to
/// the box.
fn route_card(t: &pb::PublicTracking) -> String {
    let (Some(pickup), Some(dropoff)) = (t.pickup.as_ref(), t.dropoff.as_ref()) else {
        return String::new();
    };
    let location = t.courier.as_ref().and_then(|c| c.location.as_ref());
    let mut route: Vec<(f64, f64)> = vec![(pickup.latitude, pickup.longitude)];
    route.extend(t.stops.iter().map(|s| (s.latitude, s.longitude)));
    route.push((dropoff.latitude, dropoff.longitude));
    let (width, height, margin) = (320.0, 220.0, 26.0);
    let drawing = courier::route_drawing::project(
        &route,
        location.map(|l| (l.latitude, l.longitude)),
        width,
        height,
        margin,
    );

    let mut svg = format!(
        "<svg id=\"route\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"Route drawing\" \
         xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"{width}\" height=\"{height}\" fill=\"#e8eef5\"/>"
    );
    for i in 1..8 {
        let x = f64::from(i) * width / 8.0;
        let y = f64::from(i) * height / 8.0;
        let _ = write!(
            svg,
            "<path d=\"M{x:.1} 0V{height}M0 {y:.1}H{width}\" stroke=\"#dae3ee\" stroke-width=\"1\"/>"
        );
    }
    let _ = write!(
        svg,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#8796aa\" stroke-width=\"4\" stroke-dasharray=\"8 6\" \
         stroke-linecap=\"round\" stroke-linejoin=\"round\"/>",
        drawing.polyline()
    );
    let marker = |svg: &mut String, (x, y): (f64, f64), color: &str, label: &str, title: &str| {
        let _ = write!(
            svg,
            "<g><title>{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"11\" fill=\"{color}\" stroke=\"#fff\" \
             stroke-width=\"2\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"12\" font-weight=\"700\" \
             text-anchor=\"middle\" fill=\"#fff\" font-family=\"sans-serif\">{}</text></g>",
            esc(title),
            y + 4.0,
            esc(label)
        );
    };
    let (first, last) = (drawing.route[0], drawing.route[drawing.route.len() - 1]);
    for (i, point) in drawing.route[1..drawing.route.len() - 1].iter().enumerate() {
        let label = (i + 1).to_string();
        marker(&mut svg, *point, STOP_COLOR, &label, &format!("Stop {label}"));
    }
    marker(&mut svg, first, PICKUP_COLOR, "A", "Pickup");
    marker(&mut svg, last, DROPOFF_COLOR, "B", "Dropoff");
    if let Some((x, y)) = drawing.courier {
        let _ = write!(
            svg,
            "<g id=\"courier-position\"><title>Courier</title>\
             <circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"18\" fill=\"{COURIER_COLOR}\" fill-opacity=\".22\"/>\
             <circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"8\" fill=\"{COURIER_COLOR}\" stroke=\"#fff\" stroke-width=\"3\"/></g>"
        );
    }
    svg.push_str("</svg>");

    let place = |p: &pb::PublicPlace| {
        if p.locality.is_empty() {
            String::new()
        } else {
            format!(" ({})", esc(&p.locality))
        }
    };
    let mut legend = format!(
        "<li><span class=\"dot\" style=\"background:{PICKUP_COLOR}\"></span>A Pickup{}</li>",
        place(pickup)
    );
    if !t.stops.is_empty() {
        let _ = write!(
            legend,
            "<li><span class=\"dot\" style=\"background:{STOP_COLOR}\"></span>{} stop{}</li>",
            t.stops.len(),
            if t.stops.len() == 1 { "" } else { "s" }
        );
    }
    let _ = write!(
        legend,
        "<li><span class=\"dot\" style=\"background:{DROPOFF_COLOR}\"></span>B Dropoff{}</li>",
        place(dropoff)
    );
    if location.is_some() {
        let _ = write!(
            legend,
            "<li><span class=\"dot\" style=\"background:{COURIER_COLOR}\"></span>Courier</li>"
        );
    }
    format!("<section class=\"card\"><p class=\"label\">Route</p>{svg}<ul class=\"legend\">{legend}</ul></section>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(lat: f64, lng: f64, locality: &str) -> pb::PublicPlace {
        pb::PublicPlace {
            latitude: lat,
            longitude: lng,
            locality: locality.into(),
        }
    }

    fn tracking() -> pb::PublicTracking {
        let now = courier::time::micros_to_proto(1_700_000_000_000_000);
        pb::PublicTracking {
            status: S::InTransit as i32,
            courier: Some(pb::PublicCourier {
                name: Some("Lena<script>".into()),
                vehicle: Some(pb::CourierVehicle {
                    make: Some("Volkswagen".into()),
                    model: Some("ID.3".into()),
                    color: Some("blue".into()),
                    license_plate: Some("B-MM 1234".into()),
                    photo_url: None,
                }),
                location: Some(pb::CourierLocation {
                    latitude: 52.51,
                    longitude: 13.41,
                    recorded_at: None,
                }),
            }),
            pickup: Some(place(52.52, 13.41, "Berlin")),
            stops: vec![place(52.515, 13.40, "Berlin")],
            dropoff: Some(place(52.50, 13.42, "Berlin")),
            pickup_eta: None,
            dropoff_eta: Some(courier::time::micros_to_proto(1_700_000_000_000_000 + 12 * 60_000_000)),
            tracking_available_at: Some(now),
            updated_at: Some(now),
            delivered_at: None,
            generated_at: Some(now),
            utc_offset_minutes: 60,
            time_zone: "Europe/Berlin".into(),
            test: true,
            stops_before_dropoff: Some(2),
            dropoff_pin: Some("0427".into()),
        }
    }

    #[test]
    fn renders_status_courier_eta_and_route() {
        let html = render(&tracking());
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<h1 id=\"status\">On the way</h1>"));
        assert!(html.contains("Lena&lt;script&gt;"));
        // One script: the updater, allowed by its hash alone.
        assert_eq!(html.matches("<script").count(), 1);
        assert!(html.contains(&format!("<script>{UPDATER}</script>")));
        {
            use base64::Engine as _;
            use sha2::Digest as _;
            let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(UPDATER.as_bytes()));
            assert!(
                policy().contains(&format!("script-src 'sha256-{hash}'")),
                "{}",
                policy()
            );
        }
        assert!(html.contains("Blue Volkswagen ID.3 · B-MM 1234"));
        // 22:13 UTC + 1 h, 12 minutes later.
        assert!(html.contains(">23:25<") && html.contains("in about 12 min"), "{html}");
        assert!(
            html.contains("<p id=\"stops-before\">2 stops before yours.</p>"),
            "{html}"
        );
        assert!(html.contains("<polyline") && html.contains("id=\"courier-position\""));
        assert!(html.contains("<p class=\"big pin\">0427</p>"), "{html}");
        // Without script, a refresh only inside <noscript>.
        assert!(html.contains("<noscript><meta http-equiv=\"refresh\" content=\"15\"></noscript>"));
        assert!(html.contains("name=\"viewport\""));
        assert!(!html.contains("src="), "no external resources");
    }

    #[test]
    fn an_ended_delivery_s_page_stops_updating() {
        let mut t = tracking();
        t.status = S::Delivered as i32;
        let html = render(&t);
        assert!(html.contains("<h1 id=\"status\">Delivered</h1>"));
        assert!(
            !html.contains("<script") && !html.contains("http-equiv=\"refresh\""),
            "{html}"
        );
        assert!(!html.contains("refreshes every"));
    }

    #[test]
    fn a_single_point_route_still_draws() {
        let mut t = tracking();
        t.stops.clear();
        t.pickup = Some(place(52.5, 13.4, ""));
        t.dropoff = Some(place(52.5, 13.4, ""));
        t.courier = None;
        let html = render(&t);
        assert!(html.contains("<polyline") && !html.contains("NaN") && !html.contains("inf"));
    }

    #[test]
    fn relative_times_round_up() {
        let now = Utc::now();
        assert_eq!(relative(now + chrono::Duration::seconds(30), now), "any minute now");
        assert_eq!(relative(now - chrono::Duration::minutes(3), now), "any minute now");
        assert_eq!(
            relative(now + chrono::Duration::seconds(11 * 60 + 1), now),
            "in about 12 min"
        );
        assert_eq!(
            relative(now + chrono::Duration::minutes(125), now),
            "in about 2 h 5 min"
        );
    }
}
