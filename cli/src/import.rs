//! `courier deliveries import FILE.csv` (docs/import.md): the file's rows
//! sent as `POST /v1/deliveries/batch` calls of 100 (a dry run with
//! `validate_only=true`), progress on the terminal, each refused row named
//! by line and column, and every row's outcome in a result file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use courier_import::{Answer, Mapping, Outcome, RowResult, Run};
use serde_json::{Value, json};

use crate::api::{Api, Failure};

#[derive(Args)]
pub struct ImportArgs {
    /// The CSV file (docs/import.md; `--example` prints one).
    #[arg(required_unless_present = "example")]
    file: Option<PathBuf>,
    /// Check and price every row, booking nothing.
    #[arg(long)]
    dry_run: bool,
    /// Read one of our columns from a column of the file, e.g.
    /// `--map dropoff_phone="Recipient phone"`; repeat for more. Columns
    /// named as ours (or as a known alias) are read without it.
    #[arg(long = "map", value_name = "COLUMN=HEADER")]
    map: Vec<String>,
    /// Write each row's outcome to this CSV file.
    #[arg(long, value_name = "FILE")]
    result: Option<PathBuf>,
    /// Print the format's example file and exit.
    #[arg(long, conflicts_with_all = ["file", "dry_run", "map", "result"])]
    example: bool,
}

/// How long a rate-limited batch waits at most before it is sent again.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

pub async fn run(api: &Api, args: ImportArgs, json_output: bool) -> Result<(), Failure> {
    let Some(file) = args.file.filter(|_| !args.example) else {
        print!("{}", courier_import::EXAMPLE);
        return Ok(());
    };
    let bytes = std::fs::read(&file).map_err(|error| Failure::Usage(format!("{}: {error}", file.display())))?;
    let table = courier_import::read(&bytes).map_err(|error| Failure::Usage(format!("{}: {error}", file.display())))?;
    let mut mapping = Mapping::guess(&table.headers);
    for pair in &args.map {
        let (column, header) = pair.split_once('=').ok_or_else(|| {
            Failure::Usage(format!(
                "--map {pair}: write it COLUMN=HEADER, e.g. dropoff_phone=Phone."
            ))
        })?;
        let header = header.trim_matches('"');
        mapping
            .set(column.trim(), (!header.is_empty()).then_some(header))
            .map_err(|message| Failure::Usage(format!("--map {pair}: {message}")))?;
    }
    mapping.check().map_err(|error| {
        Failure::Usage(format!(
            "{error} The file's columns: {}. Map one with --map COLUMN=HEADER.",
            table.headers.join(", ")
        ))
    })?;
    let mut run = Run::new(courier_import::items(&table, &mapping));
    let path = if args.dry_run {
        "/v1/deliveries/batch?validate_only=true"
    } else {
        "/v1/deliveries/batch"
    };
    let progress = Progress::new(if args.dry_run { "Checking" } else { "Importing" });
    while let Some(batch) = run.next_batch() {
        let answer = send(api, path, &batch).await;
        run.answer(answer, &mapping);
        progress.show(run.progress());
    }
    progress.done();
    let results = run.results();
    if let Some(result) = &args.result {
        write_result(result, &results)?;
    }
    if json_output {
        println!(
            "{}",
            json!({ "rows": results.iter().map(row_json).collect::<Vec<_>>() })
        );
    } else {
        println!("{}", report(&results, args.dry_run));
    }
    let refused = courier_import::summary(&results).refused;
    if refused > 0 {
        return Err(Failure::Rows(refused));
    }
    Ok(())
}

