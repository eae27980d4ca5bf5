//! `courier`: the integrators' command line (README, "For integrators"):
//! forward live events to a local URL (with the SMS and emails of test
//! deliveries), read events, quote, book, list and cancel deliveries, read a
//! delivery's notifications, and run a test delivery to see its events.

mod api;
mod config;
mod import;
mod listen;
mod notifications;
mod show;
mod stream;

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use api::{Api, Failure};
use stream::EventStream;

/// The base URL used when neither a flag nor `courier login` gives one: the
/// dev runner's (README, "Quick start").
const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

#[derive(Parser)]
#[command(
    name = "courier",
    version,
    about = "The Courier API from the command line: live events forwarded to localhost, deliveries, quotes."
)]
struct Cli {
    /// API key (`mm_test_…` or `mm_live_…`); else the one `courier login` saved.
    #[arg(long, env = "COURIER_API_KEY", global = true, hide_env_values = true)]
    api_key: Option<String>,

    /// Base URL of the API, without `/v1`; else the one `courier login`
    /// saved, else the dev runner's http://127.0.0.1:8080.
    #[arg(long, env = "COURIER_BASE_URL", global = true)]
    base_url: Option<String>,

    /// Where the saved key and the signing secret of `listen` are kept
    /// (default: `$XDG_CONFIG_HOME/courier`, else `~/.config/courier`).
    #[arg(long, env = "COURIER_CONFIG_DIR", global = true)]
    config_dir: Option<PathBuf>,

    /// Print the API's JSON (one object per line for streams) instead of text.
    #[arg(long, global = true)]
    json: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a key and save it (mode 0600) for the next commands.
    Login,
    /// Forward each live event to a local URL, signed as webhooks are; print
    /// the SMS and emails of test deliveries as they land in the test inbox.
    Listen(ListenArgs),
    /// Events of this key's workspace and mode.
    #[command(subcommand)]
    Events(EventsCommand),
    /// Book, read, list, change and cancel deliveries; read their notifications.
    #[command(subcommand)]
    Deliveries(Box<DeliveriesCommand>),
    /// Price a route without booking it.
    Quote(QuoteArgs),
    /// Book a test delivery ending as `scenario` and print its events until it ends.
    Trigger(TriggerArgs),
}

#[derive(Args)]
struct EventFilter {
    /// Only these event types (comma-separated, e.g. `delivery.created,delivery.delivered`).
    #[arg(long, value_delimiter = ',')]
    events: Vec<String>,
    /// Only the events of this delivery.
    #[arg(long)]
    delivery_id: Option<String>,
}

impl EventFilter {
    /// The stream's query: one type is filtered by the service, several here.
    fn query(&self) -> String {
        let mut pairs = Vec::new();
        if let Some(id) = &self.delivery_id {
            pairs.push(format!("delivery_id={}", encode(id)));
        }
        if let [only] = self.events.as_slice() {
            pairs.push(format!("type={}", encode(only)));
        }
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    }
}

#[derive(Args)]
struct ListenArgs {
    /// Where to POST each event, e.g. http://localhost:3000/hooks.
    #[arg(long)]
    forward_to: String,
    /// Forward to an address that is not on this machine.
    #[arg(long)]
    allow_remote: bool,
    #[command(flatten)]
    filter: EventFilter,
}

#[derive(Subcommand)]
enum EventsCommand {
    /// Print each new event as it is recorded.
    Tail(EventFilter),
}

