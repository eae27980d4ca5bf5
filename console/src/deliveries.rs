//! Deliveries of a workspace, per mode: the list with the API's filters and
//! keyset pages, a delivery's page (price, waypoints, courier, timeline,
//! route drawing, proof, tracking link, cancel) that follows the delivery
//! live over server-sent events fed by the core's delivery watch (booking is
//! `booking`'s). Every read and action is the public service call the API makes, with the
//! session in place of a key (docs/console.md).

use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::NaiveDate;
use courier::errors::ErrorCode;
use courier::names::PublicName;
use courier::v1 as pb;
use tokio_stream::StreamExt;

use crate::ConsoleState;
use crate::delivery_changes::{ChangeForm, TipForm, change_of, tip_of};
use crate::flash::Flash;
use crate::labels;
use crate::page::{Layout, ModeQuery, Refusal, Signed, field, fields, mode_named, next_page, render, unconfirmed};
use crate::promises::{Promise, PromiseFlag};
use crate::times::{Moment, Zone};

/// Deliveries on one list page.
const PAGE_SIZE: i32 = 25;
/// Colours of the route drawing's markers (as on the tracking page).
const PICKUP_COLOR: &str = "#1f9d55";
const STOP_COLOR: &str = "#64748b";
const DROPOFF_COLOR: &str = "#d64545";

pub(crate) use courier::statements::money;

fn status_name(delivery: &pb::Delivery) -> &'static str {
    delivery.status().public_name().unwrap_or("unknown")
}

/// The list's filters, as the query string carries them.
#[derive(serde::Deserialize, Default)]
pub(crate) struct ListQuery {
    mode: Option<String>,
    status: Option<String>,
    external_id: Option<String>,
    /// `YYYY-MM-DD`, from the start of that day (the workspace's zone).
    created_from: Option<String>,
    /// `YYYY-MM-DD`, to the end of that day (the workspace's zone).
    created_to: Option<String>,
    /// `at_risk` or `late` (docs/guide.md "Windows").
    promise: Option<String>,
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
            ("promise", &self.promise),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                query.append_pair(name, value);
            }
        }
        query.finish()
    }
}

/// When the local day `date`, `days` later, starts in `zone`.
fn day_start(date: &str, days: u64, param: &str, zone: Zone) -> Result<prost_types::Timestamp, Refusal> {
    let refusal = || Refusal {
        param: Some(param.into()),
        message: format!("{param} must be a date, YYYY-MM-DD."),
    };
    let parsed = NaiveDate::parse_from_str(date, "%Y-%m-%d").map_err(|_| refusal())?;
    let day = parsed.checked_add_days(chrono::Days::new(days)).ok_or_else(refusal)?;
    Ok(zone.day_start(day))
}

/// The list's request for the filters of `query` (a page of
/// [`PAGE_SIZE`] from its token), days on `zone`'s clock.
fn list_request(query: &ListQuery, zone: Zone) -> Result<pb::ListDeliveriesRequest, Refusal> {
    let mut request = pb::ListDeliveriesRequest {
        page_size: Some(PAGE_SIZE),
        page_token: query.page_token.clone().unwrap_or_default(),
        status: query
            .status
            .as_deref()
            .and_then(pb::DeliveryStatus::from_public_name)
            .unwrap_or(pb::DeliveryStatus::Unspecified) as i32,
        external_id: query.external_id.clone().filter(|v| !v.is_empty()),
        promise: query
            .promise
            .as_deref()
            .and_then(pb::PromiseState::from_public_name)
            .unwrap_or(pb::PromiseState::Unspecified) as i32,
        ..Default::default()
    };
    if let Some(date) = query.created_from.as_deref().filter(|d| !d.is_empty()) {
        request.created_after = Some(day_start(date, 0, "created_from", zone)?);
    }
    if let Some(date) = query.created_to.as_deref().filter(|d| !d.is_empty()) {
        request.created_before = Some(day_start(date, 1, "created_to", zone)?);
    }
    Ok(request)
}

