//! The shift: going online and offline, the vehicle, today's finished jobs,
//! the phone's positions passed on to the core, and the live part of the page
//! (the offer waiting for an answer and the jobs in hand), pushed over
//! server-sent events as the core's `WatchAssignments` stream reports changes.

use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{TimeZone, Utc};
use chrono_tz::Tz;
use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use tokio_stream::StreamExt;

use crate::AppState;
use crate::answers::{failure, stale_form};
use crate::page::{Layout, render, time_zone};
use crate::signed::Signed;
use crate::view::{JobLine, OfferView, StopLine, vehicle_name};

/// How long the shift page waits for the stream's first message (the
/// snapshot it renders the offer and jobs from).
const SNAPSHOT_WAIT: Duration = Duration::from_secs(5);
/// Finished jobs read for "today" at most (pages of 50).
const FINISHED_PAGES: usize = 4;

/// What the courier has open: their jobs in hand and the offer waiting for
/// an answer, kept up to date from the assignment stream.
#[derive(Default)]
struct Board {
    jobs: Vec<apb::Job>,
    offer: Option<apb::Offer>,
    route: Option<apb::Route>,
}

impl Board {
    /// Applies one message of the stream; the job it concerns, if any.
    fn apply(&mut self, update: Update) -> Option<String> {
        match update {
            Update::Snapshot(snapshot) => {
                self.jobs = snapshot.jobs;
                self.offer = snapshot.offer;
                self.route = snapshot.route;
                None
            }
            Update::Route(route) => {
                self.route = Some(route);
                None
            }
            Update::Offer(offer) => {
                self.offer = Some(offer);
                None
            }
            Update::Job(job) => {
                if self
                    .offer
                    .as_ref()
                    .and_then(|o| o.job.as_ref())
                    .is_some_and(|j| j.id == job.id)
                {
                    self.offer = None;
                }
                self.jobs.retain(|j| j.id != job.id);
                let id = job.id.clone();
                if job.active {
                    self.jobs.push(job);
                }
                Some(id)
            }
            Update::Withdrawal(withdrawal) => {
                match withdrawal.offer_id {
                    Some(offer_id) => {
                        if self.offer.as_ref().is_some_and(|o| o.id == offer_id) {
                            self.offer = None;
                        }
                    }
                    None => self.jobs.retain(|j| j.id != withdrawal.job_id),
                }
                Some(withdrawal.job_id)
            }
        }
    }

    /// What the courier must be told of `update` before it is applied: a
    /// job given or taken away by someone else, or an offer they missed.
    /// Nothing for their own answers and moves, which they see happen.
    fn alert(&self, update: &Update, zone: Tz) -> Option<Alert> {
        let offered_job = self.offer.as_ref().and_then(|o| o.job.as_ref()).map(|j| j.id.as_str());
        let held = |id: &str| self.jobs.iter().find(|j| j.id == id);
        let dropoff = |job: &apb::Job| job.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default();
        match update {
            Update::Job(job) if job.active && held(&job.id).is_none() && offered_job != Some(job.id.as_str()) => {
                let pickup = job.pickup.as_ref().map(|w| w.address.clone()).unwrap_or_default();
                Some(Alert::Told(format!("Dispatch gave you a job: pick up at {pickup}.")))
            }
            Update::Withdrawal(withdrawal) => match &withdrawal.offer_id {
                None => {
                    let job = held(&withdrawal.job_id)?;
                    let told = match withdrawal.reason() {
                        apb::WithdrawalReason::Reassigned => {
                            format!(
                                "The job to {} was given to another courier: do not go on with it.",
                                dropoff(job)
                            )
                        }
                        _ => format!("The job to {} was cancelled: do not go on with it.", dropoff(job)),
                    };
                    Some(Alert::Told(told))
                }
                Some(offer_id) => {
                    let offer = self.offer.as_ref().filter(|o| o.id == *offer_id)?;
                    (withdrawal.reason() == apb::WithdrawalReason::OfferExpired).then(|| {
                        let at = crate::page::clock(offer.expires_at.as_ref(), zone);
                        Alert::Missed(format!("You missed an offer at {at}: the time to answer ran out."))
                    })
                }
            },
            _ => None,
        }
    }