#[derive(Subcommand)]
enum DeliveriesCommand {
    /// The newest deliveries.
    List {
        /// Only deliveries in this status.
        #[arg(long)]
        status: Option<String>,
        /// How many, 1 to 100.
        #[arg(long)]
        limit: Option<u32>,
        /// The previous page's `next_page_token`.
        #[arg(long)]
        page_token: Option<String>,
    },
    /// One delivery.
    Get { delivery_id: String },
    /// Cancel a delivery.
    Cancel {
        delivery_id: String,
        /// found_another_service, waited_too_long, booked_by_mistake,
        /// no_longer_needed, change_details or other.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Book a delivery from a JSON file (the request body) or from flags.
    Create(Box<CreateArgs>),
    /// Book up to 100 deliveries from a JSON file, `{"deliveries": [ … ]}`,
    /// each a create's body with its own `idempotency_key`; send the same
    /// file again to retry (each delivery is answered from its key).
    Batch { file: PathBuf },
    /// Book deliveries from a CSV file (docs/import.md), 100 per call:
    /// `--dry-run` checks and prices every row first, `--result` writes
    /// each row's outcome. Imported again, a file books nothing twice.
    Import(import::ImportArgs),
    /// Change a delivery's notes, instructions, places or dropoff window, from flags
    /// or a JSON file (the PATCH body).
    Update(Box<UpdateArgs>),
    /// Book a cancelled delivery again: the same places, goods and proof,
    /// priced afresh, with new times if given.
    Redeliver(RedeliverArgs),
    /// The SMS and emails of a delivery to its recipient and sender
    /// (in test mode: what landed in the test inbox).
    Notifications { delivery_id: String },
}

#[derive(Args)]
struct Place {
    /// Pickup street address with postcode and city.
    #[arg(long, required_unless_present = "file")]
    pickup_address: Option<String>,
    #[arg(long, required_unless_present = "file", allow_hyphen_values = true)]
    pickup_lat: Option<f64>,
    #[arg(long, required_unless_present = "file", allow_hyphen_values = true)]
    pickup_lng: Option<f64>,
    /// Dropoff street address with postcode and city.
    #[arg(long, required_unless_present = "file")]
    dropoff_address: Option<String>,
    #[arg(long, required_unless_present = "file", allow_hyphen_values = true)]
    dropoff_lat: Option<f64>,
    #[arg(long, required_unless_present = "file", allow_hyphen_values = true)]
    dropoff_lng: Option<f64>,
    /// A vehicle type id (`GET /v1/vehicle-types`).
    #[arg(long, required_unless_present = "file")]
    vehicle: Option<String>,
    /// When the pickup may happen: START/END, each RFC 3339, e.g.
    /// 2026-12-01T14:00:00+01:00/2026-12-01T16:00:00+01:00.
    #[arg(long)]
    pickup_window: Option<String>,
    /// When the dropoff is promised: START/END, as --pickup-window.
    #[arg(long)]
    dropoff_window: Option<String>,
}

impl Place {
    fn point(address: &Option<String>, lat: Option<f64>, lng: Option<f64>) -> Value {
        json!({ "address": address, "latitude": lat, "longitude": lng })
    }

    fn pickup(&self) -> Value {
        Place::point(&self.pickup_address, self.pickup_lat, self.pickup_lng)
    }

    fn dropoff(&self) -> Value {
        Place::point(&self.dropoff_address, self.dropoff_lat, self.dropoff_lng)
    }

