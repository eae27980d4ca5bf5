//! Couriers' pay in the console (docs/console.md "Couriers' pay"): the pay
//! rules page of the platform's couriers (operators: one rule per vehicle
//! type) and of a fleet's drivers (its owners and admins: one rule), each
//! version kept; on a courier's page, the week's earnings and, for those
//! who manage the courier, a bonus or a correction with its reason; their
//! weekly statements, each as CSV and as a printable page.

use askama::Template;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::statements::{DocumentFormat, courier_statement_response, earnings_line_words, money};

use crate::ConsoleState;
use crate::courier_fleet::Fleet;
use crate::flash::Flash;
use crate::page::{Layout, Refusal, Signed, failure, field, fields, render};
use crate::times::Zone;

/// One version of a rule, as the page lists it.
pub(crate) struct RuleRow {
    /// The vehicle type, or "All drivers" for a fleet's.
    scope: String,
    version: i32,
    current: bool,
    base: String,
    per_km: String,
    per_minute: String,
    waiting: String,
    surcharge_share: String,
    set_by: String,
    set_at: crate::times::Moment,
}

#[derive(Template)]
#[template(path = "courier_pay.html")]
struct PayRulesPage {
    layout: Layout,
    base: String,
    platform: bool,
    manages: bool,
    rules: Vec<RuleRow>,
    /// What the form shows: as sent after a refusal, else empty.
    draft: Vec<(String, String)>,
}

impl PayRulesPage {
    fn value(&self, name: &str) -> &str {
        field(&self.draft, name)
    }
}

async fn rules_view(
    state: &ConsoleState,
    signed: &Signed,
    fleet: &Fleet,
    refused: Option<(Refusal, Vec<(String, String)>)>,
) -> Response {
    let request = signed.request(
        ipb::ListPayRulesRequest {
            fleet_id: fleet.workspace_id().to_owned(),
        },
        Some(&signed.session.csrf_token),
    );
    let rules = match state.couriers.clone().list_pay_rules(request).await {
        Ok(answer) => answer.into_inner().rules,
        Err(status) => return failure(state, &status),
    };
    let zone = signed.zone(fleet.workspace.as_deref());
    let mut seen = std::collections::HashSet::new();
    let rows = rules
        .iter()
        .map(|rule| {
            let scope = if rule.vehicle_type_id.is_empty() {
                "All drivers".to_owned()
            } else {
                rule.vehicle_type_id.clone()
            };
            let parts = rule.parts.unwrap_or_default();
            let currency = rule.currency.as_str();
            RuleRow {
                current: seen.insert(scope.clone()),
                scope,
                version: rule.version,
                base: money(parts.base_cents, currency),
                per_km: money(parts.per_km_cents, currency),
                per_minute: money(parts.per_minute_cents, currency),
                waiting: money(parts.waiting_per_minute_cents, currency),
                surcharge_share: format!("{} %", parts.surcharge_share_percent),
                set_by: rule.created_by.clone(),
                set_at: zone.minute(rule.create_time.as_ref(), ""),
            }
        })
        .collect();
    let (mut layout, manages) = fleet.layout(state, signed, "Pay rules");
    let (status, draft) = match refused {
        Some((refusal, draft)) => {
            layout.error = Some(refusal.message.clone());
            (StatusCode::BAD_REQUEST, draft)
        }
        // A fleet's form starts from the rule in force, to change a part.
        None if fleet.workspace.is_some() => (StatusCode::OK, rules.first().map(form_of).unwrap_or_default()),
        None => (StatusCode::OK, Vec::new()),
    };
    let page = PayRulesPage {
        layout,
        base: fleet.base(state),
        platform: fleet.workspace.is_none(),
        manages,
        rules: rows,
        draft,
    };
    render(page, status)
}

/// A rule's parts as the form shows them (`2.50`, `50`).
fn form_of(rule: &ipb::PayRule) -> Vec<(String, String)> {
    let parts = rule.parts.unwrap_or_default();
    let amount = courier::statements::amount;
    vec![
        ("base".into(), amount(parts.base_cents)),
        ("per_km".into(), amount(parts.per_km_cents)),
        ("per_minute".into(), amount(parts.per_minute_cents)),
        ("waiting_per_minute".into(), amount(parts.waiting_per_minute_cents)),
        (
            "surcharge_share_percent".into(),
            parts.surcharge_share_percent.to_string(),
        ),
    ]
}

