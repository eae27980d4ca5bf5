//! The platform's outside message providers: text messages through
//! Twilio's Messages API ([`sms`]), email over SMTP ([`email`]), and the
//! signature Twilio puts on the callbacks it sends us
//! ([`twilio_signature`]). Each send answers what the provider took
//! ([`Accepted`]) or whether trying again can help ([`SendError`]): the
//! notification outbox (`courier-orders`) keeps the messages, their
//! attempts and their retries. No database and no wire format of ours.
//!
//! [`testing`] holds real protocol peers on loopback (a Twilio stand-in, an
//! SMTP server) for the tests of every crate and the benchmark.

pub mod email;
pub mod sms;
pub mod testing;
pub mod twilio_signature;

/// What a provider said when it took a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The provider's name for the message: Twilio's `SM…` sid, or the
    /// email's Message-ID; status callbacks name the message by it.
    pub provider_message_id: String,
    /// The provider's word for where the message is (`queued`, `sent`).
    pub status: String,
}

/// Why a send did not go out, split by what the outbox does next.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The provider refused this message for good (e.g. Twilio 400 with code
    /// 21211 invalid 'To'); do not retry.
    #[error("{0}")]
    Rejected(String),
    /// Not taken this time (connection refused, timeout, 5xx, 429): retry
    /// later.
    #[error("{0}")]
    Unavailable(String),
}

/// A provider's settings that cannot work, found when the client is built
/// (at start-up) rather than at the first send.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

/// Whether `host` (a URL's host) is this machine: the only place plain
/// HTTP or SMTP is allowed to, since a credential sent in clear to a
/// loopback peer never leaves the machine. An `smtp://` URL's IPv4 address
/// comes as a name (the URL standard parses addresses for http(s) only).
fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => {
            name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// Runs a test's body under a limit, so that a peer that never answers
/// fails the test instead of hanging it.
#[cfg(test)]
async fn within<T>(body: impl Future<Output = T>) -> T {
    const LIMIT: std::time::Duration = std::time::Duration::from_secs(30);
    tokio::time::timeout(LIMIT, body)
        .await
        .unwrap_or_else(|_| panic!("the test took longer than {LIMIT:?}"))
}
