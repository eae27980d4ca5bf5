//! Reports (docs/reports.md, docs/console.md "Reports"): a workspace's
//! deliveries (a business's) or its drivers' hours (a fleet's), and the
//! platform's of both in the back office, by day or week over the days
//! chosen, each as a server-drawn SVG chart, a table and a CSV download,
//! read from `ReportService` with the session.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{Days, NaiveDate};
use courier::internal::v1 as ipb;
use serde::Deserialize;

use crate::ConsoleState;
use crate::page::{Layout, Refusal, Signed, mode_named, render};
use crate::times::Zone;

/// Days shown when none are chosen: the last four weeks.
const DEFAULT_DAYS: u64 = 28;

#[derive(Deserialize)]
pub(crate) struct ReportQuery {
    mode: Option<String>,
    from: Option<String>,
    to: Option<String>,
    by: Option<String>,
    /// The back office's service area; empty for all.
    area: Option<String>,
}

/// The choices of the report form, as shown again.
struct Chosen {
    from: String,
    to: String,
    /// `day` or `week`.
    by: &'static str,
    area: String,
    mode: &'static str,
}

impl Chosen {
    /// The query's choices; empty days default to the last four weeks.
    fn of(query: &ReportQuery, zone: Zone) -> Result<Chosen, Refusal> {
        let today = zone.today();
        let day =
            |param: &str, text: Option<&str>, default: NaiveDate| match text.map(str::trim).filter(|t| !t.is_empty()) {
                None => Ok(default),
                Some(text) => text.parse::<NaiveDate>().map_err(|_| Refusal {
                    param: Some(param.into()),
                    message: format!("{text:?} is not a day: choose one, or type it as 2026-12-01."),
                }),
            };
        let to = day("to", query.to.as_deref(), today)?;
        let from = day("from", query.from.as_deref(), to - Days::new(DEFAULT_DAYS - 1))?;
        Ok(Chosen {
            from: from.to_string(),
            to: to.to_string(),
            by: if query.by.as_deref() == Some("week") {
                "week"
            } else {
                "day"
            },
            area: query.area.clone().unwrap_or_default(),
            mode: mode_named(query.mode.as_deref()),
        })
    }

    fn period(&self) -> i32 {
        if self.by == "week" {
            ipb::ReportPeriod::Week as i32
        } else {
            ipb::ReportPeriod::Day as i32
        }
    }

    /// The query string of these choices, for the CSV links.
    fn query(&self) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("mode", self.mode),
                ("from", self.from.as_str()),
                ("to", self.to.as_str()),
                ("by", self.by),
                ("area", self.area.as_str()),
            ])
            .finish()
    }
}

/// One period of the delivery report as the page shows it.
struct DeliveryRow {
    first_day: String,
    deliveries: i64,
    delivered: i64,
    cancelled: i64,
    on_time: String,
    pickup: String,
    delivery: String,
}

impl DeliveryRow {
    fn of(row: &ipb::DeliveryReportRow) -> DeliveryRow {
        DeliveryRow {
            first_day: row.first_day.clone(),
            deliveries: row.deliveries,
            delivered: row.delivered,
            cancelled: row.cancelled,
            on_time: rate(row.on_time, row.promised),
            pickup: minutes(row.pickup_minutes_median, row.pickup_minutes_p90),
            delivery: minutes(row.delivery_minutes_median, row.delivery_minutes_p90),
        }
    }
}

/// "87 % (26 of 30)", or a dash without any.
fn rate(part: i64, of: i64) -> String {
    if of == 0 {
        "–".into()
    } else {
        format!("{} % ({part} of {of})", (part * 100 + of / 2) / of)
    }
}

/// "18 min (p90 34)", or a dash without any.
fn minutes(median: Option<i64>, p90: Option<i64>) -> String {
    match (median, p90) {
        (Some(median), Some(p90)) => format!("{median} min (p90 {p90})"),
        _ => "–".into(),
    }
}

/// Hours with one decimal from minutes.
fn hours(minutes: i64) -> String {
    format!("{:.1}", minutes as f64 / 60.0)
}

struct CourierRow {
    first_day: String,
    couriers: i64,
    online: String,
    busy: String,
    delivered: i64,
    per_hour: String,
}

