//! Core configuration: flags, each mirrored by a `COURIER_*` environment
//! variable, with defaults for development.

use std::path::PathBuf;
use std::time::Duration;

/// The core's settings.
#[derive(clap::Args, Clone, Debug)]
pub struct CoreConfig {
    /// Database URL: `sqlite://path?mode=rwc` or `postgres://…`.
    #[arg(
        long,
        env = "COURIER_DATABASE_URL",
        default_value = "sqlite://data/courier.db?mode=rwc"
    )]
    pub database_url: String,

    /// Database connections of this replica (`db::open`). Default: 8 for
    /// SQLite (readers run in parallel; writes take turns on one connection
    /// more), 32 for PostgreSQL (a quarter for writes, the rest for reads).
    #[arg(long, env = "COURIER_DATABASE_MAX_CONNECTIONS")]
    pub database_max_connections: Option<u32>,

    /// Address the gRPC server listens on.
    #[arg(long, env = "COURIER_GRPC_ADDR", default_value = "127.0.0.1:50051")]
    pub grpc_addr: String,

    /// Address of the operations listener: Prometheus `GET /metrics`.
    #[arg(long, env = "COURIER_METRICS_ADDR", default_value = "127.0.0.1:9091")]
    pub metrics_addr: String,

    /// After SIGTERM or Ctrl-C, how long in-flight calls and webhook sends
    /// get to finish before the process exits anyway (e.g. `30s`).
    #[arg(long, env = "COURIER_SHUTDOWN_GRACE", default_value = "30s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// Base URL of the public API, for tracking pages, download links and
    /// error documentation.
    #[arg(long, env = "COURIER_PUBLIC_BASE_URL", default_value = "http://127.0.0.1:8080")]
    pub public_base_url: String,

    /// Master secret for service tokens and signed links. When unset, one is
    /// generated once and kept in the database, shared by every replica.
    #[arg(long, env = "COURIER_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,

    /// Step of the test-mode courier simulator (e.g. `20s`, `500ms`).
    #[arg(long, env = "COURIER_SIMULATOR_STEP", default_value = "20s", value_parser = parse_duration)]
    pub simulator_step: Duration,

    /// Base URL of an OSRM server pricing routes on real roads
    /// (docs/routing.md); empty: the offline estimate.
    #[arg(long, env = "COURIER_ROUTING_URL", default_value = "")]
    pub routing_url: String,

    /// How long one call to the routing server may take.
    #[arg(long, env = "COURIER_ROUTING_TIMEOUT", default_value = "2s", value_parser = parse_duration)]
    pub routing_timeout: Duration,

    /// When the routing server fails: answer `502 upstream_error`, or price
    /// with the offline estimate.
    #[arg(long, env = "COURIER_ROUTING_FALLBACK", value_enum, default_value_t = RoutingFallback::Error)]
    pub routing_fallback: RoutingFallback,

    /// How long the routing circuit breaker stays open before one call tries
    /// again.
    #[arg(long, env = "COURIER_ROUTING_BREAKER_COOLDOWN", default_value = "30s", value_parser = parse_duration)]
    pub routing_breaker_cooldown: Duration,

    /// How often the billing worker closes periods that reached their
    /// billing day and flags overdue statements (at most a minute, so a
    /// statement is flagged at most a minute late).
    #[arg(long, env = "COURIER_BILLING_CHECK_EVERY", default_value = "30s", value_parser = parse_billing_check)]
    pub billing_check_every: Duration,

    /// How often the report worker counts again the days whose deliveries
    /// changed (docs/reports.md): reports trail the deliveries by about this.
    #[arg(long, env = "COURIER_REPORT_ROLLUP_EVERY", default_value = "30s", value_parser = parse_duration)]
    pub report_rollup_every: Duration,

    /// The weekday courier statements close on (docs/couriers.md
    /// "Statements"): from its midnight, the week Monday to Sunday before
    /// it, in the platform's time zone (checked as often as billing).
    #[arg(long, env = "COURIER_STATEMENT_DAY", default_value = "monday", value_parser = parse_weekday)]
    pub courier_statement_day: chrono::Weekday,

    /// Development only: allow plain-HTTP and loopback webhook targets.
    #[arg(long, env = "COURIER_WEBHOOK_ALLOW_INSECURE", default_value_t = false)]
    pub webhook_allow_insecure: bool,

    /// Multiplier of the webhook retry schedule (5 s, 30 s, 2 min, 5 min,
    /// 10 min, 15 min, 15 min) and of its 15-minute bound; tests shrink it.
    #[arg(long, env = "COURIER_WEBHOOK_RETRY_SCALE", default_value_t = 1.0, value_parser = parse_scale)]
    pub webhook_retry_scale: f64,

    /// A webhook endpoint is disabled (reason `failing`) once this many of
    /// its latest events in a row ended failed (0: never)…
    #[arg(long, env = "COURIER_WEBHOOK_DISABLE_AFTER", default_value_t = 20)]
    pub webhook_disable_after: u32,

    /// …and its first failure of that streak is at least this old.
    #[arg(long, env = "COURIER_WEBHOOK_DISABLE_WINDOW", default_value = "24h", value_parser = parse_duration)]
    pub webhook_disable_window: Duration,

    /// A catalogue file (vehicle types, extras, service areas) replacing the
    /// built-in one.
    #[arg(long, env = "COURIER_CATALOG_FILE")]
    pub catalog_file: Option<PathBuf>,

    /// Directory of the local blob store (proof-of-delivery files), used
    /// unless an S3-compatible store is configured.
    #[arg(long, env = "COURIER_BLOB_DIR", default_value = "data/blobs")]
    pub blob_dir: PathBuf,

    /// An S3-compatible blob store instead of the local directory.
    #[command(flatten)]
    pub blob_s3: S3Config,

    /// The providers of recipient notifications (docs/notifications.md).
    #[command(flatten)]
    pub notifications: NotificationConfig,

    /// Who gives live deliveries to couriers: `auto`, the core's dispatcher
    /// (offers to the best online couriers, docs/couriers.md "Automatic
    /// dispatch"), or `external`, a dispatch system over `DispatchService`.
    #[arg(long, env = "COURIER_DISPATCH", value_enum, default_value_t = DispatchMode::Auto)]
    pub dispatch: DispatchMode,

    /// How long a courier has to answer an offer.
    #[arg(long, env = "COURIER_OFFER_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub offer_timeout: Duration,

    /// How much later than when a courier took a job (without a dropoff
    /// window) automatic dispatch may make its dropoff by giving them
    /// another (docs/guide.md "Several jobs per courier").
    #[arg(long, env = "COURIER_BATCH_MAX_DELAY", default_value = "10m", value_parser = parse_duration)]
    pub batch_max_delay: Duration,

    /// For simulations only (`courier-bench --only city`): the core's time
    /// runs this many times as fast as the system clock, from
    /// `COURIER_CLOCK_ORIGIN` on; 1 is real time.
    #[arg(long, env = "COURIER_CLOCK_RATE", default_value_t = 1.0, value_parser = parse_clock_rate)]
    pub clock_rate: f64,

    /// Where a faster clock starts (unix seconds): every replica of a
    /// simulation the same.
    #[arg(long, env = "COURIER_CLOCK_ORIGIN", default_value_t = 0)]
    pub clock_origin: i64,

    /// Couriers further than this (straight line) from a pickup are not
    /// offered the job; 0: no limit.
    #[arg(long, env = "COURIER_DISPATCH_RADIUS_KM", default_value_t = 15.0, value_parser = parse_radius)]
    pub dispatch_radius_km: f64,

    /// The positions a courier may report a second, sustained, on one
    /// replica (docs/couriers.md "Positions"); more is refused with
    /// `rate_limited` and a retry delay. 0: no limit.
    #[arg(long, env = "COURIER_POSITIONS_PER_SECOND", default_value_t = 20.0, value_parser = parse_rate)]
    pub positions_per_second: f64,

    /// The positions a courier may report at once above that rate: a phone
    /// replaying what it took while offline.
    #[arg(long, env = "COURIER_POSITION_BURST", default_value_t = 3_600.0, value_parser = parse_rate)]
    pub position_burst: f64,
}