    /// The route's body: pickup, dropoff, vehicle and the windows given.
    fn body(&self) -> Result<Value, Failure> {
        let mut body = json!({ "pickup": self.pickup(), "dropoff": self.dropoff(), "vehicle_type_id": self.vehicle });
        for (field, flag, value) in [
            ("pickup_window", "--pickup-window", &self.pickup_window),
            ("dropoff_window", "--dropoff-window", &self.dropoff_window),
        ] {
            if let Some(value) = value {
                body[field] = window(flag, value)?;
            }
        }
        Ok(body)
    }
}

#[derive(Args)]
struct QuoteArgs {
    /// The request body as a JSON file instead of the flags.
    #[arg(long)]
    file: Option<PathBuf>,
    #[command(flatten)]
    place: Place,
}

#[derive(Args)]
struct CreateArgs {
    /// The request body as a JSON file instead of the flags.
    #[arg(long)]
    file: Option<PathBuf>,
    #[command(flatten)]
    place: Place,
    #[arg(long, required_unless_present = "file")]
    pickup_name: Option<String>,
    /// In international format, e.g. +49 30 1234567.
    #[arg(long, required_unless_present = "file")]
    pickup_phone: Option<String>,
    #[arg(long, required_unless_present = "file")]
    dropoff_name: Option<String>,
    #[arg(long, required_unless_present = "file")]
    dropoff_phone: Option<String>,
    /// A quote's id, to book at its price.
    #[arg(long)]
    quote_id: Option<String>,
    /// Your own reference, unique per mode.
    #[arg(long)]
    external_id: Option<String>,
    #[arg(long)]
    notes: Option<String>,
    /// What a failed handover does with the goods: return_to_pickup (the
    /// default: a return delivery brings them back) or dispose.
    #[arg(long)]
    undeliverable_action: Option<String>,
    /// A tip for the courier, in cents of the delivery's currency.
    #[arg(long)]
    tip_cents: Option<i64>,
    /// Test keys: how the simulated delivery ends (no_courier_found, courier_cancelled, pickup_no_show, delivery_failed, returned), or `delayed` (runs late).
    #[arg(long)]
    test_scenario: Option<String>,
    /// The `Idempotency-Key`; a new one is made (and printed) when left out.
    /// Send the same one again to retry without booking twice.
    #[arg(long)]
    idempotency_key: Option<String>,
}

#[derive(Args)]
struct UpdateArgs {
    delivery_id: String,
    /// The request body as a JSON file instead of the flags.
    #[arg(long, conflicts_with_all = [
        "notes", "pickup_instructions", "dropoff_instructions", "pickup_address", "pickup_position",
        "dropoff_address", "dropoff_position", "dropoff_window", "clear_dropoff_window", "accept_amount_cents",
        "tip_cents",
    ])]
    file: Option<PathBuf>,
    /// The new notes; "" removes them.
    #[arg(long)]
    notes: Option<String>,
    /// The new pickup instructions; "" removes them.
    #[arg(long)]
    pickup_instructions: Option<String>,
    /// The new dropoff instructions; "" removes them.
    #[arg(long)]
    dropoff_instructions: Option<String>,
    /// The pickup's new address (until a courier is assigned).
    #[arg(long)]
    pickup_address: Option<String>,
    /// The pickup's new position, LATITUDE,LONGITUDE: the delivery is
    /// priced again.
    #[arg(long, allow_hyphen_values = true)]
    pickup_position: Option<String>,
    /// The dropoff's new address (until the courier is at the dropoff).
    #[arg(long)]
    dropoff_address: Option<String>,
    /// The dropoff's new position, LATITUDE,LONGITUDE: the delivery is
    /// priced again.
    #[arg(long, allow_hyphen_values = true)]
    dropoff_position: Option<String>,
    /// The new dropoff window: START/END, each RFC 3339 (until pickup).
    #[arg(long, conflicts_with = "clear_dropoff_window")]
    dropoff_window: Option<String>,
    /// Remove the dropoff window.
    #[arg(long)]
    clear_dropoff_window: bool,
    /// The total after the change, in cents, as a refused change
    /// (`price_changed`) named it.
    #[arg(long)]
    accept_amount_cents: Option<i64>,
    /// The tip as it is to be, in cents: any amount until delivered, then
    /// only more, for 7 days.
    #[arg(long)]
    tip_cents: Option<i64>,
    /// The delivery's `updated_at` as last read: the change is refused if
    /// the delivery changed since.
    #[arg(long)]
    if_match: Option<String>,
    /// The `Idempotency-Key`; a new one is made (and printed) when left out.
    /// Send the same one again to retry without changing twice.
    #[arg(long)]
    idempotency_key: Option<String>,
}

