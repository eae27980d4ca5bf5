//! A statement as a document: CSV for spreadsheets and accounting imports,
//! and a printable HTML page. Both render the billing service's own
//! messages, so the operator CLI and the console show the same document;
//! a courier's weekly statement likewise (`courier_statement_csv`,
//! `courier_statement_html`, from `CourierService.GetCourierStatement`).
//! Beside its deliveries a statement bills live SMS notifications
//! (`sms_count`, `sms_cents`) and tips (`tip_count`, `tip_cents`): one
//! summary line each, in both documents, so that their amounts add up to
//! the statement's total.

use askama::Template;

use crate::app::v1::{CourierStatement, EarningsLine};
use crate::internal::v1::{BillableDelivery, Statement, StatementStatus};
use crate::time::{format_rfc3339, from_proto};

/// What a printable statement may load, as the fronts serve it: its own
/// inline style, nothing else.
pub const PRINT_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The CSV columns, in order.
const CSV_HEADER: [&str; 9] = [
    "delivery_id",
    "external_id",
    "created_at",
    "delivered_at",
    "vehicle_type_id",
    "pickup_address",
    "dropoff_address",
    "amount",
    "currency",
];

/// The statement's deliveries as CSV (RFC 4180, a header row, amounts in
/// major units with two decimals). Cells that a spreadsheet would run as a
/// formula are prefixed with `'`. Only the deliveries: [`statement_csv`]
/// is the whole statement, its SMS notifications too.
pub fn csv(deliveries: &[BillableDelivery]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    write_deliveries(&mut writer, deliveries)?;
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The whole of `statement` as CSV: [`csv`]'s rows of its deliveries, then
/// one row for each kind of charge it bills, in the same columns: `SMS
/// notifications: N × price` or `Tips: N` in the first, their amount and
/// currency in theirs, so that the amount column adds up to `total_cents`.
pub fn statement_csv(statement: &Statement, deliveries: &[BillableDelivery]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    write_deliveries(&mut writer, deliveries)?;
    for charge in charges(statement) {
        let mut row = vec![String::new(); CSV_HEADER.len()];
        row[0] = cell(&format!("{}: {}", charge.name, charge.quantity(None)));
        row[7] = amount(charge.cents);
        row[8] = cell(&statement.currency);
        writer.write_record(&row)?;
    }
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// One kind of charge a statement bills beside its deliveries.
struct Charge {
    /// `SMS notifications`, `Tips`.
    name: &'static str,
    count: i32,
    /// The price of each, when they have one and all had the same.
    unit_cents: Option<i64>,
    cents: i64,
}

impl Charge {
    /// `3 × 0.09` (`3 × 0.09 EUR` with a `currency`), the count alone
    /// without one price.
    fn quantity(&self, currency: Option<&str>) -> String {
        match (self.unit_cents, currency) {
            (Some(unit), Some(currency)) => format!("{} × {} {currency}", self.count, amount(unit)),
            (Some(unit), None) => format!("{} × {}", self.count, amount(unit)),
            (None, _) => self.count.to_string(),
        }
    }
}

/// The charges `statement` bills, each kind it has: its SMS
/// notifications, then its tips.
fn charges(statement: &Statement) -> Vec<Charge> {
    let mut charges = Vec::new();
    if statement.sms_count != 0 || statement.sms_cents != 0 {
        charges.push(Charge {
            name: "SMS notifications",
            count: statement.sms_count,
            unit_cents: statement.sms_unit_cents,
            cents: statement.sms_cents,
        });
    }
    if statement.tip_count != 0 || statement.tip_cents != 0 {
        charges.push(Charge {
            name: "Tips",
            count: statement.tip_count,
            unit_cents: None,
            cents: statement.tip_cents,
        });
    }
    charges
}

fn write_deliveries(writer: &mut csv::Writer<Vec<u8>>, deliveries: &[BillableDelivery]) -> Result<(), csv::Error> {
    writer.write_record(CSV_HEADER)?;
    for delivery in deliveries {
        writer.write_record([
            cell(&delivery.delivery_id),
            cell(delivery.external_id.as_deref().unwrap_or_default()),
            time(delivery.created_at.as_ref()),
            time(delivery.delivered_at.as_ref()),
            cell(&delivery.vehicle_type_id),
            cell(&delivery.pickup_address),
            cell(&delivery.dropoff_address),
            amount(delivery.amount_cents),
            cell(&delivery.currency),
        ])?;
    }
    Ok(())
}

/// The printable statement page (self-contained: inline CSS, no script).
pub fn html(workspace_name: &str, statement: &Statement, deliveries: &[BillableDelivery]) -> askama::Result<String> {
    StatementPage {
        workspace_name,
        statement,
        status: status_name(statement.status()),
        period_start: readable_time(statement.period_start.as_ref()),
        period_end: readable_time(statement.period_end.as_ref()),
        issued_at: readable_time(statement.issued_at.as_ref()),
        due_at: readable_time(statement.due_at.as_ref()),
        total: amount(statement.total_cents),
        charges: charges(statement)
            .into_iter()
            .map(|charge| ChargeRow {
                name: charge.name,
                quantity: charge.quantity(Some(&statement.currency)),
                amount: amount(charge.cents),
            })
            .collect(),
        rows: deliveries
            .iter()
            .map(|d| Row {
                delivery: d,
                delivered_at: readable_time(d.delivered_at.as_ref()),
                amount: amount(d.amount_cents),
            })
            .collect(),
    }
    .render()
}

/// The columns of a courier statement's CSV, in order.
const COURIER_CSV_HEADER: [&str; 6] = ["line_id", "earned_at", "kind", "job_id", "amount", "currency"];

/// A courier statement's lines as CSV (as [`csv`]), then a total row, so
/// that the amount column adds up to its total twice over.
pub fn courier_statement_csv(statement: &CourierStatement, lines: &[EarningsLine]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(COURIER_CSV_HEADER)?;
    for line in lines {
        writer.write_record([
            cell(&line.id),
            time(line.earn_time.as_ref()),
            cell(&earnings_line_words(line)),
            cell(line.job_id.as_deref().unwrap_or_default()),
            amount(line.amount_cents),
            cell(&line.currency),
        ])?;
    }
    let totals = statement.totals.clone().unwrap_or_default();
    writer.write_record([
        "total".to_owned(),
        String::new(),
        String::new(),
        String::new(),
        amount(totals.total_cents),
        cell(&totals.currency),
    ])?;
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// How a front serves a courier statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentFormat {
    /// A CSV download (`<id>.csv`).
    Csv,
    /// The printable page, under [`PRINT_CSP`].
    Print,
}

impl DocumentFormat {
    /// The format an address names (`csv`, `print`).
    pub fn named(name: &str) -> Option<DocumentFormat> {
        match name {
            "csv" => Some(DocumentFormat::Csv),
            "print" => Some(DocumentFormat::Print),
            _ => None,
        }
    }
}

/// A courier statement as the fronts answer it, in `format`; `Err` when
/// the document could not be written.
pub fn courier_statement_response(
    format: DocumentFormat,
    courier_name: &str,
    statement: &CourierStatement,
    lines: &[EarningsLine],
) -> Result<axum::response::Response, String> {
    use axum::http::{HeaderValue, header};
    use axum::response::IntoResponse;
    match format {
        DocumentFormat::Csv => {
            let csv = courier_statement_csv(statement, lines).map_err(|e| e.to_string())?;
            let mut response = ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], csv).into_response();
            if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{}.csv\"", statement.id)) {
                response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
            }
            Ok(response)
        }
        DocumentFormat::Print => {
            let html = courier_statement_html(courier_name, statement, lines).map_err(|e| e.to_string())?;
            Ok((
                [(header::CONTENT_SECURITY_POLICY, PRINT_CSP)],
                axum::response::Html(html),
            )
                .into_response())
        }
    }
}

