//! The live dispatch page (docs/console.md "Dispatch"): a map of the online
//! couriers and of the jobs waiting, offered and under way, with the list
//! of waiting jobs beside it; operators see the platform's couriers and
//! live deliveries (`/ops/dispatch`), a fleet's members its drivers and
//! board orders (`/w/{ws}/dispatch`). The page follows the core's
//! `DispatchService.WatchDispatchMap` over server-sent events, the map and
//! list rendered again on every change. A job's page ranks the free
//! couriers by time to its pickup (`RankCouriers`, the dispatcher's own
//! ranking) to assign or reassign it, and unassigns it; the core decides
//! who may.
//!
//! The map is SVG on the web Mercator projection, drawn on the server:
//! the service areas' outlines and the markers need nothing from another
//! site. With `COURIER_MAP_TILES_URL` the same projection places that tile
//! server's street tiles under them (the CSP then allows that origin's
//! images alone, `lib.rs`).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use courier::internal::v1 as ipb;
use courier::v1 as pb;
use tokio_stream::StreamExt;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::labels;
use crate::map::{Area, Projection, Tile, Xy};
use crate::page::{Layout, Refusal, Signed, field, fields, render};
use crate::promises::{Promise, PromiseFlag};

/// Whose dispatch a page shows: the platform's (operators) or a fleet's.
#[derive(Clone)]
pub(crate) struct Scope {
    workspace: Option<String>,
}

impl Scope {
    /// As `WatchDispatchMap` takes it (empty: the platform).
    fn workspace_id(&self) -> &str {
        self.workspace.as_deref().unwrap_or("")
    }

    /// Where this scope's dispatch pages are.
    fn base(&self, state: &ConsoleState) -> String {
        match &self.workspace {
            Some(workspace) => format!("{}/w/{workspace}/dispatch", state.root),
            None => format!("{}/ops/dispatch", state.root),
        }
    }

    /// The page's layout, and whether the user may assign (the core has
    /// the last word on every post).
    fn layout(&self, state: &ConsoleState, signed: &Signed, title: &str, mode: &'static str) -> (Layout, bool) {
        let mut layout = signed.layout(state, title, self.workspace.as_deref(), mode);
        layout.section = "dispatch";
        let manages = match &self.workspace {
            Some(_) => layout.workspace.as_ref().is_some_and(|w| w.manages),
            None => layout.operator,
        };
        (layout, manages)
    }

    fn failure(&self, state: &ConsoleState, signed: &Signed, status: &tonic::Status) -> Response {
        match &self.workspace {
            Some(workspace) => signed.failure(state, status, workspace),
            None => crate::page::failure(state, status),
        }
    }
}

/// The map as last heard from the core: a snapshot with the changes since.
#[derive(Default)]
struct Held {
    couriers: BTreeMap<String, ipb::MapCourier>,
    jobs: BTreeMap<String, ipb::MapJob>,
    areas: Vec<ipb::MapArea>,
}

impl Held {
    fn apply(&mut self, update: ipb::WatchDispatchMapResponse) {
        if update.snapshot {
            *self = Held {
                areas: update.areas,
                ..Held::default()
            };
        }
        for courier in update.couriers {
            self.couriers.insert(courier.courier_id.clone(), courier);
        }
        for job in update.jobs {
            self.jobs.insert(job.job_id.clone(), job);
        }
        for id in update.removed_courier_ids {
            self.couriers.remove(&id);
        }
        for id in update.removed_job_ids {
            self.jobs.remove(&id);
        }
    }

    fn courier_name(&self, id: &str) -> String {
        self.couriers.get(id).map_or_else(|| id.to_owned(), |c| c.name.clone())
    }

    /// The courier's phone, for a `tel:` link: a dispatcher calls in one tap.
    fn courier_phone(&self, id: &str) -> Option<String> {
        self.couriers
            .get(id)
            .and_then(|c| c.phone.clone())
            .filter(|phone| !phone.is_empty())
    }
}