#[derive(Args)]
struct RedeliverArgs {
    /// The cancelled delivery.
    delivery_id: String,
    /// Pickup time, RFC 3339; left out, the new delivery is immediate.
    #[arg(long)]
    scheduled_at: Option<String>,
    /// When the pickup may happen: START/END, each RFC 3339.
    #[arg(long)]
    pickup_window: Option<String>,
    /// When the dropoff is promised: START/END, as --pickup-window.
    #[arg(long)]
    dropoff_window: Option<String>,
    /// The new delivery's own reference (the original's is not copied).
    #[arg(long)]
    external_id: Option<String>,
    /// Test keys: how the new simulated delivery ends.
    #[arg(long)]
    test_scenario: Option<String>,
    /// The `Idempotency-Key`; a new one is made (and printed) when left out.
    /// Send the same one again to retry without booking twice.
    #[arg(long)]
    idempotency_key: Option<String>,
}

#[derive(Args)]
struct TriggerArgs {
    /// `delivered` (every status to delivered), `no_courier_found`,
    /// `courier_cancelled`, `pickup_no_show`, `delivery_failed` or
    /// `returned` (fails at the dropoff, then its return runs to the end).
    scenario: String,
}

/// Percent-encodes a query value.
fn encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    if let Err(failure) = run(cli).await {
        eprintln!("error: {failure}");
        std::process::exit(failure.exit_code());
    }
}

/// The settings a command runs with.
struct Context {
    config_dir: PathBuf,
    json: bool,
}

async fn run(cli: Cli) -> Result<(), Failure> {
    let config_dir = match cli.config_dir.clone().or_else(config::default_dir) {
        Some(dir) => dir,
        None => {
            return Err(Failure::Usage(
                "no configuration directory: set --config-dir or HOME".into(),
            ));
        }
    };
    let saved = config::load_credentials(&config_dir)?;
    let base_url = cli
        .base_url
        .clone()
        .or_else(|| saved.as_ref().and_then(|s| s.base_url.clone()))
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
    let context = Context {
        config_dir,
        json: cli.json,
    };
    if let Command::Login = cli.command {
        return login(&context, cli.api_key, &base_url).await;
    }
    let key = cli
        .api_key
        .clone()
        .or_else(|| saved.map(|s| s.api_key))
        .ok_or_else(|| {
            Failure::Usage("no API key: pass --api-key, set COURIER_API_KEY, or run `courier login`".into())
        })?;
    let api = Api::new(&base_url, &key)?;
    match cli.command {
        Command::Login => Ok(()),
        Command::Listen(args) => listen_to(&context, api, args).await,
        Command::Events(EventsCommand::Tail(filter)) => tail(&context, api, &filter).await,
        Command::Deliveries(command) => deliveries(&context, &api, *command).await,
        Command::Quote(args) => {
            let body = match &args.file {
                Some(file) => read_json(file)?,
                None => args.place.body()?,
            };
            let quote = api.post("/v1/quotes", &body, None).await?;
            print(&context, &quote, show::quote);
            Ok(())
        }
        Command::Trigger(args) => trigger(&context, api, &args.scenario).await,
    }
}

async fn login(context: &Context, key: Option<String>, base_url: &str) -> Result<(), Failure> {
    let key = match key {
        Some(key) => key,
        None => {
            eprint!("API key: ");
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .map_err(|error| Failure::Local(format!("reading the key: {error}")))?;
            line.trim().to_owned()
        }
    };
    if key.is_empty() {
        return Err(Failure::Usage("no API key given".into()));
    }
    // Any valid key may list the vehicle types: the key is checked first.
    Api::new(base_url, &key)?.get("/v1/vehicle-types").await?;
    let path = config::save_credentials(
        &context.config_dir,
        &config::Credentials {
            api_key: key,
            base_url: Some(base_url.to_owned()),
        },
    )?;
    if context.json {
        println!("{}", json!({ "saved": path, "base_url": base_url }));
    } else {
        println!("Key checked and saved to {} (for {base_url}).", path.display());
    }
    Ok(())
}