/// A courier statement's week in words, in its time zone: `30 November
/// to 6 December 2026`.
pub fn week_words(statement: &CourierStatement) -> String {
    span_words(
        statement.start_time.as_ref(),
        statement.end_time.as_ref(),
        &statement.time_zone,
    )
}

/// The days from `start` to just before `end` in `time_zone` (an IANA
/// name), in words: `30 November to 6 December 2026`.
pub fn span_words(
    start: Option<&prost_types::Timestamp>,
    end: Option<&prost_types::Timestamp>,
    time_zone: &str,
) -> String {
    let zone: chrono_tz::Tz = time_zone.parse().unwrap_or(chrono_tz::Tz::UTC);
    let day = |at: Option<&prost_types::Timestamp>, back: i64| {
        at.and_then(from_proto)
            .map(|at| (at.with_timezone(&zone) - chrono::Duration::seconds(back)).date_naive())
    };
    match (day(start, 0), day(end, 1)) {
        (Some(first), Some(last)) => format!("{} to {}", first.format("%-d %B"), last.format("%-d %B %Y")),
        _ => String::new(),
    }
}

/// The printable courier statement (self-contained, as [`html`]).
pub fn courier_statement_html(
    courier_name: &str,
    statement: &CourierStatement,
    lines: &[EarningsLine],
) -> askama::Result<String> {
    let totals = statement.totals.clone().unwrap_or_default();
    CourierStatementPage {
        courier_name,
        statement,
        week: week_words(statement),
        closed_at: readable_time(statement.close_time.as_ref()),
        jobs: totals.jobs,
        parts: vec![
            ("Job pay", amount(totals.job_cents)),
            ("Waiting", amount(totals.waiting_cents)),
            ("Tips", amount(totals.tip_cents)),
            ("Adjustments", amount(totals.adjustment_cents)),
        ],
        total: amount(totals.total_cents),
        currency: totals.currency.clone(),
        rows: lines
            .iter()
            .map(|line| CourierRow {
                at: readable_time(line.earn_time.as_ref()),
                what: earnings_line_words(line),
                job_id: line.job_id.clone().unwrap_or_default(),
                amount: amount(line.amount_cents),
            })
            .collect(),
    }
    .render()
}