    fn part(&self, state: &AppState, signed: &Signed, zone: Tz) -> LivePart {
        LivePart {
            root: state.root.clone(),
            csrf: signed.csrf.clone(),
            offer: self.offer.as_ref().map(|o| OfferView::of(o, zone)),
            jobs: self.jobs.iter().map(|j| JobLine::of(j, zone)).collect(),
            route: self
                .route
                .as_ref()
                .map(|route| StopLine::all(route, zone))
                .unwrap_or_default(),
        }
    }
}

/// What the phone says aloud of a change it did not make itself.
#[derive(Debug, PartialEq)]
enum Alert {
    Told(String),
    /// Also kept on the phone, for the shift page to say.
    Missed(String),
}

impl Alert {
    fn event(self) -> Event {
        match self {
            Alert::Told(text) => Event::default().event("alert").data(text),
            Alert::Missed(text) => Event::default().event("missed").data(text),
        }
    }
}

/// The live part of the shift page.
#[derive(Template)]
#[template(path = "live.html")]
struct LivePart {
    root: String,
    csrf: String,
    offer: Option<OfferView>,
    jobs: Vec<JobLine>,
    /// The stops of the jobs in hand, the next first.
    route: Vec<StopLine>,
}

/// The offer alone, shown over every other page.
#[derive(Template)]
#[template(path = "offer.html")]
struct OfferPart {
    root: String,
    csrf: String,
    offer: Option<OfferView>,
}

#[derive(Template)]
#[template(path = "shift.html")]
struct ShiftPage {
    layout: Layout,
    name: String,
    online: bool,
    /// A job in hand: going offline or signing out asks once.
    holding: bool,
    vehicle: String,
    vehicle_details: String,
    live: String,
    /// Said once the app came back from a job that ended.
    ended: Option<String>,
    /// Today's jobs that ended in the courier's hands (delivered or cancelled).
    finished: Vec<JobLine>,
    /// Today's jobs dispatch took from them or gave to another courier.
    taken_away: Vec<JobLine>,
}

#[derive(serde::Deserialize)]
pub(crate) struct ShiftQuery {
    /// A job the courier just finished (the app comes back here after it).
    ended: Option<String>,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Query(query): Query<ShiftQuery>,
) -> Response {
    shift_view(&state, &signed, &headers, Shown::Ended(query.ended)).await
}

/// What the shift page says above its content.
enum Shown {
    /// The job the courier just finished, if any.
    Ended(Option<String>),
    /// What the core refused.
    Refused(String),
}

/// Whether the courier is online (their pages then share the phone's
/// position); offline when the core cannot say.
pub(crate) async fn is_online(state: &AppState, signed: &Signed) -> bool {
    match state
        .core
        .clone()
        .get_profile(signed.request(apb::GetProfileRequest {}))
        .await
    {
        Ok(answer) => answer
            .into_inner()
            .courier
            .is_some_and(|c| c.availability() == apb::Availability::Online),
        Err(_) => false,
    }
}