async fn listen_to(context: &Context, api: Api, args: ListenArgs) -> Result<(), Failure> {
    let target = listen::check_target(&args.forward_to, args.allow_remote)?;
    let secret = config::listen_secret(&context.config_dir)?;
    let json = context.json;
    let watch = notifications::Watch::start(api.clone(), move |notification| {
        if json {
            println!("{}", json!({ "notification": notification }));
        } else {
            println!("  {}", show::notification(notification));
        }
        let _ = std::io::stdout().flush();
    });
    let mut stream = EventStream::new(api, args.filter.query());
    stream.connect().await?;
    if context.json {
        println!("{}", json!({ "forward_to": target.as_str(), "secret": secret }));
    } else {
        println!("Ready. Forwarding events to {target}");
        println!("Webhook signing secret: {secret}");
    }
    let _ = std::io::stdout().flush();
    listen::run(stream, target, &secret, &args.filter.events, |streamed, forwarded| {
        if json {
            println!("{}", listen::json_line(streamed, forwarded));
        } else {
            println!("{}", show::forwarded(streamed, forwarded));
        }
        let _ = std::io::stdout().flush();
        watch.saw(&streamed.event);
    })
    .await
}

async fn tail(context: &Context, api: Api, filter: &EventFilter) -> Result<(), Failure> {
    let mut stream = EventStream::new(api, filter.query());
    stream.connect().await?;
    if !context.json {
        eprintln!("Waiting for events (Ctrl-C to stop).");
    }
    loop {
        let streamed = stream.next().await?;
        let event_type = streamed.event["type"].as_str().unwrap_or_default();
        if !filter.events.is_empty() && !filter.events.iter().any(|t| t == event_type) {
            continue;
        }
        print_event(context, &streamed);
    }
}

fn print_event(context: &Context, streamed: &stream::Streamed) {
    if context.json {
        println!("{}", streamed.data);
    } else {
        println!("{}", show::event(&streamed.event));
    }
    let _ = std::io::stdout().flush();
}

async fn deliveries(context: &Context, api: &Api, command: DeliveriesCommand) -> Result<(), Failure> {
    match command {
        DeliveriesCommand::List {
            status,
            limit,
            page_token,
        } => {
            let mut pairs = Vec::new();
            if let Some(status) = status {
                pairs.push(format!("status={}", encode(&status)));
            }
            if let Some(limit) = limit {
                pairs.push(format!("limit={limit}"));
            }
            if let Some(token) = page_token {
                pairs.push(format!("page_token={}", encode(&token)));
            }
            let query = if pairs.is_empty() {
                String::new()
            } else {
                format!("?{}", pairs.join("&"))
            };
            let page = api.get(&format!("/v1/deliveries{query}")).await?;
            print(context, &page, show::delivery_list);
        }
        DeliveriesCommand::Get { delivery_id } => {
            let delivery = api.get(&format!("/v1/deliveries/{}", encode(&delivery_id))).await?;
            print(context, &delivery, show::delivery);
        }
        DeliveriesCommand::Cancel { delivery_id, reason } => {
            let body = match reason {
                Some(reason) => json!({ "reason": reason }),
                None => json!({}),
            };
            let delivery = api
                .post(&format!("/v1/deliveries/{}/cancel", encode(&delivery_id)), &body, None)
                .await?;
            print(context, &delivery, show::delivery);
        }
        DeliveriesCommand::Create(args) => {
            let body = create_body(&args)?;
            let key = args.idempotency_key.clone().unwrap_or_else(api::new_idempotency_key);
            // Said first, so that a create cut off by the network can be retried with it.
            eprintln!("Idempotency-Key: {key}");
            let delivery = api.post("/v1/deliveries", &body, Some(&key)).await?;
            print(context, &delivery, show::delivery);
        }
        DeliveriesCommand::Batch { file } => {
            let results = api.post("/v1/deliveries/batch", &read_json(&file)?, None).await?;
            print(context, &results, show::batch_results);
        }
        DeliveriesCommand::Import(args) => import::run(api, args, context.json).await?,
        DeliveriesCommand::Update(args) => {
            let body = update_body(&args)?;
            let key = args.idempotency_key.clone().unwrap_or_else(api::new_idempotency_key);
            // Said first, so that a change cut off by the network can be retried with it.
            eprintln!("Idempotency-Key: {key}");
            let path = format!("/v1/deliveries/{}", encode(&args.delivery_id));
            let delivery = api.patch(&path, &body, &key, args.if_match.as_deref()).await?;
            print(context, &delivery, show::delivery);
        }
        DeliveriesCommand::Redeliver(args) => {
            let body = redeliver_body(&args)?;
            let key = args.idempotency_key.clone().unwrap_or_else(api::new_idempotency_key);
            // Said first, so that a booking cut off by the network can be retried with it.
            eprintln!("Idempotency-Key: {key}");
            let path = format!("/v1/deliveries/{}/redeliver", encode(&args.delivery_id));
            let delivery = api.post(&path, &body, Some(&key)).await?;
            print(context, &delivery, show::delivery);
        }
        DeliveriesCommand::Notifications { delivery_id } => {
            let list = api
                .get(&format!("/v1/deliveries/{}/notifications", encode(&delivery_id)))
                .await?;
            print(context, &list, show::notification_list);
        }
    }
    Ok(())
}

