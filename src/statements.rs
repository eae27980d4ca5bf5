//! A statement as a document: CSV for spreadsheets and accounting imports,
//! and a printable HTML page. Both render the billing service's own
//! messages, so the operator CLI and the console show the same document.

use askama::Template;

use crate::internal::v1::{BillableDelivery, Statement, StatementStatus};
use crate::time::{format_rfc3339, from_proto};

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
/// formula are prefixed with `'`.
pub fn csv(deliveries: &[BillableDelivery]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
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
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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

pub fn status_name(status: StatementStatus) -> &'static str {
    match status {
        StatementStatus::Open => "open",
        StatementStatus::Paid => "paid",
        StatementStatus::Void => "void",
        StatementStatus::Unspecified => "unknown",
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
    rows: Vec<Row<'a>>,
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

    #[test]
    fn amounts_have_two_decimals() {
        assert_eq!(amount(0), "0.00");
        assert_eq!(amount(5), "0.05");
        assert_eq!(amount(123_456), "1234.56");
        assert_eq!(amount(-250), "-2.50");
    }
}