pub(crate) struct Marker {
    id: String,
    x: String,
    y: String,
    /// What a pointer or a screen reader is told.
    title: String,
    /// Written beside it on the map: a courier's name, a job's short id.
    label: String,
    /// `free`, `stale`, `offered`, `busy`, `offline`, `suspended`;
    /// `waiting`, `offered`, `active`.
    class: &'static str,
}

pub(crate) struct Line {
    x1: String,
    y1: String,
    x2: String,
    y2: String,
    class: &'static str,
}

/// A waiting job as the side list shows it.
pub(crate) struct WaitingRow {
    job_id: String,
    route: String,
    vehicle: String,
    waited: String,
    /// "Offered to Ada, 20 s left".
    offer: Option<String>,
    /// Who declined it, let it expire or had it taken back, and when.
    passed_over: Vec<String>,
    /// At risk or late, and by how much.
    promise: Option<PromiseFlag>,
}

/// A job under way as the side list shows it.
pub(crate) struct ActiveRow {
    job_id: String,
    route: String,
    courier: String,
    /// The courier's phone, shown as a `tel:` link.
    phone: Option<String>,
    /// The courier went offline with it in hand, or was suspended: flagged.
    courier_flag: Option<&'static str>,
    status: &'static str,
    /// Not yet at the pickup: it may change hands or go back to waiting.
    movable: bool,
    /// Wrong dropoff PINs blocked the handover: the job page resets them.
    handover_blocked: bool,
    /// At risk or late, and by how much.
    promise: Option<PromiseFlag>,
}

/// The live part of the page: map and lists, rendered whole on each change.
#[derive(Template)]
#[template(path = "dispatch_live.html")]
pub(crate) struct LivePart {
    base: String,
    mode: &'static str,
    manages: bool,
    tiles: Vec<Tile>,
    /// Whose map data the tiles show.
    credit: Option<String>,
    areas: Vec<Area>,
    lines: Vec<Line>,
    pickups: Vec<Marker>,
    dropoffs: Vec<Marker>,
    couriers: Vec<Marker>,
    waiting: Vec<WaitingRow>,
    active: Vec<ActiveRow>,
    online: usize,
    free: usize,
}

fn coordinate(value: f64) -> String {
    format!("{value:.1}")
}

fn marker(id: String, at: Xy, (title, label): (String, String), class: &'static str) -> Marker {
    Marker {
        id,
        x: coordinate(at.x),
        y: coordinate(at.y),
        title,
        label,
        class,
    }
}

/// A courier whose last position is older is not offered jobs (as the
/// automatic dispatcher's rule): drawn and counted as stale, never free.
const STALE_POSITION_MICROS: i64 = 2 * 60 * 1_000_000;

/// How a courier stands on the map: `free`, `stale` (free, but their
/// position too old for an offer), `offered`, `busy`, `offline` (a job in
/// hand) or `suspended` (a job in hand, to take back).
fn standing(courier: &ipb::MapCourier, now: i64) -> &'static str {
    if courier.suspended {
        return "suspended";
    }
    let fresh = courier
        .position_recorded_at
        .as_ref()
        .and_then(courier::time::from_proto)
        .is_some_and(|at| now - at.timestamp_micros() <= STALE_POSITION_MICROS);
    match (courier.offline, &courier.job_id, &courier.offered_job_id) {
        (true, _, _) => "offline",
        (false, Some(_), _) => "busy",
        (false, None, Some(_)) => "offered",
        (false, None, None) if fresh => "free",
        (false, None, None) => "stale",
    }
}

/// The last characters of a job's id, as a dispatcher reads it out.
fn short_id(id: &str) -> String {
    id.get(id.len().saturating_sub(4)..).unwrap_or(id).to_owned()
}

fn line(from: Xy, to: Xy, class: &'static str) -> Line {
    Line {
        x1: coordinate(from.x),
        y1: coordinate(from.y),
        x2: coordinate(to.x),
        y2: coordinate(to.y),
        class,
    }
}

