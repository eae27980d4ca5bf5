//! The operator's command line against a fresh SQLite database: billing
//! settings, closing and listing statements, and its refusals; every change
//! it makes in the audit log, as `cli:<OS user>`.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use courier::internal::v1 as ipb;
use courier::v1 as pb;

/// The OS user the commands run as.
const OS_USER: &str = "olga";

struct Cli {
    dir: std::path::PathBuf,
}

impl Cli {
    fn new() -> Cli {
        let n: u64 = rand::random();
        let dir = std::env::temp_dir().join(format!("courier-cli-{n:016x}"));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Cli { dir }
    }

    /// `courier-core` with this database, run by [`OS_USER`].
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_courier-core"));
        command
            .args(args)
            .env(
                "COURIER_DATABASE_URL",
                format!("sqlite://{}?mode=rwc", self.dir.join("courier.db").display()),
            )
            .env("COURIER_SECRET_KEY", "cli-test-secret")
            .env("COURIER_BLOB_DIR", self.dir.join("blobs"))
            .env("USER", OS_USER);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("courier-core runs")
    }

    /// Standard output of a command that must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("utf-8")
    }

    /// Standard error of a command that must fail.
    fn fails(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        String::from_utf8(output.stderr).expect("utf-8")
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn billing_commands_show_change_and_refuse() {
    let cli = Cli::new();
    let created = cli.ok(&[
        "workspace",
        "create",
        "--name",
        "Acme",
        "--kind",
        "business",
        "--invoice-billing-enabled",
        "--credit-limit-cents",
        "100000",
        "--payment-terms-days",
        "30",
    ]);
    let workspace = created
        .split_whitespace()
        .find(|word| word.starts_with("wks_"))
        .expect("workspace id")
        .to_owned();

    let state = cli.ok(&["billing", "state", "--workspace", &workspace]);
    assert!(state.contains("invoice billing enabled"), "{state}");
    assert!(state.contains("credit limit 1000.00"), "{state}");
    assert!(state.contains("billing day 1\tpayment terms 30 days"), "{state}");
    assert!(state.contains("no statement overdue"), "{state}");

    let updated = cli.ok(&["billing", "update", "--workspace", &workspace, "--billing-day", "15"]);
    assert!(updated.contains("billing day 15\tpayment terms 30 days"), "{updated}");
    let refused = cli.fails(&["billing", "update", "--workspace", &workspace, "--billing-day", "31"]);
    assert!(refused.contains("billing_day must be 1 to 28"), "{refused}");

    let empty = cli.fails(&["billing", "close", "--workspace", &workspace]);
    assert!(empty.contains("nothing to bill"), "{empty}");
    assert_eq!(cli.ok(&["billing", "statements", "--workspace", &workspace]), "");
    assert_eq!(cli.ok(&["billing", "billable", "--workspace", &workspace]), "");
    let unknown = cli.fails(&["billing", "export", "--statement", "stm_missing", "--format", "html"]);
    assert!(unknown.contains("No such statement."), "{unknown}");
    let unknown = cli.fails(&["billing", "statements", "--workspace", "wks_missing"]);
    assert!(unknown.contains("No such workspace."), "{unknown}");
}

#[test]
fn users_are_created_with_a_generated_password_printed_once() {
    let cli = Cli::new();
    let created = cli.ok(&["workspace", "create", "--name", "Acme", "--kind", "business"]);
    let workspace = created
        .split_whitespace()
        .find(|word| word.starts_with("wks_"))
        .expect("workspace id")
        .to_owned();
    let user = cli.ok(&[
        "user",
        "create",
        "--email",
        "Ops@Example.com",
        "--name",
        "Olga Ops",
        "--operator",
        "--workspace",
        &workspace,
    ]);
    let login = user
        .lines()
        .find(|line| line.starts_with("email: "))
        .expect("login line");
    assert!(login.starts_with("email: ops@example.com password: "), "{login}");
    let password = login.rsplit(' ').next().expect("password");
    assert!(password.len() >= 16, "{password}");

    let taken = cli.fails(&["user", "create", "--email", "ops@example.com", "--name", "Again"]);
    assert!(taken.contains("already exists"), "{taken}");
    let nowhere = cli.fails(&[
        "user",
        "create",
        "--email",
        "x@example.com",
        "--name",
        "X",
        "--workspace",
        "wks_missing",
    ]);
    assert!(nowhere.contains("No such workspace."), "{nowhere}");
    let bad = cli.fails(&["user", "create", "--email", "not-an-email", "--name", "X"]);
    assert!(bad.contains("email must be an email address"), "{bad}");
}

#[test]
fn courier_commands_invite_list_suspend_and_activate() {
    let cli = Cli::new();
    let invited = cli.ok(&[
        "courier",
        "invite",
        "--name",
        "Kim Courier",
        "--phone",
        "+49 151 2345678",
        "--vehicle-type",
        "cargo_bike",
        "--plate",
        "B-KC 1",
    ]);
    assert!(invited.contains("/courier/join/"), "{invited}");
    let id = invited
        .split_whitespace()
        .find(|word| word.starts_with("cou_"))
        .expect("courier id")
        .to_owned();
    let listed = cli.ok(&["courier", "list"]);
    assert!(
        listed.contains(&format!(
            "{id}\tKim Courier\t+491512345678\tcargo_bike\tactive\toffline\tinvited"
        )),
        "{listed}"
    );
    assert!(cli.ok(&["courier", "suspend", "--id", &id]).contains("suspended"));
    assert!(cli.ok(&["courier", "list"]).contains("\tsuspended\t"));
    cli.ok(&["courier", "activate", "--id", &id]);
    assert!(cli.ok(&["courier", "list"]).contains("\tactive\t"));

    let refused = cli.fails(&["courier", "invite", "--name", "Nobody", "--vehicle-type", "car"]);
    assert!(refused.contains("phone number or an email"), "{refused}");
    let refused = cli.fails(&[
        "courier",
        "invite",
        "--name",
        "Van",
        "--email",
        "v@example.com",
        "--vehicle-type",
        "spaceship",
    ]);
    assert!(refused.contains("not a vehicle type"), "{refused}");
    let refused = cli.fails(&["courier", "suspend", "--id", "cou_unknown"]);
    assert!(refused.contains("No such courier"), "{refused}");
    let log = cli.ok(&["audit"]);
    assert!(
        log.contains("courier.invite") && log.contains("courier.suspend") && log.contains("courier.activate"),
        "{log}"
    );
    assert!(log.contains("\tcli:"), "{log}");
    // Each entry about the courier names them in its last column.
    for line in log.lines().filter(|line| line.contains("\tcourier.")) {
        assert!(line.ends_with(&format!("\tKim Courier ({id})")), "{line}");
    }
}

#[test]
fn a_fleet_day_is_planned_and_printed() {
    let cli = Cli::new();
    let created = cli.ok(&["workspace", "create", "--name", "Fleet", "--kind", "fleet"]);
    let workspace = id(&created, "wks_");
    let printed = cli.ok(&[
        "plan",
        "--workspace",
        &workspace,
        "--day",
        "2026-12-01",
        "--budget-seconds",
        "1",
    ]);
    assert!(
        printed.starts_with("plan pln_") && printed.contains(&format!("of {workspace} for 2026-12-01: 0 routes")),
        "{printed}"
    );
    let refused = cli.fails(&["plan", "--workspace", &workspace, "--day", "1 Dec"]);
    assert!(refused.contains("YYYY-MM-DD"), "{refused}");
    let refused = cli.fails(&[
        "plan",
        "--workspace",
        &workspace,
        "--day",
        "2026-12-01",
        "--budget-seconds",
        "90",
    ]);
    assert!(refused.contains("1 to 60 seconds"), "{refused}");
    assert!(cli.ok(&["audit"]).contains("plan.create"));
}

/// The first word of `output` starting with `prefix` (an id it printed).
#[test]
fn a_sqlite_database_is_not_served_where_more_replicas_could_start() {
    let cli = Cli::new();
    for role in ["api", "workers"] {
        let refused = cli.fails(&["serve", "--role", role]);
        assert!(
            refused.contains(&format!("--role {role} needs other core processes")),
            "{refused}"
        );
        assert!(refused.contains("use PostgreSQL"), "{refused}");
    }
    let mut in_kubernetes = cli.command(&["serve"]);
    in_kubernetes.env("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    let output = in_kubernetes.output().expect("courier-core runs");
    assert!(!output.status.success());
    let refused = String::from_utf8_lossy(&output.stderr);
    assert!(refused.contains("running under Kubernetes"), "{refused}");
    // Nothing was opened: the refusal comes before the database.
    assert!(!cli.dir.join("courier.db").exists());
}

fn id(output: &str, prefix: &str) -> String {
    output
        .split_whitespace()
        .find(|word| word.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}… in {output}"))
        .to_owned()
}

/// A free loopback address.
fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").to_string()
}

/// `courier-core serve` on this database, stopped when dropped.
struct Serving(std::process::Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `message` with `name: value` metadata.
fn with<T>(message: T, name: &'static str, value: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(name, value.parse().expect("metadata"));
    request
}

fn stop(address: &str, latitude: f64, longitude: f64, name: &str) -> pb::Waypoint {
    pb::Waypoint {
        address: address.into(),
        latitude,
        longitude,
        contact: Some(pb::Contact {
            name: name.into(),
            phone: "+49 30 1234567".into(),
            email: None,
        }),
        instructions: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_the_command_line_makes_is_audited_as_its_os_user() {
    let cli = Cli::new();
    let workspace = id(
        &cli.ok(&[
            "workspace",
            "create",
            "--name",
            "Acme",
            "--kind",
            "business",
            "--invoice-billing-enabled",
            "--credit-limit-cents",
            "1000000",
        ]),
        "wks_",
    );
    let created = cli.ok(&[
        "key",
        "create",
        "--workspace",
        &workspace,
        "--mode",
        "live",
        "--label",
        "ERP",
    ]);
    let (live_key_id, live_key) = (id(&created, "key_"), id(&created, "mm_live_"));
    let test_key = id(
        &cli.ok(&[
            "key",
            "create",
            "--workspace",
            &workspace,
            "--mode",
            "test",
            "--label",
            "Old",
        ]),
        "key_",
    );
    // With no core serving the database, a revocation is written directly.
    cli.ok(&["key", "revoke", "--id", &test_key]);
    cli.ok(&[
        "user",
        "create",
        "--email",
        "ops@example.com",
        "--name",
        "Ops",
        "--operator",
    ]);

    // A live delivery, delivered, for a statement to pay.
    let grpc = free_address();
    let serving = Serving(
        cli.command(&["serve"])
            .env("COURIER_GRPC_ADDR", &grpc)
            .env("COURIER_METRICS_ADDR", free_address())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("courier-core serves"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let channel = loop {
        match tonic::transport::Endpoint::from_shared(format!("http://{grpc}"))
            .expect("endpoint")
            .connect()
            .await
        {
            Ok(channel) => break channel,
            Err(error) => assert!(Instant::now() < deadline, "the core did not serve within 30 s: {error}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let booking = pb::CreateDeliveryRequest {
        pickup: Some(stop("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132, "Ana Sender")),
        dropoff: Some(stop("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190, "Rui Receiver")),
        vehicle_type_id: "cargo_bike".into(),
        ..Default::default()
    };
    let mut deliveries = pb::delivery_service_client::DeliveryServiceClient::new(channel.clone());
    let mut booking = with(booking, "x-api-key", &live_key);
    booking
        .metadata_mut()
        .insert("idempotency-key", "cli-audit-1".parse().expect("metadata"));
    let delivery = deliveries
        .create_delivery(booking)
        .await
        .expect("a live delivery")
        .into_inner()
        .delivery
        .expect("delivery")
        .id;
    let dispatch_token = format!("Bearer {}", cli.ok(&["token", "--role", "dispatch"]).trim());
    let mut dispatch = ipb::dispatch_service_client::DispatchServiceClient::new(channel);
    let auth = "authorization";
    let accept = ipb::AcceptJobRequest {
        delivery_id: delivery.clone(),
        courier: Some(pb::Courier {
            name: Some("Kim Courier".into()),
            ..Default::default()
        }),
        pickup_eta: None,
    };
    dispatch
        .accept_job(with(accept, auth, &dispatch_token))
        .await
        .expect("accept");
    let at_pickup = ipb::ArriveAtPickupRequest {
        delivery_id: delivery.clone(),
    };
    dispatch
        .arrive_at_pickup(with(at_pickup, auth, &dispatch_token))
        .await
        .expect("at pickup");
    let photo = |checkpoint: pb::CheckpointKind| ipb::SubmitProofRequest {
        delivery_id: delivery.clone(),
        checkpoint: checkpoint as i32,
        files: vec![ipb::ProofFile {
            kind: pb::ArtifactKind::Photo as i32,
            file_name: "parcel.jpg".into(),
            content_type: "image/jpeg".into(),
            content: b"\xff\xd8\xff parcel".to_vec(),
        }],
        ..Default::default()
    };
    let pickup_photo = photo(pb::CheckpointKind::Pickup);
    dispatch
        .submit_proof(with(pickup_photo, auth, &dispatch_token))
        .await
        .expect("pickup proof");
    let pick_up = ipb::PickUpRequest {
        delivery_id: delivery.clone(),
    };
    dispatch
        .pick_up(with(pick_up, auth, &dispatch_token))
        .await
        .expect("pick up");
    let transit = ipb::StartTransitRequest {
        delivery_id: delivery.clone(),
        dropoff_eta: None,
    };
    dispatch
        .start_transit(with(transit, auth, &dispatch_token))
        .await
        .expect("transit");
    let at_dropoff = ipb::ArriveAtDropoffRequest {
        delivery_id: delivery.clone(),
    };
    dispatch
        .arrive_at_dropoff(with(at_dropoff, auth, &dispatch_token))
        .await
        .expect("at dropoff");
    let dropoff_photo = photo(pb::CheckpointKind::Dropoff);
    dispatch
        .submit_proof(with(dropoff_photo, auth, &dispatch_token))
        .await
        .expect("dropoff proof");
    let handover = ipb::CompleteHandoverRequest { delivery_id: delivery };
    dispatch
        .complete_handover(with(handover, auth, &dispatch_token))
        .await
        .expect("delivered");

    let statement = id(&cli.ok(&["billing", "close", "--workspace", &workspace]), "stm_");
    assert!(cli.ok(&["billing", "pay", "--statement", &statement]).contains("paid"));
    // With the core serving, the revocation goes through it (its key cache
    // forgets the key at once), still as the command line.
    cli.ok(&["key", "revoke", "--id", &live_key_id]);
    let refused = deliveries
        .get_delivery(with(pb::GetDeliveryRequest::default(), "x-api-key", &live_key))
        .await
        .expect_err("a revoked key");
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    drop(serving);

    let log = cli.ok(&["audit"]);
    let actor = format!("cli:{OS_USER}");
    let entries: Vec<(&str, &str, &str)> = log
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            // When, who, what, workspace, changed, courier.
            assert_eq!(fields.len(), 6, "{line}");
            (fields[1], fields[2], fields[4])
        })
        .collect();
    let user = entries
        .iter()
        .find(|(_, action, _)| *action == "user.create")
        .expect("user")
        .2;
    let expected = [
        ("statement.mark_paid", statement.as_str()),
        ("statement.close", statement.as_str()),
        ("api_key.revoke", live_key_id.as_str()),
        ("user.create", user),
        ("api_key.revoke", test_key.as_str()),
        ("api_key.create", test_key.as_str()),
        ("api_key.create", live_key_id.as_str()),
        ("workspace.create", workspace.as_str()),
    ];
    let mut recorded: Vec<(&str, &str)> = entries.iter().map(|(_, action, target)| (*action, *target)).collect();
    let mut wanted = expected.to_vec();
    recorded.sort_unstable();
    wanted.sort_unstable();
    assert_eq!(recorded, wanted, "{log}");
    assert!(entries.iter().all(|(who, _, _)| *who == actor), "{log}");
    assert_eq!(entries[0].1, "api_key.revoke", "newest first: {log}");
}