/// A number of positions: 0 or more.
fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err(format!("'{text}' is not a number of positions")),
    }
}

/// Who assigns live deliveries to couriers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DispatchMode {
    /// The core's dispatcher offers jobs to online couriers.
    #[default]
    Auto,
    /// An outside dispatch system assigns them over `DispatchService`.
    External,
}

/// A dispatch radius: 0 (no limit) or a positive number of kilometres.
fn parse_clock_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && (1.0..=1000.0).contains(&rate) => Ok(rate),
        _ => Err(format!("'{text}' is not a clock rate from 1 to 1000")),
    }
}

fn parse_radius(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(km) if km.is_finite() && km >= 0.0 => Ok(km),
        _ => Err(format!("'{text}' is not a number of kilometres (0: no limit)")),
    }
}

/// Settings of the S3-compatible store; all unset means the local directory.
#[derive(clap::Args, Clone, Default)]
pub struct S3Config {
    /// Endpoint of an S3-compatible store, e.g. `https://s3.eu-central-1.amazonaws.com`
    /// or `http://minio:9000`. Setting it selects S3 over the local directory.
    #[arg(
        id = "blob_s3_endpoint",
        value_name = "URL",
        long = "blob-s3-endpoint",
        env = "COURIER_BLOB_S3_ENDPOINT"
    )]
    pub endpoint: Option<String>,

    /// Bucket of the S3-compatible store (path-style addressing).
    #[arg(
        id = "blob_s3_bucket",
        value_name = "BUCKET",
        long = "blob-s3-bucket",
        env = "COURIER_BLOB_S3_BUCKET"
    )]
    pub bucket: Option<String>,

    /// Access key id of the S3-compatible store.
    #[arg(
        id = "blob_s3_access_key",
        value_name = "KEY_ID",
        long = "blob-s3-access-key",
        env = "COURIER_BLOB_S3_ACCESS_KEY"
    )]
    pub access_key: Option<String>,

    /// Secret access key of the S3-compatible store.
    #[arg(
        id = "blob_s3_secret_key",
        value_name = "SECRET",
        long = "blob-s3-secret-key",
        env = "COURIER_BLOB_S3_SECRET_KEY",
        hide_env_values = true
    )]
    pub secret_key: Option<String>,

    /// Signing region of the S3-compatible store (`us-east-1` when unset).
    #[arg(
        id = "blob_s3_region",
        value_name = "REGION",
        long = "blob-s3-region",
        env = "COURIER_BLOB_S3_REGION"
    )]
    pub region: Option<String>,
}

