//! What tests of every crate wait with (`wait_until`): a deadline, never a
//! fixed sleep; and the settings every test store and server runs with
//! ([`config`]).

use std::path::PathBuf;
use std::time::Duration;

use crate::config::{CoreConfig, DispatchMode, NotificationConfig};

/// How often [`wait_until`] asks again.
const POLL_EVERY: Duration = Duration::from_millis(20);

/// Asks `check` until it answers `Ok`, and returns that; fails the test
/// after `limit`, naming `what` it waited for and what `check` last saw
/// (its `Err`). For what a worker does in its own time.
pub async fn wait_until<T, E: std::fmt::Display>(
    what: impl std::fmt::Display,
    limit: Duration,
    mut check: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let last = match check().await {
            Ok(done) => return done,
            Err(last) => last,
        };
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {limit:?} for {what}; last seen: {last:#}"
        );
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// The master secret of every test store.
pub const SECRET_KEY: &str = "test-secret-key";

/// The settings tests run with: the simulator, the billing check and the
/// webhook and notification retry schedules fast; plain-HTTP and loopback webhook targets
/// allowed (the tests' receivers listen on loopback); no road router.
pub fn config(database_url: &str, blob_dir: PathBuf) -> CoreConfig {
    CoreConfig {
        database_url: database_url.to_owned(),
        database_max_connections: None,
        grpc_addr: "127.0.0.1:0".into(),
        metrics_addr: "127.0.0.1:0".into(),
        shutdown_grace: Duration::from_secs(5),
        public_base_url: "http://127.0.0.1:8080".into(),
        secret_key: Some(SECRET_KEY.into()),
        simulator_step: Duration::from_millis(50),
        billing_check_every: Duration::from_millis(50),
        report_rollup_every: Duration::from_millis(200),
        courier_statement_day: chrono::Weekday::Mon,
        routing_url: String::new(),
        routing_timeout: Duration::from_secs(2),
        routing_fallback: Default::default(),
        routing_breaker_cooldown: Duration::from_secs(30),
        webhook_allow_insecure: true,
        webhook_retry_scale: 0.002,
        webhook_disable_after: 20,
        webhook_disable_window: Duration::from_secs(24 * 3600),
        catalog_file: None,
        blob_dir,
        blob_s3: Default::default(),
        // No provider: test mode fills the test inbox; tests of live
        // messages point these at their stand-ins.
        notifications: NotificationConfig {
            smtp_url: None,
            smtp_from: "deliveries@courier.localhost".into(),
            twilio_base_url: "https://api.twilio.com".into(),
            twilio_account_sid: None,
            twilio_auth_token: None,
            twilio_from: None,
            timeout: Duration::from_secs(2),
            retry_scale: 0.002,
        },
        // Tests that drive automatic dispatch turn it on; the others
        // assign couriers themselves.
        dispatch: DispatchMode::External,
        offer_timeout: Duration::from_secs(30),
        batch_max_delay: Duration::from_secs(600),
        clock_rate: 1.0,
        clock_origin: 0,
        dispatch_radius_km: 15.0,
        positions_per_second: 20.0,
        position_burst: 3_600.0,
    }
}

/// A temporary directory holding a test's SQLite database and blobs, with
/// the settings ([`config`]) that point there; removed when dropped.
pub struct TestDirectory {
    dir: PathBuf,
}

impl TestDirectory {
    /// A new empty directory named after `prefix`.
    pub fn new(prefix: &str) -> TestDirectory {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}", crate::ids::random_base62(16)));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TestDirectory { dir }
    }

    /// [`config`] of a database and blobs in this directory.
    pub fn config(&self) -> CoreConfig {
        let url = format!("sqlite://{}?mode=rwc", self.dir.join("courier.db").display());
        config(&url, self.dir.join("blobs"))
    }
}

impl Drop for TestDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
