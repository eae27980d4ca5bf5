//! The fronts' connection to the core replicas (`COURIER_CORE_URL`;
//! docs/scaling.md "Core replicas behind the fronts"): one gRPC channel that
//! spreads calls over every core that answers its health check.
//!
//! - The setting lists one or more URLs separated by commas; each names a
//!   host that may resolve to several addresses (a Kubernetes headless
//!   Service). Names are resolved again every [`RESOLVE_EVERY`].
//! - Every address is probed with the gRPC health check every
//!   [`PROBE_EVERY`] on a connection of its own. Calls go to the addresses
//!   that answer `SERVING` (tonic's balancer, the less loaded of two picked
//!   at random); one that stops answering is taken out at the next probe and
//!   put back when it answers again, without a restart.
//! - While no address answers, calls go to all of them, so that they fail at
//!   once (`UNAVAILABLE`) instead of waiting for a core.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::Duration;

use tonic::transport::channel::Change;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// How often each core address is probed.
pub const PROBE_EVERY: Duration = Duration::from_millis(500);
/// How long a probe waits for its answer.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);
/// How often the cores' names are resolved again.
pub const RESOLVE_EVERY: Duration = Duration::from_secs(5);
/// How long a connection attempt to a core may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why `COURIER_CORE_URL` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CoreUrlError {
    #[error("COURIER_CORE_URL names no core")]
    Empty,
    #[error("not a core URL: {0:?} (expected http://host:port or https://host:port)")]
    Invalid(String),
}

/// One configured core URL: its scheme, host and port.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Target {
    scheme: String,
    host: String,
    port: u16,
}