pub fn status_name(status: StatementStatus) -> &'static str {
    match status {
        StatementStatus::Open => "open",
        StatementStatus::Paid => "paid",
        StatementStatus::Void => "void",
        StatementStatus::Unspecified => "unknown",
    }
}

/// An amount with its currency: `1234`, `EUR` → `12.34 EUR`.
pub fn money(cents: i64, currency: &str) -> String {
    format!("{} {currency}", amount(cents))
}

/// What a courier's earnings line pays for, in words ("Waiting at the
/// pickup", "Adjustment: Sunday shift").
pub fn earnings_line_words(line: &crate::app::v1::EarningsLine) -> String {
    use crate::app::v1::EarningsKind;
    match line.kind() {
        EarningsKind::Job => "Job".to_owned(),
        EarningsKind::Waiting => "Waiting at the pickup".to_owned(),
        EarningsKind::Tip => "Tip".to_owned(),
        EarningsKind::Adjustment | EarningsKind::Unspecified => {
            format!("Adjustment: {}", line.reason.as_deref().unwrap_or_default())
        }
    }
}

/// Cents as major units: `1234` → `12.34`.
pub fn amount(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("{sign}{}.{:02}", cents / 100, cents % 100)
}

fn time(at: Option<&prost_types::Timestamp>) -> String {
    at.and_then(from_proto).map(format_rfc3339).unwrap_or_default()
}

