//! The earnings page (docs/courier-app.md "Earnings"): what the courier
//! earned on a day or in a week, the totals first, then each line, with
//! links to the day or week before and after, and the weekly statements,
//! each as a printable page or CSV. Days and weeks are the core's (the
//! platform's time zone, weeks from Monday), and so are the times shown.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{Days, NaiveDate};
use chrono_tz::Tz;
use courier::app::v1 as apb;

use crate::AppState;
use crate::answers::failure;
use crate::page::{Layout, render};
use crate::signed::Signed;
use courier::statements::{DocumentFormat, courier_statement_response, earnings_line_words, money};

#[derive(serde::Deserialize, Default)]
pub(crate) struct EarningsQuery {
    /// `day` (the default) or `week`.
    period: Option<String>,
    /// `YYYY-MM-DD`; today when absent.
    day: Option<String>,
}

#[derive(Template)]
#[template(path = "earnings.html")]
struct EarningsPage {
    layout: Layout,
    week: bool,
    /// "Wednesday 2 December 2026" or "30 November – 6 December 2026".
    span: String,
    /// The same period before and after, as `?period=…&day=…`.
    earlier: String,
    later: String,
    /// The other period holding the same day.
    other: String,
    totals: Vec<TotalsView>,
    lines: Vec<LineView>,
    statements: Vec<StatementView>,
}

struct StatementView {
    id: String,
    /// "30 November to 6 December 2026".
    week: String,
    total: String,
}

struct TotalsView {
    total: String,
    jobs: i32,
    parts: Vec<(&'static str, String)>,
}

struct LineView {
    when: String,
    what: String,
    amount: String,
    job_id: String,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    signed: Signed,
    Query(query): Query<EarningsQuery>,
) -> Response {
    let week = query.period.as_deref() == Some("week");
    let period = if week {
        apb::EarningsPeriod::Week
    } else {
        apb::EarningsPeriod::Day
    };
    let request = signed.request(apb::ListEarningsRequest {
        period: period as i32,
        day: query.day.unwrap_or_default(),
    });
    let earnings = match state.core.clone().list_earnings(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(&state, &status),
    };
    let zone: Tz = earnings.time_zone.parse().unwrap_or(Tz::UTC);
    let local = |at: Option<&prost_types::Timestamp>| {
        at.and_then(courier::time::from_proto)
            .map(|at| at.with_timezone(&zone).naive_local())
    };
    let start = local(earnings.start_time.as_ref())
        .map(|at| at.date())
        .unwrap_or_default();
    let days = if week { 7 } else { 1 };
    let last = start.checked_add_days(Days::new(days - 1)).unwrap_or(start);
    let span = if week {
        format!("{} – {}", start.format("%-d %B"), last.format("%-d %B %Y"))
    } else {
        start.format("%A %-d %B %Y").to_string()
    };
    let link = |week: bool, day: NaiveDate| {
        format!(
            "?period={}&day={}",
            if week { "week" } else { "day" },
            day.format("%Y-%m-%d")
        )
    };
    let earlier = link(week, start.checked_sub_days(Days::new(days)).unwrap_or(start));
    let later = link(week, start.checked_add_days(Days::new(days)).unwrap_or(start));
    let other = link(!week, start);
    let totals = earnings
        .totals
        .iter()
        .map(|t| TotalsView {
            total: money(t.total_cents, &t.currency),
            jobs: t.jobs,
            parts: [
                ("Jobs", t.job_cents),
                ("Waiting", t.waiting_cents),
                ("Tips", t.tip_cents),
                ("Adjustments", t.adjustment_cents),
            ]
            .into_iter()
            .filter(|(_, cents)| *cents != 0)
            .map(|(name, cents)| (name, money(cents, &t.currency)))
            .collect(),
        })
        .collect();
    let lines = earnings
        .lines
        .iter()
        .map(|line| LineView {
            when: local(line.earn_time.as_ref())
                .map(|at| at.format(if week { "%a %H:%M" } else { "%H:%M" }).to_string())
                .unwrap_or_default(),
            what: earnings_line_words(line),
            amount: money(line.amount_cents, &line.currency),
            job_id: line.job_id.clone().unwrap_or_default(),
        })
        .collect();
    let statements = match state
        .core
        .clone()
        .list_statements(signed.request(apb::ListStatementsRequest {}))
        .await
    {
        Ok(answer) => answer.into_inner().statements,
        Err(status) => return failure(&state, &status),
    };
    let statements = statements
        .iter()
        .map(|statement| {
            let totals = statement.totals.clone().unwrap_or_default();
            StatementView {
                id: statement.id.clone(),
                week: courier::statements::week_words(statement),
                total: money(totals.total_cents, &totals.currency),
            }
        })
        .collect();
    let page = EarningsPage {
        layout: signed.layout(&state, "Earnings"),
        week,
        span,
        earlier,
        later,
        other,
        totals,
        lines,
        statements,
    };
    render(page, StatusCode::OK)
}

/// `/courier/statements/{id}/{print|csv}`: one of the courier's statements
/// as a printable page or a CSV download.
pub(crate) async fn statement(
    State(state): State<AppState>,
    signed: Signed,
    Path((id, format)): Path<(String, String)>,
) -> Response {
    let request = signed.request(apb::GetStatementRequest {
        statement_id: id.clone(),
    });
    let answer = match state.core.clone().get_statement(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(&state, &status),
    };
    let statement = answer.statement.unwrap_or_default();
    let Some(format) = DocumentFormat::named(&format) else {
        return failure(
            &state,
            &tonic::Status::not_found("The app has no page at this address."),
        );
    };
    courier_statement_response(format, &answer.courier_name, &statement, &answer.lines)
        .unwrap_or_else(|_| failure(&state, &tonic::Status::internal("the statement could not be written")))
}
