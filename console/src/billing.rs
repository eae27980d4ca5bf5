//! A workspace's billing (docs/billing.md): the open amount against the
//! credit limit, the statements with their deliveries, and each statement
//! as CSV and as a printable page. The internal `BillingService` with the
//! session in place of a service token: every member reads; closing, paying
//! and voiding are the operators' (the core decides).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courier::internal::v1 as pb;

use crate::ConsoleState;
use crate::deliveries::money;
use crate::page::{Layout, Signed, failure, mode_named, next_page, render};
use crate::times::{Moment, Zone};

const PAGE_SIZE: i32 = 25;
/// Deliveries read per call when a whole statement is exported.
const EXPORT_PAGE_SIZE: i32 = 100;
use courier::statements::PRINT_CSP;

#[derive(serde::Deserialize, Default)]
pub(crate) struct PageQuery {
    page_token: Option<String>,
    /// The mode the user came from, kept in the menu's links (statements
    /// are of live deliveries only).
    mode: Option<String>,
}

/// The open amount as a share of the credit limit, 0 to 100.
pub(crate) fn used_percent(open_amount_cents: i64, credit_limit_cents: i64) -> i64 {
    if credit_limit_cents > 0 {
        (open_amount_cents.saturating_mul(100) / credit_limit_cents).clamp(0, 100)
    } else {
        0
    }
}

pub(crate) struct StatementRow {
    id: String,
    period: (Moment, Moment),
    issued_at: Moment,
    due_at: Moment,
    total: String,
    deliveries: i32,
    /// Its live SMS notifications, `31 (2.79 EUR)`, when it bills any.
    sms: Option<String>,
    /// Its tips, `4 (18.00 EUR)`, when it bills any.
    tips: Option<String>,
    status: &'static str,
    overdue: bool,
}

impl StatementRow {
    fn of(statement: &pb::Statement, zone: Zone) -> StatementRow {
        StatementRow {
            id: statement.id.clone(),
            period: (
                zone.day(statement.period_start.as_ref(), ""),
                zone.day(statement.period_end.as_ref(), ""),
            ),
            issued_at: zone.day(statement.issued_at.as_ref(), ""),
            due_at: zone.day(statement.due_at.as_ref(), ""),
            total: money(statement.total_cents, &statement.currency),
            deliveries: statement.delivery_count,
            sms: (statement.sms_count > 0).then(|| {
                format!(
                    "{} ({})",
                    statement.sms_count,
                    money(statement.sms_cents, &statement.currency)
                )
            }),
            tips: (statement.tip_count > 0).then(|| {
                format!(
                    "{} ({})",
                    statement.tip_count,
                    money(statement.tip_cents, &statement.currency)
                )
            }),
            status: courier::statements::status_name(statement.status()),
            overdue: statement.overdue,
        }
    }
}

#[derive(Template)]
#[template(path = "billing.html")]
pub(crate) struct BillingPage {
    layout: Layout,
    workspace_id: String,
    invoice_billing: bool,
    credit_limit: String,
    open_amount: String,
    /// The open amount as a share of the credit limit, 0 to 100.
    used_percent: i64,
    billing_day: i32,
    /// When the open period next closes, on the area's clock.
    next_close: Moment,
    payment_terms_days: i32,
    overdue: bool,
    statements: Vec<StatementRow>,
    next_page: Option<String>,
}

/// The next 00:00 UTC on day `billing_day` (1 to 28) of a month after
/// `now`: when the billing worker closes the open period (docs/billing.md).
fn next_close(billing_day: i32, now: chrono::DateTime<chrono::Utc>) -> prost_types::Timestamp {
    use chrono::{Datelike, Months, NaiveDate};
    let day = billing_day.clamp(1, 28) as u32;
    let this_month = NaiveDate::from_ymd_opt(now.year(), now.month(), day).unwrap_or_default();
    let close = this_month.and_time(chrono::NaiveTime::MIN).and_utc();
    let close = if close > now {
        close
    } else {
        close.checked_add_months(Months::new(1)).unwrap_or(close)
    };
    courier::time::to_proto(close)
}

pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<PageQuery>,
) -> Response {
    let request = signed.request(
        pb::GetBillingStateRequest {
            workspace_id: workspace.clone(),
        },
        None,
    );
    let billing = match state.billing.clone().get_billing_state(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let request = signed.request(
        pb::ListStatementsRequest {
            workspace_id: workspace.clone(),
            page_size: PAGE_SIZE,
            page_token: query.page_token.clone().unwrap_or_default(),
        },
        None,
    );
    let statements = match state.billing.clone().list_statements(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let settings = billing.billing.unwrap_or_default();
    let mut layout = signed.layout(&state, "Billing", Some(&workspace), mode_named(query.mode.as_deref()));
    layout.section = "billing";
    let limit = settings.credit_limit_cents;
    let zone = signed.zone(Some(&workspace));
    render(
        BillingPage {
            layout,
            workspace_id: workspace,
            invoice_billing: settings.invoice_billing_enabled,
            credit_limit: money(limit, &billing.currency),
            open_amount: money(billing.open_amount_cents, &billing.currency),
            used_percent: used_percent(billing.open_amount_cents, limit),
            billing_day: settings.billing_day.unwrap_or(1),
            next_close: zone.minute(
                Some(&next_close(settings.billing_day.unwrap_or(1), chrono::Utc::now())),
                "",
            ),
            payment_terms_days: settings.payment_terms_days.unwrap_or(14),
            overdue: settings.statement_overdue,
            statements: statements
                .statements
                .iter()
                .map(|s| StatementRow::of(s, zone))
                .collect(),
            next_page: next_page(&statements.next_page_token),
        },
        StatusCode::OK,
    )
}

pub(crate) struct LineRow {
    delivery_id: String,
    external_id: String,
    delivered_at: Moment,
    pickup: String,
    dropoff: String,
    amount: String,
}

#[derive(Template)]
#[template(path = "statement.html")]
pub(crate) struct StatementPage {
    layout: Layout,
    workspace_id: String,
    statement: StatementRow,
    lines: Vec<LineRow>,
    next_page: Option<String>,
}

pub(crate) async fn statement_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
    Query(query): Query<PageQuery>,
) -> Response {
    let request = signed.request(
        pb::GetStatementRequest {
            statement_id: id.clone(),
            page_size: PAGE_SIZE,
            page_token: query.page_token.clone().unwrap_or_default(),
        },
        None,
    );
    let answer = match state.billing.clone().get_statement(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let statement = answer.statement.unwrap_or_default();
    if statement.workspace_id != workspace {
        return failure(&state, &not_found(&id));
    }
    let mut layout = signed.layout(
        &state,
        &format!("Statement {id}"),
        Some(&workspace),
        mode_named(query.mode.as_deref()),
    );
    layout.section = "billing";
    let zone = signed.zone(Some(&workspace));
    render(
        StatementPage {
            layout,
            workspace_id: workspace,
            statement: StatementRow::of(&statement, zone),
            lines: answer
                .deliveries
                .iter()
                .map(|d| LineRow {
                    delivery_id: d.delivery_id.clone(),
                    external_id: d.external_id.clone().unwrap_or_default(),
                    delivered_at: zone.at(d.delivered_at.as_ref()),
                    pickup: d.pickup_address.clone(),
                    dropoff: d.dropoff_address.clone(),
                    amount: money(d.amount_cents, &d.currency),
                })
                .collect(),
            next_page: next_page(&answer.next_page_token),
        },
        StatusCode::OK,
    )
}

fn not_found(id: &str) -> tonic::Status {
    courier::errors::to_status(
        courier::errors::ErrorCode::NotFound,
        &format!("No statement of this workspace has the id {id}."),
        None,
    )
}

/// The whole statement: every page of its deliveries.
async fn whole_statement(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    id: &str,
) -> Result<(pb::Statement, Vec<pb::BillableDelivery>), tonic::Status> {
    let mut deliveries = Vec::new();
    let mut page_token = String::new();
    loop {
        let request = signed.request(
            pb::GetStatementRequest {
                statement_id: id.to_owned(),
                page_size: EXPORT_PAGE_SIZE,
                page_token,
            },
            None,
        );
        let answer = state.billing.clone().get_statement(request).await?.into_inner();
        let statement = answer.statement.unwrap_or_default();
        if statement.workspace_id != workspace {
            return Err(not_found(id));
        }
        deliveries.extend(answer.deliveries);
        if answer.next_page_token.is_empty() {
            return Ok((statement, deliveries));
        }
        page_token = answer.next_page_token;
    }
}

/// `…/statements/{id}/csv`: the statement's deliveries (and its SMS
/// charges) as a CSV download.
pub(crate) async fn csv(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
) -> Response {
    let (statement, deliveries) = match whole_statement(&state, &signed, &workspace, &id).await {
        Ok(statement) => statement,
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let Ok(csv) = courier::statements::statement_csv(&statement, &deliveries) else {
        return failure(&state, &tonic::Status::internal("the CSV could not be written"));
    };
    let mut response = ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], csv).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{id}.csv\"")) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// `…/statements/{id}/print`: the printable statement.
pub(crate) async fn print(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, id)): Path<(String, String)>,
) -> Response {
    let (statement, deliveries) = match whole_statement(&state, &signed, &workspace, &id).await {
        Ok(statement) => statement,
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let name = signed
        .session
        .memberships
        .iter()
        .find(|m| m.workspace_id == workspace)
        .map_or(workspace.as_str(), |m| m.workspace_name.as_str());
    match courier::statements::html(name, &statement, &deliveries) {
        Ok(html) => (
            [(header::CONTENT_SECURITY_POLICY, PRINT_CSP)],
            axum::response::Html(html),
        )
            .into_response(),
        Err(_) => failure(&state, &tonic::Status::internal("the statement could not be rendered")),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_period_closes_at_the_next_billing_day_midnight_utc() {
        let at = |y, m, d, h| chrono::Utc.with_ymd_and_hms(y, m, d, h, 0, 0).single().expect("a time");
        let seconds = |t: prost_types::Timestamp| t.seconds;
        assert_eq!(
            seconds(next_close(1, at(2026, 11, 28, 14))),
            at(2026, 12, 1, 0).timestamp()
        );
        assert_eq!(
            seconds(next_close(28, at(2026, 11, 3, 9))),
            at(2026, 11, 28, 0).timestamp()
        );
        // At the very moment of a close, the next one is a month later.
        assert_eq!(
            seconds(next_close(15, at(2026, 12, 15, 0))),
            at(2027, 1, 15, 0).timestamp()
        );
    }
}