pub(crate) async fn rules_page(state: ConsoleState, signed: Signed, fleet: Fleet) -> Response {
    rules_view(&state, &signed, &fleet, None).await
}

/// The amounts of the form, in major units (`2.50`), as minor units; the
/// refusal names the field of one that is not an amount.
fn parts_in(form: &[(String, String)]) -> Result<ipb::PayRuleParts, Refusal> {
    let refusal = |name: &str, message: String| Refusal {
        param: Some(name.to_owned()),
        message,
    };
    let amount = |name: &str, label: &str| {
        crate::forms::cents(field(form, name))
            .ok_or_else(|| refusal(name, format!("{label} is an amount such as 2.50, at least 0.")))
    };
    let share = field(form, "surcharge_share_percent").trim();
    let surcharge_share_percent = match share {
        "" => 0,
        share => share.parse().map_err(|_| {
            refusal(
                "surcharge_share_percent",
                "The share of surcharges is a whole percent, 0 to 100.".to_owned(),
            )
        })?,
    };
    Ok(ipb::PayRuleParts {
        base_cents: amount("base", "The base per job")?,
        per_km_cents: amount("per_km", "The amount per km")?,
        per_minute_cents: amount("per_minute", "The amount per minute")?,
        waiting_per_minute_cents: amount("waiting_per_minute", "The amount per minute waited")?,
        surcharge_share_percent,
    })
}

