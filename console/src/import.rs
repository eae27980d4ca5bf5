//! Importing deliveries from a CSV file (docs/import.md, docs/console.md
//! "Importing deliveries"), in the mode of the page's URL: the file
//! uploaded, its columns mapped onto ours with a preview of the first rows,
//! a dry run naming every row's problems by line and column, then the rows
//! booked 100 at a time (`DeliveryService.BatchCreateDeliveries` with the
//! session, as `POST /v1/deliveries/batch` takes them), each part's rows
//! shown as it is answered. The console keeps nothing between the steps:
//! each form carries the file's text and the mapping, and each row's key is
//! made from the row (`courier_import`), so a step sent twice books nothing
//! twice.

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use courier::v1 as pb;
use courier_edge::dto::deliveries::{BatchCreateDeliveriesBody, batch_request};
use courier_import::{Answer, COLUMNS, Mapping, Outcome, RowResult, Run, Table};
use serde_json::{Value, json};

use crate::ConsoleState;
use crate::page::{Layout, ModeQuery, Signed, field, fields, render};

/// Rows the mapping step previews.
const PREVIEW_ROWS: usize = 5;

/// What a member is told: importing books deliveries.
const MEMBER_CANNOT_IMPORT: &str =
    "As a member you can follow this workspace's deliveries but not book them; an owner or admin can import.";

/// The import's one page, at each of its steps.
#[derive(Template)]
#[template(path = "delivery_import.html")]
struct ImportPage {
    layout: Layout,
    workspace_id: String,
    /// `upload`, `map`, `checked` or `done`.
    step: &'static str,
    /// Why the file or the mapping cannot go on, in plain words.
    problem: Option<String>,
    file_name: String,
    /// The file's text, carried by each step's form.
    csv: String,
    headers: Vec<String>,
    choices: Vec<Choice>,
    preview: Preview,
    rows: Vec<RowView>,
    row_count: usize,
    counts: Counts,
    /// The dry run's price of the rows ready to book.
    total: String,
}

/// One of our columns and the file's header chosen for it.
struct Choice {
    name: &'static str,
    required: bool,
    chosen: Option<usize>,
}

/// The first rows as our mapped columns will read them.
#[derive(Default)]
struct Preview {
    columns: Vec<&'static str>,
    rows: Vec<(u64, Vec<String>)>,
}

/// A row's outcome as the page shows it.
struct RowView {
    line: u64,
    /// `created`, `checked` or `refused`.
    result: &'static str,
    delivery_id: String,
    status: String,
    price: String,
    problems: Vec<String>,
}

#[derive(Default)]
struct Counts {
    created: usize,
    checked: usize,
    refused: usize,
}

/// The rows of one part of an import, for the page's script.
#[derive(Template)]
#[template(path = "delivery_import_rows.html")]
struct ImportRows {
    layout: Links,
    workspace_id: String,
    rows: Vec<RowView>,
}

/// What a row's link needs of the page's layout.
struct Links {
    root: String,
    mode: &'static str,
}

impl ImportPage {
    fn new(signed: &Signed, state: &ConsoleState, workspace: &str, mode: &'static str) -> ImportPage {
        let mut layout = signed.layout(state, "Import deliveries", Some(workspace), mode);
        layout.section = "deliveries";
        ImportPage {
            layout,
            workspace_id: workspace.to_owned(),
            step: "upload",
            problem: None,
            file_name: String::new(),
            csv: String::new(),
            headers: Vec::new(),
            choices: Vec::new(),
            preview: Preview::default(),
            rows: Vec::new(),
            row_count: 0,
            counts: Counts::default(),
            total: String::new(),
        }
    }

