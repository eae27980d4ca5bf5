//! `courier-core`: the gRPC core server, its migrations, and the operator's
//! admin commands (workspaces, keys, billing, users, service tokens, the
//! audit log). Every change a command makes is audited as `cli:<OS user>`,
//! in the change's own transaction.

use clap::{CommandFactory, Parser, Subcommand};
use courier::logging::{self, LogFormat};
use courier_core::plans::{self, RoutePlan, StopKind};
use courier_core::{Core, CoreError};
use courier_identity::access::command_line;
use courier_identity::access::{Permission, act};
use courier_identity::auth::Mode;
use courier_identity::auth::api_keys::{self, KeyExpiry, NewApiKey};
use courier_identity::auth::service_token::{self, Role};
use courier_identity::workspaces::{self, BillingSettings, NewWorkspace, Plan, WorkspaceKind};
use courier_server::workers::Role as ServeRole;
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// jemalloc: measured 10-30 % more requests per second than the system
/// allocator on the request paths, at a few MiB more resident memory
/// (BENCHMARKS.md). Release builds turn it on (feature `jemalloc`).
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "courier-core",
    version,
    about = "Courier core: gRPC services, storage and workers"
)]
struct Cli {
    #[command(flatten)]
    config: CoreConfig,

    /// Log line format.
    #[arg(long, env = "COURIER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Exit 0 when the core at `--grpc-addr` serves, 1 when not (the
    /// container health check; opens no database).
    Health,
    #[command(flatten)]
    WithDatabase(DatabaseCommand),
}

/// `serve`'s flags. Its own, not global: `token` and `user` have a `--role`
/// of their own.
#[derive(clap::Args)]
struct ServeArgs {
    /// What `serve` runs: `api` (the gRPC API, no worker), `workers` (the
    /// background workers), or `all` (docs/scaling.md "Roles").
    #[arg(long, env = "COURIER_ROLE", value_enum, default_value_t = ServeRole::All)]
    role: ServeRole,
}

impl ServeArgs {
    /// The flags of `serve` run as the default command: from the
    /// environment, as the subcommand would read them.
    fn from_environment() -> ServeArgs {
        #[derive(Parser)]
        struct DefaultCommand {
            #[command(flatten)]
            serve: ServeArgs,
        }
        DefaultCommand::parse_from(["courier-core"]).serve
    }
}

