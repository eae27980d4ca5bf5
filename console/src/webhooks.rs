//! Webhook endpoints of a workspace, per mode: list, create (the secret
//! shown once), edit, disable and enable, send a test event, replay failed
//! events, delete. Every action is the public `WebhookService` call the API
//! makes, with the session in place of a key, so limits and errors are the
//! API's. Owners and admins only (the core decides; docs/console.md).

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use courier::names::PublicName;
use courier::v1 as pb;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::page::{Layout, ModeQuery, Refusal, Signed, failure, field, fields, render, unconfirmed};
use crate::times::{Moment, Zone};

/// An endpoint as the pages show it.
pub(crate) struct EndpointRow {
    id: String,
    url: String,
    description: String,
    /// `(event type, subscribed)` for every event type.
    events: Vec<(&'static str, bool)>,
    status: &'static str,
    disabled_reason: &'static str,
    created_at: Moment,
}

impl EndpointRow {
    fn of(endpoint: &pb::WebhookEndpoint, zone: Zone) -> EndpointRow {
        EndpointRow {
            id: endpoint.id.clone(),
            url: endpoint.url.clone(),
            description: endpoint.description.clone().unwrap_or_default(),
            events: event_choices(&endpoint.events().collect::<Vec<_>>()),
            status: match endpoint.status() {
                pb::WebhookEndpointStatus::Disabled => "disabled",
                _ => "active",
            },
            disabled_reason: endpoint.disabled_reason().public_name().unwrap_or(""),
            created_at: zone.day(endpoint.created_at.as_ref(), ""),
        }
    }

    /// The event types sent; none listed means every one (as on the API).
    fn subscribed(&self) -> String {
        let names: Vec<&str> = self
            .events
            .iter()
            .filter(|(_, on)| *on)
            .map(|(name, _)| crate::labels::event_type_named(name))
            .collect();
        if names.is_empty() {
            "all events".into()
        } else {
            names.join(", ")
        }
    }
}

/// Every event type, ticked when in `chosen`.
fn event_choices(chosen: &[pb::EventType]) -> Vec<(&'static str, bool)> {
    pb::EventType::NAMES
        .iter()
        .map(|(event, name)| (*name, chosen.contains(event)))
        .collect()
}

/// The event types ticked in a form; a name the API does not know is kept as
/// unspecified, which the core refuses naming `events`.
fn events_in(form: &[(String, String)]) -> Vec<i32> {
    form.iter()
        .filter(|(key, _)| key == "event")
        .map(|(_, name)| pb::EventType::from_public_name(name).unwrap_or(pb::EventType::Unspecified) as i32)
        .collect()
}

/// What a form sent, shown again beside the core's refusal.
#[derive(Default)]
pub(crate) struct Draft {
    url: String,
    description: String,
    events: Vec<(&'static str, bool)>,
}

impl Draft {
    fn of(form: &[(String, String)]) -> Draft {
        let ticked: Vec<pb::EventType> = events_in(form)
            .into_iter()
            .filter_map(|e| pb::EventType::try_from(e).ok())
            .collect();
        Draft {
            url: field(form, "url").to_owned(),
            description: field(form, "description").to_owned(),
            events: event_choices(&ticked),
        }
    }
}

#[derive(Template)]
#[template(path = "webhooks.html")]
pub(crate) struct WebhooksPage {
    layout: Layout,
    workspace_id: String,
    endpoints: Vec<EndpointRow>,
    draft: Draft,
    refusal: Option<Refusal>,
}

impl WebhooksPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

/// The workspace's endpoints of `mode`.
async fn endpoints(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &str,
) -> Result<Vec<pb::WebhookEndpoint>, tonic::Status> {
    let request = signed.acting(pb::ListWebhookEndpointsRequest {}, workspace, mode, None);
    Ok(state
        .webhooks
        .clone()
        .list_webhook_endpoints(request)
        .await?
        .into_inner()
        .endpoints)
}

/// The layout of a webhook page, with a refusal that names no form field
/// shown as the page's banner.
fn layout(
    state: &ConsoleState,
    signed: &Signed,
    title: &str,
    workspace: &str,
    mode: &'static str,
    refusal: Option<&Refusal>,
) -> Layout {
    let mut layout = signed.layout(state, title, Some(workspace), mode);
    layout.section = "webhooks";
    if let Some(refusal) = refusal.filter(|r| {
        ["url", "events", "description", "disable_confirm", "delete_confirm"]
            .iter()
            .all(|f| r.at(f).is_none())
    }) {
        layout.error = Some(refusal.message.clone());
    }
    layout
}

async fn list_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &'static str,
    draft: Draft,
    refusal: Option<Refusal>,
) -> Response {
    let endpoints = match endpoints(state, signed, workspace, mode).await {
        Ok(endpoints) => endpoints,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        WebhooksPage {
            layout: layout(state, signed, "Webhooks", workspace, mode, refusal.as_ref()),
            workspace_id: workspace.to_owned(),
            endpoints: endpoints
                .iter()
                .map(|e| EndpointRow::of(e, signed.zone(Some(workspace))))
                .collect(),
            draft,
            refusal,
        },
        status,
    )
}

pub(crate) async fn list_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let draft = Draft {
        events: event_choices(&[]),
        ..Draft::default()
    };
    list_view(&state, &signed, &workspace, query.mode(), draft, None).await
}

