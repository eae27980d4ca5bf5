//! The CSV import of deliveries (docs/import.md): a file read into rows, its
//! columns mapped onto ours, each row made into an item of
//! `POST /v1/deliveries/batch` (the API's JSON, so that the API's rules
//! decide, once), and each row's answer said back in plain words, by line
//! and column of the file. The console's import page and
//! `courier deliveries import` share it; it holds no network and no rule of
//! the API beyond the shape of a number.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// A file of at most this many bytes…
pub const MAX_BYTES: usize = 2 * 1024 * 1024;
/// …and this many rows.
pub const MAX_ROWS: usize = 5_000;
/// Rows per batch call (the API's most).
pub const BATCH_SIZE: usize = 100;

/// How a column's cells become JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    /// A decimal number (a decimal comma is read as a point).
    Number,
    /// A whole number.
    Integer,
}

/// One of the columns the import knows.
#[derive(Debug)]
pub struct Column {
    /// The column's name in our format (the header of the example file).
    pub name: &'static str,
    /// Where its value goes in the create's JSON, dot-separated.
    pub path: &'static str,
    pub kind: Kind,
    /// A file must map it.
    pub required: bool,
    /// Other headers read as this column (lower case, `_` for spaces).
    pub aliases: &'static [&'static str],
}

const fn column(
    name: &'static str,
    path: &'static str,
    kind: Kind,
    required: bool,
    aliases: &'static [&'static str],
) -> Column {
    Column {
        name,
        path,
        kind,
        required,
        aliases,
    }
}

/// The format's columns, in the example file's order.
pub const COLUMNS: &[Column] = &[
    column("idempotency_key", "idempotency_key", Kind::Text, false, &["key"]),
    column(
        "external_id",
        "external_id",
        Kind::Text,
        false,
        &["order", "order_id", "reference"],
    ),
    column(
        "pickup_address",
        "pickup.address",
        Kind::Text,
        true,
        &["pickup", "sender_address", "from_address"],
    ),
    column(
        "pickup_latitude",
        "pickup.latitude",
        Kind::Number,
        true,
        &["pickup_lat", "from_latitude"],
    ),
    column(
        "pickup_longitude",
        "pickup.longitude",
        Kind::Number,
        true,
        &["pickup_lng", "pickup_lon", "from_longitude"],
    ),
    column(
        "pickup_name",
        "pickup.contact.name",
        Kind::Text,
        true,
        &["sender_name", "sender"],
    ),
    column(
        "pickup_phone",
        "pickup.contact.phone",
        Kind::Text,
        true,
        &["sender_phone"],
    ),
    column(
        "pickup_email",
        "pickup.contact.email",
        Kind::Text,
        false,
        &["sender_email"],
    ),
    column("pickup_instructions", "pickup.instructions", Kind::Text, false, &[]),
    column(
        "dropoff_address",
        "dropoff.address",
        Kind::Text,
        true,
        &["dropoff", "recipient_address", "to_address", "address"],
    ),
    column(
        "dropoff_latitude",
        "dropoff.latitude",
        Kind::Number,
        true,
        &["dropoff_lat", "latitude", "lat"],
    ),
    column(
        "dropoff_longitude",
        "dropoff.longitude",
        Kind::Number,
        true,
        &["dropoff_lng", "dropoff_lon", "longitude", "lng", "lon"],
    ),
    column(
        "dropoff_name",
        "dropoff.contact.name",
        Kind::Text,
        true,
        &["recipient_name", "recipient", "name"],
    ),
    column(
        "dropoff_phone",
        "dropoff.contact.phone",
        Kind::Text,
        true,
        &["recipient_phone", "phone"],
    ),
    column(
        "dropoff_email",
        "dropoff.contact.email",
        Kind::Text,
        false,
        &["recipient_email", "email"],
    ),
    column(
        "dropoff_instructions",
        "dropoff.instructions",
        Kind::Text,
        false,
        &["instructions"],
    ),
    column(
        "vehicle_type_id",
        "vehicle_type_id",
        Kind::Text,
        true,
        &["vehicle", "vehicle_type"],
    ),
    column("notes", "notes", Kind::Text, false, &["note"]),
    column("scheduled_at", "scheduled_at", Kind::Text, false, &[]),
    column("pickup_window_start", "pickup_window.start", Kind::Text, false, &[]),
    column("pickup_window_end", "pickup_window.end", Kind::Text, false, &[]),
    column("dropoff_window_start", "dropoff_window.start", Kind::Text, false, &[]),
    column("dropoff_window_end", "dropoff_window.end", Kind::Text, false, &[]),
    column("tip_cents", "tip_cents", Kind::Integer, false, &["tip"]),
    column("batching", "batching", Kind::Text, false, &[]),
    column("undeliverable_action", "undeliverable_action", Kind::Text, false, &[]),
    column("test_scenario", "test_scenario", Kind::Text, false, &[]),
];