/// How long ago `at` was, in words ("4 min", "35 s").
fn waited(now: i64, at: Option<&prost_types::Timestamp>) -> String {
    let Some(at) = at.and_then(courier::time::from_proto) else {
        return String::new();
    };
    let seconds = ((now - at.timestamp_micros()) / 1_000_000).max(0);
    labels::duration_short(seconds)
}

/// Who automatic dispatch passes over for `job`, and when, in words:
/// "Declined by Kim Courier 2 min ago".
fn passed_over(now: i64, job: &ipb::MapJob) -> Vec<String> {
    job.passed_over
        .iter()
        .map(|pass| {
            let (name, ago) = (&pass.courier_name, waited(now, pass.time.as_ref()));
            match pass.reason() {
                ipb::PassedOverReason::Declined => format!("Declined by {name} {ago} ago"),
                ipb::PassedOverReason::Expired => format!("{name} let the offer expire {ago} ago"),
                ipb::PassedOverReason::Unassigned | ipb::PassedOverReason::Unspecified => {
                    format!("Taken back from {name} {ago} ago")
                }
            }
        })
        .collect()
}

fn live_part(state: &ConsoleState, scope: &Scope, mode: &'static str, manages: bool, held: &Held) -> LivePart {
    // The map fits the couriers and jobs; with none, the service areas.
    let mut points: Vec<&ipb::MapPoint> = held.couriers.values().filter_map(|c| c.position.as_ref()).collect();
    for job in held.jobs.values() {
        points.extend(job.pickup.iter().chain(job.dropoff.iter()));
    }
    if points.is_empty() {
        points.extend(held.areas.iter().flat_map(|area| area.outline.iter()));
    }
    let projection = Projection::fitting(&points);
    let now = chrono::Utc::now().timestamp_micros();
    let (tiles, credit) = state.ground(&projection);
    let mut part = LivePart {
        base: scope.base(state),
        mode,
        manages,
        tiles,
        credit,
        areas: held.areas.iter().map(|area| Area::of(area, &projection)).collect(),
        lines: Vec::new(),
        pickups: Vec::new(),
        dropoffs: Vec::new(),
        couriers: Vec::new(),
        waiting: Vec::new(),
        active: Vec::new(),
        online: held.couriers.values().filter(|c| !c.offline && !c.suspended).count(),
        free: held.couriers.values().filter(|c| standing(c, now) == "free").count(),
    };
    let mut waiting: Vec<&ipb::MapJob> = Vec::new();
    for job in held.jobs.values() {
        let (Some(pickup), Some(dropoff)) = (&job.pickup, &job.dropoff) else {
            continue;
        };
        let (pickup, dropoff) = (projection.at(pickup), projection.at(dropoff));
        let status = job.status();
        let class = match (&job.courier_id, &job.offer) {
            (Some(_), _) => "active",
            (None, Some(_)) => "offered",
            (None, None) => "waiting",
        };
        let what = format!("{} · {}", job.job_id, labels::delivery_status(status));
        part.pickups.push(marker(
            format!("pickup-{}", job.job_id),
            pickup,
            (format!("Pickup {what}"), short_id(&job.job_id)),
            class,
        ));
        part.dropoffs.push(marker(
            format!("dropoff-{}", job.job_id),
            dropoff,
            (format!("Dropoff {what}"), String::new()),
            class,
        ));
        match &job.courier_id {
            Some(courier_id) => {
                let before_pickup = matches!(
                    status,
                    pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::AtPickup
                );
                // A courier with a route is drawn along it, below.
                let courier = held.couriers.get(courier_id).filter(|c| c.route.is_empty());
                if let Some(position) = courier.and_then(|c| c.position.as_ref()) {
                    let target = if before_pickup { pickup } else { dropoff };
                    part.lines.push(line(projection.at(position), target, "to-job"));
                }
                if !before_pickup {
                    part.lines.push(line(pickup, dropoff, "route"));
                }
                part.active.push(ActiveRow {
                    job_id: job.job_id.clone(),
                    route: labels::route(&job.pickup_address, &job.dropoff_address),
                    courier: held.courier_name(courier_id),
                    phone: held.courier_phone(courier_id),
                    courier_flag: held
                        .couriers
                        .get(courier_id)
                        .map(|c| standing(c, now))
                        .filter(|s| matches!(*s, "suspended" | "offline")),
                    status: labels::delivery_status(status),
                    movable: status == pb::DeliveryStatus::CourierAssigned,
                    handover_blocked: job.handover_blocked,
                    promise: Promise::of_job(job).and_then(|p| p.flag(now)),
                });
            }
            None => {
                part.lines.push(line(pickup, dropoff, "route waiting"));
                waiting.push(job);
            }
        }
    }
    waiting.sort_by_key(|job| job.created_at.as_ref().map(|t| (t.seconds, t.nanos)));
    part.waiting = waiting
        .into_iter()
        .map(|job| WaitingRow {
            promise: Promise::of_job(job).and_then(|p| p.flag(now)),
            job_id: job.job_id.clone(),
            route: labels::route(&job.pickup_address, &job.dropoff_address),
            vehicle: labels::vehicle(&job.vehicle_type_id),
            waited: waited(now, job.created_at.as_ref()),
            passed_over: passed_over(now, job),
            offer: job.offer.as_ref().map(|offer| {
                let left = offer
                    .expires_at
                    .as_ref()
                    .and_then(courier::time::from_proto)
                    .map_or(0, |at| ((at.timestamp_micros() - now) / 1_000_000).max(0));
                format!(
                    "Offered to {}, {} left",
                    held.courier_name(&offer.courier_id),
                    labels::duration_short(left)
                )
            }),
        })
        .collect();
    // Late and at-risk jobs first, the latest first; the rest keep their order.
    let urgency = |flag: &Option<PromiseFlag>| flag.as_ref().map(|f| (f.class != "late", -f.seconds));
    part.waiting
        .sort_by_key(|row| urgency(&row.promise).unwrap_or((true, i64::MAX)));
    part.active
        .sort_by_key(|row| urgency(&row.promise).unwrap_or((true, i64::MAX)));
    for courier in held.couriers.values() {
        let Some(position) = &courier.position else {
            continue;
        };
        let class = standing(courier, now);
        // Their route: from where they are, stop by stop.
        let mut from = projection.at(position);
        for stop in &courier.route {
            let Some(point) = &stop.point else { continue };
            let to = projection.at(point);
            part.lines.push(line(from, to, "courier-route"));
            from = to;
        }
        let stops: Vec<String> = courier
            .route
            .iter()
            .enumerate()
            .map(|(i, stop)| {
                format!(
                    "{}. {} {}",
                    i + 1,
                    labels::stop_kind(&stop.kind),
                    short_id(&stop.job_id)
                )
            })
            .collect();
        let jobs = match courier.job_ids.len() {
            0 | 1 => courier.job_id.clone().unwrap_or_default(),
            n => format!("{n} jobs ({})", stops.join(", ")),
        };
        let doing = match (class, &courier.job_id, &courier.offered_job_id) {
            ("offline", Some(_), _) => format!("offline with {jobs}"),
            ("suspended", Some(_), _) => format!("suspended, still holding {jobs}: take it back"),
            (_, Some(_), _) => format!("on {jobs}"),
            (_, None, Some(job)) => format!("offered {job}"),
            ("stale", None, None) => format!(
                "position {} old: no offers until it updates",
                waited(now, courier.position_recorded_at.as_ref())
            ),
            _ => "free".to_owned(),
        };
        let title = format!(
            "{} · {} · {doing}",
            courier.name,
            labels::vehicle(&courier.vehicle_type_id)
        );
        part.couriers.push(marker(
            format!("courier-{}", courier.courier_id),
            projection.at(position),
            (title, courier.name.clone()),
            class,
        ));
    }
    part
}