/// Rows a CSV export holds at most: narrower dates for more.
const EXPORT_ROWS: usize = 10_000;

/// `GET …/deliveries.csv?mode=&…`: the list with its filters as CSV, every
/// page of it up to [`EXPORT_ROWS`] rows (docs/console.md).
pub(crate) async fn export(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ListQuery>,
) -> Response {
    let mode = query.mode();
    let zone = signed.zone(Some(&workspace));
    let mut request = match list_request(&query, zone) {
        Ok(request) => pb::ListDeliveriesRequest {
            page_size: Some(100),
            page_token: String::new(),
            ..request
        },
        Err(refusal) => return (StatusCode::BAD_REQUEST, refusal.message).into_response(),
    };
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = [
        "id",
        "status",
        "external_id",
        "amount_cents",
        "currency",
        "tip_cents",
        "vehicle_type_id",
        "pickup_address",
        "dropoff_address",
        "created_at",
        "cancellation_reason",
        "tracking_url",
    ];
    let mut written = 0;
    let mut complete = true;
    // Writing to memory fails only on a record of the wrong length.
    let _ = writer.write_record(header);
    loop {
        let call = signed.acting(request.clone(), &workspace, mode, None);
        let answer = match state.deliveries.clone().list_deliveries(call).await {
            Ok(answer) => answer.into_inner(),
            Err(status) => return signed.failure(&state, &status, &workspace),
        };
        for d in &answer.deliveries {
            let created = d
                .created_at
                .as_ref()
                .and_then(|t| chrono::DateTime::from_timestamp(t.seconds, 0))
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default();
            let reason = PublicName::public_name(d.cancellation_reason()).unwrap_or_default();
            let _ = writer.write_record([
                d.id.as_str(),
                PublicName::public_name(d.status()).unwrap_or_default(),
                d.external_id.as_deref().unwrap_or_default(),
                &d.amount_cents.map(|a| a.to_string()).unwrap_or_default(),
                d.currency.as_deref().unwrap_or_default(),
                &d.tip_cents.to_string(),
                d.vehicle_type_id.as_str(),
                d.pickup.as_ref().map_or("", |w| w.address.as_str()),
                d.dropoff.as_ref().map_or("", |w| w.address.as_str()),
                &created,
                reason,
                d.tracking_url.as_deref().unwrap_or_default(),
            ]);
            written += 1;
        }
        if answer.next_page_token.is_empty() {
            break;
        }
        if written >= EXPORT_ROWS {
            complete = false;
            break;
        }
        request.page_token = answer.next_page_token;
    }
    let body = String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default();
    let name = match complete {
        true => format!("deliveries-{mode}.csv"),
        false => format!("deliveries-{mode}-first-{EXPORT_ROWS}.csv"),
    };
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        body,
    )
        .into_response()
}

pub(crate) struct DeliveryRow {
    id: String,
    status: &'static str,
    /// At risk or late, and by how much.
    promise: Option<PromiseFlag>,
    external_id: String,
    amount: String,
    pickup: String,
    dropoff: String,
    created_at: Moment,
}