/// The documented example (docs/deliveries-import.csv).
pub const EXAMPLE: &str = include_str!("../../docs/deliveries-import.csv");

/// A file that cannot be imported at all, in plain words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError(pub String);

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FileError {}

/// A file's rows.
#[derive(Debug, Clone)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Row>,
}

/// One row, with its line in the file (the header is line 1).
#[derive(Debug, Clone)]
pub struct Row {
    pub line: u64,
    pub cells: Vec<String>,
}

/// Reads a CSV file: UTF-8 (a byte-order mark is skipped), a header row,
/// commas or semicolons (as a spreadsheet saves them in much of Europe),
/// blank rows skipped.
pub fn read(bytes: &[u8]) -> Result<Table, FileError> {
    if bytes.len() > MAX_BYTES {
        return Err(FileError(format!(
            "The file has {} bytes; an import takes at most {} MB.",
            bytes.len(),
            MAX_BYTES / (1024 * 1024)
        )));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| FileError("The file is not UTF-8 text; save it as \"CSV UTF-8\".".into()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line = text.lines().next().unwrap_or_default();
    let delimiter = if first_line.matches(';').count() > first_line.matches(',').count() {
        b';'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| FileError(format!("The header row cannot be read: {e}.")))?
        .iter()
        .map(|h| h.trim().to_owned())
        .collect();
    if headers.iter().all(String::is_empty) {
        return Err(FileError("The file is empty: its first row names the columns.".into()));
    }
    let mut rows = Vec::new();
    // Lines counted up to `counted_to`, once over the file.
    let (mut counted_line, mut counted_to) = (1_u64, 0_usize);
    for record in reader.records() {
        let record = record.map_err(|e| match e.position() {
            Some(at) => FileError(format!("Line {} cannot be read: {e}.", at.line())),
            None => FileError(format!("The file cannot be read: {e}.")),
        })?;
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        if rows.len() == MAX_ROWS {
            return Err(FileError(format!(
                "The file has more than {MAX_ROWS} rows; split it into files of at most {MAX_ROWS}."
            )));
        }
        // The record's line from its offset (past the line break it may
        // start at): the reader's own count is one short in "\r\n" files,
        // as a form sends them.
        let bytes = text.as_bytes();
        let mut offset = record.position().map_or(0, |p| p.byte() as usize).min(bytes.len());
        while bytes.get(offset).is_some_and(|b| matches!(b, b'\r' | b'\n')) {
            offset += 1;
        }
        counted_line += bytes[counted_to..offset].iter().filter(|&&b| b == b'\n').count() as u64;
        counted_to = offset;
        let line = counted_line;
        rows.push(Row {
            line,
            cells: record.iter().map(|cell| cell.trim().to_owned()).collect(),
        });
    }
    if rows.is_empty() {
        return Err(FileError("The file has a header row and no deliveries.".into()));
    }
    Ok(Table { headers, rows })
}

/// Which header of the file each of our columns reads (by index), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    headers: Vec<String>,
    chosen: Vec<Option<usize>>,
}

impl Mapping {
    /// The mapping a file's headers suggest: a header named as a column, or
    /// as one of its aliases (case, spaces and dashes aside).
    pub fn guess(headers: &[String]) -> Mapping {
        let normal: Vec<String> = headers.iter().map(|h| normalize(h)).collect();
        let chosen = COLUMNS
            .iter()
            .map(|column| {
                normal.iter().position(|h| h == column.name).or_else(|| {
                    column
                        .aliases
                        .iter()
                        .find_map(|alias| normal.iter().position(|h| h == alias))
                })
            })
            .collect();
        Mapping {
            headers: headers.to_vec(),
            chosen,
        }
    }

    /// Column `name` reads the header `header` (`None`: no header).
    pub fn set(&mut self, name: &str, header: Option<&str>) -> Result<(), String> {
        let at = column_index(name).ok_or_else(|| format!("There is no column {name:?}; see the format's columns."))?;
        self.chosen[at] = match header {
            None => None,
            Some(header) => Some(
                self.headers
                    .iter()
                    .position(|h| h == header)
                    .ok_or_else(|| format!("The file has no column {header:?} for {name}."))?,
            ),
        };
        Ok(())
    }

    /// Column `name` reads the file's header number `index`.
    pub fn set_index(&mut self, name: &str, index: Option<usize>) -> Result<(), String> {
        let header = match index {
            None => None,
            Some(i) => Some(
                self.headers
                    .get(i)
                    .cloned()
                    .ok_or_else(|| format!("The file has no column number {}.", i + 1))?,
            ),
        };
        self.set(name, header.as_deref())
    }

    /// The file's header column `name` reads.
    pub fn header(&self, name: &str) -> Option<&str> {
        let at = column_index(name)?;
        self.chosen[at].and_then(|i| self.headers.get(i)).map(String::as_str)
    }

    /// The header index column `name` reads.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.chosen[column_index(name)?]
    }

    /// The required columns no header is mapped to.
    pub fn missing(&self) -> Vec<&'static str> {
        COLUMNS
            .iter()
            .zip(&self.chosen)
            .filter(|(column, chosen)| column.required && chosen.is_none())
            .map(|(column, _)| column.name)
            .collect()
    }

    /// Refused when a required column has no header, naming them.
    pub fn check(&self) -> Result<(), FileError> {
        match self.missing().as_slice() {
            [] => Ok(()),
            missing => Err(FileError(format!(
                "No column of the file is mapped to {}.",
                missing.join(", ")
            ))),
        }
    }

    /// What the file says in `column` of `row`, trimmed; empty as `None`.
    fn cell<'r>(&self, at: usize, row: &'r Row) -> Option<&'r str> {
        self.chosen[at]
            .and_then(|i| row.cells.get(i))
            .map(String::as_str)
            .filter(|c| !c.is_empty())
    }

    /// How a problem with column `name` is named to the user: the file's
    /// header for it, else our name.
    fn shown(&self, name: &str) -> String {
        self.header(name).unwrap_or(name).to_owned()
    }
}