#[derive(Template)]
#[template(path = "dispatch.html")]
pub(crate) struct DispatchPage {
    layout: Layout,
    live_url: String,
    live: LivePart,
}

/// The first message of the map's stream: the whole map.
async fn snapshot(state: &ConsoleState, signed: &Signed, scope: &Scope) -> Result<Held, tonic::Status> {
    let request = signed.request(
        ipb::WatchDispatchMapRequest {
            workspace_id: scope.workspace_id().to_owned(),
        },
        None,
    );
    let mut updates = state.dispatch.clone().watch_dispatch_map(request).await?.into_inner();
    let mut held = Held::default();
    if let Some(update) = updates.message().await? {
        held.apply(update);
    }
    Ok(held)
}

async fn page(state: ConsoleState, signed: Signed, scope: Scope, mode: &'static str) -> Response {
    let (layout, manages) = scope.layout(&state, &signed, "Dispatch", mode);
    let held = match snapshot(&state, &signed, &scope).await {
        Ok(held) => held,
        Err(status) => return scope.failure(&state, &signed, &status),
    };
    render(
        DispatchPage {
            live_url: format!("{}/live?mode={mode}", scope.base(&state)),
            live: live_part(&state, &scope, mode, manages, &held),
            layout,
        },
        StatusCode::OK,
    )
}