fn create_body(args: &CreateArgs) -> Result<Value, Failure> {
    if let Some(file) = &args.file {
        return read_json(file);
    }
    let contact = |name: &Option<String>, phone: &Option<String>| json!({ "name": name, "phone": phone });
    let mut body = args.place.body()?;
    body["pickup"]["contact"] = contact(&args.pickup_name, &args.pickup_phone);
    body["dropoff"]["contact"] = contact(&args.dropoff_name, &args.dropoff_phone);
    for (field, value) in [
        ("quote_id", &args.quote_id),
        ("external_id", &args.external_id),
        ("notes", &args.notes),
        ("undeliverable_action", &args.undeliverable_action),
        ("test_scenario", &args.test_scenario),
    ] {
        if let Some(value) = value {
            body[field] = json!(value);
        }
    }
    if let Some(cents) = args.tip_cents {
        body["tip_cents"] = json!(cents);
    }
    Ok(body)
}

fn update_body(args: &UpdateArgs) -> Result<Value, Failure> {
    if let Some(file) = &args.file {
        return read_json(file);
    }
    let mut body = json!({});
    if let Some(notes) = &args.notes {
        body["notes"] = json!(notes);
    }
    let ends = [
        (
            "pickup",
            &args.pickup_instructions,
            &args.pickup_address,
            &args.pickup_position,
        ),
        (
            "dropoff",
            &args.dropoff_instructions,
            &args.dropoff_address,
            &args.dropoff_position,
        ),
    ];
    for (end, instructions, address, position) in ends {
        let mut change = serde_json::Map::new();
        if let Some(instructions) = instructions {
            change.insert("instructions".into(), json!(instructions));
        }
        if let Some(address) = address {
            change.insert("address".into(), json!(address));
        }
        if let Some(position) = position {
            let parsed = position.split_once(',').and_then(|(latitude, longitude)| {
                Some((
                    latitude.trim().parse::<f64>().ok()?,
                    longitude.trim().parse::<f64>().ok()?,
                ))
            });
            let Some((latitude, longitude)) = parsed else {
                return Err(Failure::Usage(format!(
                    "--{end}-position takes LATITUDE,LONGITUDE, e.g. 52.473,13.403"
                )));
            };
            change.insert("latitude".into(), json!(latitude));
            change.insert("longitude".into(), json!(longitude));
        }
        if !change.is_empty() {
            body[end] = Value::Object(change);
        }
    }
    if let Some(cents) = args.accept_amount_cents {
        body["accept_amount_cents"] = json!(cents);
    }
    if let Some(cents) = args.tip_cents {
        body["tip_cents"] = json!(cents);
    }
    if let Some(value) = &args.dropoff_window {
        body["dropoff_window"] = window("--dropoff-window", value)?;
    }
    if args.clear_dropoff_window {
        body["dropoff_window"] = Value::Null;
    }
    if body.as_object().is_some_and(serde_json::Map::is_empty) {
        return Err(Failure::Usage(
            "Say what to change: --notes, --pickup-instructions, --dropoff-instructions, --pickup-address, --pickup-position, --dropoff-address, --dropoff-position, --dropoff-window, --clear-dropoff-window, --accept-amount-cents or --file.".into(),
        ));
    }
    Ok(body)
}