fn column_index(name: &str) -> Option<usize> {
    COLUMNS.iter().position(|c| c.name == name)
}

fn normalize(header: &str) -> String {
    header
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect()
}

/// A problem with one row, in plain words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file's column it is in (its header), or the field's name when no
    /// column holds it; `None` for the row as a whole.
    pub column: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.column {
            Some(column) => write!(f, "{column}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A row as a batch item, or what stops it becoming one.
#[derive(Debug, Clone)]
pub struct RowItem {
    pub line: u64,
    /// The row's idempotency key: its column's, else one made from what the
    /// row says (so a file imported again books nothing twice, and a row
    /// corrected since is a new delivery).
    pub key: String,
    pub item: Result<Value, Vec<Problem>>,
}

/// Each row of `table` as a batch item.
pub fn items(table: &Table, mapping: &Mapping) -> Vec<RowItem> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    table
        .rows
        .iter()
        .map(|row| {
            let (body, problems) = body_of(row, table.headers.len(), mapping);
            let digest = hex::encode(Sha256::digest(serde_json::to_vec(&body).unwrap_or_default()));
            let key = match column_index("idempotency_key").and_then(|at| mapping.cell(at, row)) {
                Some(key) => key.to_owned(),
                None => {
                    // Rows alike in every cell are deliveries of their own.
                    let nth = seen.entry(digest.clone()).or_default();
                    *nth += 1;
                    format!("csv-{}-{nth}", &digest[..32])
                }
            };
            let item = if problems.is_empty() {
                let mut item = body;
                item.insert("idempotency_key".into(), Value::String(key.clone()));
                Ok(Value::Object(item))
            } else {
                Err(problems)
            };
            RowItem {
                line: row.line,
                key,
                item,
            }
        })
        .collect()
}

/// A row's create body (without its key) and what of it cannot be read.
fn body_of(row: &Row, header_count: usize, mapping: &Mapping) -> (Map<String, Value>, Vec<Problem>) {
    let mut body = Map::new();
    let mut problems = Vec::new();
    if row.cells.len() != header_count {
        problems.push(Problem {
            column: None,
            message: format!(
                "The row has {} cells where the header names {header_count} columns.",
                row.cells.len()
            ),
        });
    }
    for (at, column) in COLUMNS.iter().enumerate() {
        if column.name == "idempotency_key" {
            continue;
        }
        let Some(cell) = mapping.cell(at, row) else {
            continue;
        };
        let value = match column.kind {
            Kind::Text => Some(Value::String(cell.to_owned())),
            Kind::Number => cell
                .replace(',', ".")
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number),
            Kind::Integer => cell.parse::<i64>().ok().map(Value::from),
        };
        match value {
            Some(value) => insert(&mut body, column.path, value),
            None => problems.push(Problem {
                column: Some(mapping.shown(column.name)),
                message: format!(
                    "{cell:?} is not {}.",
                    match column.kind {
                        Kind::Integer => "a whole number",
                        _ => "a number",
                    }
                ),
            }),
        }
    }
    (body, problems)
}