impl std::fmt::Debug for S3Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Config")
            .field("endpoint", &self.endpoint)
            .field("bucket", &self.bucket)
            .field("access_key", &self.access_key)
            .field("secret_key", &self.secret_key.as_ref().map(|_| "<redacted>"))
            .field("region", &self.region)
            .finish()
    }
}

/// The providers of recipient notifications (docs/notifications.md
/// "Providers"): a channel whose settings are missing sends nothing, which
/// the core says once at start-up.
#[derive(clap::Args, Clone)]
pub struct NotificationConfig {
    /// SMTP server of emails: `smtps://user:pass@host:465` (TLS),
    /// `smtp://user:pass@host:587?tls=required` (STARTTLS), or
    /// `smtp://127.0.0.1:2525` (plain, loopback only).
    #[arg(long, env = "COURIER_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// The address emails come from (the name is each workspace's).
    #[arg(long, env = "COURIER_SMTP_FROM", default_value = "deliveries@courier.localhost")]
    pub smtp_from: String,

    /// Twilio's API base URL (a stand-in's, in tests).
    #[arg(long, env = "COURIER_TWILIO_BASE_URL", default_value = "https://api.twilio.com")]
    pub twilio_base_url: String,

    /// Twilio account SID; with the token and the sender, SMS go out.
    #[arg(long, env = "COURIER_TWILIO_ACCOUNT_SID")]
    pub twilio_account_sid: Option<String>,

    /// Twilio auth token: signs Twilio's callbacks too.
    #[arg(long, env = "COURIER_TWILIO_AUTH_TOKEN", hide_env_values = true)]
    pub twilio_auth_token: Option<String>,

    /// The SMS sender: an E.164 number or a Messaging Service SID (`MG…`).
    #[arg(long, env = "COURIER_TWILIO_FROM")]
    pub twilio_from: Option<String>,

    /// How long one call to a provider may take.
    #[arg(long, env = "COURIER_NOTIFICATION_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub timeout: Duration,

    /// Multiplier of the retry schedule (the webhooks' 5 s, 30 s, 2 min, …);
    /// tests shrink it.
    #[arg(long, env = "COURIER_NOTIFICATION_RETRY_SCALE", default_value_t = 1.0, value_parser = parse_scale)]
    pub retry_scale: f64,
}

impl std::fmt::Debug for NotificationConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotificationConfig")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "<redacted>"))
            .field("smtp_from", &self.smtp_from)
            .field("twilio_base_url", &self.twilio_base_url)
            .field("twilio_account_sid", &self.twilio_account_sid)
            .field(
                "twilio_auth_token",
                &self.twilio_auth_token.as_ref().map(|_| "<redacted>"),
            )
            .field("twilio_from", &self.twilio_from)
            .field("timeout", &self.timeout)
            .field("retry_scale", &self.retry_scale)
            .finish()
    }
}

pub use courier::time::parse_duration;

/// A positive, finite multiplier such as `1`, `0.5` or `0.002`.
pub fn parse_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}

/// What a failed route answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RoutingFallback {
    /// `502 upstream_error`.
    #[default]
    Error,
    /// The offline estimate, logged and counted.
    Offline,
}

/// A weekday by its English name (`monday`, `Mon`).
fn parse_weekday(text: &str) -> Result<chrono::Weekday, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{text}': a weekday such as monday"))
}

/// A billing check interval: 10 ms to 1 minute (an overdue statement is
/// flagged at most a minute late: docs/billing.md "Overdue statements").
fn parse_billing_check(text: &str) -> Result<Duration, String> {
    let every = parse_duration(text)?;
    if every < Duration::from_millis(10) || every > Duration::from_secs(60) {
        return Err(format!("'{text}': the billing check runs every 10ms to 1m"));
    }
    Ok(every)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_scales() {
        assert_eq!(parse_scale("1"), Ok(1.0));
        assert_eq!(parse_scale("0.002"), Ok(0.002));
        for bad in ["0", "-1", "NaN", "inf", "x", ""] {
            assert!(parse_scale(bad).is_err(), "{bad}");
        }
    }
}
