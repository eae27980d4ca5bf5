//! A job: its page (the next stop, its contact and maps links, items, notes,
//! and one button for the next move), the moves, the problems reported behind
//! a confirmation, and the proof at pickup and dropoff. A proof is sent with
//! the move it allows (picked up, handed over) in one request, so that what
//! the courier did at the door is one item of the phone's outbox, sent once
//! however often it is sent: `SubmitProof` by its `submission_id`, the move
//! because a move made already answers the job as it is.

use askama::Template;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use courier::app::v1 as apb;
use courier::v1 as pb;
use rand::RngExt;

use crate::AppState;
use crate::answers::{Asker, failure, forbidden_json, stale_form};
use crate::page::{Layout, MessagePage, Refusal, bare_layout, is_refusal, render, time_zone};
use crate::signed::Signed;
use crate::view::JobView;

#[derive(Template)]
#[template(path = "job.html")]
struct JobPage {
    layout: Layout,
    job: JobView,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path(job_id): Path<String>,
) -> Response {
    job_view(&state, &signed, &headers, &job_id, None).await
}

async fn job_view(
    state: &AppState,
    signed: &Signed,
    headers: &HeaderMap,
    job_id: &str,
    error: Option<String>,
) -> Response {
    let request = signed.request(apb::GetJobRequest { job_id: job_id.into() });
    let job = match state.core.clone().get_job(request).await {
        Ok(answer) => answer.into_inner().job.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let view = JobView::of(&job, time_zone(headers));
    let title = format!("{} · {} {}", view.headline, view.kind, short_id(&job.id));
    let mut layout = signed.layout(state, &title);
    layout.share_location = job.active || crate::shift::is_online(state, signed).await;
    layout.live = format!("job:{}", job.id);
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    layout.error = error;
    render(JobPage { layout, job: view }, status)
}

/// Where the app goes after a move on `job`: its page while it is in
/// hand, the return's once a failed handover sent the goods back, the
/// shift once it ended (the next offer comes there).
fn after_move(state: &AppState, job: &apb::Job) -> String {
    match &job.return_job_id {
        _ if job.active => format!("{}/jobs/{}", state.root, job.id),
        Some(return_job) => format!("{}/jobs/{return_job}", state.root),
        None => format!("{}/?ended={}", state.root, job.id),
    }
}

/// The last characters of an id, as a courier would read it out.
fn short_id(id: &str) -> &str {
    id.get(id.len().saturating_sub(6)..).unwrap_or(id)
}

#[derive(serde::Deserialize)]
pub(crate) struct MoveForm {
    #[serde(default)]
    csrf: String,
    #[serde(rename = "move", default)]
    action: String,
}

/// Makes move `action` (its form name) on `job_id`.
async fn call_move(
    state: &AppState,
    signed: &Signed,
    job_id: &str,
    action: &str,
) -> Result<Option<apb::Job>, tonic::Status> {
    let mut core = state.core.clone();
    let job_id = job_id.to_owned();
    let job = match action {
        "arrive_at_pickup" => {
            let request = signed.request(apb::ArriveAtPickupRequest { job_id });
            core.arrive_at_pickup(request).await?.into_inner().job
        }
        "pick_up" => {
            core.pick_up(signed.request(apb::PickUpRequest { job_id }))
                .await?
                .into_inner()
                .job
        }
        "start_transit" => {
            let request = signed.request(apb::StartTransitRequest { job_id });
            core.start_transit(request).await?.into_inner().job
        }
        "arrive_at_dropoff" => {
            let request = signed.request(apb::ArriveAtDropoffRequest { job_id });
            core.arrive_at_dropoff(request).await?.into_inner().job
        }
        "complete_handover" => {
            let request = signed.request(apb::CompleteHandoverRequest { job_id });
            core.complete_handover(request).await?.into_inner().job
        }
        "failed_handover" => {
            let request = signed.request(apb::FailHandoverRequest { job_id });
            core.fail_handover(request).await?.into_inner().job
        }
        "pickup_no_show" => {
            let request = signed.request(apb::ReportPickupNoShowRequest { job_id });
            core.report_pickup_no_show(request).await?.into_inner().job
        }
        _ => return Ok(None),
    };
    Ok(job)
}

/// What the courier asked for could not be done: the job page with the
/// core's words (a form), or the outbox's answer.
async fn refused(
    state: &AppState,
    signed: &Signed,
    headers: &HeaderMap,
    job_id: &str,
    status: &tonic::Status,
) -> Response {
    let asker = Asker::of(headers);
    if let Some(answer) = asker.outbox_answer(state, status) {
        return answer;
    }
    if is_refusal(status) {
        job_view(state, signed, headers, job_id, Some(status.message().to_owned())).await
    } else {
        failure(state, status)
    }
}

fn not_a_move(state: &AppState, asker: Asker) -> Response {
    let message = "The app knows no such move.";
    match asker {
        Asker::Outbox => forbidden_json(message),
        Asker::Form => render(
            MessagePage {
                layout: bare_layout(state, "Not possible"),
                message: message.into(),
            },
            StatusCode::BAD_REQUEST,
        ),
    }
}

fn stale(state: &AppState, asker: Asker) -> Response {
    match asker {
        Asker::Outbox => forbidden_json("Made in an earlier sign-in: not sent."),
        Asker::Form => stale_form(state),
    }
}

pub(crate) async fn make_move(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path(job_id): Path<String>,
    axum::Form(form): axum::Form<MoveForm>,
) -> Response {
    let asker = Asker::of(&headers);
    if !signed.sent(&form.csrf) {
        return stale(&state, asker);
    }
    // The problems have their own form, behind a confirmation.
    if matches!(form.action.as_str(), "failed_handover" | "pickup_no_show") {
        return not_a_move(&state, asker);
    }
    match call_move(&state, &signed, &job_id, &form.action).await {
        Ok(Some(job)) => asker.done(&after_move(&state, &job)),
        Ok(None) => not_a_move(&state, asker),
        Err(status) => refused(&state, &signed, &headers, &job_id, &status).await,
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct ProblemForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    problem: String,
    #[serde(default)]
    confirm: String,
}

/// A failed handover or a pickup no-show: ends the job, so it needs the
/// confirmation box ticked.
pub(crate) async fn report_problem(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path(job_id): Path<String>,
    axum::Form(form): axum::Form<ProblemForm>,
) -> Response {
    let asker = Asker::of(&headers);
    if !signed.sent(&form.csrf) {
        return stale(&state, asker);
    }
    if !matches!(form.problem.as_str(), "failed_handover" | "pickup_no_show") {
        return not_a_move(&state, asker);
    }
    if form.confirm != "yes" {
        let message = "Tick the box to confirm: this ends the job.".to_owned();
        return match asker {
            Asker::Outbox => forbidden_json(&message),
            Asker::Form => job_view(&state, &signed, &headers, &job_id, Some(message)).await,
        };
    }
    match call_move(&state, &signed, &job_id, &form.problem).await {
        Ok(Some(job)) => asker.done(&after_move(&state, &job)),
        Ok(None) => asker.done(&format!("{}/jobs/{job_id}", state.root)),
        Err(status) => refused(&state, &signed, &headers, &job_id, &status).await,
    }
}

/// What a checkpoint's proof asks for, as the form shows it.
struct ProofRules {
    checkpoint: &'static str,
    title: &'static str,
    photos: i32,
    signature: bool,
    name: bool,
    name_label: &'static str,
    barcode: bool,
    age_check: bool,
    leave_at_door: bool,
    /// The recipient's 4-digit PIN is asked at the handover (docs/guide.md, "Proof of delivery").
    pin: bool,
    submit: &'static str,
}

impl ProofRules {
    fn of(job: &apb::Job, checkpoint: &str) -> Option<ProofRules> {
        let proof = job.proof.unwrap_or_default();
        match checkpoint {
            "pickup" => {
                let rules = proof.pickup.unwrap_or_default();
                Some(ProofRules {
                    checkpoint: "pickup",
                    title: "Pickup proof",
                    photos: rules.photos,
                    signature: rules.signature,
                    name: rules.sender_name,
                    name_label: "Name of the person handing over",
                    barcode: rules.barcode,
                    age_check: false,
                    leave_at_door: false,
                    pin: false,
                    submit: "Picked up",
                })
            }
            "dropoff" => {
                let rules = proof.dropoff.unwrap_or_default();
                Some(ProofRules {
                    checkpoint: "dropoff",
                    title: "Delivery proof",
                    photos: rules.photos,
                    signature: rules.signature,
                    name: rules.recipient_name,
                    name_label: "Name of the recipient",
                    barcode: rules.barcode,
                    age_check: rules.age_check,
                    leave_at_door: rules.leave_at_door,
                    pin: rules.pin,
                    submit: "Delivered",
                })
            }
            _ => None,
        }
    }

    fn checkpoint(&self) -> pb::CheckpointKind {
        if self.checkpoint == "pickup" {
            pb::CheckpointKind::Pickup
        } else {
            pb::CheckpointKind::Dropoff
        }
    }

    /// The move the proof allows.
    fn then(&self) -> &'static str {
        if self.checkpoint == "pickup" {
            "pick_up"
        } else {
            "complete_handover"
        }
    }
}

#[derive(Template)]
#[template(path = "proof.html")]
struct ProofPage {
    layout: Layout,
    job: JobView,
    rules: ProofRules,
    submission_id: String,
    person_name: String,
    barcode: String,
    refusal: Option<Refusal>,
}

pub(crate) async fn proof_page(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path((job_id, checkpoint)): Path<(String, String)>,
) -> Response {
    let submission_id = new_submission_id();
    proof_view(
        &state,
        &signed,
        &headers,
        (&job_id, &checkpoint),
        Filled::new(submission_id),
        None,
    )
    .await
}

/// What a proof form held when it is shown again after a refusal.
struct Filled {
    submission_id: String,
    person_name: String,
    barcode: String,
}

impl Filled {
    fn new(submission_id: String) -> Filled {
        Filled {
            submission_id,
            person_name: String::new(),
            barcode: String::new(),
        }
    }
}

async fn proof_view(
    state: &AppState,
    signed: &Signed,
    headers: &HeaderMap,
    (job_id, checkpoint): (&str, &str),
    filled: Filled,
    refusal: Option<Refusal>,
) -> Response {
    let request = signed.request(apb::GetJobRequest { job_id: job_id.into() });
    let job = match state.core.clone().get_job(request).await {
        Ok(answer) => answer.into_inner().job.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let Some(rules) = ProofRules::of(&job, checkpoint) else {
        return failure(
            state,
            &tonic::Status::not_found("A proof is taken at the pickup or the dropoff."),
        );
    };
    let mut layout = signed.layout(state, rules.title);
    layout.share_location = job.active || crate::shift::is_online(state, signed).await;
    let status = if refusal.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    render(
        ProofPage {
            layout,
            job: JobView::of(&job, time_zone(headers)),
            rules,
            submission_id: filled.submission_id,
            person_name: filled.person_name,
            barcode: filled.barcode,
            refusal,
        },
        status,
    )
}

/// A submission's id, made when the form is shown: sent again unchanged by
/// a resend, so the core records the proof once.
fn new_submission_id() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    format!("web-{}", hex::encode(bytes))
}

/// The proof form as sent.
#[derive(Default)]
struct ProofForm {
    csrf: String,
    submission_id: String,
    person_name: String,
    barcode: String,
    age_checked: bool,
    left_at_door: bool,
    pin: String,
    files: Vec<apb::ProofFile>,
}

async fn read_proof_form(mut multipart: Multipart) -> Result<ProofForm, String> {
    let mut form = ProofForm::default();
    while let Some(field) = multipart.next_field().await.map_err(|e| e.body_text())? {
        let name = field.name().unwrap_or_default().to_owned();
        let kind = match name.as_str() {
            "photo" => pb::ArtifactKind::Photo,
            "signature" => pb::ArtifactKind::Signature,
            _ => {
                let text = field.text().await.map_err(|e| e.body_text())?;
                match name.as_str() {
                    "csrf" => form.csrf = text,
                    "submission_id" => form.submission_id = text,
                    "person_name" => form.person_name = text,
                    "barcode" => form.barcode = text,
                    "age_checked" => form.age_checked = !text.is_empty(),
                    "left_at_door" => form.left_at_door = !text.is_empty(),
                    "pin" => form.pin = text,
                    _ => {}
                }
                continue;
            }
        };
        let file_name = field.file_name().unwrap_or_default().to_owned();
        let content_type = field.content_type().unwrap_or("application/octet-stream").to_owned();
        let content = field.bytes().await.map_err(|e| e.body_text())?;
        // A file input left empty sends a part with no name and no bytes.
        if content.is_empty() && file_name.is_empty() {
            continue;
        }
        form.files.push(apb::ProofFile {
            kind: kind as i32,
            file_name,
            content_type,
            content: content.to_vec(),
        });
    }
    Ok(form)
}

fn optional(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

pub(crate) async fn submit_proof(
    State(state): State<AppState>,
    signed: Signed,
    headers: HeaderMap,
    Path((job_id, checkpoint)): Path<(String, String)>,
    multipart: Multipart,
) -> Response {
    let asker = Asker::of(&headers);
    let form = match read_proof_form(multipart).await {
        Ok(form) => form,
        Err(message) => {
            let status = tonic::Status::invalid_argument(format!("The form could not be read: {message}"));
            return asker
                .outbox_answer(&state, &status)
                .unwrap_or_else(|| failure(&state, &status));
        }
    };
    if !signed.sent(&form.csrf) {
        return stale(&state, asker);
    }
    let rules = match checkpoint.as_str() {
        "pickup" | "dropoff" => ProofRules::of(&apb::Job::default(), &checkpoint),
        _ => None,
    };
    let Some(rules) = rules else {
        return not_a_move(&state, asker);
    };
    let request = signed.request(apb::SubmitProofRequest {
        job_id: job_id.clone(),
        checkpoint: rules.checkpoint() as i32,
        files: form.files,
        person_name: optional(&form.person_name),
        barcode: optional(&form.barcode),
        age_checked: form.age_checked,
        left_at_door: form.left_at_door,
        pin: optional(&form.pin),
        submission_id: form.submission_id.clone(),
    });
    let submitted = state.core.clone().submit_proof(request).await;
    // A resend after the move went through finds the job no longer in hand
    // (NOT_FOUND): the move, resent, tells whether this courier made it.
    let moved = match submitted {
        Ok(_) => call_move(&state, &signed, &job_id, rules.then()).await,
        Err(status) if status.code() == tonic::Code::NotFound => call_move(&state, &signed, &job_id, rules.then())
            .await
            .map_err(|_| status),
        Err(status) => Err(status),
    };
    match moved {
        Ok(Some(job)) => asker.done(&after_move(&state, &job)),
        Ok(None) => asker.done(&format!("{}/jobs/{job_id}", state.root)),
        Err(status) => {
            if let Some(answer) = asker.outbox_answer(&state, &status) {
                return answer;
            }
            if !is_refusal(&status) {
                return failure(&state, &status);
            }
            let filled = Filled {
                submission_id: form.submission_id,
                person_name: form.person_name,
                barcode: form.barcode,
            };
            proof_view(
                &state,
                &signed,
                &headers,
                (&job_id, &checkpoint),
                filled,
                Some(Refusal::of(&status)),
            )
            .await
        }
    }
}