    /// The mapping step of `table` (`csv` its text).
    fn mapping(mut self, csv: String, table: &Table, mapping: &Mapping) -> ImportPage {
        self.step = "map";
        self.choices = COLUMNS
            .iter()
            .map(|c| Choice {
                name: c.name,
                required: c.required,
                chosen: mapping.index(c.name),
            })
            .collect();
        let columns: Vec<&'static str> = COLUMNS
            .iter()
            .map(|c| c.name)
            .filter(|name| mapping.index(name).is_some())
            .collect();
        self.preview = Preview {
            rows: table
                .rows
                .iter()
                .take(PREVIEW_ROWS)
                .map(|row| {
                    let cells = columns
                        .iter()
                        .map(|name| {
                            mapping
                                .index(name)
                                .and_then(|i| row.cells.get(i))
                                .cloned()
                                .unwrap_or_default()
                        })
                        .collect();
                    (row.line, cells)
                })
                .collect(),
            columns,
        };
        self.headers = table.headers.clone();
        self.row_count = table.rows.len();
        self.csv = csv;
        self
    }

    fn outcomes(mut self, step: &'static str, results: &[RowResult]) -> ImportPage {
        self.step = step;
        let summary = courier_import::summary(results);
        self.counts = Counts {
            created: summary.created,
            checked: summary.checked,
            refused: summary.refused,
        };
        self.total = total_price(results);
        self.rows = results.iter().map(row_view).collect();
        self
    }

    fn chosen_header(&self, choice: &Choice, index: &usize) -> bool {
        choice.chosen == Some(*index)
    }
}

fn row_view(result: &RowResult) -> RowView {
    let mut view = RowView {
        line: result.line,
        result: "refused",
        delivery_id: String::new(),
        status: String::new(),
        price: String::new(),
        problems: Vec::new(),
    };
    match &result.outcome {
        Outcome::Created { id, status } => {
            view.result = "created";
            view.delivery_id = id.clone();
            view.status = status.clone();
        }
        Outcome::Checked { amount_cents, currency } => {
            view.result = "checked";
            view.price = courier::statements::money(*amount_cents, currency);
        }
        Outcome::Refused(problems) => view.problems = problems.iter().map(ToString::to_string).collect(),
    }
    view
}

/// The price of a dry run's rows ready to book, when of one currency.
fn total_price(results: &[RowResult]) -> String {
    let mut currency: Option<&str> = None;
    let mut cents = 0;
    for result in results {
        if let Outcome::Checked {
            amount_cents,
            currency: c,
        } = &result.outcome
        {
            if *currency.get_or_insert(c) != c.as_str() {
                return String::new();
            }
            cents += amount_cents;
        }
    }
    currency.map_or_else(String::new, |c| courier::statements::money(cents, c))
}

/// A member is told before uploading that importing is not theirs.
fn member_refusal(state: &ConsoleState, signed: &Signed, workspace: &str) -> Option<Response> {
    let manages = signed
        .layout(state, "", Some(workspace), "test")
        .workspace
        .is_some_and(|w| w.manages);
    (!manages).then(|| {
        let status =
            courier::errors::to_status(courier::errors::ErrorCode::PermissionDenied, MEMBER_CANNOT_IMPORT, None);
        signed.failure(state, &status, workspace)
    })
}

/// `GET …/deliveries/import?mode=`: the upload form.
pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    if let Some(refused) = member_refusal(&state, &signed, &workspace) {
        return refused;
    }
    render(
        ImportPage::new(&signed, &state, &workspace, query.mode()),
        StatusCode::OK,
    )
}

/// `GET …/deliveries/import/example.csv`: the format's example file.
pub(crate) async fn example(_signed: Signed) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"deliveries-import.csv\"",
            ),
        ],
        courier_import::EXAMPLE,
    )
        .into_response()
}