/// The URLs of `setting`, separated by commas.
fn targets(setting: &str) -> Result<Vec<Target>, CoreUrlError> {
    let targets = setting
        .split(',')
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(|url| {
            let invalid = || CoreUrlError::Invalid(url.to_owned());
            let uri: Uri = url.parse().map_err(|_| invalid())?;
            let scheme = uri
                .scheme_str()
                .filter(|s| *s == "http" || *s == "https")
                .ok_or_else(invalid)?;
            let host = uri.host().filter(|host| !host.is_empty()).ok_or_else(invalid)?;
            let port = uri.port_u16().unwrap_or(if scheme == "https" { 443 } else { 80 });
            Ok(Target {
                scheme: scheme.to_owned(),
                // An IPv6 literal is written in brackets.
                host: host.trim_start_matches('[').trim_end_matches(']').to_owned(),
                port,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if targets.is_empty() {
        return Err(CoreUrlError::Empty);
    }
    Ok(targets)
}

/// One core address, as the balancer and the probes know it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Address {
    scheme: String,
    host: String,
    socket: SocketAddr,
}

impl Address {
    fn endpoint(&self) -> Result<Endpoint, tonic::transport::Error> {
        let endpoint = Endpoint::from_shared(format!("{}://{}", self.scheme, self.socket))?;
        // The name the URL gave: the authority calls carry (and TLS checks).
        let origin = format!("{}://{}:{}", self.scheme, self.host, self.socket.port())
            .parse::<Uri>()
            .unwrap_or_else(|_| endpoint.uri().clone());
        Ok(endpoint.origin(origin).connect_timeout(CONNECT_TIMEOUT))
    }
}

/// A channel to the cores `setting` names, balanced over those that serve;
/// the discovery task runs on the current Tokio runtime for as long as the
/// channel (or a clone) is in use.
pub fn connect(setting: &str) -> Result<Channel, CoreUrlError> {
    let targets = targets(setting)?;
    let (channel, changes) = Channel::balance_channel::<SocketAddr>(64);
    tokio::spawn(discover(targets, changes));
    Ok(channel)
}

/// Keeps the balancer's set equal to the serving addresses (or to every
/// address while none serves); ends when the channel is dropped.
async fn discover(targets: Vec<Target>, changes: tokio::sync::mpsc::Sender<Change<SocketAddr, Endpoint>>) {
    let mut addresses: Vec<Address> = Vec::new();
    let mut probes: HashMap<SocketAddr, HealthClient<Channel>> = HashMap::new();
    let mut balanced: HashSet<SocketAddr> = HashSet::new();
    let mut resolved_at: Option<tokio::time::Instant> = None;
    let mut tick = tokio::time::interval(PROBE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if changes.is_closed() {
            return;
        }
        if resolved_at.is_none_or(|at| at.elapsed() >= RESOLVE_EVERY) {
            let found = resolve(&targets).await;
            // A name that resolves to nothing for a moment keeps what it had.
            if !found.is_empty() {
                addresses = found;
            }
            resolved_at = Some(tokio::time::Instant::now());
            probes.retain(|socket, _| addresses.iter().any(|a| a.socket == *socket));
        }
        let mut serving = HashSet::new();
        for address in &addresses {
            let probe = match probes.get(&address.socket) {
                Some(probe) => probe.clone(),
                None => match address.endpoint() {
                    Ok(endpoint) => {
                        let probe = HealthClient::new(endpoint.connect_lazy());
                        probes.insert(address.socket, probe.clone());
                        probe
                    }
                    Err(error) => {
                        tracing::warn!(%error, address = %address.socket, "core address unusable");
                        continue;
                    }
                },
            };
            if serves(probe).await {
                serving.insert(address.socket);
            }
        }
        let wanted: HashSet<SocketAddr> = if serving.is_empty() {
            addresses.iter().map(|a| a.socket).collect()
        } else {
            serving
        };
        for gone in balanced.difference(&wanted) {
            tracing::info!(core = %gone, "core not serving: calls go to the others");
            if changes.send(Change::Remove(*gone)).await.is_err() {
                return;
            }
        }
        for address in addresses
            .iter()
            .filter(|a| wanted.contains(&a.socket) && !balanced.contains(&a.socket))
        {
            let Ok(endpoint) = address.endpoint() else {
                continue;
            };
            tracing::info!(core = %address.socket, "core in use");
            if changes.send(Change::Insert(address.socket, endpoint)).await.is_err() {
                return;
            }
        }
        balanced = wanted;
    }
}

/// Every address of every target, in order, without repeats.
async fn resolve(targets: &[Target]) -> Vec<Address> {
    let mut addresses = Vec::new();
    for target in targets {
        match tokio::net::lookup_host((target.host.as_str(), target.port)).await {
            Ok(found) => {
                for socket in found {
                    let address = Address {
                        scheme: target.scheme.clone(),
                        host: target.host.clone(),
                        socket,
                    };
                    if !addresses.contains(&address) {
                        addresses.push(address);
                    }
                }
            }
            Err(error) => tracing::warn!(%error, host = %target.host, "core name not resolved"),
        }
    }
    addresses
}

/// Whether the core behind `probe` answers its health check `SERVING`.
async fn serves(mut probe: HealthClient<Channel>) -> bool {
    let check = probe.check(HealthCheckRequest { service: String::new() });
    match tokio::time::timeout(PROBE_TIMEOUT, check).await {
        Ok(Ok(answer)) => answer.into_inner().status() == ServingStatus::Serving,
        Ok(Err(_)) | Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_list_urls_separated_by_commas() {
        let parsed = targets("http://core-a:50051, https://core.svc ,http://[::1]:7").expect("valid");
        let summary: Vec<_> = parsed
            .iter()
            .map(|t| format!("{} {} {}", t.scheme, t.host, t.port))
            .collect();
        assert_eq!(summary, ["http core-a 50051", "https core.svc 443", "http ::1 7"]);
        assert!(matches!(targets(" , "), Err(CoreUrlError::Empty)));
        for bad in ["core:50051", "ftp://core:1", "http://"] {
            assert!(matches!(targets(bad), Err(CoreUrlError::Invalid(_))), "{bad}");
        }
    }

    #[tokio::test]
    async fn names_resolve_to_every_address_once() {
        let targets = targets("http://127.0.0.1:1,http://127.0.0.1:1,http://127.0.0.1:2").expect("valid");
        let sockets: Vec<String> = resolve(&targets).await.iter().map(|a| a.socket.to_string()).collect();
        assert_eq!(sockets, ["127.0.0.1:1", "127.0.0.1:2"]);
    }
}