async fn shift_view(state: &AppState, signed: &Signed, headers: &HeaderMap, shown: Shown) -> Response {
    let zone = time_zone(headers);
    let mut core = state.core.clone();
    let courier = match core.get_profile(signed.request(apb::GetProfileRequest {})).await {
        Ok(answer) => answer.into_inner().courier.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let board = match snapshot(state, signed).await {
        Ok(board) => board,
        Err(status) => return failure(state, &status),
    };
    let finished = match finished_today(state, signed, zone).await {
        Ok(jobs) => jobs,
        Err(status) => return failure(state, &status),
    };
    let online = courier.availability() == apb::Availability::Online;
    let live = match board.part(state, signed, zone).render() {
        Ok(html) => html,
        Err(error) => {
            tracing::error!(%error, "live part not rendered");
            String::new()
        }
    };
    let vehicle = courier.vehicle.unwrap_or_default();
    let vehicle_details = [&vehicle.make, &vehicle.model, &vehicle.color]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    let mut layout = signed.layout(state, "Shift");
    let ended = match shown {
        Shown::Refused(error) => {
            layout.error = Some(error);
            None
        }
        Shown::Ended(id) => id.and_then(|id| finished.iter().find(|j| j.id == id)).map(|job| {
            let line = JobLine::of(job, zone);
            format!(
                "Job to {} finished: {}. New offers come to this page.",
                line.dropoff, line.outcome
            )
        }),
    };
    layout.live = "shift".into();
    layout.share_location = online || !board.jobs.is_empty();
    render(
        ShiftPage {
            layout,
            name: courier.name,
            online,
            holding: !board.jobs.is_empty(),
            vehicle: vehicle_name(&vehicle.vehicle_type_id),
            vehicle_details: match vehicle.license_plate {
                Some(plate) if vehicle_details.is_empty() => plate,
                Some(plate) => format!("{vehicle_details} · {plate}"),
                None => vehicle_details,
            },
            live,
            ended,
            finished: finished
                .iter()
                .filter(|j| !taken_away(j))
                .map(|j| JobLine::of(j, zone))
                .collect(),
            taken_away: finished
                .iter()
                .filter(|j| taken_away(j))
                .map(|j| JobLine::of(j, zone))
                .collect(),
        },
        StatusCode::OK,
    )
}

/// Whether `job` left the courier's hands without ending (reassigned or
/// unassigned): not a job they finished.
fn taken_away(job: &apb::Job) -> bool {
    matches!(job.outcome.as_deref(), Some("reassigned" | "unassigned"))
}

/// The courier's open jobs and offer now: the first message of a fresh
/// assignment stream.
async fn snapshot(state: &AppState, signed: &Signed) -> Result<Board, tonic::Status> {
    let request = signed.request(apb::WatchAssignmentsRequest::default());
    let mut stream = state.core.clone().watch_assignments(request).await?.into_inner();
    let first = tokio::time::timeout(SNAPSHOT_WAIT, stream.message())
        .await
        .map_err(|_| tonic::Status::unavailable("no snapshot in time"))??;
    let mut board = Board::default();
    if let Some(update) = first.and_then(|m| m.update) {
        board.apply(update);
    }
    Ok(board)
}

/// The jobs that ended today (in the phone's time zone), newest first.
async fn finished_today(state: &AppState, signed: &Signed, zone: Tz) -> Result<Vec<apb::Job>, tonic::Status> {
    let today = Utc::now().with_timezone(&zone).date_naive();
    let start = today
        .and_hms_opt(0, 0, 0)
        .and_then(|midnight| zone.from_local_datetime(&midnight).earliest())
        .map_or(0, |at| at.timestamp());
    let mut jobs = Vec::new();
    let mut page_token = String::new();
    for _ in 0..FINISHED_PAGES {
        let request = signed.request(apb::ListJobsRequest {
            finished: true,
            page_size: 50,
            page_token,
        });
        let page = state.core.clone().list_jobs(request).await?.into_inner();
        let before = jobs.len();
        jobs.extend(
            page.jobs
                .into_iter()
                .filter(|j| j.ended_at.as_ref().is_some_and(|at| at.seconds >= start)),
        );
        if page.next_page_token.is_empty() || jobs.len() - before < 50 {
            break;
        }
        page_token = page.next_page_token;
    }
    Ok(jobs)
}

#[derive(serde::Deserialize)]
pub(crate) struct AvailabilityForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    availability: String,
}

