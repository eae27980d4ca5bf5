//! Deliveries of a workspace, per mode: the list with the API's filters and
//! keyset pages, a delivery's page (price, waypoints, courier, timeline,
//! route drawing, proof, tracking link, cancel) that follows the delivery
//! live over server-sent events fed by the core's delivery watch, and in test
//! mode a form that books a test delivery for the simulator to play out.
//! Every read and action is the public service call the API makes, with the
//! session in place of a key (docs/console.md).

use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{NaiveDate, TimeZone, Utc};
use courier::names::PublicName;
use courier::v1 as pb;
use tokio_stream::StreamExt;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::labels;
use crate::page::{Layout, ModeQuery, Refusal, Signed, field, fields, mode_named, next_page, render};

/// Deliveries on one list page.
const PAGE_SIZE: i32 = 25;
/// Colours of the route drawing's markers (as on the tracking page).
const PICKUP_COLOR: &str = "#1f9d55";
const STOP_COLOR: &str = "#64748b";
const DROPOFF_COLOR: &str = "#d64545";

/// "12.34 EUR".
pub(crate) fn money(cents: i64, currency: &str) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02} {currency}", cents.abs() / 100, cents.abs() % 100)
}

pub(crate) fn when(at: Option<&prost_types::Timestamp>) -> String {
    at.and_then(courier::time::from_proto)
        .map(|at| at.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_default()
}

fn status_name(delivery: &pb::Delivery) -> &'static str {
    delivery.status().public_name().unwrap_or("unknown")
}

/// The list's filters, as the query string carries them.
#[derive(serde::Deserialize, Default)]
pub(crate) struct ListQuery {
    mode: Option<String>,
    status: Option<String>,
    external_id: Option<String>,
    /// `YYYY-MM-DD`, from the start of that day (UTC).
    created_from: Option<String>,
    /// `YYYY-MM-DD`, to the end of that day (UTC).
    created_to: Option<String>,
    page_token: Option<String>,
}

impl ListQuery {
    fn mode(&self) -> &'static str {
        mode_named(self.mode.as_deref())
    }

    /// The query string of these filters (no page token), for links.
    fn filters(&self) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("mode", self.mode());
        for (name, value) in [
            ("status", &self.status),
            ("external_id", &self.external_id),
            ("created_from", &self.created_from),
            ("created_to", &self.created_to),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                query.append_pair(name, value);
            }
        }
        query.finish()
    }
}

/// The timestamp of midnight (UTC) starting `date`, `days` later.
fn day_start(date: &str, days: i64, param: &str) -> Result<prost_types::Timestamp, Refusal> {
    let parsed = NaiveDate::parse_from_str(date, "%Y-%m-%d").map_err(|_| Refusal {
        param: Some(param.into()),
        message: format!("{param} must be a date, YYYY-MM-DD."),
    })?;
    let start = parsed
        .and_hms_opt(0, 0, 0)
        .map(|t| Utc.from_utc_datetime(&t) + chrono::Duration::days(days));
    Ok(prost_types::Timestamp {
        seconds: start.map_or(0, |t| t.timestamp()),
        nanos: 0,
    })
}

pub(crate) struct DeliveryRow {
    id: String,
    status: &'static str,
    external_id: String,
    amount: String,
    pickup: String,
    dropoff: String,
    created_at: String,
}

impl DeliveryRow {
    fn of(delivery: &pb::Delivery) -> DeliveryRow {
        DeliveryRow {
            id: delivery.id.clone(),
            status: status_name(delivery),
            external_id: delivery.external_id.clone().unwrap_or_default(),
            amount: delivery
                .amount_cents
                .map(|cents| money(cents, delivery.currency.as_deref().unwrap_or_default()))
                .unwrap_or_default(),
            pickup: delivery.pickup.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            dropoff: delivery.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            created_at: when(delivery.created_at.as_ref()),
        }
    }
}