impl DeliveryRow {
    fn of(delivery: &pb::Delivery, zone: Zone, now: i64) -> DeliveryRow {
        DeliveryRow {
            id: delivery.id.clone(),
            status: status_name(delivery),
            promise: Promise::of_delivery(delivery).and_then(|p| p.flag(now)),
            external_id: delivery.external_id.clone().unwrap_or_default(),
            amount: delivery
                .amount_cents
                .map(|cents| money(cents, delivery.currency.as_deref().unwrap_or_default()))
                .unwrap_or_default(),
            pickup: delivery.pickup.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            dropoff: delivery.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            created_at: zone.at(delivery.created_at.as_ref()),
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
    /// The promise filter's choices (`at_risk`, `late`), the chosen marked.
    promises: Vec<(&'static str, bool)>,
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
    let promise_filter = query.promise.as_deref().filter(|s| !s.is_empty());
    let zone = signed.zone(Some(&workspace));
    let (request, mut refusal) = match list_request(&query, zone) {
        Ok(request) => (request, None),
        Err(refusal) => (pb::ListDeliveriesRequest::default(), Some(refusal)),
    };
    let mut rows = Vec::new();
    let mut next_page_token = String::new();
    if refusal.is_none() {
        let call = signed.acting(request, &workspace, mode, None);
        match state.deliveries.clone().list_deliveries(call).await {
            Ok(answer) => {
                let answer = answer.into_inner();
                let now = chrono::Utc::now().timestamp_micros();
                rows = answer
                    .deliveries
                    .iter()
                    .map(|d| DeliveryRow::of(d, zone, now))
                    .collect();
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
            promises: pb::PromiseState::NAMES
                .iter()
                .map(|(_, name)| (*name, promise_filter == Some(*name)))
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
    at: Moment,
    event_type: &'static str,
    status: &'static str,
    /// What a `delivery.updated` changed, as the API names it.
    changed: String,
    event_id: String,
}

pub(crate) struct ProofFile {
    kind: &'static str,
    name: String,
    /// The console's own address of the file ([`proof_file`]), which never
    /// expires, unlike the signed link the API gives.
    url: String,
    /// Shown as a thumbnail.
    image: bool,
}

pub(crate) struct ProofView {
    kind: &'static str,
    recipient: String,
    submitted_at: Moment,
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
    eta_pickup: Moment,
    eta_dropoff: Moment,
    /// At risk or late, and by how much.
    promise: Option<PromiseFlag>,
    updated_at: Moment,
    drawing: Drawing,
    timeline: Vec<TimelineEntry>,
    proof: Vec<ProofView>,
    /// Why there is no proof to show (the plan has none), when not simply
    /// "none yet".
    proof_note: Option<String>,
    /// Where each event's page is, for the timeline's links.
    events_base: String,
    /// (id, page) of the delivery whose goods this one brings back, and of
    /// this one's return ("Returns").
    return_of: Option<(String, String)>,
    returned_by: Option<(String, String)>,
    mode: &'static str,
    /// Offered to owners and admins until the delivery has ended (whether
    /// the rules allow it then is the core's answer).
    cancel: Option<CancelForm>,
}

pub(crate) struct CancelForm {
    action: String,
    csrf: String,
    reasons: Vec<&'static str>,
    /// The reason chosen (kept when the form is refused).
    reason: String,
    /// Why the form was refused: the confirmation not ticked.
    error: Option<String>,
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
    // The contract cancels until the goods are picked up (`not_cancellable`
    // after): the form is offered only while it can succeed.
    let cancellable = matches!(
        delivery.status(),
        pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::AtPickup
    );
    // A pickup ETA means nothing once the courier is there; a dropoff ETA
    // nothing once the delivery ended.
    let before_pickup = matches!(
        delivery.status(),
        pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned
    );
    let ended = matches!(
        delivery.status(),
        pb::DeliveryStatus::Delivered | pb::DeliveryStatus::Cancelled
    );
    let zone = signed.zone(Some(workspace));
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
        .map(|event| {
            let event_type = event.r#type().public_name().unwrap_or("unknown");
            let status = event.data.as_ref().map_or("", status_name);
            TimelineEntry {
                at: zone.at(event.created_at.as_ref()),
                event_type,
                // "Courier assigned → Courier assigned" says it twice.
                status: if labels::event_type_named(event_type) == labels::delivery_status_named(status) {
                    ""
                } else {
                    status
                },
                changed: event.changed_fields.join(", "),
                event_id: event.id.clone(),
            }
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
    let page = |id: &str| format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root);
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
        eta_pickup: zone.at(eta.filter(|_| before_pickup).and_then(|e| e.pickup_at.as_ref())),
        eta_dropoff: zone.at(eta.filter(|_| !ended).and_then(|e| e.dropoff_at.as_ref())),
        promise: Promise::of_delivery(delivery).and_then(|p| p.flag(chrono::Utc::now().timestamp_micros())),
        updated_at: zone.at(delivery.updated_at.as_ref()),
        drawing: drawing_of(delivery),
        timeline,
        proof: proof
            .iter()
            .map(|checkpoint| ProofView {
                kind: labels::checkpoint(checkpoint.kind()),
                recipient: checkpoint.recipient_name.clone().unwrap_or_default(),
                submitted_at: zone.at(checkpoint.submitted_at.as_ref()),
                files: checkpoint
                    .artifacts
                    .iter()
                    .filter_map(|artifact| {
                        let (file, _, _) = signed_link(artifact.download_url.as_deref()?)?;
                        Some(ProofFile {
                            kind: labels::artifact(artifact.kind()),
                            name: artifact.file_name.clone().unwrap_or_else(|| "file".into()),
                            url: format!(
                                "{}/w/{workspace}/deliveries/{}/proof/{file}?mode={mode}",
                                state.root, delivery.id
                            ),
                            image: artifact
                                .content_type
                                .as_deref()
                                .is_some_and(|t| t.starts_with("image/")),
                        })
                    })
                    .collect(),
            })
            .collect(),
        proof_note,
        events_base: format!("{}/w/{workspace}/events", state.root),
        return_of: delivery.return_of.as_ref().map(|id| (id.clone(), page(id))),
        returned_by: delivery.return_delivery_id.as_ref().map(|id| (id.clone(), page(id))),
        mode,
        cancel: (manages && cancellable).then(|| CancelForm {
            action: format!(
                "{}/w/{workspace}/deliveries/{}/cancel?mode={mode}",
                state.root, delivery.id
            ),
            csrf: signed.session.csrf_token.clone(),
            reasons: pb::CancelReason::NAMES.iter().map(|(_, name)| *name).collect(),
            reason: "other".into(),
            error: None,
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
    /// The dropoff's address: what names the delivery without an external id.
    dropoff: String,
    amount: String,
    breakdown: Vec<(String, String)>,
    /// The tip for the courier, billed apart from the total; empty for none.
    tip: String,
    waypoints: Vec<WaypointView>,
    vehicle_type_id: String,
    notes: String,
    tracking_url: String,
    /// The handover PIN to give the recipient, when the delivery asks for one.
    dropoff_pin: Option<String>,
    created_at: Moment,
    /// When a scheduled delivery is to be picked up.
    scheduled_at: Moment,
    /// The promised times, on the area's clock; empty when none.
    pickup_window: String,
    dropoff_window: String,
    /// The change form, for owners and admins until the delivery ended.
    change: Option<ChangeForm>,
    /// The tip form, for owners and admins unless it was cancelled.
    tip_form: Option<TipForm>,
    live: LivePart,
}

/// A form of a delivery's page that the console or the core refused, to
/// show again with the refusal.
enum Refused<'a> {
    /// The cancel form with the reason chosen.
    Cancel(&'a str, Refusal),
    /// The change form as sent, and the total a moved place would cost
    /// when that is why it was refused (`price_changed`).
    Change(&'a [(String, String)], Refusal, Option<i64>),
    /// The tip form as sent.
    Tip(&'a [(String, String)], Refusal),
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

/// The lines of a price breakdown (a delivery's or a quote's), before the
/// total.
pub(crate) fn breakdown_lines(breakdown: Option<&pb::PriceBreakdown>, currency: &str) -> Vec<(String, String)> {
    let Some(breakdown) = breakdown else {
        return Vec::new();
    };
    let mut lines = vec![("Route".to_owned(), money(breakdown.route_cents, currency))];
    // The contract's surcharges are part of the route's fare, not added to
    // it: listed under it, "of which".
    for surcharge in &breakdown.surcharges {
        lines.push((
            format!("of which {}", surcharge.label),
            money(surcharge.amount_cents, currency),
        ));
    }
    for extra in &breakdown.extras {
        let name = match &extra.option_name {
            Some(option) => format!("{} ({option}) × {}", extra.name, extra.quantity),
            None => format!("{} × {}", extra.name, extra.quantity),
        };
        lines.push((name, money(extra.amount_cents, currency)));
    }
    if breakdown.discount_cents != 0 {
        lines.push(("Discount".into(), money(-breakdown.discount_cents, currency)));
    }
    if breakdown.service_fee_cents != 0 {
        lines.push(("Service fee".into(), money(breakdown.service_fee_cents, currency)));
    }
    lines
}

/// A delivery's page; `refused`: a form as sent and the refusal of it (at
/// its field or confirmation, or the core's as the banner).
async fn delivery_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    id: &str,
    refused: Option<Refused<'_>>,
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
    let mut live = match live_part(state, signed, (workspace, mode), &delivery, None).await {
        Ok(live) => live,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let mut layout = signed.layout(state, &format!("Delivery {id}"), Some(workspace), mode);
    layout.section = "deliveries";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let ended = matches!(
        delivery.status(),
        pb::DeliveryStatus::Delivered | pb::DeliveryStatus::Cancelled
    );
    let zone = signed.zone(Some(workspace));
    let mut change = (manages && !ended).then(|| {
        let action = format!("{}/w/{workspace}/deliveries/{id}/change?mode={mode}", state.root);
        ChangeForm::of(&delivery, zone, action, signed.session.csrf_token.clone())
    });
    let mut tip_form = manages
        .then(|| {
            let action = format!("{}/w/{workspace}/deliveries/{id}/tip?mode={mode}", state.root);
            let now = chrono::Utc::now().timestamp();
            TipForm::of(&delivery, zone, action, signed.session.csrf_token.clone(), now)
        })
        .flatten();
    // A refusal at a field of its form is shown there (400); any other is
    // the page's banner (409).
    let (status, banner) = match refused {
        Some(Refused::Cancel(reason, refusal)) => {
            if let Some(form) = live.cancel.as_mut() {
                form.reason = reason.to_owned();
                form.error = refusal.at("confirm").map(str::to_owned);
            }
            match refusal.at("confirm") {
                Some(_) => (StatusCode::BAD_REQUEST, None),
                None => (StatusCode::CONFLICT, Some(refusal.message)),
            }
        }
        Some(Refused::Change(sent, refusal, new_total)) => {
            let at_field = refusal.param.clone().map(|param| (param, refusal.message.clone()));
            let currency = delivery.currency.as_deref().unwrap_or_default();
            let new_price = new_total.map(|cents| (cents, money(cents, currency)));
            change = change.map(|form| form.sent(sent, at_field.clone()).priced(new_price));
            match at_field {
                Some(_) if change.is_some() && new_total.is_some() => (StatusCode::CONFLICT, None),
                Some(_) if change.is_some() => (StatusCode::BAD_REQUEST, None),
                _ => (StatusCode::CONFLICT, Some(refusal.message)),
            }
        }
        Some(Refused::Tip(sent, refusal)) => match tip_form.take() {
            Some(form) => {
                tip_form = Some(form.sent(sent, refusal.message));
                (StatusCode::BAD_REQUEST, None)
            }
            None => (StatusCode::CONFLICT, Some(refusal.message)),
        },
        None => (StatusCode::OK, None),
    };
    layout.error = banner;
    render(
        DeliveryPage {
            layout,
            workspace_id: workspace.to_owned(),
            id: delivery.id.clone(),
            external_id: delivery.external_id.clone().unwrap_or_default(),
            dropoff: delivery.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            amount: delivery
                .amount_cents
                .map(|cents| money(cents, delivery.currency.as_deref().unwrap_or_default()))
                .unwrap_or_default(),
            breakdown: breakdown_lines(
                delivery.breakdown.as_ref(),
                delivery.currency.as_deref().unwrap_or_default(),
            ),
            tip: match delivery.tip_cents {
                cents if cents > 0 => money(cents, delivery.currency.as_deref().unwrap_or_default()),
                _ => String::new(),
            },
            waypoints: waypoints_of(&delivery),
            vehicle_type_id: delivery.vehicle_type_id.clone(),
            notes: delivery.notes.clone().unwrap_or_default(),
            tracking_url: delivery.tracking_url.clone().unwrap_or_default(),
            dropoff_pin: delivery.dropoff_pin.clone(),
            created_at: zone.at(delivery.created_at.as_ref()),
            scheduled_at: zone.at(delivery.scheduled_at.as_ref()),
            pickup_window: zone.window(delivery.pickup_window.as_ref()),
            dropoff_window: zone.window(delivery.dropoff_window.as_ref()),
            change,
            tip_form,
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
    delivery_view(&state, &signed, (&workspace, query.mode()), &id, None).await
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
    let sent_reason = field(&form, "reason");
    if let Some(refusal) = unconfirmed(&form, "cancel the delivery") {
        let refused = Refused::Cancel(sent_reason, refusal);
        return delivery_view(&state, &signed, (&workspace, mode), &id, Some(refused)).await;
    }
    let reason = pb::CancelReason::from_public_name(sent_reason).unwrap_or(pb::CancelReason::Unspecified);
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
            let refused = Refused::Cancel(sent_reason, Refusal::of(&status));
            delivery_view(&state, &signed, (&workspace, mode), &id, Some(refused)).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// `…/deliveries/{id}/tip`: the tip form (`delivery_changes::TipForm`),
/// sent as `UpdateDelivery` of `tip_cents`; a refusal (a lower tip after
/// delivery, a late raise) is shown at the field.
pub(crate) async fn tip(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let page = format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root);
    let request = signed.acting(
        pb::GetDeliveryRequest {
            delivery_id: id.clone(),
        },
        &workspace,
        mode,
        None,
    );
    let delivery = match state.deliveries.clone().get_delivery(request).await {
        Ok(answer) => answer.into_inner().delivery.unwrap_or_default(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let message = match tip_of(&delivery, &form) {
        Ok(Some(message)) => message,
        Ok(None) => return signed.redirect_with(Flash::notice("The delivery already has this tip."), &page),
        Err(refusal) => {
            return delivery_view(
                &state,
                &signed,
                (&workspace, mode),
                &id,
                Some(Refused::Tip(&form, refusal)),
            )
            .await;
        }
    };
    let mut request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    if let Ok(key) = field(&form, "idempotency_key").parse() {
        request.metadata_mut().insert(courier::metadata::IDEMPOTENCY_KEY, key);
    }
    match state.deliveries.clone().update_delivery(request).await {
        Ok(_) => signed.redirect_with(Flash::notice("Tip saved."), &page),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
            ) =>
        {
            let refused = Refused::Tip(&form, Refusal::of(&status));
            delivery_view(&state, &signed, (&workspace, mode), &id, Some(refused)).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// `…/deliveries/{id}/change`: the change form (see `delivery_changes`),
/// sent as `UpdateDelivery`; back on the delivery's page, whose history
/// shows the change.
pub(crate) async fn change(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let page = format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root);
    let request = signed.acting(
        pb::GetDeliveryRequest {
            delivery_id: id.clone(),
        },
        &workspace,
        mode,
        None,
    );
    let delivery = match state.deliveries.clone().get_delivery(request).await {
        Ok(answer) => answer.into_inner().delivery.unwrap_or_default(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let (message, changed) = match change_of(&delivery, signed.zone(Some(&workspace)), &form) {
        Ok(Some(change)) => change,
        Ok(None) => {
            return signed.redirect_with(
                Flash::notice("Nothing to change: the form holds what the delivery has."),
                &page,
            );
        }
        Err(refusal) => {
            let refused = Refused::Change(&form, refusal, None);
            return delivery_view(&state, &signed, (&workspace, mode), &id, Some(refused)).await;
        }
    };
    let mut request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    if let Ok(key) = field(&form, "idempotency_key").parse() {
        request.metadata_mut().insert(courier::metadata::IDEMPOTENCY_KEY, key);
    }
    match state.deliveries.clone().update_delivery(request).await {
        Ok(_) => signed.redirect_with(
            Flash::notice(format!("Delivery changed: {}.", changed.join(", "))),
            &page,
        ),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition | tonic::Code::Aborted
            ) =>
        {
            // A field's own error is shown at it, and a new price beside
            // the place that moved it, to be accepted; a status that no
            // longer allows the change (`not_editable`, a stale page) is
            // the page's.
            let mut refusal = Refusal::of(&status);
            let new_total = (courier::errors::from_status(&status).0 == ErrorCode::PriceChanged)
                .then(|| {
                    courier::errors::error_info(&status, courier::errors::AMOUNT_CENTS_KEY)?
                        .parse()
                        .ok()
                })
                .flatten();
            if new_total.is_some() {
                refusal.param = Some("accept_amount_cents".into());
            } else if status.code() != tonic::Code::InvalidArgument {
                refusal.param = None;
            }
            let refused = Refused::Change(&form, refusal, new_total);
            delivery_view(&state, &signed, (&workspace, mode), &id, Some(refused)).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// The file id, `expires` and `signature` of a proof file's signed link
/// (`…/v1/proof-files/{id}?expires=…&signature=…`).
fn signed_link(link: &str) -> Option<(String, i64, String)> {
    let url = url::Url::parse(link).ok()?;
    let id = url.path_segments()?.next_back()?.to_owned();
    let query = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    Some((id, query("expires")?.parse().ok()?, query("signature")?))
}

/// `…/deliveries/{id}/proof/{file}`: a proof file of the delivery, read
/// through a signed link the core makes now, so a page left open past the
/// links' 15 minutes still shows its photos (and never the API's JSON).
pub(crate) async fn proof_file(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id, file)): Path<(String, String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = query.mode();
    let request = signed.acting(
        pb::GetProofOfDeliveryRequest { delivery_id: id },
        &workspace,
        mode,
        None,
    );
    let proof = match state.tracking.clone().get_proof_of_delivery(request).await {
        Ok(answer) => answer.into_inner().proof_of_delivery.unwrap_or_default(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let link = proof
        .checkpoints
        .iter()
        .flat_map(|c| &c.artifacts)
        .filter_map(|a| signed_link(a.download_url.as_deref()?))
        .find(|(artifact_id, _, _)| *artifact_id == file);
    let Some((artifact_id, expires, signature)) = link else {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::NotFound,
            "This delivery has no such proof file.",
            None,
        );
        return signed.failure(&state, &status, &workspace);
    };
    let request = tonic::Request::new(pb::GetProofFileRequest {
        artifact_id,
        expires,
        signature,
    });
    let file = match state.public.clone().get_proof_file(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let content_type = HeaderValue::from_str(&file.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    let disposition =
        HeaderValue::from_str(&attachment(&file.file_name)).unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (header::CONTENT_TYPE, content_type),
            // Opened, an uploaded file is downloaded, never rendered on the
            // console's origin (the page's thumbnails still show it).
            (header::CONTENT_DISPOSITION, disposition),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("default-src 'none'; img-src 'self'; sandbox"),
            ),
        ],
        file.content,
    )
        .into_response()
}

/// `attachment` with an ASCII `filename` fallback and the exact name as
/// RFC 5987 `filename*` (as the edge serves proof files).
fn attachment(name: &str) -> String {
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_files_are_attachments_with_safe_names() {
        assert_eq!(
            attachment("pickup photo.png"),
            "attachment; filename=\"pickup photo.png\"; filename*=UTF-8''pickup%20photo.png"
        );
        assert_eq!(
            attachment("Grüße \"x\".pdf"),
            "attachment; filename=\"Gr__e _x_.pdf\"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22x%22.pdf"
        );
    }
}