/// The commands that open the database (and apply pending migrations).
#[derive(Subcommand)]
enum DatabaseCommand {
    /// Serve gRPC and run the background workers as `--role` says (the
    /// default command).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage workspaces.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Manage couriers: the platform's, or a fleet's drivers (`--workspace`).
    #[command(subcommand)]
    Courier(Box<CourierCommand>),
    /// Manage API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Billing: settings, billable deliveries and statements.
    #[command(subcommand)]
    Billing(BillingCommand),
    /// Console users.
    #[command(subcommand)]
    User(UserCommand),
    /// The audit log, newest first: every change operators, service
    /// systems and these commands made (tab-separated: when, who, what,
    /// workspace, changed, and the courier it is about as "Name (id)").
    Audit {
        /// How many entries to show.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Plan a fleet's day (docs/routing.md "Planned routes") and print the
    /// plan: each driver's route with its times, and the orders no route
    /// takes with the reason. The plan is kept as a proposal; a dispatcher
    /// publishes it.
    Plan {
        /// The fleet workspace; without it, the platform's plan of `--area`.
        #[arg(long, default_value = "")]
        workspace: String,
        /// The service area of a platform plan (its scheduled live
        /// deliveries and the couriers on shift there).
        #[arg(long, default_value = "")]
        area: String,
        /// The day, YYYY-MM-DD.
        #[arg(long)]
        day: String,
        /// Only this driver on shift (repeat for several); all by default.
        #[arg(long = "courier")]
        couriers: Vec<String>,
        /// How long the solver searches, 1 to 60 seconds.
        #[arg(long, default_value_t = 10)]
        budget_seconds: i32,
    },
    /// Mint a service token for an internal gRPC caller.
    Token {
        #[arg(long, value_parser = ["admin", "dispatch", "billing", "front"])]
        role: String,
        /// Who the token is for.
        #[arg(long, default_value = "operator")]
        subject: String,
        /// Lifetime in seconds.
        #[arg(long, default_value_t = 3600)]
        ttl: i64,
    },
}

#[derive(Subcommand)]
enum CourierCommand {
    /// Create a courier and print their invitation link (it works once,
    /// for 7 days; the courier sets a password in the courier app).
    Invite {
        /// The fleet workspace whose driver this is; omitted: a platform
        /// courier.
        #[arg(long)]
        workspace: Option<String>,
        #[arg(long)]
        name: String,
        /// Phone number in international form (+49…); the courier signs in
        /// with it or with the email.
        #[arg(long)]
        phone: Option<String>,
        #[arg(long)]
        email: Option<String>,
        /// A vehicle type of the catalogue (bicycle, cargo_bike, car, …).
        #[arg(long)]
        vehicle_type: String,
        #[arg(long)]
        make: Option<String>,
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        color: Option<String>,
        #[arg(long)]
        plate: Option<String>,
    },
    /// List couriers (the platform's, or a fleet's with `--workspace`).
    List {
        #[arg(long)]
        workspace: Option<String>,
    },
    /// Suspend a courier: signed out everywhere, offered nothing.
    Suspend {
        #[arg(long)]
        id: String,
    },
    /// Reactivate a suspended courier.
    Activate {
        #[arg(long)]
        id: String,
    },
    /// Couriers' weekly statements (docs/couriers.md "Statements").
    #[command(subcommand)]
    Statements(CourierStatementsCommand),
}

#[derive(Subcommand)]
enum CourierStatementsCommand {
    /// Close a week for every courier with earnings on no statement: the
    /// week holding `--day`, or the last week that ended.
    Close {
        /// `YYYY-MM-DD`, a day of the week.
        #[arg(long)]
        day: Option<String>,
    },
    /// List a courier's statements, newest week first.
    List {
        #[arg(long)]
        courier: String,
    },
    /// Write a courier statement as CSV or printable HTML.
    Export {
        #[arg(long)]
        statement: String,
        #[arg(long, value_parser = ["csv", "html"], default_value = "csv")]
        format: String,
        /// The file to write; standard output when omitted.
        #[arg(long)]
        output: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum WorkspaceCommand {
    /// Create a workspace.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_parser = ["business", "fleet"])]
        kind: String,
        /// Fleet plans: API access.
        #[arg(long)]
        api_access: bool,
        #[arg(long)]
        fleet_order_intake: bool,
        #[arg(long)]
        proof_of_delivery: bool,
        #[arg(long, default_value_t = 0)]
        discount_bps: u32,
        /// Fleets: offer board orders to the fleet's own drivers automatically.
        #[arg(long)]
        auto_dispatch: bool,
        #[arg(long)]
        invoice_billing_enabled: bool,
        #[arg(long, default_value_t = 0)]
        credit_limit_cents: i64,
        /// Day of the month (1 to 28) on which a billing period closes.
        #[arg(long, default_value_t = BillingSettings::DEFAULT_BILLING_DAY)]
        billing_day: u32,
        /// Days from a statement's issue to its due date.
        #[arg(long, default_value_t = BillingSettings::DEFAULT_PAYMENT_TERMS_DAYS)]
        payment_terms_days: u32,
    },
    /// List workspaces.
    List,
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create a key; the full key is printed once.
    Create {
        #[arg(long)]
        workspace: String,
        #[arg(long, value_parser = ["live", "test"])]
        mode: String,
        #[arg(long)]
        label: String,
        /// A permission (repeatable); none means all the workspace offers.
        #[arg(long = "permission")]
        permissions: Vec<String>,
        /// Days until expiry: 30, 90, 365 or never.
        #[arg(long, default_value = "never", value_parser = ["30", "90", "365", "never"])]
        expiry: String,
    },
    /// List a workspace's keys.
    List {
        #[arg(long)]
        workspace: String,
    },
    /// Revoke a key at once.
    Revoke {
        #[arg(long)]
        id: String,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create a console user; a generated password is printed once.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        /// Operators manage workspaces, plans, billing and statements.
        #[arg(long)]
        operator: bool,
        /// A workspace the user joins…
        #[arg(long)]
        workspace: Option<String>,
        /// …with this role.
        #[arg(long, value_parser = ["owner", "admin", "member"], default_value = "owner", requires = "workspace")]
        role: String,
    },
}

#[derive(Subcommand)]
enum BillingCommand {
    /// Show a workspace's billing settings, overdue flag and open amount.
    State {
        #[arg(long)]
        workspace: String,
    },
    /// Change a workspace's billing settings (the ones given).
    Update {
        #[arg(long)]
        workspace: String,
        #[arg(long)]
        invoice_billing_enabled: Option<bool>,
        #[arg(long)]
        credit_limit_cents: Option<i64>,
        #[arg(long)]
        billing_day: Option<u32>,
        #[arg(long)]
        payment_terms_days: Option<u32>,
    },
    /// List the delivered live deliveries that no statement billed yet.
    Billable {
        #[arg(long)]
        workspace: String,
    },
    /// Close the workspace's billing period now.
    Close {
        #[arg(long)]
        workspace: String,
    },
    /// List a workspace's statements, newest first.
    Statements {
        #[arg(long)]
        workspace: String,
    },
    /// Record the payment of an open statement.
    Pay {
        #[arg(long)]
        statement: String,
    },
    /// Void an open statement.
    Void {
        #[arg(long)]
        statement: String,
    },
    /// Write a statement with its deliveries as CSV or a printable HTML page.
    Export {
        #[arg(long)]
        statement: String,
        #[arg(long, value_parser = ["csv", "html"], default_value = "csv")]
        format: String,
        /// The file to write; standard output when omitted.
        #[arg(long)]
        output: Option<std::path::PathBuf>,
    },
}

/// Serves gRPC and metrics and runs the workers until SIGTERM or Ctrl-C;
/// then the servers and workers finish what is in flight, within the grace
/// period.
async fn serve(core: Core, role: ServeRole) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind(&core.config.grpc_addr).await?;
    let _serving = courier_store::db::ServeLock::claim(&core.config.database_url, listener.local_addr()?)?;
    let ops_listener = tokio::net::TcpListener::bind(&core.config.metrics_addr).await?;
    tracing::info!(addr = %listener.local_addr()?, metrics = %ops_listener.local_addr()?, ?role, "courier-core serving gRPC");
    let mut registry = Registry::default();
    core.register_metrics(&mut registry);
    let grace = core.config.shutdown_grace;
    let stop = CancellationToken::new();
    let mut workers = courier_server::workers::spawn(&core, &stop, role);
    let signal = stop.clone();
    tokio::spawn(async move {
        courier::shutdown::signal().await;
        signal.cancel();
    });
    let work = async {
        let metrics =
            courier::ops::serve_metrics(ops_listener, vec![Arc::new(registry)], stop.clone().cancelled_owned());
        tokio::try_join!(
            courier_server::serving::serve(core, listener, stop.clone().cancelled_owned()),
            async { metrics.await.map_err(Into::into) },
        )?;
        while workers.join_next().await.is_some() {}
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    };
    match courier::shutdown::with_grace(work, stop.cancelled(), grace).await {
        Some(served) => served,
        None => {
            tracing::warn!(?grace, "grace period over: exiting with work in flight");
            Ok(())
        }
    }
}

/// A SQLite database is served by one process running everything
/// (`db::ServeLock` refuses a second on the same file): refuses to serve one
/// where more replicas could start, i.e. with a role that leaves the rest
/// to other processes, or under Kubernetes, where a Deployment may run
/// several (docs/deploy.md).
fn refuse_sqlite_replicas(database_url: &str, role: ServeRole) -> Result<(), String> {
    if !database_url.starts_with("sqlite:") {
        return Ok(());
    }
    if role != ServeRole::All {
        let role = clap::ValueEnum::to_possible_value(&role).map(|value| value.get_name().to_owned());
        return Err(format!(
            "--role {} needs other core processes beside this one, and a SQLite database is served by one: use PostgreSQL (COURIER_DATABASE_URL=postgres://…)",
            role.unwrap_or_default()
        ));
    }
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
        return Err("running under Kubernetes, where more than one core replica may start, and a SQLite database is served by one process: use PostgreSQL (COURIER_DATABASE_URL=postgres://…)".into());
    }
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    logging::init(cli.log_format);
    courier::env::warn_unknown(&[Cli::command()]);
    match run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let command = match cli
        .command
        .unwrap_or_else(|| Command::WithDatabase(DatabaseCommand::Serve(ServeArgs::from_environment())))
    {
        Command::Health => {
            courier_server::serving::probe(&cli.config.grpc_addr, std::time::Duration::from_secs(2)).await?;
            println!("serving");
            return Ok(());
        }
        Command::WithDatabase(command) => command,
    };
    if let DatabaseCommand::Serve(serve) = &command {
        refuse_sqlite_replicas(&cli.config.database_url, serve.role)?;
    }
    let clock = Clock::from_config(&cli.config)?;
    let core = courier_server::serving::open_core(cli.config, clock).await?;
    let now = core.clock.now_micros();
    match command {
        DatabaseCommand::Serve(args) => serve(core, args.role).await?,
        DatabaseCommand::Migrate => println!("migrations applied"),
        DatabaseCommand::Workspace(WorkspaceCommand::Create {
            name,
            kind,
            api_access,
            fleet_order_intake,
            proof_of_delivery,
            discount_bps,
            auto_dispatch,
            invoice_billing_enabled,
            credit_limit_cents,
            billing_day,
            payment_terms_days,
        }) => {
            let kind = WorkspaceKind::parse(&kind).ok_or_else(workspaces::unknown_kind)?;
            let new = NewWorkspace {
                name,
                kind,
                plan: Plan {
                    api_access,
                    fleet_order_intake,
                    proof_of_delivery,
                    discount_bps,
                    auto_dispatch,
                },
                billing: BillingSettings {
                    invoice_billing_enabled,
                    credit_limit_cents,
                    billing_day,
                    payment_terms_days,
                },
            };
            let w = workspaces::create(&core, &command_line::<act::Administer>()?, new).await?;
            println!("workspace {} ({}) created", w.id, w.kind.as_str());
        }
        DatabaseCommand::Courier(command) => courier(&core, *command).await?,
        DatabaseCommand::Workspace(WorkspaceCommand::List) => {
            for w in workspaces::list(&core.db).await? {
                println!(
                    "{}\t{}\t{}\t{:?}\t{:?}",
                    w.id,
                    w.kind.as_str(),
                    w.name,
                    w.plan,
                    w.billing
                );
            }
        }
        DatabaseCommand::Key(KeyCommand::Create {
            workspace,
            mode,
            label,
            permissions,
            expiry,
        }) => {
            let permissions = permissions
                .iter()
                .map(|p| {
                    Permission::parse(p)
                        .ok_or_else(|| CoreError::invalid("permission", format!("unknown permission {p}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let expiry = match expiry.as_str() {
                "30" => KeyExpiry::Days30,
                "90" => KeyExpiry::Days90,
                "365" => KeyExpiry::Days365,
                _ => KeyExpiry::Never,
            };
            let mode = Mode::parse(&mode).ok_or_else(|| CoreError::invalid("mode", "mode must be live or test"))?;
            let new = NewApiKey {
                workspace_id: workspace,
                mode,
                label,
                permissions,
                expiry,
            };
            let (key, secret) = api_keys::create(&core, &command_line::<act::Administer>()?, new).await?;
            println!("key {} created; it is shown only now:\n{secret}", key.id);
        }
        DatabaseCommand::Key(KeyCommand::List { workspace }) => {
            for k in api_keys::list(&core.db, &workspace).await? {
                let permissions: Vec<_> = k.permissions.iter().map(|p| p.as_str()).collect();
                let state = if k.is_usable_at(now) { "active" } else { "inactive" };
                println!(
                    "{}\t{}…\t{}\t{}\t{}\t{}",
                    k.id,
                    k.prefix,
                    k.mode.as_str(),
                    state,
                    k.label,
                    permissions.join(",")
                );
            }
        }
        DatabaseCommand::Key(KeyCommand::Revoke { id }) => {
            let id = courier_server::command_line::revoke_api_key(&core, &id).await?;
            println!("key {id} revoked");
        }
        DatabaseCommand::Billing(command) => billing(&core, command).await?,
        DatabaseCommand::User(UserCommand::Create {
            email,
            name,
            operator,
            workspace,
            role,
        }) => {
            let role = courier_identity::access::Role::parse(&role).ok_or("unknown role")?;
            let password = courier_store::ids::random_base62(16);
            let new = courier_identity::accounts::NewUser {
                email,
                name,
                password: password.clone(),
                operator,
            };
            let joins = workspace.as_deref().map(|workspace| (workspace, role));
            let granted = command_line::<act::Administer>()?;
            let user = courier_identity::accounts::create_for_operator(&core, &granted, new, joins).await?;
            println!("user {} created; sign in with", user.id);
            println!("email: {} password: {password}", user.email);
        }
        DatabaseCommand::Plan {
            workspace,
            area,
            day,
            couriers,
            budget_seconds,
        } => {
            let request = plans::PlanRequest {
                workspace_id: workspace,
                area_id: area,
                day,
                courier_ids: couriers,
                budget_seconds,
                pins: Vec::new(),
            };
            let plan = plans::plan(&core, &command_line::<act::PlanRoutes>()?, request).await?;
            print!("{}", plan_text(&plan));
        }
        DatabaseCommand::Audit { limit } => {
            let mut token = None;
            let mut shown = 0;
            while shown < limit {
                let page_size = i32::try_from((limit - shown).min(100)).unwrap_or(100);
                let (page, next) = courier_core::audit_log::list(&core, page_size, token.as_deref()).await?;
                for listed in &page {
                    let entry = &listed.entry;
                    let workspace = entry.workspace_id.as_deref().unwrap_or("-");
                    let at = rfc3339(entry.created_at);
                    let courier = match &listed.courier {
                        Some((id, Some(name))) => format!("{name} ({id})"),
                        Some((id, None)) => id.clone(),
                        None => "-".to_owned(),
                    };
                    println!(
                        "{at}\t{}\t{}\t{workspace}\t{}\t{courier}",
                        entry.actor, entry.action, entry.target
                    );
                }
                shown += page.len();
                let Some(next) = next else { break };
                token = Some(next);
            }
        }
        DatabaseCommand::Token { role, subject, ttl } => {
            let role = Role::parse(&role).ok_or("unknown role")?;
            let token = service_token::mint(&core.secrets.service_token, role, &subject, now / 1_000_000, ttl)?;
            println!("{token}");
        }
    }
    Ok(())
}

/// The billing commands: the same domain calls as the billing service.
async fn courier(core: &Core, command: CourierCommand) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use courier_core::couriers::{self, Fleet, NewCourier, Vehicle};
    use courier_identity::access::{act, command_line};
    let fleet = |workspace: Option<String>| Fleet::from_workspace_id(workspace.as_deref().unwrap_or_default());
    let granted = command_line::<act::ManageCouriers>()?;
    let audited = |action: &'static str, courier: &couriers::Courier| {
        (
            action,
            courier.fleet.workspace_id().map(str::to_owned),
            courier.id.clone(),
        )
    };
    // Through the serving process where one serves the SQLite database:
    // its couriers' open streams end at once (a write transaction here
    // would also hold the lock that process needs).
    let command = match command {
        CourierCommand::Suspend { id } => {
            let id = courier_server::command_line::suspend_courier(core, &id).await?;
            println!("courier {id} suspended and signed out");
            return Ok(());
        }
        CourierCommand::Statements(command) => return courier_statements(core, command).await,
        command => command,
    };
    let tx = core.begin().await?;
    let mut entry = None;
    match command {
        CourierCommand::Invite {
            workspace,
            name,
            phone,
            email,
            vehicle_type,
            make,
            model,
            color,
            plate,
        } => {
            let new = NewCourier {
                fleet: fleet(workspace),
                name,
                phone,
                email,
                vehicle: Vehicle {
                    vehicle_type_id: vehicle_type,
                    make,
                    model,
                    color,
                    license_plate: plate,
                },
            };
            let courier = couriers::create(core, &tx, new).await?;
            let link = couriers::invitations::create(core, &tx, &courier.id, granted.actor()).await?;
            println!(
                "courier {} ({}) invited; send them this link: {link}",
                courier.id, courier.name
            );
            entry = Some(audited("courier.invite", &courier));
        }
        CourierCommand::List { workspace } => {
            let fleet = fleet(workspace);
            let mut token: Option<String> = None;
            loop {
                let (page, next) = couriers::list(core, &fleet, 100, token.as_deref()).await?;
                for c in page {
                    println!(
                        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                        c.id,
                        c.name,
                        c.phone.as_deref().or(c.email.as_deref()).unwrap_or("-"),
                        c.vehicle.vehicle_type_id,
                        c.status.as_str(),
                        c.availability.as_str(),
                        if c.joined { "joined" } else { "invited" }
                    );
                }
                match next {
                    Some(next) => token = Some(next),
                    None => break,
                }
            }
        }
        CourierCommand::Suspend { .. } | CourierCommand::Statements(_) => unreachable!("carried out above"),
        CourierCommand::Activate { id } => {
            let c = couriers::set_status(core, &tx, &id, couriers::Status::Active).await?;
            println!("courier {} active", c.id);
            entry = Some(audited("courier.activate", &c));
        }
    }
    if let Some((action, workspace_id, target)) = &entry {
        let change = courier_identity::audit::Change {
            action,
            workspace_id: workspace_id.as_deref(),
            target,
            // Every entry here is a courier's own change.
            courier_id: Some(target),
        };
        granted.record(core, &*tx, change).await?;
    }
    tx.commit().await?;
    Ok(())
}

async fn billing(core: &Core, command: BillingCommand) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use courier::statements as document;
    use courier_orders::billing::{lines, statements};
    use courier_server::grpc::billing::{line_out, statement_out};
    let now = core.clock.now_micros();
    let show = |s: &statements::Statement| {
        let overdue = if s.is_overdue(now) { "\toverdue" } else { "" };
        format!(
            "{}\t{}\t{} {}\t{} deliveries\t{} SMS ({} {})\t{} tips ({} {})\tperiod {} to {}\tdue {}{overdue}",
            s.id,
            s.status.as_str(),
            document::amount(s.total_cents),
            s.currency,
            s.delivery_count,
            s.sms_count,
            document::amount(s.sms_cents),
            s.currency,
            s.tip_count,
            document::amount(s.tip_cents),
            s.currency,
            rfc3339(s.period_start),
            rfc3339(s.period_end),
            rfc3339(s.due_at),
        )
    };
    match command {
        BillingCommand::State { workspace } => print_billing(&workspaces::get(&core.db, &workspace).await?),
        BillingCommand::Update {
            workspace,
            invoice_billing_enabled,
            credit_limit_cents,
            billing_day,
            payment_terms_days,
        } => {
            let mut settings = workspaces::get(&core.db, &workspace).await?.billing;
            settings.invoice_billing_enabled = invoice_billing_enabled.unwrap_or(settings.invoice_billing_enabled);
            settings.credit_limit_cents = credit_limit_cents.unwrap_or(settings.credit_limit_cents);
            settings.billing_day = billing_day.unwrap_or(settings.billing_day);
            settings.payment_terms_days = payment_terms_days.unwrap_or(settings.payment_terms_days);
            let granted = command_line::<act::ManageBilling>()?;
            print_billing(&workspaces::update_billing(core, &granted, &workspace, settings).await?);
        }
        BillingCommand::Billable { workspace } => {
            workspaces::get(&core.db, &workspace).await?;
            let mut token = None;
            loop {
                let (page, next) = lines::billable(core, &workspace, 100, token.as_deref()).await?;
                for line in page {
                    println!(
                        "{}\t{} {}\tdelivered {}",
                        line.delivery_id,
                        document::amount(line.amount_cents),
                        line.currency,
                        rfc3339(line.delivered_at)
                    );
                }
                let Some(next) = next else { break };
                token = Some(next);
            }
        }
        BillingCommand::Close { workspace } => {
            let granted = command_line::<act::ManageBilling>()?;
            for statement in statements::close(core, &workspace, statements::PeriodEnd::Now(&granted)).await? {
                println!("{}", show(&statement));
            }
        }
        BillingCommand::Statements { workspace } => {
            let mut token = None;
            loop {
                let (page, next) = statements::list(core, &workspace, 100, token.as_deref()).await?;
                for statement in &page {
                    println!("{}", show(statement));
                }
                let Some(next) = next else { break };
                token = Some(next);
            }
        }
        BillingCommand::Pay { statement } => {
            let granted = command_line::<act::ManageBilling>()?;
            println!("{}", show(&statements::mark_paid(core, &granted, &statement).await?));
        }
        BillingCommand::Void { statement } => {
            let granted = command_line::<act::ManageBilling>()?;
            println!("{}", show(&statements::void(core, &granted, &statement).await?));
        }
        BillingCommand::Export {
            statement,
            format,
            output,
        } => {
            let statement = statements::get(&core.db, &statement).await?;
            let workspace = workspaces::get(&core.db, &statement.workspace_id).await?;
            let mut deliveries = Vec::new();
            let mut token = None;
            loop {
                let (page, next) = lines::of_statement(core, &statement.id, 1000, token.as_deref()).await?;
                deliveries.extend(page.into_iter().map(line_out));
                let Some(next) = next else { break };
                token = Some(next);
            }
            let statement = statement_out(&statement, now);
            let text = if format == "html" {
                document::html(&workspace.name, &statement, &deliveries)?
            } else {
                document::statement_csv(&statement, &deliveries)?
            };
            match output {
                Some(path) => std::fs::write(&path, text)?,
                None => print!("{text}"),
            }
        }
    }
    Ok(())
}

/// The courier statement commands: the same domain calls as
/// `CourierService`'s.
async fn courier_statements(
    core: &Core,
    command: CourierStatementsCommand,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use courier::statements as document;
    use courier_core::couriers::{self, pay};
    use courier_orders::pay::statements::Statement;
    use courier_server::grpc::couriers::{courier_statement_out, earnings_line_out};
    let show = |s: &Statement| {
        format!(
            "{}\t{}\t{} {}\t{} jobs\tweek {} to {}\tclosed by {}",
            s.id,
            s.courier_id,
            document::amount(s.totals.total_cents()),
            s.currency,
            s.totals.jobs,
            rfc3339(s.period_start),
            rfc3339(s.period_end),
            s.closed_by,
        )
    };
    match command {
        CourierStatementsCommand::Close { day } => {
            let granted = command_line::<act::Administer>()?;
            let closed = pay::close_week(core, &granted, day.as_deref().unwrap_or_default()).await?;
            for statement in &closed {
                println!("{}", show(statement));
            }
            println!("{} statements closed", closed.len());
        }
        CourierStatementsCommand::List { courier } => {
            let courier = couriers::get(&core.db, &courier).await?;
            for statement in pay::statements_of(core, &courier).await? {
                println!("{}", show(&statement));
            }
        }
        CourierStatementsCommand::Export {
            statement,
            format,
            output,
        } => {
            let (statement, lines, courier) = pay::statement(core, &statement).await?;
            let statement = courier_statement_out(&statement, core.catalog.home_time_zone().name());
            let lines: Vec<_> = lines.iter().map(earnings_line_out).collect();
            let text = if format == "html" {
                document::courier_statement_html(&courier.name, &statement, &lines)?
            } else {
                document::courier_statement_csv(&statement, &lines)?
            };
            match output {
                Some(path) => std::fs::write(&path, text)?,
                None => print!("{text}"),
            }
        }
    }
    Ok(())
}

fn print_billing(workspace: &workspaces::Workspace) {
    let billing = &workspace.billing;
    println!(
        "{}\tinvoice billing {}\tcredit limit {}\topen amount {}\tbilling day {}\tpayment terms {} days\t{}",
        workspace.id,
        if billing.invoice_billing_enabled {
            "enabled"
        } else {
            "disabled"
        },
        courier::statements::amount(billing.credit_limit_cents),
        courier::statements::amount(workspace.open_amount_cents),
        billing.billing_day,
        billing.payment_terms_days,
        if workspace.statement_overdue {
            "statement overdue"
        } else {
            "no statement overdue"
        },
    );
}

fn rfc3339(micros: i64) -> String {
    courier::time::format_rfc3339(courier::time::from_micros(micros))
}

/// A plan as the command line prints it: a line per route and per stop
/// (times in UTC; `done` for stops done before the plan), then the orders
/// no route takes.
fn plan_text(plan: &RoutePlan) -> String {
    let time = |micros: Option<i64>| {
        micros.map_or_else(
            || "  -  ".to_owned(),
            |at| courier::time::from_micros(at).format("%H:%M").to_string(),
        )
    };
    let mut text = format!(
        "plan {} of {} for {}: {} routes, {} orders unplanned, solved in {:.1} s\n",
        plan.id,
        plan.workspace().or(plan.area_id.as_deref()).unwrap_or_default(),
        plan.day,
        plan.routes.len(),
        plan.unplanned.len(),
        plan.solved_in.as_secs_f64()
    );
    for route in &plan.routes {
        text.push_str(&format!(
            "\n{} ({}): {}–{} UTC, {} min driving, {:.1} km\n",
            route.courier_name,
            route.courier_id,
            time(Some(route.starts_at)),
            time(Some(route.ends_at)),
            route.driving_seconds / 60,
            route.metres as f64 / 1000.0
        ));
        for stop in &route.stops {
            let kind = match stop.kind {
                StopKind::Pickup => "pickup ",
                StopKind::Dropoff => "dropoff",
                StopKind::Rest => "rest   ",
            };
            let when = if stop.done {
                " done".to_owned()
            } else {
                time(stop.starts_at)
            };
            text.push_str(&format!(
                "  {when}  {kind}  {}  {}\n",
                stop.order_id.as_deref().unwrap_or("-"),
                stop.address
            ));
        }
    }
    if !plan.unplanned.is_empty() {
        text.push_str("\nunplanned:\n");
        for unplanned in &plan.unplanned {
            text.push_str(&format!("  {}  {:?}\n", unplanned.order_id, unplanned.reason));
        }
    }
    text
}