#[derive(Template)]
#[template(path = "deliveries.html")]
pub(crate) struct DeliveriesPage {
    layout: Layout,
    workspace_id: String,
    rows: Vec<DeliveryRow>,
    statuses: Vec<(&'static str, bool)>,
    external_id: String,
    created_from: String,
    created_to: String,
    /// The query string of the filters, for the page links.
    filters: String,
    /// The query string of the next page, when there is one.
    next_page: Option<String>,
    first_page: bool,
    refusal: Option<Refusal>,
    /// Whether the user may book (a test delivery from the form).
    manages: bool,
}

impl DeliveriesPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

pub(crate) async fn list_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ListQuery>,
) -> Response {
    let mode = query.mode();
    let status_filter = query.status.as_deref().filter(|s| !s.is_empty());
    let mut request = pb::ListDeliveriesRequest {
        page_size: Some(PAGE_SIZE),
        page_token: query.page_token.clone().unwrap_or_default(),
        status: status_filter
            .and_then(pb::DeliveryStatus::from_public_name)
            .unwrap_or(pb::DeliveryStatus::Unspecified) as i32,
        external_id: query.external_id.clone().filter(|v| !v.is_empty()),
        ..Default::default()
    };
    let mut refusal = None;
    if let Some(date) = query.created_from.as_deref().filter(|d| !d.is_empty()) {
        match day_start(date, 0, "created_from") {
            Ok(at) => request.created_after = Some(at),
            Err(r) => refusal = Some(r),
        }
    }
    if let Some(date) = query.created_to.as_deref().filter(|d| !d.is_empty()) {
        match day_start(date, 1, "created_to") {
            Ok(at) => request.created_before = Some(at),
            Err(r) => refusal = Some(r),
        }
    }
    let mut rows = Vec::new();
    let mut next_page_token = String::new();
    if refusal.is_none() {
        let call = signed.acting(request, &workspace, mode, None);
        match state.deliveries.clone().list_deliveries(call).await {
            Ok(answer) => {
                let answer = answer.into_inner();
                rows = answer.deliveries.iter().map(DeliveryRow::of).collect();
                next_page_token = answer.next_page_token;
            }
            Err(status) if status.code() == tonic::Code::InvalidArgument => refusal = Some(Refusal::of(&status)),
            Err(status) => return signed.failure(&state, &status, &workspace),
        }
    }
    let mut layout = signed.layout(&state, "Deliveries", Some(&workspace), mode);
    layout.section = "deliveries";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    if let Some(refusal) = refusal.as_ref().filter(|r| {
        ["created_from", "created_to", "external_id"]
            .iter()
            .all(|f| r.at(f).is_none())
    }) {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        DeliveriesPage {
            layout,
            workspace_id: workspace,
            rows,
            statuses: pb::DeliveryStatus::NAMES
                .iter()
                .map(|(_, name)| (*name, status_filter == Some(*name)))
                .collect(),
            external_id: query.external_id.clone().unwrap_or_default(),
            created_from: query.created_from.clone().unwrap_or_default(),
            created_to: query.created_to.clone().unwrap_or_default(),
            next_page: next_page(&next_page_token).map(|token| format!("{}&page_token={token}", query.filters())),
            filters: query.filters(),
            first_page: query.page_token.as_deref().is_none_or(str::is_empty),
            refusal,
            manages,
        },
        status,
    )
}

#[derive(serde::Deserialize)]
pub(crate) struct FindQuery {
    mode: Option<String>,
    id: String,
}

/// "Go to delivery": the page of the delivery with that id.
pub(crate) async fn find(
    State(state): State<ConsoleState>,
    Path(workspace): Path<String>,
    Query(query): Query<FindQuery>,
) -> Response {
    let id: String = query
        .id
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let mode = mode_named(query.mode.as_deref());
    Redirect::to(&format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root)).into_response()
}