pub(crate) async fn set_availability(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    axum::Form(form): axum::Form<AvailabilityForm>,
) -> Response {
    if !signed.sent(&form.csrf) {
        return stale_form(&state);
    }
    let availability = match form.availability.as_str() {
        "online" => apb::Availability::Online,
        "offline" => apb::Availability::Offline,
        _ => apb::Availability::Unspecified,
    };
    let request = signed.request(apb::SetAvailabilityRequest {
        availability: availability as i32,
    });
    match state.core.clone().set_availability(request).await {
        Ok(_) => Redirect::to(&format!("{}/", state.root)).into_response(),
        Err(status) if crate::page::is_refusal(&status) => {
            shift_view(&state, &signed, &headers, Shown::Refused(status.message().to_owned())).await
        }
        Err(status) => failure(&state, &status),
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct OfferForm {
    #[serde(default)]
    csrf: String,
}

/// `…/offers/{offer}/accept` takes the offer (on to the job's page),
/// `…/decline` turns it down (back to the shift).
pub(crate) async fn answer_offer(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path((offer_id, answer)): Path<(String, String)>,
    axum::Form(form): axum::Form<OfferForm>,
) -> Response {
    if !signed.sent(&form.csrf) {
        return stale_form(&state);
    }
    let mut core = state.core.clone();
    let answered = match answer.as_str() {
        "accept" => core
            .accept_offer(signed.request(apb::AcceptOfferRequest { offer_id }))
            .await
            .map(|answer| format!("{}/jobs/{}", state.root, answer.into_inner().job.unwrap_or_default().id)),
        "decline" => core
            .decline_offer(signed.request(apb::DeclineOfferRequest { offer_id }))
            .await
            .map(|_| format!("{}/", state.root)),
        _ => Err(tonic::Status::not_found("An offer is accepted or declined.")),
    };
    match answered {
        Ok(to) => Redirect::to(&to).into_response(),
        // Expired, withdrawn, no longer this courier's: the shift again,
        // with the core's words.
        Err(status) if crate::page::is_refusal(&status) || status.code() == tonic::Code::NotFound => {
            shift_view(&state, &signed, &headers, Shown::Refused(status.message().to_owned())).await
        }
        Err(status) => failure(&state, &status),
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct NextStopForm {
    #[serde(default)]
    csrf: String,
    job_id: String,
    kind: String,
}

/// `…/route/next`: the courier goes to another stop next; the core plans
/// the rest of the route after it (back to the shift).
pub(crate) async fn choose_next_stop(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    axum::Form(form): axum::Form<NextStopForm>,
) -> Response {
    if !signed.sent(&form.csrf) {
        return stale_form(&state);
    }
    let kind = match form.kind.as_str() {
        "pickup" => apb::StopKind::Pickup,
        "dropoff" => apb::StopKind::Dropoff,
        _ => apb::StopKind::Unspecified,
    } as i32;
    let request = signed.request(apb::ChooseNextStopRequest {
        job_id: form.job_id,
        kind,
    });
    match state.core.clone().choose_next_stop(request).await {
        Ok(_) => Redirect::to(&format!("{}/", state.root)).into_response(),
        Err(status) if crate::page::is_refusal(&status) || status.code() == tonic::Code::NotFound => {
            shift_view(&state, &signed, &headers, Shown::Refused(status.message().to_owned())).await
        }
        Err(status) => failure(&state, &status),
    }
}

/// A batch of positions from the phone's `watchPosition`.
#[derive(serde::Deserialize)]
pub(crate) struct Positions {
    positions: Vec<PhonePosition>,
}

/// One position as the Geolocation API gives it.
#[derive(serde::Deserialize)]
struct PhonePosition {
    latitude: f64,
    longitude: f64,
    accuracy: Option<f64>,
    heading: Option<f64>,
    speed: Option<f64>,
    /// When the phone took it, milliseconds since 1970.
    timestamp: i64,
}

/// `POST /courier/positions`: the phone's batch, passed on to the core in one
/// `ReportLocations` message.
pub(crate) async fn report_positions(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Json(body): Json<Positions>,
) -> Response {
    let csrf = headers
        .get("x-csrf-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !signed.sent(csrf) {
        return crate::answers::forbidden_json("Open the page again: it belongs to an earlier sign-in.");
    }
    let positions = body
        .positions
        .into_iter()
        .map(|p| apb::Position {
            latitude: p.latitude,
            longitude: p.longitude,
            accuracy_m: p.accuracy,
            // The Geolocation API gives NaN for a heading while standing still.
            heading_deg: p.heading.filter(|h| h.is_finite()),
            speed_mps: p.speed.filter(|s| s.is_finite()),
            recorded_at: Some(prost_types::Timestamp {
                seconds: p.timestamp.div_euclid(1000),
                nanos: (p.timestamp.rem_euclid(1000) * 1_000_000) as i32,
            }),
        })
        .collect();
    let batch = apb::ReportLocationsRequest { positions };
    let request = signed.request(tokio_stream::iter([batch]));
    match state.core.clone().report_locations(request).await {
        Ok(answer) => Json(serde_json::json!({ "accepted": answer.into_inner().accepted })).into_response(),
        Err(status) => crate::answers::Asker::Outbox
            .outbox_answer(&state, &status)
            .unwrap_or_else(|| StatusCode::BAD_GATEWAY.into_response()),
    }
}

/// `GET /courier/live`: server-sent events for the open page. `live`
/// carries the shift page's live part, rendered, after every change;
/// `offer` the offer card (empty when none) whenever the offer changes, for
/// every other page to show on top; `alert` what the courier must be told
/// of a change they did not make (a job given, cancelled or reassigned),
/// `missed` an offer that expired unanswered; `job` the id of a job that
/// changed (a job page reloads on its own); and `signed-out` the sign-in
/// page's address when the core ends the session.
/// A stream cut by the core ends the response; the browser reconnects and
/// gets a fresh snapshot.
pub(crate) async fn live(State(state): State<AppState>, signed: Signed, headers: HeaderMap) -> Response {
    let zone = time_zone(&headers);
    let request = signed.request(apb::WatchAssignmentsRequest::default());
    let updates = match state.core.clone().watch_assignments(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) if status.code() == tonic::Code::Unauthenticated => {
            let ended = signed_out(&state);
            return Sse::new(tokio_stream::once(Ok::<Event, Infallible>(ended))).into_response();
        }
        Err(status) => return failure(&state, &status),
    };
    // A task of its own turns the core's messages into events (one message
    // may make two); it ends when the browser goes away or the stream ends.
    let (sender, events) = tokio::sync::mpsc::channel::<Event>(16);
    tokio::spawn(async move {
        let mut updates = updates;
        let mut board = Board::default();
        // The offer the page shows over its content (`offer` events are
        // sent when it changes).
        let mut shown_offer: Option<String> = None;
        loop {
            let events = match updates.message().await {
                Ok(Some(message)) => {
                    let Some(update) = message.update else { continue };
                    let alert = board.alert(&update, zone);
                    let touched = board.apply(update);
                    let mut events = Vec::new();
                    match board.part(&state, &signed, zone).render() {
                        Ok(html) => events.push(Event::default().event("live").data(html)),
                        Err(error) => tracing::error!(%error, "live part not rendered"),
                    }
                    let offer = board.offer.as_ref().map(|o| o.id.clone());
                    if offer != shown_offer {
                        let part = OfferPart {
                            root: state.root.clone(),
                            csrf: signed.csrf.clone(),
                            offer: board.offer.as_ref().map(|o| OfferView::of(o, zone)),
                        };
                        match part.render() {
                            Ok(html) => events.push(Event::default().event("offer").data(html)),
                            Err(error) => tracing::error!(%error, "offer not rendered"),
                        }
                        shown_offer = offer;
                    }
                    events.extend(alert.map(Alert::event));
                    events.extend(touched.map(|job| Event::default().event("job").data(job)));
                    events
                }
                Ok(None) => return,
                Err(status) if status.code() == tonic::Code::Unauthenticated => vec![signed_out(&state)],
                Err(_) => return,
            };
            for event in events {
                if sender.send(event).await.is_err() {
                    return;
                }
            }
        }
    });
    let events = tokio_stream::wrappers::ReceiverStream::new(events).map(Ok::<Event, Infallible>);
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn signed_out(state: &AppState) -> Event {
    Event::default()
        .event("signed-out")
        .data(format!("{}/sign-in", state.root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, active: bool) -> apb::Job {
        apb::Job {
            id: id.into(),
            active,
            ..Default::default()
        }
    }

    #[test]
    fn the_board_follows_the_stream() {
        let mut board = Board::default();
        let offer = apb::Offer {
            id: "off_1".into(),
            job: Some(job("del_2", false)),
            ..Default::default()
        };
        board.apply(Update::Snapshot(apb::AssignmentSnapshot {
            jobs: vec![job("del_1", true)],
            offer: Some(offer),
            route: None,
        }));
        assert!(board.offer.is_some());
        // The offered job accepted: the offer goes, the job is in hand.
        assert_eq!(board.apply(Update::Job(job("del_2", true))).as_deref(), Some("del_2"));
        assert!(board.offer.is_none());
        assert_eq!(board.jobs.len(), 2);
        // A job that ended leaves the board; so does a withdrawn one.
        board.apply(Update::Job(job("del_1", false)));
        board.apply(Update::Withdrawal(apb::Withdrawal {
            job_id: "del_2".into(),
            reason: apb::WithdrawalReason::Cancelled as i32,
            offer_id: None,
        }));
        assert!(board.jobs.is_empty());
        // An offer withdrawn leaves the jobs alone.
        board.apply(Update::Offer(apb::Offer {
            id: "off_2".into(),
            ..Default::default()
        }));
        board.apply(Update::Withdrawal(apb::Withdrawal {
            job_id: "del_3".into(),
            reason: apb::WithdrawalReason::OfferExpired as i32,
            offer_id: Some("off_2".into()),
        }));
        assert!(board.offer.is_none());
    }

    #[test]
    fn the_courier_is_told_what_others_changed_not_what_they_did() {
        let mut board = Board::default();
        let offer = apb::Offer {
            id: "off_1".into(),
            job: Some(job("del_1", false)),
            ..Default::default()
        };
        let zone = Tz::UTC;
        // Their own acceptance: the job was on offer to them, nothing said.
        board.apply(Update::Offer(offer.clone()));
        assert_eq!(board.alert(&Update::Job(job("del_1", true)), zone), None);
        board.apply(Update::Job(job("del_1", true)));
        // A job dispatch gave them by hand.
        let given = board.alert(&Update::Job(job("del_2", true)), zone);
        assert!(matches!(given, Some(Alert::Told(text)) if text.starts_with("Dispatch gave you a job")));
        // A job in hand cancelled, another reassigned.
        let withdrawal = |job_id: &str, reason: apb::WithdrawalReason, offer_id: Option<&str>| {
            Update::Withdrawal(apb::Withdrawal {
                job_id: job_id.into(),
                reason: reason as i32,
                offer_id: offer_id.map(Into::into),
            })
        };
        let cancelled = board.alert(&withdrawal("del_1", apb::WithdrawalReason::Cancelled, None), zone);
        assert!(matches!(cancelled, Some(Alert::Told(text)) if text.contains("was cancelled")));
        let reassigned = board.alert(&withdrawal("del_1", apb::WithdrawalReason::Reassigned, None), zone);
        assert!(matches!(reassigned, Some(Alert::Told(text)) if text.contains("another courier")));
        // A job not in hand withdrawn: nothing to say.
        assert_eq!(
            board.alert(&withdrawal("del_9", apb::WithdrawalReason::Cancelled, None), zone),
            None
        );
        // The offer on show expired: missed; withdrawn: nothing said.
        board.apply(Update::Offer(apb::Offer {
            id: "off_2".into(),
            job: Some(job("del_3", false)),
            ..Default::default()
        }));
        let expired = board.alert(
            &withdrawal("del_3", apb::WithdrawalReason::OfferExpired, Some("off_2")),
            zone,
        );
        assert!(matches!(expired, Some(Alert::Missed(text)) if text.starts_with("You missed an offer")));
        let withdrawn = withdrawal("del_3", apb::WithdrawalReason::OfferWithdrawn, Some("off_2"));
        assert_eq!(board.alert(&withdrawn, zone), None);
    }
}