/// `POST …/deliveries/import?mode=` (a file upload): the file read, its
/// columns mapped as their names suggest, the first rows previewed.
pub(crate) async fn upload(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    mut multipart: Multipart,
) -> Response {
    let page = ImportPage::new(&signed, &state, &workspace, query.mode());
    let mut file: Option<(String, Vec<u8>)> = None;
    loop {
        match multipart.next_field().await {
            Ok(Some(part)) if part.name() == Some("file") => {
                let name = part.file_name().unwrap_or_default().to_owned();
                match part.bytes().await {
                    Ok(bytes) => file = Some((name, bytes.to_vec())),
                    Err(error) => {
                        return refused(page, format!("The file did not arrive whole: {}.", error.body_text()));
                    }
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(error) => return refused(page, format!("The upload could not be read: {}.", error.body_text())),
        }
    }
    let Some((name, bytes)) = file.filter(|(_, bytes)| !bytes.is_empty()) else {
        return refused(page, "Choose a CSV file to import.".into());
    };
    let table = match courier_import::read(&bytes) {
        Ok(table) => table,
        Err(error) => return refused(page, error.to_string()),
    };
    let mapping = Mapping::guess(&table.headers);
    // `read` took it as UTF-8.
    let csv = String::from_utf8_lossy(&bytes).into_owned();
    let mut page = page.mapping(csv, &table, &mapping);
    page.file_name = name;
    render(page, StatusCode::OK)
}

fn refused(mut page: ImportPage, problem: String) -> Response {
    page.problem = Some(problem);
    render(page, StatusCode::BAD_REQUEST)
}

/// The file and mapping a step's form carries, read again.
struct Sent {
    fields: Vec<(String, String)>,
    table: Table,
    mapping: Mapping,
}

fn sent(body: &Bytes) -> Result<Sent, String> {
    let fields = fields(body);
    let table = courier_import::read(field(&fields, "csv").as_bytes()).map_err(|e| e.to_string())?;
    let mut mapping = Mapping::guess(&table.headers);
    for column in COLUMNS {
        let chosen = field(&fields, &format!("map_{}", column.name));
        let index = match chosen {
            "" => None,
            index => Some(
                index
                    .parse::<usize>()
                    .map_err(|_| format!("The choice for {} is not a column.", column.name))?,
            ),
        };
        mapping.set_index(column.name, index)?;
    }
    Ok(Sent { fields, table, mapping })
}

/// `POST …/deliveries/import/check?mode=`: the preview again for a changed
/// mapping ("Preview"), or the dry run: every row checked and priced by
/// the core, nothing booked.
pub(crate) async fn check(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let page = ImportPage::new(&signed, &state, &workspace, mode);
    let sent = match sent(&body) {
        Ok(sent) => sent,
        Err(problem) => return refused(page, problem),
    };
    let csv = field(&sent.fields, "csv").to_owned();
    let mut page = page.mapping(csv, &sent.table, &sent.mapping);
    page.file_name = field(&sent.fields, "file_name").to_owned();
    if field(&sent.fields, "action") == "preview" {
        return render(page, StatusCode::OK);
    }
    if let Err(problem) = sent.mapping.check() {
        return refused(page, problem.to_string());
    }
    let items = courier_import::items(&sent.table, &sent.mapping);
    let csrf = field(&sent.fields, "csrf").to_owned();
    let results = book(&state, &signed, (&workspace, mode, &csrf), items, &sent.mapping, true).await;
    render(page.outcomes("checked", &results), StatusCode::OK)
}

/// `POST …/deliveries/import/run?mode=`: the rows booked, 100 per call;
/// with `from` and `to` (the page's script, a part at a time) only those
/// rows, answered as table rows.
pub(crate) async fn run(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let page = ImportPage::new(&signed, &state, &workspace, mode);
    let sent = match sent(&body) {
        Ok(sent) => sent,
        Err(problem) => return refused(page, problem),
    };
    if let Err(problem) = sent.mapping.check() {
        return refused(page, problem.to_string());
    }
    // Keys are made over the whole file: a part is a slice of its items.
    let mut items = courier_import::items(&sent.table, &sent.mapping);
    let part = field(&sent.fields, "part") == "1";
    if part {
        let bound = |name: &str| field(&sent.fields, name).parse::<usize>().ok();
        let (Some(from), Some(to)) = (bound("from"), bound("to")) else {
            return (StatusCode::BAD_REQUEST, "A part names its rows: from and to.").into_response();
        };
        items = items.into_iter().skip(from).take(to.saturating_sub(from)).collect();
    }
    let csrf = field(&sent.fields, "csrf").to_owned();
    let results = book(&state, &signed, (&workspace, mode, &csrf), items, &sent.mapping, false).await;
    if part {
        let rows = ImportRows {
            layout: Links {
                root: state.root.clone(),
                mode,
            },
            workspace_id: workspace,
            rows: results.iter().map(row_view).collect(),
        };
        return render(rows, StatusCode::OK);
    }
    let csv = field(&sent.fields, "csv").to_owned();
    let mut page = page.mapping(csv, &sent.table, &sent.mapping);
    page.file_name = field(&sent.fields, "file_name").to_owned();
    render(page.outcomes("done", &results), StatusCode::OK)
}

/// Runs `items` through the core in batches (`dry_run`: checked and priced
/// only) and answers each row's outcome.
async fn book(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode, csrf): (&str, &str, &str),
    items: Vec<courier_import::RowItem>,
    mapping: &Mapping,
    dry_run: bool,
) -> Vec<RowResult> {
    let mut run = Run::new(items);
    while let Some(batch) = run.next_batch() {
        let message = pb::BatchCreateDeliveriesRequest {
            validate_only: dry_run,
            ..batch_request(BatchCreateDeliveriesBody { deliveries: batch })
        };
        let request = signed.acting(message, workspace, mode, Some(csrf));
        let answer = match state.deliveries.clone().batch_create_deliveries(request).await {
            Ok(answer) => Answer::Results(answer.into_inner().results.into_iter().map(result_json).collect()),
            Err(status) => whole_refusal(&status),
        };
        run.answer(answer, mapping);
    }
    run.results()
}

/// One item's result as the API's JSON says it.
fn result_json(result: pb::BatchCreateDeliveryResult) -> Value {
    use pb::batch_create_delivery_result::Result as Item;
    match result.result {
        Some(Item::Delivery(delivery)) => {
            let status = courier::names::PublicName::public_name(delivery.status())
                .unwrap_or_default()
                .to_owned();
            json!({ "delivery": { "id": delivery.id, "status": status } })
        }
        Some(Item::Checked(checked)) => {
            json!({ "checked": { "amount_cents": checked.amount_cents, "currency": checked.currency } })
        }
        Some(Item::Error(error)) => {
            json!({ "error": { "code": error.code, "message": error.message, "param": error.param } })
        }
        None => {
            json!({ "error": { "code": "upstream_error", "message": "The service answered this row with nothing." } })
        }
    }
}

/// A refusal of the whole call: one item's (its `param` within the call,
/// `items.3.delivery.notes`), or what stops the import.
fn whole_refusal(status: &tonic::Status) -> Answer {
    let (code, param) = courier::errors::from_status(status);
    let item = param.as_deref().and_then(|param| {
        let rest = param.strip_prefix("items.")?;
        let (index, within) = rest.split_once('.').unwrap_or((rest, ""));
        let within = within
            .strip_prefix("delivery")
            .unwrap_or(within)
            .trim_start_matches('.');
        Some((index.parse::<usize>().ok()?, within.to_owned()))
    });
    match item {
        Some((index, param)) => Answer::ItemRefused {
            index,
            error: json!({ "code": code.as_str(), "message": status.message(), "param": param }),
        },
        None if status.code() == tonic::Code::PermissionDenied => Answer::Failed(MEMBER_CANNOT_IMPORT.into()),
        None if code.http_status() >= 500 => {
            Answer::Failed("the service could not answer; import the file again to go on.".into())
        }
        None => Answer::Failed(status.message().to_owned()),
    }
}