pub(crate) async fn set_rule(state: ConsoleState, signed: Signed, fleet: Fleet, body: Bytes) -> Response {
    let form = fields(&body);
    let parts = match parts_in(&form) {
        Ok(parts) => parts,
        Err(refusal) => return rules_view(&state, &signed, &fleet, Some((refusal, form))).await,
    };
    let message = ipb::SetPayRuleRequest {
        vehicle_type_id: match fleet.workspace {
            Some(_) => String::new(),
            None => field(&form, "vehicle_type_id").trim().to_owned(),
        },
        fleet_id: fleet.workspace_id().to_owned(),
        parts: Some(parts),
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.couriers.clone().set_pay_rule(request).await {
        Ok(answer) => {
            let rule = answer.into_inner().rule.unwrap_or_default();
            let notice = format!(
                "Version {} of the pay rule applies to offers from now on.",
                rule.version
            );
            signed.redirect_with(Flash::notice(notice), &format!("{}/pay", fleet.base(&state)))
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument || status.code() == tonic::Code::Aborted => {
            rules_view(&state, &signed, &fleet, Some((Refusal::of(&status), form))).await
        }
        Err(status) => failure(&state, &status),
    }
}

/// A courier's earnings of this week, as their page shows them.
pub(crate) struct EarningsView {
    /// "30 November to 6 December 2026".
    pub(crate) span: String,
    pub(crate) totals: Vec<(String, Vec<(&'static str, String)>)>,
    pub(crate) lines: Vec<LineRow>,
}

pub(crate) struct LineRow {
    pub(crate) at: crate::times::Moment,
    pub(crate) what: String,
    pub(crate) job_id: String,
    pub(crate) amount: String,
}

/// Courier `courier_id`'s earnings of this week; `None` when they cannot be
/// read (the rest of the page still shows).
pub(crate) async fn this_week(
    state: &ConsoleState,
    signed: &Signed,
    courier_id: &str,
    zone: Zone,
) -> Option<EarningsView> {
    let request = signed.request(
        ipb::ListEarningsRequest {
            courier_id: courier_id.to_owned(),
            period: apb::EarningsPeriod::Week as i32,
            day: String::new(),
        },
        Some(&signed.session.csrf_token),
    );
    let earnings = state.couriers.clone().list_earnings(request).await.ok()?.into_inner();
    Some(EarningsView {
        span: courier::statements::span_words(
            earnings.start_time.as_ref(),
            earnings.end_time.as_ref(),
            &earnings.time_zone,
        ),
        totals: earnings
            .totals
            .iter()
            .map(|t| {
                let parts = [
                    ("Jobs", format!("{} · {}", t.jobs, money(t.job_cents, &t.currency))),
                    ("Waiting", money(t.waiting_cents, &t.currency)),
                    ("Tips", money(t.tip_cents, &t.currency)),
                    ("Adjustments", money(t.adjustment_cents, &t.currency)),
                ];
                (money(t.total_cents, &t.currency), parts.to_vec())
            })
            .collect(),
        lines: earnings
            .lines
            .iter()
            .map(|line| LineRow {
                at: zone.minute(line.earn_time.as_ref(), ""),
                what: earnings_line_words(line),
                job_id: line.job_id.clone().unwrap_or_default(),
                amount: money(line.amount_cents, &line.currency),
            })
            .collect(),
    })
}

pub(crate) async fn adjust(
    state: ConsoleState,
    signed: Signed,
    fleet: Fleet,
    courier_id: String,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let page = format!("{}/{courier_id}", fleet.base(&state));
    let Some(amount_cents) = crate::forms::signed_cents(field(&form, "amount")) else {
        let refusal = tonic::Status::invalid_argument("The amount is a sum such as 5.00, or -5.00 for a correction.");
        return failure(&state, &refusal);
    };
    let message = ipb::AdjustEarningsRequest {
        courier_id,
        amount_cents,
        reason: field(&form, "reason").to_owned(),
    };
    match state
        .couriers
        .clone()
        .adjust_earnings(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let line = answer.into_inner().line.unwrap_or_default();
            let notice = format!("{} added to the earnings.", money(line.amount_cents, &line.currency));
            signed.redirect_with(Flash::notice(notice), &page)
        }
        Err(status) => failure(&state, &status),
    }
}

/// A courier statement as their page lists it.
pub(crate) struct StatementRow {
    pub(crate) id: String,
    pub(crate) week: String,
    pub(crate) jobs: i32,
    pub(crate) total: String,
}

/// Courier `courier_id`'s statements, newest week first; none when they
/// cannot be read (the rest of the page still shows).
pub(crate) async fn statements(state: &ConsoleState, signed: &Signed, courier_id: &str) -> Vec<StatementRow> {
    let request = signed.request(
        ipb::ListCourierStatementsRequest {
            courier_id: courier_id.to_owned(),
        },
        Some(&signed.session.csrf_token),
    );
    let Ok(answer) = state.couriers.clone().list_courier_statements(request).await else {
        return Vec::new();
    };
    answer
        .into_inner()
        .statements
        .iter()
        .map(|statement| {
            let totals = statement.totals.clone().unwrap_or_default();
            StatementRow {
                id: statement.id.clone(),
                week: courier::statements::week_words(statement),
                jobs: totals.jobs,
                total: money(totals.total_cents, &totals.currency),
            }
        })
        .collect()
}

/// `…/couriers/{courier}/statements/{statement}/{csv|print}`: a courier
/// statement as a CSV download or a printable page.
pub(crate) async fn document(
    state: ConsoleState,
    signed: Signed,
    fleet: Fleet,
    courier_id: String,
    statement_id: String,
    format: String,
) -> Response {
    let request = signed.request(
        ipb::GetCourierStatementRequest {
            statement_id: statement_id.clone(),
        },
        None,
    );
    let answer = match state.couriers.clone().get_courier_statement(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(&state, &status),
    };
    let statement = answer.statement.unwrap_or_default();
    // Another courier's, or another fleet's, is not this page's.
    let courier = signed.request(
        ipb::GetCourierRequest {
            courier_id: courier_id.clone(),
        },
        None,
    );
    let fleet_matches = match state.couriers.clone().get_courier(courier).await {
        Ok(found) => found
            .into_inner()
            .courier
            .and_then(|summary| summary.courier)
            .is_some_and(|c| c.workspace_id == fleet.workspace_id()),
        Err(status) => return failure(&state, &status),
    };
    if statement.courier_id != courier_id || !fleet_matches {
        return failure(&state, &tonic::Status::not_found("No statement has this id here."));
    }
    let Some(format) = DocumentFormat::named(&format) else {
        return failure(
            &state,
            &tonic::Status::not_found("The console has no page at this address."),
        );
    };
    courier_statement_response(format, &answer.courier_name, &statement, &answer.lines)
        .unwrap_or_else(|_| failure(&state, &tonic::Status::internal("the statement could not be written")))
}