fn insert(body: &mut Map<String, Value>, path: &str, value: Value) {
    match path.split_once('.') {
        None => {
            body.insert(path.to_owned(), value);
        }
        Some((head, rest)) => {
            let inner = body.entry(head.to_owned()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = inner {
                insert(inner, rest, value);
            }
        }
    }
}

/// What became of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Booked (or booked before, under the row's key).
    Created {
        id: String,
        status: String,
    },
    /// A dry run found nothing wrong: the price it would be booked at.
    Checked {
        amount_cents: i64,
        currency: String,
    },
    Refused(Vec<Problem>),
}

/// A row and what became of it.
#[derive(Debug, Clone)]
pub struct RowResult {
    pub line: u64,
    pub key: String,
    pub outcome: Outcome,
}

/// One result of a batch's answer (`{"delivery": …}`, `{"checked": …}` or
/// `{"error": …}`) as the row's outcome.
pub fn outcome_of(result: &Value, mapping: &Mapping) -> Outcome {
    if let Some(delivery) = result.get("delivery").filter(|d| d.is_object()) {
        return Outcome::Created {
            id: text(&delivery["id"]),
            status: text(&delivery["status"]),
        };
    }
    if let Some(checked) = result.get("checked").filter(|c| c.is_object()) {
        return Outcome::Checked {
            amount_cents: checked["amount_cents"].as_i64().unwrap_or_default(),
            currency: text(&checked["currency"]),
        };
    }
    Outcome::Refused(vec![problem_of(&result["error"], mapping)])
}

/// An error of the API (a batch item's, or the whole call's) as a problem
/// with the row: its `param` read back into the file's column.
pub fn problem_of(error: &Value, mapping: &Mapping) -> Problem {
    let message = match error["message"].as_str() {
        Some(message) if !message.is_empty() => message.to_owned(),
        _ => format!("Refused: {}.", text(&error["code"])),
    };
    let param = error["param"].as_str().unwrap_or_default();
    // `deliveries.7.pickup.latitude`: the path within the item.
    let path = match param.strip_prefix("deliveries.") {
        Some(rest) => rest.split_once('.').map(|(_, path)| path).unwrap_or_default(),
        None => param,
    };
    Problem {
        column: column_of(path).map(|column| mapping.shown(column.name)),
        message,
    }
}

/// Our column that holds `path`: the same field, the first column within
/// it (`pickup_window`), or the one it is within (`pickup.contact` of
/// `pickup.contact.name.first`).
fn column_of(path: &str) -> Option<&'static Column> {
    if path.is_empty() {
        return None;
    }
    COLUMNS
        .iter()
        .find(|c| c.path == path)
        .or_else(|| COLUMNS.iter().find(|c| c.path.starts_with(&format!("{path}."))))
        .or_else(|| {
            COLUMNS
                .iter()
                .filter(|c| path.starts_with(&format!("{}.", c.path)))
                .max_by_key(|c| c.path.len())
        })
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// What one batch call answered.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Each item's result (`{"delivery": …}`, `{"checked": …}` or
    /// `{"error": …}`), in the order sent.
    Results(Vec<Value>),
    /// The call as a whole refused for one of its items (a text the API
    /// refuses anywhere): that item's index in the call and the error.
    ItemRefused { index: usize, error: Value },
    /// The call failed (the service unreachable, the key refused): what
    /// the user is told for every row not yet answered.
    Failed(String),
}

/// An import under way: the rows' items sent in batches of
/// [`BATCH_SIZE`], each answer read back into its rows. The front makes
/// the calls: `while let Some(batch) = run.next_batch() { run.answer(…) }`.
#[derive(Debug)]
pub struct Run {
    rows: Vec<RowItem>,
    outcomes: Vec<Option<Outcome>>,
    /// Rows (indexes) not yet sent, in order.
    pending: std::collections::VecDeque<usize>,
    /// Rows of the batch in flight.
    sent: Vec<usize>,
}

impl Run {
    /// A run over `rows`: those with problems of their own are refused
    /// with them and never sent.
    pub fn new(rows: Vec<RowItem>) -> Run {
        let outcomes = rows
            .iter()
            .map(|row| {
                row.item
                    .as_ref()
                    .err()
                    .map(|problems| Outcome::Refused(problems.clone()))
            })
            .collect::<Vec<_>>();
        let pending = (0..rows.len()).filter(|&i| outcomes[i].is_none()).collect();
        Run {
            rows,
            outcomes,
            pending,
            sent: Vec::new(),
        }
    }