/// A point of the route, as the page lists it.
pub(crate) struct WaypointView {
    label: String,
    address: String,
    contact: String,
    instructions: String,
}

/// A marker of the route drawing.
pub(crate) struct Marker {
    x: String,
    y: String,
    label: String,
    title: String,
    color: &'static str,
}

pub(crate) struct Drawing {
    polyline: String,
    markers: Vec<Marker>,
    courier: Option<(String, String)>,
}

pub(crate) struct TimelineEntry {
    at: String,
    event_type: &'static str,
    status: &'static str,
    event_id: String,
}

pub(crate) struct ProofFile {
    kind: &'static str,
    name: String,
    url: String,
}

pub(crate) struct ProofView {
    kind: &'static str,
    recipient: String,
    submitted_at: String,
    files: Vec<ProofFile>,
}

/// What the live part of a delivery's page shows; rendered whole on every
/// change and sent to the open page.
#[derive(Template)]
#[template(path = "delivery_live.html")]
pub(crate) struct LivePart {
    status: &'static str,
    cancellation_reason: &'static str,
    courier_name: String,
    courier_vehicle: String,
    eta_pickup: String,
    eta_dropoff: String,
    updated_at: String,
    drawing: Drawing,
    timeline: Vec<TimelineEntry>,
    proof: Vec<ProofView>,
    /// Why there is no proof to show (the plan has none), when not simply
    /// "none yet".
    proof_note: Option<String>,
    /// Where each event's page is, for the timeline's links.
    events_base: String,
    mode: &'static str,
    /// Offered to owners and admins until the delivery has ended (whether
    /// the rules allow it then is the core's answer).
    cancel: Option<CancelForm>,
}

pub(crate) struct CancelForm {
    action: String,
    csrf: String,
    reasons: Vec<&'static str>,
}

fn drawing_of(delivery: &pb::Delivery) -> Drawing {
    let mut route: Vec<(f64, f64)> = delivery.pickup.iter().map(|w| (w.latitude, w.longitude)).collect();
    route.extend(delivery.stops.iter().map(|w| (w.latitude, w.longitude)));
    route.extend(delivery.dropoff.iter().map(|w| (w.latitude, w.longitude)));
    let location = delivery
        .courier
        .as_ref()
        .and_then(|c| c.location.as_ref())
        .map(|l| (l.latitude, l.longitude));
    let projected = courier::route_drawing::project(&route, location, 480.0, 300.0, 30.0);
    let last = projected.route.len().saturating_sub(1);
    let markers = projected
        .route
        .iter()
        .enumerate()
        .map(|(i, (x, y))| {
            let (label, title, color) = match i {
                0 => ("A".to_owned(), "Pickup".to_owned(), PICKUP_COLOR),
                i if i == last => ("B".to_owned(), "Dropoff".to_owned(), DROPOFF_COLOR),
                i => (i.to_string(), format!("Stop {i}"), STOP_COLOR),
            };
            Marker {
                x: format!("{x:.1}"),
                y: format!("{y:.1}"),
                label,
                title,
                color,
            }
        })
        .collect();
    Drawing {
        polyline: projected.polyline(),
        markers,
        courier: projected.courier.map(|(x, y)| (format!("{x:.1}"), format!("{y:.1}"))),
    }
}