impl CourierRow {
    fn of(row: &ipb::CourierReportRow) -> CourierRow {
        CourierRow {
            first_day: row.first_day.clone(),
            couriers: row.couriers,
            online: hours(row.online_minutes),
            busy: hours(row.busy_minutes),
            delivered: row.delivered,
            per_hour: per_hour(row),
        }
    }
}

fn per_hour(row: &ipb::CourierReportRow) -> String {
    if row.online_minutes == 0 {
        "–".into()
    } else {
        format!("{:.2}", row.delivered as f64 * 60.0 / row.online_minutes as f64)
    }
}

/// A bar chart drawn on the server: one group of bars per period, and a
/// line (a share, 0 to 100 %) over them.
struct Chart {
    /// The element id of its title.
    id: &'static str,
    title: String,
    bars: Vec<Bar>,
    /// `x,y` points of the line, in the chart's units.
    line: String,
    /// The same points, each drawn (a line of one point shows nothing).
    dots: Vec<(f64, f64)>,
    /// The top of the bars' scale.
    top: String,
    labels: Vec<(f64, String)>,
    legend: Vec<(&'static str, &'static str)>,
}

/// One rectangle: position, size, colour class, what it counts.
struct Bar {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    class: &'static str,
    title: String,
}

/// A period's bar: its label and its parts (value, colour class, what it
/// counts), bottom up.
type Stack = (String, Vec<(f64, &'static str, String)>);

/// The delivery report as the page shows it: chart, periods, total and
/// cancellations by reason.
type DeliverySection = (Chart, Vec<DeliveryRow>, DeliveryRow, Vec<(String, i64)>);

/// The courier report as the page shows it: chart, periods, total.
type CourierSection = (Chart, Vec<CourierRow>, CourierRow);

/// `value` to a tenth, as the SVG writes it.
fn tenths(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 200.0;
const CHART_LEFT: f64 = 40.0;
const CHART_TOP: f64 = 10.0;

impl Chart {
    /// `stacks`: per period, its label and its parts (value, class, what);
    /// `shares`: per period, the line's share (0 to 1), if any.
    fn new(
        id: &'static str,
        title: String,
        stacks: Vec<Stack>,
        shares: Vec<Option<f64>>,
        legend: Vec<(&'static str, &'static str)>,
    ) -> Chart {
        let most = stacks
            .iter()
            .map(|(_, parts)| parts.iter().map(|p| p.0).sum::<f64>())
            .fold(0.0, f64::max)
            .max(1.0);
        let slot = (CHART_WIDTH - CHART_LEFT) / stacks.len().max(1) as f64;
        let width = (slot * 0.7).max(1.0);
        let mut bars = Vec::new();
        let mut labels = Vec::new();
        let every = (stacks.len() / 8).max(1);
        for (i, (label, parts)) in stacks.iter().enumerate() {
            let x = CHART_LEFT + slot * i as f64 + (slot - width) / 2.0;
            let mut base = CHART_TOP + CHART_HEIGHT;
            for (value, class, what) in parts {
                let height = value / most * CHART_HEIGHT;
                base -= height;
                if *value > 0.0 {
                    bars.push(Bar {
                        x: tenths(x),
                        y: tenths(base),
                        width: tenths(width),
                        height: tenths(height),
                        class,
                        title: format!("{label}: {what}"),
                    });
                }
            }
            if i % every == 0 {
                labels.push((tenths(x + width / 2.0), label.clone()));
            }
        }
        let dots: Vec<(f64, f64)> = shares
            .iter()
            .enumerate()
            .filter_map(|(i, share)| {
                let x = CHART_LEFT + slot * i as f64 + slot / 2.0;
                share.map(|s| (tenths(x), tenths(CHART_TOP + CHART_HEIGHT - s * CHART_HEIGHT)))
            })
            .collect();
        let line = dots
            .iter()
            .map(|(x, y)| format!("{x},{y}"))
            .collect::<Vec<_>>()
            .join(" ");
        Chart {
            id,
            title,
            bars,
            line,
            dots,
            top: format!("{most:.0}"),
            labels,
            legend,
        }
    }
}

#[derive(Template)]
#[template(path = "reports.html")]
struct ReportsPage {
    layout: Layout,
    /// The workspace's reports; `None`: the back office's.
    workspace_id: Option<String>,
    chosen: Chosen,
    areas: Vec<(String, String)>,
    refusal: Option<Refusal>,
    time_zone: String,
    deliveries: Option<DeliverySection>,
    couriers: Option<CourierSection>,
    /// Where the CSV downloads and the form go.
    base: String,
}

impl ReportsPage {
    fn field_error(&self, name: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(name))
    }
}

fn delivery_section(
    report: &ipb::GetDeliveryReportResponse,
) -> (Chart, Vec<DeliveryRow>, DeliveryRow, Vec<(String, i64)>) {
    let stacks = report
        .rows
        .iter()
        .map(|r| {
            let open = (r.deliveries - r.delivered - r.cancelled).max(0);
            (
                r.first_day.clone(),
                vec![
                    (r.delivered as f64, "ok", format!("{} delivered", r.delivered)),
                    (r.cancelled as f64, "bad", format!("{} cancelled", r.cancelled)),
                    (open as f64, "open", format!("{open} not ended")),
                ],
            )
        })
        .collect();
    let shares = report
        .rows
        .iter()
        .map(|r| (r.promised > 0).then(|| r.on_time as f64 / r.promised as f64))
        .collect();
    let chart = Chart::new(
        "delivery-chart",
        "Deliveries booked per period, and the share delivered on time".into(),
        stacks,
        shares,
        vec![
            ("ok", "Delivered"),
            ("bad", "Cancelled"),
            ("open", "Not ended"),
            ("line", "On time (0–100 %)"),
        ],
    );
    let total = report.total.clone().unwrap_or_default();
    let reasons = total
        .cancellations
        .iter()
        .map(|c| (c.reason.clone(), c.count))
        .collect();
    (
        chart,
        report.rows.iter().map(DeliveryRow::of).collect(),
        DeliveryRow::of(&total),
        reasons,
    )
}

fn courier_section(report: &ipb::GetCourierReportResponse) -> CourierSection {
    let stacks = report
        .rows
        .iter()
        .map(|r| {
            let idle = (r.online_minutes - r.busy_minutes).max(0);
            (
                r.first_day.clone(),
                vec![
                    (
                        r.busy_minutes as f64 / 60.0,
                        "ok",
                        format!("{} h busy", hours(r.busy_minutes)),
                    ),
                    (
                        idle as f64 / 60.0,
                        "open",
                        format!("{} h online without a job", hours(idle)),
                    ),
                ],
            )
        })
        .collect();
    let shares = report
        .rows
        .iter()
        .map(|r| (r.online_minutes > 0).then(|| r.busy_minutes as f64 / r.online_minutes as f64))
        .collect();
    let chart = Chart::new(
        "courier-chart",
        "Courier hours online per period, and the share of them busy".into(),
        stacks,
        shares,
        vec![
            ("ok", "Busy"),
            ("open", "Online, no job"),
            ("line", "Busy share (0–100 %)"),
        ],
    );
    let total = report.total.clone().unwrap_or_default();
    (
        chart,
        report.rows.iter().map(CourierRow::of).collect(),
        CourierRow::of(&total),
    )
}

/// Which reports a page shows.
struct Shows {
    deliveries: bool,
    couriers: bool,
}

async fn reports_page(
    state: &ConsoleState,
    signed: &Signed,
    workspace: Option<&str>,
    query: &ReportQuery,
    shows: Shows,
) -> Response {
    let zone = signed.zone(workspace);
    let mode = mode_named(query.mode.as_deref());
    let mut layout = signed.layout(state, "Reports", workspace, mode);
    layout.section = if workspace.is_some() { "reports" } else { "ops_reports" };
    let base = match workspace {
        Some(id) => format!("{}/w/{id}/reports", state.root),
        None => format!("{}/ops/reports", state.root),
    };
    let areas = match workspace {
        Some(_) => Vec::new(),
        None => service_areas(state, signed).await,
    };
    let mut page = ReportsPage {
        layout,
        workspace_id: workspace.map(str::to_owned),
        chosen: Chosen {
            from: query.from.clone().unwrap_or_default(),
            to: query.to.clone().unwrap_or_default(),
            by: "day",
            area: query.area.clone().unwrap_or_default(),
            mode,
        },
        areas,
        refusal: None,
        time_zone: String::new(),
        deliveries: None,
        couriers: None,
        base,
    };
    let chosen = match Chosen::of(query, zone) {
        Ok(chosen) => chosen,
        Err(refusal) => {
            page.refusal = Some(refusal);
            return render(page, StatusCode::BAD_REQUEST);
        }
    };
    if shows.deliveries {
        match delivery_report(state, signed, workspace, &chosen).await {
            Ok(report) => {
                page.time_zone = report.time_zone.clone();
                page.deliveries = Some(delivery_section(&report));
            }
            Err(status) => return refused(state, signed, workspace, page, chosen, &status),
        }
    }
    if shows.couriers {
        match courier_report(state, signed, workspace, &chosen).await {
            Ok(report) => {
                page.time_zone = report.time_zone.clone();
                page.couriers = Some(courier_section(&report));
            }
            Err(status) => return refused(state, signed, workspace, page, chosen, &status),
        }
    }
    page.chosen = chosen;
    render(page, StatusCode::OK)
}

/// A refusal at a field of the form is shown at it; any other is the
/// failure page.
fn refused(
    state: &ConsoleState,
    signed: &Signed,
    workspace: Option<&str>,
    mut page: ReportsPage,
    chosen: Chosen,
    status: &tonic::Status,
) -> Response {
    if status.code() == tonic::Code::InvalidArgument {
        let mut refusal = Refusal::of(status);
        // The core's names of the days are the form's `from` and `to`.
        refusal.param = refusal.param.map(|p| match p.as_str() {
            "first_day" => "from".into(),
            "last_day" => "to".into(),
            _ => p,
        });
        page.refusal = Some(refusal);
        page.chosen = chosen;
        return render(page, StatusCode::BAD_REQUEST);
    }
    match workspace {
        Some(workspace) => signed.failure(state, status, workspace),
        None => crate::page::failure(state, status),
    }
}

async fn delivery_report(
    state: &ConsoleState,
    signed: &Signed,
    workspace: Option<&str>,
    chosen: &Chosen,
) -> Result<ipb::GetDeliveryReportResponse, tonic::Status> {
    let message = ipb::GetDeliveryReportRequest {
        workspace_id: workspace.unwrap_or_default().to_owned(),
        mode: chosen.mode.to_owned(),
        service_area_id: chosen.area.clone(),
        first_day: chosen.from.clone(),
        last_day: chosen.to.clone(),
        period: chosen.period(),
    };
    let answer = state
        .reports
        .clone()
        .get_delivery_report(signed.request(message, None))
        .await?;
    Ok(answer.into_inner())
}

async fn courier_report(
    state: &ConsoleState,
    signed: &Signed,
    workspace: Option<&str>,
    chosen: &Chosen,
) -> Result<ipb::GetCourierReportResponse, tonic::Status> {
    let message = ipb::GetCourierReportRequest {
        workspace_id: workspace.unwrap_or_default().to_owned(),
        first_day: chosen.from.clone(),
        last_day: chosen.to.clone(),
        period: chosen.period(),
    };
    let answer = state
        .reports
        .clone()
        .get_courier_report(signed.request(message, None))
        .await?;
    Ok(answer.into_inner())
}

/// The catalogue's service areas, for the back office's choice.
async fn service_areas(state: &ConsoleState, signed: &Signed) -> Vec<(String, String)> {
    let request = signed.request(ipb::ListServiceAreasRequest {}, None);
    match state.core.clone().list_service_areas(request).await {
        Ok(answer) => answer
            .into_inner()
            .service_areas
            .into_iter()
            .map(|area| (area.id, area.name))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Whether `workspace` is a fleet, as the session names it.
fn is_fleet(state: &ConsoleState, signed: &Signed, workspace: &str) -> bool {
    signed
        .layout(state, "", Some(workspace), "test")
        .workspace
        .is_some_and(|w| w.fleet)
}

/// `GET …/w/{workspace}/reports`: a business's deliveries, a fleet's
/// drivers' hours.
pub(crate) async fn workspace_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ReportQuery>,
) -> Response {
    let fleet = is_fleet(&state, &signed, &workspace);
    let shows = Shows {
        deliveries: !fleet,
        couriers: fleet,
    };
    reports_page(&state, &signed, Some(&workspace), &query, shows).await
}

/// `GET /ops/reports`: the platform's deliveries (every workspace, or one
/// area) and its couriers' hours.
pub(crate) async fn platform_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Query(query): Query<ReportQuery>,
) -> Response {
    let shows = Shows {
        deliveries: true,
        couriers: true,
    };
    reports_page(&state, &signed, None, &query, shows).await
}

/// `GET …/reports/deliveries.csv` (a workspace's or, under `/ops`, the
/// platform's).
async fn deliveries_csv(
    state: &ConsoleState,
    signed: &Signed,
    workspace: Option<&str>,
    query: &ReportQuery,
) -> Response {
    let chosen = match Chosen::of(query, signed.zone(workspace)) {
        Ok(chosen) => chosen,
        Err(refusal) => return (StatusCode::BAD_REQUEST, refusal.message).into_response(),
    };
    let report = match delivery_report(state, signed, workspace, &chosen).await {
        Ok(report) => report,
        Err(status) => return csv_refused(state, signed, workspace, &status),
    };
    let mut text = String::from(
        "period_start,deliveries,delivered,cancelled,on_time,promised,on_time_percent,pickup_minutes_median,pickup_minutes_p90,delivery_minutes_median,delivery_minutes_p90,cancellations\n",
    );
    let number = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
    for r in &report.rows {
        let percent = if r.promised > 0 {
            format!("{:.1}", r.on_time as f64 * 100.0 / r.promised as f64)
        } else {
            String::new()
        };
        let reasons: Vec<String> = r
            .cancellations
            .iter()
            .map(|c| format!("{}={}", c.reason, c.count))
            .collect();
        text.push_str(&format!(
            "{},{},{},{},{},{},{percent},{},{},{},{},{}\n",
            r.first_day,
            r.deliveries,
            r.delivered,
            r.cancelled,
            r.on_time,
            r.promised,
            number(r.pickup_minutes_median),
            number(r.pickup_minutes_p90),
            number(r.delivery_minutes_median),
            number(r.delivery_minutes_p90),
            reasons.join(" ")
        ));
    }
    csv_file(&format!("deliveries-{}-{}.csv", chosen.from, chosen.to), text)
}

async fn couriers_csv(state: &ConsoleState, signed: &Signed, workspace: Option<&str>, query: &ReportQuery) -> Response {
    let chosen = match Chosen::of(query, signed.zone(workspace)) {
        Ok(chosen) => chosen,
        Err(refusal) => return (StatusCode::BAD_REQUEST, refusal.message).into_response(),
    };
    let report = match courier_report(state, signed, workspace, &chosen).await {
        Ok(report) => report,
        Err(status) => return csv_refused(state, signed, workspace, &status),
    };
    let mut text =
        String::from("period_start,couriers,online_hours,busy_hours,delivered,deliveries_per_courier_hour\n");
    for r in &report.rows {
        let per_hour = per_hour(r);
        text.push_str(&format!(
            "{},{},{},{},{},{}\n",
            r.first_day,
            r.couriers,
            hours(r.online_minutes),
            hours(r.busy_minutes),
            r.delivered,
            if per_hour == "–" { "" } else { &per_hour }
        ));
    }
    csv_file(&format!("courier-hours-{}-{}.csv", chosen.from, chosen.to), text)
}

fn csv_refused(state: &ConsoleState, signed: &Signed, workspace: Option<&str>, status: &tonic::Status) -> Response {
    match workspace {
        Some(workspace) => signed.failure(state, status, workspace),
        None => crate::page::failure(state, status),
    }
}

fn csv_file(name: &str, text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        text,
    )
        .into_response()
}

pub(crate) async fn workspace_deliveries_csv(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ReportQuery>,
) -> Response {
    deliveries_csv(&state, &signed, Some(&workspace), &query).await
}

pub(crate) async fn workspace_couriers_csv(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ReportQuery>,
) -> Response {
    couriers_csv(&state, &signed, Some(&workspace), &query).await
}

pub(crate) async fn platform_deliveries_csv(
    State(state): State<ConsoleState>,
    signed: Signed,
    Query(query): Query<ReportQuery>,
) -> Response {
    deliveries_csv(&state, &signed, None, &query).await
}

pub(crate) async fn platform_couriers_csv(
    State(state): State<ConsoleState>,
    signed: Signed,
    Query(query): Query<ReportQuery>,
) -> Response {
    couriers_csv(&state, &signed, None, &query).await
}
