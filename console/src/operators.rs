//! The operators' back office under `/console/ops`: every workspace (create
//! a business or fleet workspace; its plan, billing state and credit limit;
//! its keys, which an operator may revoke; its statements, closed now, paid
//! or voided; links to its members and deliveries) and the audit log of
//! every change made here. The internal `AdminService` and `BillingService`
//! with the session in place of a service token: only operators pass, and
//! the core records each change with who made it (docs/console.md).

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::internal::v1 as ipb;

use crate::ConsoleState;
use crate::deliveries::money;
use crate::flash::Flash;
use crate::page::{Layout, Refusal, Signed, failure, field, fields, next_page, render, unconfirmed};
use crate::times::Moment;

pub(crate) struct WorkspaceRow {
    id: String,
    name: String,
    kind: &'static str,
    plan: String,
    credit: String,
    created_at: Moment,
}

fn kind_name(kind: ipb::WorkspaceKind) -> &'static str {
    match kind {
        ipb::WorkspaceKind::Fleet => "fleet",
        _ => "business",
    }
}

fn plan_text(plan: &ipb::Plan) -> String {
    let mut flags: Vec<String> = [
        (plan.api_access, "API access"),
        (plan.fleet_order_intake, "order intake"),
        (plan.proof_of_delivery, "proof of delivery"),
        (plan.auto_dispatch, "automatic dispatch to its drivers"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| (*name).to_owned())
    .collect();
    if plan.discount_bps > 0 {
        flags.push(format!(
            "{}.{:02} % discount",
            plan.discount_bps / 100,
            plan.discount_bps % 100
        ));
    }
    flags.join(", ")
}

fn layout(state: &ConsoleState, signed: &Signed, title: &str) -> Layout {
    let mut layout = signed.layout(state, title, None, "live");
    layout.section = "ops";
    layout
}

/// The create form's values: blank, or what was sent and refused, so that
/// nothing typed or ticked is lost (the kind cannot be changed later).
#[derive(Default)]
pub(crate) struct WorkspaceDraft {
    name: String,
    fleet: bool,
    api_access: bool,
    fleet_order_intake: bool,
    auto_dispatch: bool,
    proof_of_delivery: bool,
    /// Percent, as typed.
    discount: String,
    invoice_billing: bool,
    credit_limit: String,
}

impl WorkspaceDraft {
    fn blank() -> WorkspaceDraft {
        WorkspaceDraft {
            discount: "0".into(),
            invoice_billing: true,
            credit_limit: "0".into(),
            ..WorkspaceDraft::default()
        }
    }

    fn of(form: &[(String, String)]) -> WorkspaceDraft {
        let on = |name: &str| field(form, name) == "on";
        WorkspaceDraft {
            name: field(form, "name").to_owned(),
            fleet: field(form, "kind") == "fleet",
            api_access: on("api_access"),
            fleet_order_intake: on("fleet_order_intake"),
            auto_dispatch: on("auto_dispatch"),
            proof_of_delivery: on("proof_of_delivery"),
            discount: field(form, "discount").to_owned(),
            invoice_billing: on("invoice_billing"),
            credit_limit: field(form, "credit_limit").to_owned(),
        }
    }
}

#[derive(Template)]
#[template(path = "ops_workspaces.html")]
pub(crate) struct WorkspacesPage {
    layout: Layout,
    workspaces: Vec<WorkspaceRow>,
    draft: WorkspaceDraft,
    refusal: Option<Refusal>,
}

impl WorkspacesPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

/// The form fields the create form shows refusals at.
const CREATE_FIELDS: [&str; 3] = ["name", "discount", "credit_limit"];

async fn workspaces_view(
    state: &ConsoleState,
    signed: &Signed,
    draft: WorkspaceDraft,
    refusal: Option<Refusal>,
) -> Response {
    let request = signed.request(ipb::ListWorkspacesRequest {}, None);
    let workspaces = match state.admin.clone().list_workspaces(request).await {
        Ok(answer) => answer.into_inner().workspaces,
        Err(status) => return failure(state, &status),
    };
    let mut layout = layout(state, signed, "Back office");
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    layout.error = refusal
        .as_ref()
        .filter(|r| CREATE_FIELDS.iter().all(|f| r.at(f).is_none()))
        .map(|r| r.message.clone());
    render(
        WorkspacesPage {
            layout,
            workspaces: workspaces
                .iter()
                .map(|w| WorkspaceRow {
                    id: w.id.clone(),
                    name: w.name.clone(),
                    kind: kind_name(w.kind()),
                    plan: plan_text(&w.plan.unwrap_or_default()),
                    credit: w
                        .billing
                        .as_ref()
                        .map(|b| courier::statements::amount(b.credit_limit_cents))
                        .unwrap_or_default(),
                    created_at: signed.zone(None).day(w.created_at.as_ref(), ""),
                })
                .collect(),
            draft,
            refusal,
        },
        status,
    )
}

pub(crate) async fn workspaces_page(State(state): State<ConsoleState>, signed: Signed) -> Response {
    workspaces_view(&state, &signed, WorkspaceDraft::blank(), None).await
}

/// A discount in basis points as the forms show it, in percent (`12.5`).
pub(crate) fn percent(basis_points: &i32) -> String {
    let text = courier::statements::amount(i64::from(*basis_points));
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The plan of a form, its discount in percent with up to two decimals.
fn plan_in(form: &[(String, String)]) -> Result<ipb::Plan, Refusal> {
    let discount_bps = crate::forms::cents(field(form, "discount"))
        .filter(|bps| *bps <= 10_000)
        .and_then(|bps| i32::try_from(bps).ok())
        .ok_or_else(|| Refusal {
            param: Some("discount".into()),
            message: "The discount must be a percentage from 0 to 100, such as 5 or 12.5.".into(),
        })?;
    Ok(ipb::Plan {
        api_access: field(form, "api_access") == "on",
        fleet_order_intake: field(form, "fleet_order_intake") == "on",
        proof_of_delivery: field(form, "proof_of_delivery") == "on",
        auto_dispatch: field(form, "auto_dispatch") == "on",
        discount_bps,
    })
}

fn credit_limit_in(form: &[(String, String)]) -> Result<i64, Refusal> {
    crate::forms::cents(field(form, "credit_limit")).ok_or_else(|| Refusal {
        param: Some("credit_limit".into()),
        message: "The credit limit must be an amount, such as 1500 or 1500.50.".into(),
    })
}

pub(crate) async fn create_workspace(State(state): State<ConsoleState>, signed: Signed, body: Bytes) -> Response {
    let form = fields(&body);
    let name = field(&form, "name").to_owned();
    let (plan, credit_limit_cents) = match (plan_in(&form), credit_limit_in(&form)) {
        (Ok(plan), Ok(credit_limit_cents)) => (plan, credit_limit_cents),
        (Err(refusal), _) | (_, Err(refusal)) => {
            return workspaces_view(&state, &signed, WorkspaceDraft::of(&form), Some(refusal)).await;
        }
    };
    let message = ipb::CreateWorkspaceRequest {
        name: name.clone(),
        kind: if field(&form, "kind") == "fleet" {
            ipb::WorkspaceKind::Fleet
        } else {
            ipb::WorkspaceKind::Business
        } as i32,
        plan: Some(plan),
        billing: Some(ipb::BillingState {
            invoice_billing_enabled: field(&form, "invoice_billing") == "on",
            credit_limit_cents,
            ..Default::default()
        }),
    };
    match state
        .admin
        .clone()
        .create_workspace(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let created = answer.into_inner().workspace.unwrap_or_default();
            let kind = crate::labels::workspace_kind(created.kind());
            signed.redirect_with(
                Flash::notice(format!("{kind} workspace “{}” created.", created.name)),
                &format!("{}/ops/w/{}", state.root, created.id),
            )
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            workspaces_view(&state, &signed, WorkspaceDraft::of(&form), Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}

pub(crate) struct KeyRow {
    id: String,
    label: String,
    mode: &'static str,
    prefix: String,
    last_used_at: Moment,
    revoked: bool,
}

pub(crate) struct StatementRow {
    id: String,
    period: (Moment, Moment),
    total: String,
    status: &'static str,
    overdue: bool,
}

#[derive(Template)]
#[template(path = "ops_workspace.html")]
pub(crate) struct WorkspacePage {
    layout: Layout,
    workspace_id: String,
    name: String,
    kind: &'static str,
    plan: ipb::Plan,
    billing: ipb::BillingState,
    credit_limit: String,
    open_amount: String,
    keys: Vec<KeyRow>,
    statements: Vec<StatementRow>,
}

async fn workspace_view(state: &ConsoleState, signed: &Signed, workspace: &str, error: Option<String>) -> Response {
    let request = signed.request(
        ipb::GetWorkspaceRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let found = match state.admin.clone().get_workspace(request).await {
        Ok(answer) => answer.into_inner().workspace.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let keys = signed.request(
        ipb::ListApiKeysRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let keys = match state.admin.clone().list_api_keys(keys).await {
        Ok(answer) => answer.into_inner().api_keys,
        Err(status) => return failure(state, &status),
    };
    let billing_state = signed.request(
        ipb::GetBillingStateRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let billing_state = match state.billing.clone().get_billing_state(billing_state).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(state, &status),
    };
    let statements = signed.request(
        ipb::ListStatementsRequest {
            workspace_id: workspace.to_owned(),
            page_size: 50,
            page_token: String::new(),
        },
        None,
    );
    let statements = match state.billing.clone().list_statements(statements).await {
        Ok(answer) => answer.into_inner().statements,
        Err(status) => return failure(state, &status),
    };
    let billing = found.billing.unwrap_or_default();
    let mut layout = layout(state, signed, &format!("Workspace {}", found.name));
    let status = if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    layout.error = error;
    let zone = signed.zone(Some(workspace));
    render(
        WorkspacePage {
            layout,
            workspace_id: found.id.clone(),
            name: found.name.clone(),
            kind: kind_name(found.kind()),
            plan: found.plan.unwrap_or_default(),
            credit_limit: courier::statements::amount(billing.credit_limit_cents),
            open_amount: money(billing_state.open_amount_cents, &billing_state.currency),
            billing,
            keys: keys
                .iter()
                .map(|k| KeyRow {
                    id: k.id.clone(),
                    label: k.label.clone(),
                    mode: if k.mode() == courier::v1::Mode::Live {
                        "live"
                    } else {
                        "test"
                    },
                    prefix: k.prefix.clone(),
                    last_used_at: zone.minute(k.last_used_at.as_ref(), "never"),
                    revoked: k.revoked_at.is_some(),
                })
                .collect(),
            statements: statements
                .iter()
                .map(|s| StatementRow {
                    id: s.id.clone(),
                    period: (
                        zone.day(s.period_start.as_ref(), ""),
                        zone.day(s.period_end.as_ref(), ""),
                    ),
                    total: money(s.total_cents, &s.currency),
                    status: courier::statements::status_name(s.status()),
                    overdue: s.overdue,
                })
                .collect(),
        },
        status,
    )
}

pub(crate) async fn workspace_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
) -> Response {
    workspace_view(&state, &signed, &workspace, None).await
}

/// After an operator's change: the workspace's page saying what was
/// `done`, or with the core's refusal when there is one.
async fn after<T>(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, done): (&str, &str),
    result: Result<tonic::Response<T>, tonic::Status>,
) -> Response {
    match result {
        Ok(_) => signed.redirect_with(Flash::notice(done), &format!("{}/ops/w/{workspace}", state.root)),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
            ) =>
        {
            workspace_view(state, signed, workspace, Some(status.message().to_owned())).await
        }
        Err(status) => failure(state, &status),
    }
}

pub(crate) async fn update_plan(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let plan = match plan_in(&form) {
        Ok(plan) => plan,
        Err(refusal) => return workspace_view(&state, &signed, &workspace, Some(refusal.message)).await,
    };
    let message = ipb::UpdateWorkspacePlanRequest {
        workspace_id: workspace.clone(),
        plan: Some(plan),
    };
    let result = state
        .admin
        .clone()
        .update_workspace_plan(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    after(&state, &signed, (&workspace, "Plan saved."), result).await
}

pub(crate) async fn update_billing(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let credit_limit_cents = match credit_limit_in(&form) {
        Ok(cents) => cents,
        Err(refusal) => return workspace_view(&state, &signed, &workspace, Some(refusal.message)).await,
    };
    let number = |name: &str| field(&form, name).trim().parse::<i32>().ok();
    let mask = [
        "invoice_billing_enabled",
        "credit_limit_cents",
        "billing_day",
        "payment_terms_days",
    ];
    let message = ipb::UpdateBillingStateRequest {
        workspace_id: workspace.clone(),
        billing: Some(ipb::BillingState {
            invoice_billing_enabled: field(&form, "invoice_billing") == "on",
            credit_limit_cents,
            // Output only: sent as the page showed it.
            statement_overdue: field(&form, "statement_overdue") == "true",
            billing_day: Some(number("billing_day").unwrap_or(0)),
            payment_terms_days: Some(number("payment_terms_days").unwrap_or(-1)),
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: mask.iter().map(|p| (*p).to_owned()).collect(),
        }),
    };
    let result = state
        .billing
        .clone()
        .update_billing_state(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    after(&state, &signed, (&workspace, "Billing saved."), result).await
}

pub(crate) async fn revoke_key(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, key)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if let Some(refusal) = unconfirmed(&form, "revoke the key") {
        return workspace_view(&state, &signed, &workspace, Some(refusal.message)).await;
    }
    let message = ipb::RevokeApiKeyRequest { api_key_id: key };
    let result = state
        .admin
        .clone()
        .revoke_api_key(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    after(
        &state,
        &signed,
        (&workspace, "Key revoked: calls with it now fail."),
        result,
    )
    .await
}

pub(crate) async fn close_statement(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = ipb::CloseStatementRequest {
        workspace_id: workspace.clone(),
    };
    let result = state
        .billing
        .clone()
        .close_statement(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    after(&state, &signed, (&workspace, "Statement closed."), result).await
}

pub(crate) async fn settle_statement(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, statement, outcome)): Path<(String, String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if outcome == "void"
        && let Some(refusal) = unconfirmed(&form, "void the statement")
    {
        return workspace_view(&state, &signed, &workspace, Some(refusal.message)).await;
    }
    let request_csrf = Some(field(&form, "csrf"));
    let result = match outcome.as_str() {
        "paid" => state
            .billing
            .clone()
            .mark_statement_paid(signed.request(
                ipb::MarkStatementPaidRequest {
                    statement_id: statement,
                },
                request_csrf,
            ))
            .await
            .map(|_| tonic::Response::new(())),
        "void" => state
            .billing
            .clone()
            .void_statement(signed.request(
                ipb::VoidStatementRequest {
                    statement_id: statement,
                },
                request_csrf,
            ))
            .await
            .map(|_| tonic::Response::new(())),
        _ => return crate::not_found(State(state)).await,
    };
    let done = if outcome == "paid" {
        "Statement marked paid."
    } else {
        "Statement voided."
    };
    after(&state, &signed, (&workspace, done), result).await
}

pub(crate) struct AuditRow {
    at: Moment,
    actor: String,
    action: String,
    workspace_id: String,
    target: String,
    /// The courier the change is about: their name (when the core knows
    /// it) and id.
    courier: Option<(Option<String>, String)>,
}

#[derive(Template)]
#[template(path = "ops_audit.html")]
pub(crate) struct AuditPage {
    layout: Layout,
    entries: Vec<AuditRow>,
    next_page: Option<String>,
}

#[derive(serde::Deserialize, Default)]
pub(crate) struct PageQuery {
    page_token: Option<String>,
}

pub(crate) async fn audit_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Query(query): Query<PageQuery>,
) -> Response {
    let request = signed.request(
        ipb::ListAuditEntriesRequest {
            page_size: 50,
            page_token: query.page_token.unwrap_or_default(),
        },
        None,
    );
    let answer = match state.admin.clone().list_audit_entries(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(&state, &status),
    };
    render(
        AuditPage {
            layout: layout(&state, &signed, "Audit log"),
            entries: answer
                .entries
                .into_iter()
                .map(|e| AuditRow {
                    at: signed.zone(None).at(e.create_time.as_ref()),
                    actor: e.actor,
                    action: e.action,
                    workspace_id: e.workspace_id.unwrap_or_default(),
                    target: e.target,
                    courier: e.courier_id.map(|id| (e.courier_name, id)),
                })
                .collect(),
            next_page: next_page(&answer.next_page_token),
        },
        StatusCode::OK,
    )
}