/// The live part of `delivery`'s page, with its events and proof read now.
async fn live_part(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    delivery: &pb::Delivery,
    eta: Option<&pb::DeliveryEta>,
) -> Result<LivePart, tonic::Status> {
    let manages = signed
        .layout(state, "", Some(workspace), mode)
        .workspace
        .is_some_and(|w| w.manages);
    let terminal = matches!(
        delivery.status(),
        pb::DeliveryStatus::Delivered | pb::DeliveryStatus::Cancelled
    );
    let events = state
        .events
        .clone()
        .list_events(signed.acting(
            pb::ListEventsRequest {
                page_size: Some(100),
                delivery_id: Some(delivery.id.clone()),
                ..Default::default()
            },
            workspace,
            mode,
            None,
        ))
        .await?
        .into_inner()
        .events;
    let mut timeline: Vec<TimelineEntry> = events
        .iter()
        .map(|event| TimelineEntry {
            at: when(event.created_at.as_ref()),
            event_type: event.r#type().public_name().unwrap_or("unknown"),
            status: event.data.as_ref().map_or("", status_name),
            event_id: event.id.clone(),
        })
        .collect();
    timeline.reverse();
    let proof = match state
        .tracking
        .clone()
        .get_proof_of_delivery(signed.acting(
            pb::GetProofOfDeliveryRequest {
                delivery_id: delivery.id.clone(),
            },
            workspace,
            mode,
            None,
        ))
        .await
    {
        Ok(answer) => (
            answer.into_inner().proof_of_delivery.unwrap_or_default().checkpoints,
            None,
        ),
        // No proof yet, or none in the plan: the page says so, it does not fail.
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::NotFound | tonic::Code::FailedPrecondition | tonic::Code::PermissionDenied
            ) =>
        {
            let note = (status.code() == tonic::Code::PermissionDenied).then(|| status.message().to_owned());
            (Vec::new(), note)
        }
        Err(status) => return Err(status),
    };
    let (proof, proof_note) = proof;
    let courier = delivery.courier.as_ref();
    Ok(LivePart {
        status: status_name(delivery),
        cancellation_reason: labels::cancellation(delivery.cancellation_reason()),
        courier_name: courier.and_then(|c| c.name.clone()).unwrap_or_default(),
        courier_vehicle: courier
            .and_then(|c| c.vehicle.as_ref())
            .map(|v| {
                [&v.color, &v.make, &v.model, &v.license_plate]
                    .iter()
                    .filter_map(|part| part.as_deref())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        eta_pickup: when(eta.and_then(|e| e.pickup_at.as_ref())),
        eta_dropoff: when(eta.and_then(|e| e.dropoff_at.as_ref())),
        updated_at: when(delivery.updated_at.as_ref()),
        drawing: drawing_of(delivery),
        timeline,
        proof: proof
            .iter()
            .map(|checkpoint| ProofView {
                kind: labels::checkpoint(checkpoint.kind()),
                recipient: checkpoint.recipient_name.clone().unwrap_or_default(),
                submitted_at: when(checkpoint.submitted_at.as_ref()),
                files: checkpoint
                    .artifacts
                    .iter()
                    .filter_map(|artifact| {
                        Some(ProofFile {
                            kind: labels::artifact(artifact.kind()),
                            name: artifact.file_name.clone().unwrap_or_else(|| "file".into()),
                            url: artifact.download_url.clone()?,
                        })
                    })
                    .collect(),
            })
            .collect(),
        proof_note,
        events_base: format!("{}/w/{workspace}/events", state.root),
        mode,
        cancel: (manages && !terminal).then(|| CancelForm {
            action: format!(
                "{}/w/{workspace}/deliveries/{}/cancel?mode={mode}",
                state.root, delivery.id
            ),
            csrf: signed.session.csrf_token.clone(),
            reasons: pb::CancelReason::NAMES.iter().map(|(_, name)| *name).collect(),
        }),
    })
}

#[derive(Template)]
#[template(path = "delivery.html")]
pub(crate) struct DeliveryPage {
    layout: Layout,
    workspace_id: String,
    id: String,
    external_id: String,
    amount: String,
    breakdown: Vec<(String, String)>,
    waypoints: Vec<WaypointView>,
    vehicle_type_id: String,
    notes: String,
    tracking_url: String,
    created_at: String,
    live: LivePart,
}

fn waypoints_of(delivery: &pb::Delivery) -> Vec<WaypointView> {
    let view = |label: String, waypoint: &pb::Waypoint| WaypointView {
        label,
        address: waypoint.address.clone(),
        contact: waypoint
            .contact
            .as_ref()
            .map(|c| format!("{} · {}", c.name, c.phone))
            .unwrap_or_default(),
        instructions: waypoint.instructions.clone().unwrap_or_default(),
    };
    let mut points: Vec<WaypointView> = delivery.pickup.iter().map(|w| view("Pickup (A)".into(), w)).collect();
    points.extend(
        delivery
            .stops
            .iter()
            .enumerate()
            .map(|(i, w)| view(format!("Stop {}", i + 1), w)),
    );
    points.extend(delivery.dropoff.iter().map(|w| view("Dropoff (B)".into(), w)));
    points
}

fn breakdown_of(delivery: &pb::Delivery) -> Vec<(String, String)> {
    let currency = delivery.currency.as_deref().unwrap_or_default();
    let Some(breakdown) = delivery.breakdown.as_ref() else {
        return Vec::new();
    };
    let mut lines = vec![("Route".to_owned(), money(breakdown.route_cents, currency))];
    for extra in &breakdown.extras {
        let name = match &extra.option_name {
            Some(option) => format!("{} ({option}) × {}", extra.name, extra.quantity),
            None => format!("{} × {}", extra.name, extra.quantity),
        };
        lines.push((name, money(extra.amount_cents, currency)));
    }
    for surcharge in &breakdown.surcharges {
        lines.push((surcharge.label.clone(), money(surcharge.amount_cents, currency)));
    }
    if breakdown.discount_cents != 0 {
        lines.push(("Discount".into(), money(-breakdown.discount_cents, currency)));
    }
    if breakdown.service_fee_cents != 0 {
        lines.push(("Service fee".into(), money(breakdown.service_fee_cents, currency)));
    }
    lines
}

async fn delivery_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &'static str,
    id: &str,
    refusal: Option<Refusal>,
) -> Response {
    let request = signed.acting(
        pb::GetDeliveryRequest {
            delivery_id: id.to_owned(),
        },
        workspace,
        mode,
        None,
    );
    let delivery = match state.deliveries.clone().get_delivery(request).await {
        Ok(answer) => answer.into_inner().delivery.unwrap_or_default(),
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let live = match live_part(state, signed, (workspace, mode), &delivery, None).await {
        Ok(live) => live,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let mut layout = signed.layout(state, &format!("Delivery {id}"), Some(workspace), mode);
    layout.section = "deliveries";
    let status = if refusal.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    layout.error = refusal.map(|r| r.message);
    render(
        DeliveryPage {
            layout,
            workspace_id: workspace.to_owned(),
            id: delivery.id.clone(),
            external_id: delivery.external_id.clone().unwrap_or_default(),
            amount: delivery
                .amount_cents
                .map(|cents| money(cents, delivery.currency.as_deref().unwrap_or_default()))
                .unwrap_or_default(),
            breakdown: breakdown_of(&delivery),
            waypoints: waypoints_of(&delivery),
            vehicle_type_id: delivery.vehicle_type_id.clone(),
            notes: delivery.notes.clone().unwrap_or_default(),
            tracking_url: delivery.tracking_url.clone().unwrap_or_default(),
            created_at: when(delivery.created_at.as_ref()),
            live,
        },
        status,
    )
}

pub(crate) async fn detail_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    delivery_view(&state, &signed, &workspace, query.mode(), &id, None).await
}

/// `…/deliveries/{id}/live`: server-sent events, one `delivery` event with
/// the rendered live part per change the core's watch reports, then `end`
/// once the delivery is finished.
pub(crate) async fn live(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = query.mode();
    let request = signed.acting(pb::WatchDeliveryRequest { delivery_id: id }, &workspace, mode, None);
    let updates = match state.tracking.clone().watch_delivery(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let events = updates
        .then(move |update| {
            let (state, signed, workspace) = (state.clone(), signed.clone(), workspace.clone());
            async move {
                let event = match update {
                    Ok(update) => {
                        let delivery = update.delivery.unwrap_or_default();
                        match live_part(&state, &signed, (&workspace, mode), &delivery, update.eta.as_ref()).await {
                            Ok(part) => match part.render() {
                                Ok(html) => Event::default().event("update").data(html),
                                Err(error) => Event::default().event("end").data(error.to_string()),
                            },
                            Err(status) => Event::default().event("end").data(status.message()),
                        }
                    }
                    Err(status) => Event::default().event("end").data(status.message()),
                };
                Ok::<Event, Infallible>(event)
            }
        })
        .chain(tokio_stream::once(Ok(Event::default().event("end").data("finished"))));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

pub(crate) async fn cancel(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let reason = pb::CancelReason::from_public_name(field(&form, "reason")).unwrap_or(pb::CancelReason::Unspecified);
    let message = pb::CancelDeliveryRequest {
        delivery_id: id.clone(),
        reason: reason as i32,
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    match state.deliveries.clone().cancel_delivery(request).await {
        Ok(_) => signed.redirect_with(
            Flash::notice("Delivery cancelled."),
            &format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root),
        ),
        Err(status) if matches!(status.code(), tonic::Code::FailedPrecondition | tonic::Code::Aborted) => {
            delivery_view(&state, &signed, &workspace, mode, &id, Some(Refusal::of(&status))).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// The test delivery form's values (Berlin by default).
pub(crate) struct TestDeliveryForm {
    idempotency_key: String,
    pickup_address: String,
    pickup_latitude: String,
    pickup_longitude: String,
    pickup_name: String,
    pickup_phone: String,
    dropoff_address: String,
    dropoff_latitude: String,
    dropoff_longitude: String,
    dropoff_name: String,
    dropoff_phone: String,
    vehicle_types: Vec<(String, String, bool)>,
    scenarios: Vec<(&'static str, bool)>,
}

impl TestDeliveryForm {
    fn of(form: &[(String, String)], vehicle_types: &[pb::VehicleType]) -> TestDeliveryForm {
        let value = |name: &str, default: &str| {
            let sent = field(form, name);
            if form.is_empty() {
                default.to_owned()
            } else {
                sent.to_owned()
            }
        };
        let vehicle = value("vehicle_type_id", "cargo_bike");
        let scenario = field(form, "scenario");
        TestDeliveryForm {
            // A new key per form shown: sending the same form twice books once.
            idempotency_key: if form.is_empty() {
                format!("console-{}", uuid_like())
            } else {
                field(form, "idempotency_key").to_owned()
            },
            pickup_address: value("pickup_address", "Alexanderplatz 1, 10178 Berlin"),
            pickup_latitude: value("pickup_latitude", "52.5219"),
            pickup_longitude: value("pickup_longitude", "13.4132"),
            pickup_name: value("pickup_name", "Warehouse desk"),
            pickup_phone: value("pickup_phone", "+493012345678"),
            dropoff_address: value("dropoff_address", "Oranienstraße 25, 10999 Berlin"),
            dropoff_latitude: value("dropoff_latitude", "52.5010"),
            dropoff_longitude: value("dropoff_longitude", "13.4190"),
            dropoff_name: value("dropoff_name", "Test Recipient"),
            dropoff_phone: value("dropoff_phone", "+493087654321"),
            vehicle_types: vehicle_types
                .iter()
                .map(|v| (v.id.clone(), v.name.clone(), v.id == vehicle))
                .collect(),
            scenarios: pb::TestScenario::NAMES
                .iter()
                .map(|(_, name)| (*name, *name == scenario))
                .collect(),
        }
    }
}

/// 32 random hexadecimal characters, for idempotency keys.
fn uuid_like() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

#[derive(Template)]
#[template(path = "delivery_new.html")]
pub(crate) struct NewDeliveryPage {
    layout: Layout,
    workspace_id: String,
    form: TestDeliveryForm,
    refusal: Option<Refusal>,
}

impl NewDeliveryPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

async fn new_delivery_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    form: &[(String, String)],
    refusal: Option<Refusal>,
) -> Response {
    let request = signed.acting(pb::ListVehicleTypesRequest {}, workspace, "test", None);
    let vehicle_types = match state.vehicle_types.clone().list_vehicle_types(request).await {
        Ok(answer) => answer.into_inner().vehicle_types,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let mut layout = signed.layout(state, "New test delivery", Some(workspace), "test");
    layout.section = "deliveries";
    if let Some(refusal) = refusal.as_ref().filter(|r| r.param.is_none()) {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        NewDeliveryPage {
            layout,
            workspace_id: workspace.to_owned(),
            form: TestDeliveryForm::of(form, &vehicle_types),
            refusal,
        },
        status,
    )
}

pub(crate) async fn new_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
) -> Response {
    // A member is told what their role allows, before filling in a form the
    // core would refuse.
    let workspace_link = signed.layout(&state, "", Some(&workspace), "test").workspace;
    if workspace_link.as_ref().is_some_and(|w| !w.manages) {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::PermissionDenied,
            "As a member you can follow this workspace's deliveries but not book them; an owner or admin can.",
            None,
        );
        return signed.failure(&state, &status, &workspace);
    }
    new_delivery_view(&state, &signed, &workspace, &[], None).await
}

fn waypoint_in(form: &[(String, String)], prefix: &str) -> Result<pb::Waypoint, Refusal> {
    let coordinate = |name: &str| {
        let param = format!("{prefix}.{name}");
        field(form, &format!("{prefix}_{name}"))
            .trim()
            .parse::<f64>()
            .map_err(|_| Refusal {
                message: format!("{param} must be a number."),
                param: Some(param),
            })
    };
    Ok(pb::Waypoint {
        address: field(form, &format!("{prefix}_address")).to_owned(),
        latitude: coordinate("latitude")?,
        longitude: coordinate("longitude")?,
        contact: Some(pb::Contact {
            name: field(form, &format!("{prefix}_name")).to_owned(),
            phone: field(form, &format!("{prefix}_phone")).to_owned(),
            email: None,
        }),
        instructions: None,
    })
}

/// Books a test delivery (test mode only: the form has no live variant).
pub(crate) async fn create(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let waypoints = waypoint_in(&form, "pickup").and_then(|pickup| Ok((pickup, waypoint_in(&form, "dropoff")?)));
    let (pickup, dropoff) = match waypoints {
        Ok(points) => points,
        Err(refusal) => return new_delivery_view(&state, &signed, &workspace, &form, Some(refusal)).await,
    };
    let message = pb::CreateDeliveryRequest {
        pickup: Some(pickup),
        dropoff: Some(dropoff),
        vehicle_type_id: field(&form, "vehicle_type_id").to_owned(),
        test_scenario: pb::TestScenario::from_public_name(field(&form, "scenario"))
            .unwrap_or(pb::TestScenario::Unspecified) as i32,
        ..Default::default()
    };
    let mut request = signed.acting(message, &workspace, "test", Some(field(&form, "csrf")));
    if let Ok(key) = field(&form, "idempotency_key").parse() {
        request.metadata_mut().insert(courier::metadata::IDEMPOTENCY_KEY, key);
    }
    match state.deliveries.clone().create_delivery(request).await {
        Ok(answer) => {
            let id = answer.into_inner().delivery.map(|d| d.id).unwrap_or_default();
            signed.redirect_with(
                Flash::notice("Test delivery booked: the simulator plays it out on this page."),
                &format!("{}/w/{workspace}/deliveries/{id}?mode=test", state.root),
            )
        }
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
            ) =>
        {
            new_delivery_view(&state, &signed, &workspace, &form, Some(Refusal::of(&status))).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}