fn redeliver_body(args: &RedeliverArgs) -> Result<Value, Failure> {
    let mut body = json!({});
    for (field, value) in [
        ("scheduled_at", &args.scheduled_at),
        ("external_id", &args.external_id),
        ("test_scenario", &args.test_scenario),
    ] {
        if let Some(value) = value {
            body[field] = json!(value);
        }
    }
    for (field, flag, value) in [
        ("pickup_window", "--pickup-window", &args.pickup_window),
        ("dropoff_window", "--dropoff-window", &args.dropoff_window),
    ] {
        if let Some(value) = value {
            body[field] = window(flag, value)?;
        }
    }
    Ok(body)
}

/// A window flag's START/END as the body's `{start, end}`.
fn window(flag: &str, value: &str) -> Result<Value, Failure> {
    let Some((start, end)) = value.split_once('/') else {
        return Err(Failure::Usage(format!(
            "{flag} takes START/END, e.g. 2026-12-01T14:00:00+01:00/2026-12-01T16:00:00+01:00"
        )));
    };
    Ok(json!({ "start": start, "end": end }))
}

fn read_json(path: &PathBuf) -> Result<Value, Failure> {
    let bytes = std::fs::read(path).map_err(|error| Failure::Usage(format!("{}: {error}", path.display())))?;
    serde_json::from_slice(&bytes).map_err(|error| Failure::Usage(format!("{} is not JSON: {error}", path.display())))
}

/// A sample route in Berlin (the service area of the test catalogue) for
/// `courier trigger`.
fn sample_delivery(scenario: &str) -> Value {
    let mut body = json!({
        "pickup": {
            "address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.5219, "longitude": 13.4132,
            "contact": { "name": "Mia Hoffmann", "phone": "+49 30 1234567" }
        },
        "dropoff": {
            "address": "Oranienstraße 25, 10999 Berlin", "latitude": 52.501, "longitude": 13.419,
            "contact": { "name": "Jonas Weber", "phone": "+49 151 2345678" }
        },
        "vehicle_type_id": "cargo_bike",
        "notes": "Booked by courier trigger."
    });
    if scenario != "delivered" {
        body["test_scenario"] = json!(scenario);
    }
    body
}

async fn trigger(context: &Context, api: Api, scenario: &str) -> Result<(), Failure> {
    // The stream is open before the booking, so that no event is missed.
    let mut stream = EventStream::new(api.clone(), String::new());
    stream.connect().await?;
    let key = api::new_idempotency_key();
    let delivery = api
        .post("/v1/deliveries", &sample_delivery(scenario), Some(&key))
        .await?;
    let mut id = delivery["id"].as_str().unwrap_or_default().to_owned();
    if !context.json {
        println!("Booked test delivery {id} ({scenario}); its events:");
    }
    loop {
        let streamed = stream.next().await?;
        let data = &streamed.event["data"];
        if data["id"] != id.as_str() {
            continue;
        }
        print_event(context, &streamed);
        let event_type = streamed.event["type"].as_str().unwrap_or_default();
        if event_type == "delivery.delivered" || event_type == "delivery.cancelled" {
            // A failed handover's goods come back: the return's events follow.
            match data["return_delivery_id"].as_str() {
                Some(return_id) => id = return_id.to_owned(),
                None => return Ok(()),
            }
        }
    }
}

fn print(context: &Context, value: &Value, human: fn(&Value) -> String) {
    if context.json {
        println!("{value}");
    } else {
        println!("{}", human(value));
    }
}