/// A time for people to read: `2026-11-18 11:40 UTC`.
fn readable_time(at: Option<&prost_types::Timestamp>) -> String {
    at.and_then(from_proto)
        .map(|at| at.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// Text as a CSV cell that no spreadsheet evaluates.
fn cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

#[derive(Template)]
#[template(path = "statement.html")]
struct StatementPage<'a> {
    workspace_name: &'a str,
    statement: &'a Statement,
    status: &'static str,
    period_start: String,
    period_end: String,
    issued_at: String,
    due_at: String,
    total: String,
    /// A line for each kind of charge it bills (SMS notifications, tips).
    charges: Vec<ChargeRow>,
    rows: Vec<Row<'a>>,
}

#[derive(Template)]
#[template(path = "courier_statement.html")]
struct CourierStatementPage<'a> {
    courier_name: &'a str,
    statement: &'a CourierStatement,
    /// `30 November to 6 December 2026`.
    week: String,
    closed_at: String,
    jobs: i32,
    parts: Vec<(&'static str, String)>,
    total: String,
    currency: String,
    rows: Vec<CourierRow>,
}

struct CourierRow {
    at: String,
    what: String,
    job_id: String,
    amount: String,
}

struct ChargeRow {
    name: &'static str,
    /// `3 × 0.09 EUR`, or the count alone.
    quantity: String,
    amount: String,
}

struct Row<'a> {
    delivery: &'a BillableDelivery,
    delivered_at: String,
    amount: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(external_id: &str, pickup: &str) -> BillableDelivery {
        BillableDelivery {
            delivery_id: "del_1".into(),
            external_id: Some(external_id.into()),
            amount_cents: 1999,
            currency: "EUR".into(),
            created_at: Some(crate::time::micros_to_proto(1_795_000_000_000_000)),
            delivered_at: Some(crate::time::micros_to_proto(1_795_000_600_000_000)),
            vehicle_type_id: "car".into(),
            pickup_address: pickup.into(),
            dropoff_address: "Oranienstraße 25, 10999 Berlin".into(),
        }
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let text = csv(&[delivery("=HYPERLINK(\"x\")", "Alexanderplatz 1, 10178 Berlin")]).expect("csv");
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER.join(",").as_str()));
        assert_eq!(
            lines.next(),
            Some(
                "del_1,\"'=HYPERLINK(\"\"x\"\")\",2026-11-18T11:06:40Z,2026-11-18T11:16:40Z,car,\
\"Alexanderplatz 1, 10178 Berlin\",\"Oranienstraße 25, 10999 Berlin\",19.99,EUR"
            )
        );
    }

    #[test]
    fn html_escapes_what_clients_wrote() {
        let statement = Statement {
            id: "stm_1".into(),
            total_cents: 1999,
            currency: "EUR".into(),
            ..Default::default()
        };
        let page = html("Acme <b>", &statement, &[delivery("x", "<script>alert(1)</script>")]).expect("page");
        assert!(
            page.contains("&#60;script&#62;") && !page.contains("<script>"),
            "{page}"
        );
        assert!(page.contains("Acme &#60;b&#62;"));
        assert!(page.contains("19.99"));
    }

    fn with_sms(count: i32, unit: Option<i64>, cents: i64) -> Statement {
        Statement {
            id: "stm_1".into(),
            total_cents: 1999 + cents,
            delivery_count: 1,
            sms_count: count,
            sms_cents: cents,
            sms_unit_cents: unit,
            currency: "EUR".into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_statement_csv_ends_with_its_sms_and_adds_up_to_its_total() {
        let statement = with_sms(3, Some(9), 27);
        let text = statement_csv(&statement, &[delivery("A-1", "Alexanderplatz 1, 10178 Berlin")]).expect("csv");
        let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(text.as_bytes())
            .records()
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(rows.len(), 2, "{text}");
        assert_eq!(rows[0].len(), CSV_HEADER.len());
        assert_eq!(
            rows[1].iter().collect::<Vec<_>>(),
            ["SMS notifications: 3 × 0.09", "", "", "", "", "", "", "0.27", "EUR"]
        );
        let cents: i64 = rows
            .iter()
            .map(|r| r[7].replace('.', "").parse::<i64>().expect("an amount"))
            .sum();
        assert_eq!(cents, statement.total_cents);

        // Without SMS the whole statement is its deliveries alone.
        let plain = with_sms(0, None, 0);
        let deliveries = [delivery("A-1", "x")];
        assert_eq!(
            statement_csv(&plain, &deliveries).expect("csv"),
            csv(&deliveries).expect("csv")
        );
    }

    #[test]
    fn the_page_shows_its_sms_on_a_line_of_their_own() {
        let page = html("Acme", &with_sms(3, Some(9), 27), &[delivery("x", "y")]).expect("page");
        assert!(page.contains("<dd>3 × 0.09 EUR = 0.27 EUR</dd>"), "{page}");
        assert!(page.contains("SMS notifications: 3 × 0.09 EUR</td>"), "{page}");
        assert!(page.contains("20.26 EUR"), "the total: {page}");
        // Prices that changed within the period: the count alone.
        let page = html("Acme", &with_sms(2, None, 19), &[]).expect("page");
        assert!(page.contains("<dd>2 = 0.19 EUR</dd>"), "{page}");
        let page = html("Acme", &with_sms(0, None, 0), &[]).expect("page");
        assert!(!page.contains("SMS"), "{page}");
    }

    #[test]
    fn tips_have_a_line_of_their_own_in_both_documents() {
        let statement = Statement {
            total_cents: 1999 + 27 + 750,
            tip_count: 2,
            tip_cents: 750,
            ..with_sms(3, Some(9), 27)
        };
        let text = statement_csv(&statement, &[delivery("A-1", "x")]).expect("csv");
        let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(text.as_bytes())
            .records()
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(
            rows[2].iter().collect::<Vec<_>>(),
            ["Tips: 2", "", "", "", "", "", "", "7.50", "EUR"]
        );
        let cents: i64 = rows
            .iter()
            .map(|r| r[7].replace('.', "").parse::<i64>().expect("an amount"))
            .sum();
        assert_eq!(cents, statement.total_cents);
        let page = html("Acme", &statement, &[delivery("x", "y")]).expect("page");
        assert!(page.contains("<dt>Tips</dt><dd>2 = 7.50 EUR</dd>"), "{page}");
        assert!(page.contains("Tips: 2</td>"), "{page}");
    }

    #[test]
    fn amounts_have_two_decimals() {
        assert_eq!(amount(0), "0.00");
        assert_eq!(amount(5), "0.05");
        assert_eq!(amount(123_456), "1234.56");
        assert_eq!(amount(-250), "-2.50");
    }
}
