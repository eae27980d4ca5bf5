//! The `courier` binary's command line without a service: its commands, and
//! the mistakes it refuses before any request. (Its tests against the
//! running service are in the workspace's end-to-end suite, `tests/e2e/cli.rs`,
//! which runs this same binary.)

use std::process::Command;

fn courier(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_courier"))
        .env_clear()
        .args(args)
        .output()
        .expect("courier ran");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn help_lists_every_command() {
    let (status, stdout, _) = courier(&["--help"]);
    assert_eq!(status, 0);
    for command in ["login", "listen", "events", "deliveries", "quote", "trigger"] {
        assert!(stdout.contains(command), "{command}: {stdout}");
    }
    let (status, stdout, _) = courier(&["deliveries", "--help"]);
    assert_eq!(status, 0);
    for command in ["list", "get", "cancel", "create", "update", "notifications"] {
        assert!(stdout.contains(command), "{command}: {stdout}");
    }
}

#[test]
fn a_create_needs_a_route_or_a_file() {
    let (status, _, stderr) = courier(&["--api-key", "mm_test_x", "deliveries", "create", "--vehicle", "car"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("--pickup-address"), "{stderr}");
}

#[test]
fn no_key_is_said_before_any_request() {
    let dir = std::env::temp_dir().join(format!("courier-cli-usage-{}", std::process::id()));
    let dir = dir.to_str().expect("path");
    let (status, _, stderr) = courier(&["--config-dir", dir, "deliveries", "list"]);
    assert_eq!(status, 2);
    assert_eq!(
        stderr.trim(),
        "error: no API key: pass --api-key, set COURIER_API_KEY, or run `courier login`"
    );
}