#[derive(Template)]
#[template(path = "webhook_created.html")]
pub(crate) struct CreatedPage {
    layout: Layout,
    workspace_id: String,
    endpoint: EndpointRow,
    secret: String,
}

pub(crate) async fn create(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let description = field(&form, "description");
    let message = pb::CreateWebhookEndpointRequest {
        url: field(&form, "url").to_owned(),
        events: events_in(&form),
        description: (!description.is_empty()).then(|| description.to_owned()),
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    match state.webhooks.clone().create_webhook_endpoint(request).await {
        Ok(answer) => {
            let answer = answer.into_inner();
            let id = answer.endpoint.map(|e| e.id).unwrap_or_default();
            signed.redirect_with(
                Flash::secret("webhook", "Endpoint added.", answer.secret),
                &format!("{}/w/{workspace}/webhooks/{id}/created?mode={mode}", state.root),
            )
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            list_view(
                &state,
                &signed,
                &workspace,
                mode,
                Draft::of(&form),
                Some(Refusal::of(&status)),
            )
            .await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// The signing secret of a new endpoint, shown once: on the page its
/// creation redirects to; a reload shows the endpoint's page instead.
pub(crate) async fn created_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = query.mode();
    let endpoint_url = format!("{}/w/{workspace}/webhooks/{id}?mode={mode}", state.root);
    let Some(secret) = signed.flash.as_ref().and_then(|f| f.secret_of("webhook")) else {
        return Redirect::to(&endpoint_url).into_response();
    };
    let endpoint = match endpoints(&state, &signed, &workspace, mode).await {
        Ok(endpoints) => endpoints.into_iter().find(|e| e.id == id),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let Some(endpoint) = endpoint else {
        return Redirect::to(&endpoint_url).into_response();
    };
    let zone = signed.zone(Some(&workspace));
    render(
        CreatedPage {
            layout: layout(&state, &signed, "Endpoint created", &workspace, mode, None),
            workspace_id: workspace,
            endpoint: EndpointRow::of(&endpoint, zone),
            secret: secret.to_owned(),
        },
        StatusCode::OK,
    )
}

/// The outcome of the last action, shown on the endpoint's page.
pub(crate) enum Outcome {
    None,
    /// The core's refusal (its field, when the edit form names one).
    Refused(Refusal),
}

/// One attempt to the endpoint as its page lists it.
pub(crate) struct AttemptRow {
    event_id: String,
    event_type: &'static str,
    attempted_at: Moment,
    status: &'static str,
    response_code: String,
    latency: String,
    error: String,
}

impl AttemptRow {
    fn of(entry: &pb::WebhookEndpointAttempt, zone: Zone) -> AttemptRow {
        let attempt = entry.attempt.clone().unwrap_or_default();
        AttemptRow {
            event_id: entry.event_id.clone(),
            event_type: entry.event_type().public_name().unwrap_or("unknown"),
            attempted_at: zone.at(attempt.attempted_at.as_ref()),
            status: attempt.status().public_name().unwrap_or("unknown"),
            response_code: attempt.response_code.map_or_else(|| "none".into(), |c| c.to_string()),
            latency: attempt
                .latency_ms
                .map_or_else(|| "none".into(), |ms| format!("{ms} ms")),
            error: attempt.error.unwrap_or_default(),
        }
    }
}

/// How the endpoint's deliveries stand: its failing streak, its retries
/// still to come and the rule that disables it.
pub(crate) struct Health {
    failing_streak: i64,
    pending_retries: i64,
    disable_after: i32,
    disable_window: String,
}

/// The endpoint's latest attempts and how its deliveries stand.
async fn activity(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode, id): (&str, &'static str, &str),
) -> Result<(Vec<AttemptRow>, Health), tonic::Status> {
    let message = pb::ListWebhookEndpointAttemptsRequest {
        webhook_id: id.to_owned(),
        page_size: Some(ATTEMPTS_SHOWN),
    };
    let answer = state
        .webhooks
        .clone()
        .list_webhook_endpoint_attempts(signed.acting(message, workspace, mode, None))
        .await?
        .into_inner();
    let health = Health {
        failing_streak: answer.failing_streak,
        pending_retries: answer.pending_retries,
        disable_after: answer.disable_after,
        disable_window: answer
            .disable_window
            .and_then(|d| std::time::Duration::try_from(d).ok())
            .map(duration_words)
            .unwrap_or_default(),
    };
    let zone = signed.zone(Some(workspace));
    Ok((
        answer.attempts.iter().map(|a| AttemptRow::of(a, zone)).collect(),
        health,
    ))
}

/// How many of the endpoint's latest attempts its page lists.
const ATTEMPTS_SHOWN: i32 = 20;

/// A duration in the largest whole unit that fits: "24 hours", "30 minutes".
fn duration_words(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs();
    let (count, unit) = if seconds >= 86_400 && seconds.is_multiple_of(86_400) {
        (seconds / 86_400, "day")
    } else if seconds >= 3_600 && seconds.is_multiple_of(3_600) {
        (seconds / 3_600, "hour")
    } else if seconds >= 60 && seconds.is_multiple_of(60) {
        (seconds / 60, "minute")
    } else {
        (seconds, "second")
    };
    format!("{count} {unit}{}", if count == 1 { "" } else { "s" })
}

#[derive(Template)]
#[template(path = "webhook.html")]
pub(crate) struct EndpointPage {
    layout: Layout,
    workspace_id: String,
    endpoint: EndpointRow,
    attempts: Vec<AttemptRow>,
    health: Health,
    /// The edit form's values: the endpoint's, or what was sent and refused.
    draft: Draft,
    outcome: Outcome,
}

impl EndpointPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        match &self.outcome {
            Outcome::Refused(refusal) => refusal.at(field),
            _ => None,
        }
    }
}

async fn endpoint_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &'static str,
    id: &str,
    draft: Option<Draft>,
    outcome: Outcome,
) -> Response {
    let endpoints = match endpoints(state, signed, workspace, mode).await {
        Ok(endpoints) => endpoints,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let Some(endpoint) = endpoints.iter().find(|e| e.id == id) else {
        return failure(
            state,
            &courier::errors::to_status(
                courier::errors::ErrorCode::NotFound,
                &format!("No {mode} webhook endpoint has the id {id}."),
                None,
            ),
        );
    };
    let (attempts, health) = match activity(state, signed, (workspace, mode, id)).await {
        Ok(activity) => activity,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let endpoint = EndpointRow::of(endpoint, signed.zone(Some(workspace)));
    let draft = draft.unwrap_or_else(|| Draft {
        url: endpoint.url.clone(),
        description: endpoint.description.clone(),
        events: endpoint.events.clone(),
    });
    let refusal = match &outcome {
        Outcome::Refused(refusal) => Some(refusal),
        _ => None,
    };
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        EndpointPage {
            layout: layout(state, signed, "Webhook endpoint", workspace, mode, refusal),
            workspace_id: workspace.to_owned(),
            endpoint,
            attempts,
            health,
            draft,
            outcome,
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
    endpoint_view(&state, &signed, &workspace, query.mode(), &id, None, Outcome::None).await
}

/// After a change: back to the endpoint's page saying what `done` says
/// of the answer; a refusal of the request is shown on the page, with what
/// was sent.
async fn answer<T>(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode, id): (&str, &'static str, &str),
    draft: Option<Draft>,
    result: Result<tonic::Response<T>, tonic::Status>,
    done: impl FnOnce(T) -> String,
) -> Response {
    match result {
        Ok(answer) => signed.redirect_with(
            Flash::notice(done(answer.into_inner())),
            &format!("{}/w/{workspace}/webhooks/{id}?mode={mode}", state.root),
        ),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
            ) =>
        {
            let outcome = Outcome::Refused(Refusal::of(&status));
            endpoint_view(state, signed, workspace, mode, id, draft, outcome).await
        }
        Err(status) => signed.failure(state, &status, workspace),
    }
}

pub(crate) async fn update(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let message = pb::UpdateWebhookEndpointRequest {
        webhook_id: id.clone(),
        url: Some(field(&form, "url").to_owned()),
        events: Some(pb::EventTypeList {
            events: events_in(&form),
        }),
        description: Some(field(&form, "description").to_owned()),
        status: pb::WebhookEndpointStatus::Unspecified as i32,
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    let result = state.webhooks.clone().update_webhook_endpoint(request).await;
    answer(
        &state,
        &signed,
        (&workspace, mode, &id),
        Some(Draft::of(&form)),
        result,
        |_| "Endpoint saved.".into(),
    )
    .await
}

pub(crate) async fn set_status(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let status = match field(&form, "status") {
        "active" => pb::WebhookEndpointStatus::Active,
        "disabled" => pb::WebhookEndpointStatus::Disabled,
        _ => pb::WebhookEndpointStatus::Unspecified,
    };
    // Disabling ends the events waiting for it: destructive, so confirmed.
    if status == pb::WebhookEndpointStatus::Disabled
        && let Some(refusal) = unconfirmed(&form, "disable the endpoint")
    {
        let refusal = Refusal {
            param: Some("disable_confirm".into()),
            ..refusal
        };
        return endpoint_view(&state, &signed, &workspace, mode, &id, None, Outcome::Refused(refusal)).await;
    }
    let message = pb::UpdateWebhookEndpointRequest {
        webhook_id: id.clone(),
        status: status as i32,
        ..Default::default()
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    let result = state.webhooks.clone().update_webhook_endpoint(request).await;
    answer(&state, &signed, (&workspace, mode, &id), None, result, |_| {
        if status == pb::WebhookEndpointStatus::Disabled {
            "Endpoint disabled: no events are sent to it until you enable it again.".into()
        } else {
            "Endpoint enabled: new events are sent to it again.".into()
        }
    })
    .await
}

pub(crate) async fn send_test(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let message = pb::TestWebhookEndpointRequest { webhook_id: id.clone() };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    let result = state.webhooks.clone().test_webhook_endpoint(request).await;
    answer(&state, &signed, (&workspace, mode, &id), None, result, |attempt| {
        let code = attempt
            .response_code
            .map_or_else(|| "no answer".to_owned(), |code| format!("answer {code}"));
        let latency = attempt.latency_ms.map(|ms| format!(", {ms} ms")).unwrap_or_default();
        if attempt.succeeded {
            format!("Test event delivered ({code}{latency}).")
        } else {
            let error = attempt.error.map(|e| format!(": {e}")).unwrap_or_default();
            format!("Test event failed ({code}{latency}){error}.")
        }
    })
    .await
}

pub(crate) async fn replay(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let message = pb::ReplayWebhookEndpointRequest { webhook_id: id.clone() };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    let result = state.webhooks.clone().replay_webhook_endpoint(request).await;
    // Events still being retried are not failed yet, so replay leaves them
    // to their retries: the answer says so rather than only "0 queued".
    let retrying = match &result {
        Ok(_) => activity(&state, &signed, (&workspace, mode, &id))
            .await
            .map_or(0, |(_, health)| health.pending_retries),
        Err(_) => 0,
    };
    answer(&state, &signed, (&workspace, mode, &id), None, result, |replayed| {
        replay_words(replayed.queued, retrying)
    })
    .await
}

/// Replay's answer: the failed events queued again, and the events still
/// being retried, which replay leaves to their retries.
fn replay_words(queued: i64, retrying: i64) -> String {
    let queued = match queued {
        0 => "No failed event to send again".to_owned(),
        1 => "1 failed event queued again".to_owned(),
        n => format!("{n} failed events queued again"),
    };
    let retrying = match retrying {
        0 => String::new(),
        1 => "; 1 event is still being retried and is sent on its own schedule".to_owned(),
        n => format!("; {n} events are still being retried and are sent on their own schedule"),
    };
    format!("{queued}{retrying}.")
}

pub(crate) async fn delete(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    if let Some(refusal) = unconfirmed(&form, "delete the endpoint") {
        let refusal = Refusal {
            param: Some("delete_confirm".into()),
            ..refusal
        };
        return endpoint_view(&state, &signed, &workspace, mode, &id, None, Outcome::Refused(refusal)).await;
    }
    let message = pb::DeleteWebhookEndpointRequest { webhook_id: id.clone() };
    let request = signed.acting(message, &workspace, mode, Some(field(&form, "csrf")));
    match state.webhooks.clone().delete_webhook_endpoint(request).await {
        Ok(_) => signed.redirect_with(
            Flash::notice("Endpoint deleted: it receives no more events."),
            &format!("{}/w/{workspace}/webhooks?mode={mode}", state.root),
        ),
        Err(status) => {
            answer::<()>(&state, &signed, (&workspace, mode, &id), None, Err(status), |_| {
                String::new()
            })
            .await
        }
    }
}