    /// The next batch's items, or `None` when every row is answered.
    pub fn next_batch(&mut self) -> Option<Vec<Value>> {
        let count = self.pending.len().min(BATCH_SIZE);
        self.sent = self.pending.drain(..count).collect();
        let items: Vec<Value> = self
            .sent
            .iter()
            .filter_map(|&i| self.rows[i].item.as_ref().ok().cloned())
            .collect();
        (!items.is_empty()).then_some(items)
    }

    /// Reads the answer to the last batch into its rows (`mapping`: the
    /// file's columns, to name a problem's).
    pub fn answer(&mut self, answer: Answer, mapping: &Mapping) {
        let sent = std::mem::take(&mut self.sent);
        match answer {
            Answer::Results(results) => {
                for (at, &row) in sent.iter().enumerate() {
                    self.outcomes[row] = Some(match results.get(at) {
                        Some(result) => outcome_of(result, mapping),
                        None => Outcome::Refused(vec![Problem {
                            column: None,
                            message: "The service answered fewer deliveries than were sent; import the file again to know (rows booked answer the same).".into(),
                        }]),
                    });
                }
            }
            Answer::ItemRefused { index, error } => {
                // That row is refused; the batch's others go again first.
                for (at, &row) in sent.iter().enumerate().rev() {
                    if at == index {
                        self.outcomes[row] = Some(Outcome::Refused(vec![problem_of(&error, mapping)]));
                    } else {
                        self.pending.push_front(row);
                    }
                }
                if index >= sent.len() {
                    // An index outside the batch: nothing can be retried safely.
                    self.fail(&sent, "The service refused this batch.");
                }
            }
            Answer::Failed(message) => {
                let rest: Vec<usize> = sent.iter().copied().chain(self.pending.drain(..)).collect();
                self.fail(&rest, &message);
            }
        }
    }

    fn fail(&mut self, rows: &[usize], message: &str) {
        for &row in rows {
            self.outcomes[row].get_or_insert_with(|| {
                Outcome::Refused(vec![Problem {
                    column: None,
                    message: format!("Not sent: {message}"),
                }])
            });
        }
        self.pending.retain(|row| !rows.contains(row));
    }

    /// Rows answered so far, of all.
    pub fn progress(&self) -> (usize, usize) {
        (self.outcomes.iter().filter(|o| o.is_some()).count(), self.rows.len())
    }

    /// Each row and its outcome, in the file's order.
    pub fn results(self) -> Vec<RowResult> {
        self.rows
            .into_iter()
            .zip(self.outcomes)
            .map(|(row, outcome)| RowResult {
                line: row.line,
                key: row.key,
                outcome: outcome.unwrap_or_else(|| {
                    Outcome::Refused(vec![Problem {
                        column: None,
                        message: "Not sent.".into(),
                    }])
                }),
            })
            .collect()
    }
}

/// Rows of each outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub created: usize,
    pub checked: usize,
    pub refused: usize,
}

pub fn summary(results: &[RowResult]) -> Summary {
    let mut summary = Summary::default();
    for result in results {
        match result.outcome {
            Outcome::Created { .. } => summary.created += 1,
            Outcome::Checked { .. } => summary.checked += 1,
            Outcome::Refused(_) => summary.refused += 1,
        }
    }
    summary
}

/// The rows' outcomes as CSV: a row per file row, the file's line first.
pub fn result_csv(results: &[RowResult]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = [
        "line",
        "idempotency_key",
        "result",
        "delivery_id",
        "status",
        "amount_cents",
        "currency",
        "problems",
    ];
    // Writing to memory fails only on a record of the wrong length.
    let _ = writer.write_record(header);
    for r in results {
        let line = r.line.to_string();
        let (result, id, status, amount, currency, problems) = match &r.outcome {
            Outcome::Created { id, status } => (
                "created",
                id.clone(),
                status.clone(),
                String::new(),
                String::new(),
                String::new(),
            ),
            Outcome::Checked { amount_cents, currency } => (
                "checked",
                String::new(),
                String::new(),
                amount_cents.to_string(),
                currency.clone(),
                String::new(),
            ),
            Outcome::Refused(problems) => (
                "refused",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                problems.iter().map(Problem::to_string).collect::<Vec<_>>().join("; "),
            ),
        };
        let _ = writer.write_record([
            line.as_str(),
            &r.key,
            result,
            &id,
            &status,
            &amount,
            &currency,
            &problems,
        ]);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