/// One batch call, answered as the import reads it; a rate-limited call
/// waits as long as the API says and is sent again (each row's key makes
/// that safe).
async fn send(api: &Api, path: &str, batch: &[Value]) -> Answer {
    let body = json!({ "deliveries": batch });
    loop {
        let request = api.request(reqwest::Method::POST, path).json(&body);
        let response = match request.timeout(Duration::from_secs(120)).send().await {
            Ok(response) => response,
            Err(error) => return Answer::Failed(api.unreachable(&error).to_string()),
        };
        if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let seconds = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(1);
            tokio::time::sleep(Duration::from_secs(seconds.max(1)).min(LONGEST_WAIT)).await;
            continue;
        }
        return match api.accepted(response).await {
            Ok(response) => match response.json::<Value>().await {
                Ok(answer) => Answer::Results(answer["results"].as_array().cloned().unwrap_or_default()),
                Err(error) => Answer::Failed(api.unreachable(&error).to_string()),
            },
            Err(Failure::Refused {
                status: 400,
                code,
                message,
                param: Some(param),
                ..
            }) if item_of(&param).is_some() => Answer::ItemRefused {
                index: item_of(&param).unwrap_or_default(),
                error: json!({ "code": code, "message": message, "param": param }),
            },
            Err(failure) => Answer::Failed(failure.to_string()),
        };
    }
}

/// The item a whole call's `param` names (`deliveries.3.notes`).
fn item_of(param: &str) -> Option<usize> {
    param.strip_prefix("deliveries.")?.split('.').next()?.parse().ok()
}

/// "Importing: 300 of 1000 rows" on a terminal, rewritten in place.
struct Progress {
    verb: &'static str,
    shown: bool,
}

impl Progress {
    fn new(verb: &'static str) -> Progress {
        Progress {
            verb,
            shown: std::io::stderr().is_terminal(),
        }
    }

    fn show(&self, (done, total): (usize, usize)) {
        if self.shown {
            let width = 30;
            let filled = (done * width).checked_div(total).unwrap_or(width);
            eprint!(
                "\r{}: [{}{}] {done} of {total} rows",
                self.verb,
                "#".repeat(filled),
                " ".repeat(width - filled)
            );
            let _ = std::io::stderr().flush();
        }
    }

    fn done(&self) {
        if self.shown {
            eprintln!();
        }
    }
}

fn write_result(path: &Path, results: &[RowResult]) -> Result<(), Failure> {
    std::fs::write(path, courier_import::result_csv(results))
        .map_err(|error| Failure::Local(format!("{}: {error}", path.display())))
}

/// The summary, then each refused row by line.
fn report(results: &[RowResult], dry_run: bool) -> String {
    let summary = courier_import::summary(results);
    let mut lines = vec![if dry_run {
        format!(
            "{} of {} rows ready to book{}, {} with problems; nothing was booked.",
            summary.checked,
            results.len(),
            total_price(results),
            summary.refused
        )
    } else {
        format!(
            "{} of {} rows booked, {} refused.",
            summary.created,
            results.len(),
            summary.refused
        )
    }];
    for result in results {
        if let Outcome::Refused(problems) = &result.outcome {
            for problem in problems {
                lines.push(format!("Line {}: {problem}", result.line));
            }
        }
    }
    lines.join("\n")
}

/// " for 123.45 EUR": the rows' prices of a dry run, when of one currency.
fn total_price(results: &[RowResult]) -> String {
    let mut currency = None;
    let mut cents = 0;
    for result in results {
        if let Outcome::Checked {
            amount_cents,
            currency: c,
        } = &result.outcome
        {
            if currency.get_or_insert(c) != &c {
                return String::new();
            }
            cents += amount_cents;
        }
    }
    match currency {
        Some(currency) => format!(" for {}.{:02} {currency}", cents / 100, cents % 100),
        None => String::new(),
    }
}

fn row_json(result: &RowResult) -> Value {
    let mut row = json!({ "line": result.line, "idempotency_key": result.key });
    match &result.outcome {
        Outcome::Created { id, status } => {
            row["result"] = json!("created");
            row["delivery_id"] = json!(id);
            row["status"] = json!(status);
        }
        Outcome::Checked { amount_cents, currency } => {
            row["result"] = json!("checked");
            row["amount_cents"] = json!(amount_cents);
            row["currency"] = json!(currency);
        }
        Outcome::Refused(problems) => {
            row["result"] = json!("refused");
            row["problems"] = problems
                .iter()
                .map(|p| json!({ "column": p.column, "message": p.message }))
                .collect();
        }
    }
    row
}
