//! The operator's command line against a fresh SQLite database: billing
//! settings, closing and listing statements, and its refusals.

use std::process::{Command, Output};

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

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_courier-core"))
            .args(args)
            .env(
                "COURIER_DATABASE_URL",
                format!("sqlite://{}?mode=rwc", self.dir.join("courier.db").display()),
            )
            .env("COURIER_SECRET_KEY", "cli-test-secret")
            .env("COURIER_BLOB_DIR", self.dir.join("blobs"))
            .output()
            .expect("courier-core runs")
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
}