/// `…/dispatch/live`: server-sent events, the live part rendered again on
/// every change the core's map stream reports.
async fn live(state: ConsoleState, signed: Signed, scope: Scope, mode: &'static str) -> Response {
    let (_, manages) = scope.layout(&state, &signed, "", mode);
    let request = signed.request(
        ipb::WatchDispatchMapRequest {
            workspace_id: scope.workspace_id().to_owned(),
        },
        None,
    );
    let updates = match state.dispatch.clone().watch_dispatch_map(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return scope.failure(&state, &signed, &status),
    };
    let mut held = Held::default();
    let events = updates.map(move |update| {
        let event = match update {
            Ok(update) => {
                held.apply(update);
                match live_part(&state, &scope, mode, manages, &held).render() {
                    Ok(html) => Event::default().event("update").data(html),
                    Err(error) => Event::default().event("end").data(error.to_string()),
                }
            }
            Err(status) => Event::default().event("end").data(status.message()),
        };
        Ok::<Event, Infallible>(event)
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// A free courier as the job page offers them.
pub(crate) struct Choice {
    courier_id: String,
    name: String,
    vehicle: String,
    minutes: i64,
    distance: String,
    /// " · holds 2, adds 7 min" for a courier holding jobs.
    holding: String,
}

#[derive(Template)]
#[template(path = "dispatch_job.html")]
pub(crate) struct JobPage {
    layout: Layout,
    base: String,
    job_id: String,
    status: &'static str,
    route: String,
    vehicle: String,
    waited: String,
    /// The courier holding it, and their phone.
    courier: Option<String>,
    courier_phone: Option<String>,
    /// The courier it is offered to, and their phone.
    offer: Option<String>,
    offer_phone: Option<String>,
    /// Couriers automatic dispatch no longer offers it to.
    passed_over: Vec<String>,
    choices: Vec<Choice>,
    /// The job is waiting or not yet at its pickup: it may change hands.
    assignable: bool,
    /// Held and not yet at the pickup: it may go back to waiting.
    unassignable: bool,
    /// Wrong dropoff PINs blocked the handover: the count may be reset.
    handover_blocked: bool,
    refusal: Option<Refusal>,
}

/// `…/dispatch/{job}`: the job, the free couriers ranked by time to its
/// pickup, and the forms to assign or unassign it.
async fn job_view(
    state: &ConsoleState,
    signed: &Signed,
    scope: &Scope,
    (job_id, mode): (&str, &'static str),
    refusal: Option<Refusal>,
) -> Response {
    let held = match snapshot(state, signed, scope).await {
        Ok(held) => held,
        Err(status) => return scope.failure(state, signed, &status),
    };
    let Some(job) = held.jobs.get(job_id) else {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::NotFound,
            "No waiting or active job of this dispatch has this id.",
            None,
        );
        return scope.failure(state, signed, &status);
    };
    let request = signed.request(
        ipb::RankCouriersRequest {
            job_id: job_id.to_owned(),
        },
        None,
    );
    let ranked = match state.dispatch.clone().rank_couriers(request).await {
        Ok(answer) => answer.into_inner().couriers,
        Err(status) => return scope.failure(state, signed, &status),
    };
    let (mut layout, _) = scope.layout(state, signed, &format!("Job {job_id}"), mode);
    let status = job.status();
    let now = chrono::Utc::now().timestamp_micros();
    let page_status = if refusal.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    // A refusal about no field of the form, or about a choice no longer
    // offered, is the page's.
    if let Some(refusal) = &refusal
        && (refusal.at("courier_id").is_none() || ranked.is_empty())
    {
        layout.error = Some(refusal.message.clone());
    }
    render(
        JobPage {
            layout,
            base: scope.base(state),
            job_id: job_id.to_owned(),
            status: labels::delivery_status(status),
            route: labels::route(&job.pickup_address, &job.dropoff_address),
            vehicle: labels::vehicle(&job.vehicle_type_id),
            waited: waited(now, job.created_at.as_ref()),
            courier: job.courier_id.as_deref().map(|id| held.courier_name(id)),
            courier_phone: job.courier_id.as_deref().and_then(|id| held.courier_phone(id)),
            offer: job.offer.as_ref().map(|o| held.courier_name(&o.courier_id)),
            offer_phone: job.offer.as_ref().and_then(|o| held.courier_phone(&o.courier_id)),
            passed_over: passed_over(now, job),
            choices: ranked
                .into_iter()
                .map(|r| Choice {
                    courier_id: r.courier_id,
                    name: r.name,
                    vehicle: labels::vehicle(&r.vehicle_type_id),
                    minutes: (r.seconds_to_pickup + 59) / 60,
                    distance: format!("{:.1}", r.distance_km),
                    holding: match (r.jobs_held, r.added_seconds) {
                        (0, _) => String::new(),
                        (held, Some(added)) => format!(" · holds {held}, adds {} min", (added + 59) / 60),
                        (held, None) => format!(" · holds {held}"),
                    },
                })
                .collect(),
            assignable: matches!(
                status,
                pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned
            ),
            unassignable: job.courier_id.is_some() && status == pb::DeliveryStatus::CourierAssigned,
            handover_blocked: job.handover_blocked,
            refusal,
        },
        page_status,
    )
}

/// A refusal the job page shows (a busy courier, a job past its pickup);
/// anything else is a failure page.
fn at_the_form(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::FailedPrecondition | tonic::Code::InvalidArgument | tonic::Code::Aborted
    )
}

/// The answer to a job page's form: on where `done` says, with its notice,
/// or back on the job page with the core's refusal.
async fn answered<T>(
    (state, signed, scope): (&ConsoleState, &Signed, &Scope),
    (job_id, mode): (&str, &'static str),
    answer: Result<T, tonic::Status>,
    done: impl FnOnce(T) -> (Flash, String),
) -> Response {
    match answer {
        Ok(answer) => {
            let (notice, to) = done(answer);
            signed.redirect_with(notice, &to)
        }
        Err(status) if at_the_form(&status) => {
            job_view(state, signed, scope, (job_id, mode), Some(Refusal::of(&status))).await
        }
        Err(status) => scope.failure(state, signed, &status),
    }
}

async fn assign(
    state: ConsoleState,
    signed: Signed,
    scope: Scope,
    job_id: String,
    mode: &'static str,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = ipb::AssignJobRequest {
        job_id: job_id.clone(),
        courier_id: field(&form, "courier_id").to_owned(),
    };
    let answer = state
        .dispatch
        .clone()
        .assign_job(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    answered((&state, &signed, &scope), (&job_id, mode), answer, |answer| {
        let route = labels::job_route(answer.get_ref().job.as_ref());
        (
            Flash::notice(format!("Given to the courier: {route}.")),
            format!("{}?mode={mode}", scope.base(&state)),
        )
    })
    .await
}

async fn unassign(
    state: ConsoleState,
    signed: Signed,
    scope: Scope,
    job_id: String,
    mode: &'static str,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if let Some(refusal) = crate::page::unconfirmed(&form, "take the job back") {
        return job_view(&state, &signed, &scope, (&job_id, mode), Some(refusal)).await;
    }
    let message = ipb::UnassignJobRequest { job_id: job_id.clone() };
    let answer = state
        .dispatch
        .clone()
        .unassign_job(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    answered((&state, &signed, &scope), (&job_id, mode), answer, |answer| {
        let route = answer
            .get_ref()
            .job
            .as_ref()
            .map(|job| labels::route(&job.pickup_address, &job.dropoff_address))
            .unwrap_or_default();
        (
            Flash::notice(format!("Waiting for a courier again: {route}.")),
            format!("{}/{job_id}?mode={mode}", scope.base(&state)),
        )
    })
    .await
}

/// Lets a handover blocked by wrong dropoff PINs go on (docs/guide.md
/// "Proof of delivery"), after the dispatcher spoke to the recipient.
async fn reset_pin(
    state: ConsoleState,
    signed: Signed,
    scope: Scope,
    job_id: String,
    mode: &'static str,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = ipb::ResetDropoffPinRequest {
        delivery_id: job_id.clone(),
    };
    let answer = state
        .dispatch
        .clone()
        .reset_dropoff_pin(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    answered((&state, &signed, &scope), (&job_id, mode), answer, |_| {
        (
            Flash::notice("The courier may enter the PIN again: 5 new tries."),
            format!("{}/{job_id}?mode={mode}", scope.base(&state)),
        )
    })
    .await
}

pub(crate) mod routes {
    use axum::body::Bytes;
    use axum::extract::{Path, Query, State};
    use axum::response::Response;

    use super::Scope;
    use crate::ConsoleState;
    use crate::page::{ModeQuery, Signed};

    const PLATFORM: Scope = Scope { workspace: None };

    fn fleet(workspace: String) -> Scope {
        Scope {
            workspace: Some(workspace),
        }
    }

    pub(crate) async fn platform(State(state): State<ConsoleState>, signed: Signed) -> Response {
        super::page(state, signed, PLATFORM, "live").await
    }

    pub(crate) async fn platform_live(State(state): State<ConsoleState>, signed: Signed) -> Response {
        super::live(state, signed, PLATFORM, "live").await
    }

    pub(crate) async fn platform_job(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(job): Path<String>,
    ) -> Response {
        super::job_view(&state, &signed, &PLATFORM, (&job, "live"), None).await
    }

    pub(crate) async fn platform_assign(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(job): Path<String>,
        body: Bytes,
    ) -> Response {
        super::assign(state, signed, PLATFORM, job, "live", body).await
    }

    pub(crate) async fn platform_unassign(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(job): Path<String>,
        body: Bytes,
    ) -> Response {
        super::unassign(state, signed, PLATFORM, job, "live", body).await
    }

    pub(crate) async fn platform_reset_pin(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(job): Path<String>,
        body: Bytes,
    ) -> Response {
        super::reset_pin(state, signed, PLATFORM, job, "live", body).await
    }

    pub(crate) async fn fleet_page(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        Query(query): Query<ModeQuery>,
    ) -> Response {
        super::page(state, signed, fleet(workspace), query.mode()).await
    }

    pub(crate) async fn fleet_live(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        Query(query): Query<ModeQuery>,
    ) -> Response {
        super::live(state, signed, fleet(workspace), query.mode()).await
    }

    pub(crate) async fn fleet_job(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, job)): Path<(String, String)>,
        Query(query): Query<ModeQuery>,
    ) -> Response {
        super::job_view(&state, &signed, &fleet(workspace), (&job, query.mode()), None).await
    }

    pub(crate) async fn fleet_assign(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, job)): Path<(String, String)>,
        Query(query): Query<ModeQuery>,
        body: Bytes,
    ) -> Response {
        super::assign(state, signed, fleet(workspace), job, query.mode(), body).await
    }

    pub(crate) async fn fleet_unassign(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, job)): Path<(String, String)>,
        Query(query): Query<ModeQuery>,
        body: Bytes,
    ) -> Response {
        super::unassign(state, signed, fleet(workspace), job, query.mode(), body).await
    }
}
