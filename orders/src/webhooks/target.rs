//! Webhook target checks: a customer-supplied URL must never make the platform
//! send requests into its own network (server-side request forgery).
//!
//! The API accepts only public HTTPS URLs and refuses private, local and
//! reserved targets with `400 invalid_webhook_url`, at registration and again
//! before every send (docs/guide.md "Webhooks"). The checks come in three
//! steps:
//!
//! 1. [`check_url_syntax`] at registration and before a send: length, scheme,
//!    no credentials, no local host names, and IP-literal hosts must be public.
//!    The `url` crate normalises every IPv4 spelling (decimal `2130706433`,
//!    octal `0177.0.0.1`, hex `0x7f.1`, shortened `127.1`) to an IPv4 host, so
//!    one address check covers them all.
//! 2. [`resolve_target`] before every send: resolves the host and refuses when
//!    *any* resolved address is not public. A DNS answer may change between the
//!    check and the connection (DNS rebinding), so the caller connects to the
//!    address this check returns, never to a second lookup.
//! 3. [`PinnedClients`]: an HTTP client that connects only to that address
//!    while TLS still verifies the host name, follows no redirects (a redirect
//!    could point anywhere) and ignores proxy settings.
//!
//! The development setting `COURIER_WEBHOOK_ALLOW_INSECURE` ([`TargetPolicy`])
//! allows plain `http` and this machine (loopback addresses, `localhost`) so
//! local receivers work; every other private, link-local, metadata or
//! reserved range stays refused (docs/API.md "Webhooks"). It is off by
//! default.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::time::Duration;

use courier::errors::ErrorCode;
use url::{Host, Url};

use courier_store::error::{CoreError, CoreResult};

/// Shortest accepted URL, in characters (docs/guide.md "Limits").
pub const MIN_URL_CHARS: usize = courier::limits::WEBHOOK_URL.min;
/// Longest accepted URL, in characters (docs/guide.md "Limits").
pub const MAX_URL_CHARS: usize = courier::limits::WEBHOOK_URL.max;

/// Longest wait for a DNS answer before the host counts as unresolvable (a
/// send is then retried), so a stuck resolver cannot hold a send: a send's
/// whole deadline, and so the lease of its queue row, is this plus the
/// receiver's 5 seconds.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest wait for the TCP (and TLS) connection of a webhook request.
pub const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Host-name suffixes that only ever name machines of a local network.
const LOCAL_NAME_SUFFIXES: &[&str] = &[".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];

/// Which webhook targets are allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetPolicy {
    /// Development setting (`COURIER_WEBHOOK_ALLOW_INSECURE`): allows plain
    /// `http` and loopback targets, nothing else. Off by default.
    pub allow_insecure: bool,
}

impl TargetPolicy {
    /// Whether a webhook may be sent to `ip`.
    fn allows(self, ip: IpAddr) -> bool {
        is_public_ip(ip) || (self.allow_insecure && ip.to_canonical().is_loopback())
    }

    /// Whether a host name may be used as it is: public names, and in
    /// development the names of this machine (`localhost`, `*.localhost`).
    fn allows_name(self, name: &str) -> bool {
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        !is_local_host_name(&name) || (self.allow_insecure && (name == "localhost" || name.ends_with(".localhost")))
    }

    fn ensure_allowed(self, ip: IpAddr) -> CoreResult<()> {
        if self.allows(ip) { Ok(()) } else { Err(non_public()) }
    }
}

/// Checks a webhook URL without network access and returns it parsed.
///
/// Refusals: a length outside 12..=2000 characters is `invalid_request`;
/// anything else (not an absolute URL, not `https`, credentials in the URL, no
/// host, a local host name, a non-public IP-literal host) is
/// `invalid_webhook_url`. Both name the `url` field.
pub fn check_url_syntax(url: &str, policy: TargetPolicy) -> CoreResult<Url> {
    let chars = url.chars().count();
    if !(MIN_URL_CHARS..=MAX_URL_CHARS).contains(&chars) {
        return Err(CoreError::invalid(
            "url",
            format!("url must be {MIN_URL_CHARS} to {MAX_URL_CHARS} characters (got {chars})."),
        ));
    }
    let parsed = Url::parse(url).map_err(|_| refused("The webhook URL is not a valid absolute URL."))?;
    match parsed.scheme() {
        "https" => {}
        "http" if policy.allow_insecure => {}
        _ => return Err(refused("The webhook URL must use https.")),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(refused("The webhook URL must not contain a user name or password."));
    }
    match parsed.host() {
        None => return Err(refused("The webhook URL must have a host.")),
        Some(Host::Domain(name)) => {
            if !policy.allows_name(name) {
                return Err(refused("The webhook URL must name a public host, not a local one."));
            }
        }
        Some(Host::Ipv4(ip)) => policy.ensure_allowed(IpAddr::V4(ip))?,
        Some(Host::Ipv6(ip)) => policy.ensure_allowed(IpAddr::V6(ip))?,
    }
    Ok(parsed)
}

/// Whether `name` (a lower-case domain as `url` yields it) only names machines
/// of a local network: `localhost`, names under `.localhost`, `.local`,
/// `.internal`, `.localdomain` or `.home.arpa`, and single-label names such as
/// `intranet` that only a local search domain can resolve.
fn is_local_host_name(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    name.is_empty()
        || name == "localhost"
        || name == "home.arpa"
        || !name.contains('.')
        || LOCAL_NAME_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// Looks up host names. A trait so tests can answer without DNS.
pub trait Resolver: Send + Sync {
    /// Every address `host` resolves to, each with `port`.
    fn lookup(
        &self,
        host: &str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + '_>>;
}

/// The operating system's resolver (`getaddrinfo`, via `tokio::net::lookup_host`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup(
        &self,
        host: &str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + '_>> {
        let host = host.to_owned();
        Box::pin(async move { Ok(tokio::net::lookup_host((host.as_str(), port)).await?.collect()) })
    }
}

/// Resolves the host of `url` (a URL accepted by [`check_url_syntax`]) and
/// returns the address to connect to, with the URL's port or the scheme's
/// default. Refuses with `invalid_webhook_url` when the host cannot be resolved
/// (error, no answer or no answer within [`LOOKUP_TIMEOUT`]) or when any
/// resolved address is one the policy refuses (not public; in development,
/// not public and not loopback): one private answer among public ones is
/// enough for a rebinding attack.
///
/// The caller must connect to the returned address (see [`pinned_client`]).
pub async fn resolve_target(url: &Url, policy: TargetPolicy, resolver: &dyn Resolver) -> CoreResult<SocketAddr> {
    let port = url
        .port_or_known_default()
        .ok_or_else(|| refused("The webhook URL has no port and its scheme has no default port."))?;
    let name = match url.host() {
        None => return Err(refused("The webhook URL must have a host.")),
        Some(Host::Ipv4(ip)) => return checked_address(SocketAddr::new(IpAddr::V4(ip), port), policy),
        Some(Host::Ipv6(ip)) => return checked_address(SocketAddr::new(IpAddr::V6(ip), port), policy),
        Some(Host::Domain(name)) => name,
    };
    let unresolvable = || refused(UNRESOLVABLE);
    let addresses = match tokio::time::timeout(LOOKUP_TIMEOUT, resolver.lookup(name, port)).await {
        Ok(Ok(addresses)) => addresses,
        Ok(Err(error)) => {
            tracing::debug!(host = name, %error, "webhook host lookup failed");
            return Err(unresolvable());
        }
        Err(_elapsed) => {
            tracing::debug!(host = name, "webhook host lookup timed out");
            return Err(unresolvable());
        }
    };
    let first = *addresses.first().ok_or_else(unresolvable)?;
    if let Some(private) = addresses.iter().find(|address| !policy.allows(address.ip())) {
        // The address stays in the log: telling the caller would reveal how
        // internal names resolve.
        tracing::info!(
            host = name,
            address = %private.ip(),
            "webhook host resolves to a non-public address"
        );
        return Err(non_public());
    }
    Ok(first)
}

/// `address` if the policy allows it.
fn checked_address(address: SocketAddr, policy: TargetPolicy) -> CoreResult<SocketAddr> {
    policy.ensure_allowed(address.ip())?;
    Ok(address)
}

/// HTTP clients pinned to a checked address, kept per (host, address) so
/// that sends to the same endpoint reuse their connections and TLS set-up
/// instead of building a client (and a handshake) per send. A client is
/// only ever used for the address it is pinned to, so the check before each
/// send still decides where the connection goes. Bounded: emptied when full.
#[derive(Debug, Default)]
pub struct PinnedClients {
    clients: std::sync::Mutex<HashMap<(String, SocketAddr), reqwest::Client>>,
}

/// Distinct (host, address) pairs kept before the cache starts over.
const MAX_PINNED_CLIENTS: usize = 1024;

impl PinnedClients {
    /// A client for `url` that connects only to `addr`.
    pub fn get(&self, url: &Url, addr: SocketAddr, timeout: Duration) -> CoreResult<reqwest::Client> {
        let key = (url.host_str().unwrap_or_default().to_owned(), addr);
        let mut clients = self.clients.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(client) = clients.get(&key) {
            return Ok(client.clone());
        }
        let client = pinned_client(url, addr, timeout)?;
        if clients.len() >= MAX_PINNED_CLIENTS {
            clients.clear();
        }
        clients.insert(key, client.clone());
        Ok(client)
    }
}

/// An HTTP client for one webhook request to `url` that connects only to
/// `addr` (from [`resolve_target`]): the host name is pinned to `addr`, so no
/// second DNS lookup happens, while TLS still verifies the certificate against
/// the host name. Redirects are not followed, proxies are not used, the whole
/// request is bounded by `timeout` and the connection by at most
/// [`MAX_CONNECT_TIMEOUT`].
///
/// An IP-literal host needs no pinning; `addr` must then be that same IP
/// (anything else is a caller bug, [`CoreError::Internal`]).
fn pinned_client(url: &Url, addr: SocketAddr, timeout: Duration) -> CoreResult<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .tls_backend_rustls()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout.min(MAX_CONNECT_TIMEOUT));
    let builder = match url.host() {
        Some(Host::Domain(name)) => builder.resolve(name, addr),
        Some(Host::Ipv4(ip)) if IpAddr::V4(ip) == addr.ip() => builder,
        Some(Host::Ipv6(ip)) if IpAddr::V6(ip) == addr.ip() => builder,
        Some(_) | None => {
            return Err(CoreError::Internal(format!(
                "webhook client pinned to {addr}, which is not the host of the URL"
            )));
        }
    };
    builder
        .build()
        .map_err(|error| CoreError::Internal(format!("webhook HTTP client: {error}")))
}

/// Whether `ip` is reachable on the public internet, i.e. in none of the
/// special-purpose ranges of the IANA registries (loopback, private, shared,
/// link-local, documentation, benchmarking, multicast, reserved, …).
///
/// Addresses that embed an IPv4 address are judged by it where a connection
/// would end up there: IPv4-mapped `::ffff:0:0/96` and NAT64 `64:ff9b::/96`.
/// The 6to4 block `2002::/16` is refused as a whole: 6to4 is deprecated (RFC
/// 7526), its relays are unreliable, and refusing it closes every path to an
/// embedded private IPv4 address. Outside `2000::/3`, the only IPv6 block
/// allocated for global unicast, every address is refused.
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_ipv4(ip),
        IpAddr::V6(ip) => is_public_ipv6(ip),
    }
}

/// A network of `prefix_len` leading bits.
struct Block<T> {
    network: T,
    prefix_len: u32,
}

const fn v4_block(network: Ipv4Addr, prefix_len: u32) -> Block<u32> {
    Block {
        network: network.to_bits(),
        prefix_len,
    }
}

const fn v6_block(network: Ipv6Addr, prefix_len: u32) -> Block<u128> {
    Block {
        network: network.to_bits(),
        prefix_len,
    }
}

impl Block<u32> {
    fn contains(&self, bits: u32) -> bool {
        let mask = u32::MAX.checked_shl(32 - self.prefix_len).unwrap_or(0);
        bits & mask == self.network
    }
}

impl Block<u128> {
    fn contains(&self, bits: u128) -> bool {
        let mask = u128::MAX.checked_shl(128 - self.prefix_len).unwrap_or(0);
        bits & mask == self.network
    }
}

/// IPv4 ranges that are not globally reachable.
const NON_PUBLIC_V4: &[Block<u32>] = &[
    v4_block(Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network"
    v4_block(Ipv4Addr::new(10, 0, 0, 0), 8),      // private
    v4_block(Ipv4Addr::new(100, 64, 0, 0), 10),   // shared address space (CGNAT)
    v4_block(Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback
    v4_block(Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local (cloud metadata)
    v4_block(Ipv4Addr::new(172, 16, 0, 0), 12),   // private
    v4_block(Ipv4Addr::new(192, 0, 0, 0), 24),    // IETF protocol assignments
    v4_block(Ipv4Addr::new(192, 0, 2, 0), 24),    // documentation (TEST-NET-1)
    v4_block(Ipv4Addr::new(192, 88, 99, 0), 24),  // 6to4 relay anycast
    v4_block(Ipv4Addr::new(192, 168, 0, 0), 16),  // private
    v4_block(Ipv4Addr::new(198, 18, 0, 0), 15),   // benchmarking
    v4_block(Ipv4Addr::new(198, 51, 100, 0), 24), // documentation (TEST-NET-2)
    v4_block(Ipv4Addr::new(203, 0, 113, 0), 24),  // documentation (TEST-NET-3)
    v4_block(Ipv4Addr::new(224, 0, 0, 0), 4),     // multicast
    v4_block(Ipv4Addr::new(240, 0, 0, 0), 4),     // reserved, with broadcast 255.255.255.255
];

/// IPv6 ranges that are not globally reachable (the mapped and NAT64 ranges
/// are handled before this table).
const NON_PUBLIC_V6: &[Block<u128>] = &[
    v6_block(Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96), // ::, ::1, IPv4-compatible
    v6_block(Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, 0, 0), 96), // IPv4-translated (SIIT)
    v6_block(Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48), // local-use NAT64
    v6_block(Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64), // discard-only
    v6_block(Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23), // IETF protocol assignments, Teredo
    v6_block(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    v6_block(Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16), // 6to4
    v6_block(Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation
    v6_block(Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16), // SRv6 SIDs
    v6_block(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7), // unique local
    v6_block(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10), // link-local
    v6_block(Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10), // site-local (deprecated)
    v6_block(Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8), // multicast
];

/// IPv4-mapped addresses, `::ffff:a.b.c.d`: a connection reaches the IPv4 address.
const IPV4_MAPPED: Block<u128> = v6_block(Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96);
/// The well-known NAT64 prefix, `64:ff9b::a.b.c.d`: a translator forwards to the
/// IPv4 address.
const NAT64_WELL_KNOWN: Block<u128> = v6_block(Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96);
/// Global unicast, the only IPv6 space allocated for public addresses.
const GLOBAL_UNICAST_V6: Block<u128> = v6_block(Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

fn is_public_ipv4(ip: Ipv4Addr) -> bool {
    let bits = ip.to_bits();
    !NON_PUBLIC_V4.iter().any(|block| block.contains(bits))
}

fn is_public_ipv6(ip: Ipv6Addr) -> bool {
    let bits = ip.to_bits();
    if IPV4_MAPPED.contains(bits) || NAT64_WELL_KNOWN.contains(bits) {
        return is_public_ipv4(embedded_ipv4(bits));
    }
    GLOBAL_UNICAST_V6.contains(bits) && !NON_PUBLIC_V6.iter().any(|block| block.contains(bits))
}

/// The IPv4 address in the last 32 bits.
fn embedded_ipv4(bits: u128) -> Ipv4Addr {
    Ipv4Addr::from_bits((bits & u128::from(u32::MAX)) as u32)
}

/// The message of a refusal because the host did not resolve: a state that
/// can pass (DNS outage, record not yet published), unlike the other refusals.
const UNRESOLVABLE: &str = "The webhook URL host could not be resolved.";

/// Whether `error` (from [`resolve_target`]) only says that the host did not
/// resolve: a sender may treat that like a network error and try again later.
pub fn is_unresolvable(error: &CoreError) -> bool {
    matches!(error, CoreError::Rejected { message, .. } if message == UNRESOLVABLE)
}

fn non_public() -> CoreError {
    refused("The webhook URL must point to a public address, not a private, local or reserved network.")
}

fn refused(message: &str) -> CoreError {
    CoreError::at(ErrorCode::InvalidWebhookUrl, "url", message)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::sync::Mutex;

    use super::*;

    const STRICT: TargetPolicy = TargetPolicy { allow_insecure: false };
    const INSECURE: TargetPolicy = TargetPolicy { allow_insecure: true };

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("test address")
    }

    fn rejection(result: CoreResult<impl std::fmt::Debug>) -> (ErrorCode, Option<String>, String) {
        match result {
            Err(CoreError::Rejected { code, param, message }) => (code, param, message),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    fn assert_refused_url(result: CoreResult<impl std::fmt::Debug>, case: &str) {
        let (code, param, _) = rejection(result);
        assert_eq!(code, ErrorCode::InvalidWebhookUrl, "{case}");
        assert_eq!(param.as_deref(), Some("url"), "{case}");
    }

    #[test]
    fn non_public_addresses_are_refused() {
        let cases = [
            // IPv4
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.255.255.255",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            // IPv6
            "::",
            "::1",
            "::127.0.0.1",
            "::8.8.8.8",
            "::ffff:127.0.0.1",
            "::ffff:7f00:1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:0:8.8.8.8",
            "64:ff9b::a00:1",
            "64:ff9b::127.0.0.1",
            "64:ff9b:1::8.8.8.8",
            "100::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:10::1",
            "2001:db8::1",
            "2002:c0a8:101::1",
            "2002:808:808::1",
            "3fff::1",
            "5f00::1",
            "fc00::1",
            "fd00::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "1::1",
            "4000::1",
        ];
        for case in cases {
            assert!(!is_public_ip(ip(case)), "{case} must not be public");
        }
    }

    #[test]
    fn public_addresses_are_accepted() {
        let cases = [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.215.14",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.255",
            "192.0.3.0",
            "192.88.98.255",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "203.0.112.255",
            "223.255.255.255",
            "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
            "2a00:1450:4001:80e::200e",
            "2001:200::1",
            "2001:4860:4860::8888",
            "3fff:1000::1",
            "::ffff:93.184.215.14",
            "64:ff9b::5db8:d70e",
        ];
        for case in cases {
            assert!(is_public_ip(ip(case)), "{case} must be public");
        }
    }

    #[test]
    fn url_crate_normalises_ipv4_spellings() {
        for url in [
            "https://127.0.0.1/",
            "https://2130706433/",
            "https://0x7f.1/",
            "https://127.1/",
            "https://0177.0.0.1/",
            "https://0x7f000001/",
        ] {
            let parsed = Url::parse(url).expect("valid URL");
            assert_eq!(parsed.host(), Some(Host::Ipv4(Ipv4Addr::LOCALHOST)), "{url}");
        }
        let mapped = Url::parse("https://[::ffff:127.0.0.1]/").expect("valid URL");
        assert_eq!(
            mapped.host(),
            Some(Host::Ipv6(Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1)))
        );
    }

    #[test]
    fn unsafe_urls_are_refused() {
        let cases = [
            "https://127.0.0.1/x",
            "https://2130706433/",
            "https://0x7f.1/",
            "https://127.1/",
            "https://0177.0.0.1/",
            "https://10.1.2.3/",
            "https://[::1]/",
            "https://[::ffff:127.0.0.1]/",
            "https://[::ffff:7f00:1]/",
            "https://[64:ff9b::a00:1]/",
            "https://[2002:c0a8:101::1]/",
            "https://[2001:0::1]/",
            "https://[fe80::1]/",
            "https://[fd00::1]/",
            "https://[::]/",
            "https://[::127.0.0.1]/",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/",
            "https://192.0.2.1/",
            "https://198.18.0.1/",
            "https://224.0.0.1/",
            "https://255.255.255.255/",
            "https://localhost/",
            "https://LOCALHOST./",
            "https://foo.localhost/",
            "https://printer.local/",
            "https://metadata.google.internal/",
            "https://router.localdomain/",
            "https://nas.home.arpa/",
            "https://intranet/",
            "https://intranet.:8443/",
            "http://example.com/hook",
            "https://user:pw@example.com/",
            "https://user@example.com/",
            "https://:pw@example.com/",
            "ftp://example.com/",
            "wss://example.com/",
            "not a url at all",
            "/relative/path/only",
        ];
        for case in cases {
            assert_refused_url(check_url_syntax(case, STRICT), case);
        }
    }

    #[test]
    fn public_https_urls_are_accepted() {
        for case in [
            "https://example.com/hooks",
            "https://93.184.215.14/",
            "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
            "https://hooks.example.com:8443/courier?x=1",
            "https://example.com./hooks",
        ] {
            let parsed = check_url_syntax(case, STRICT).unwrap_or_else(|e| panic!("{case}: {e:?}"));
            assert_eq!(parsed.scheme(), "https");
        }
    }

    #[test]
    fn insecure_policy_allows_plain_http_and_loopback_only() {
        for case in [
            "http://127.0.0.1:8080/hook",
            "http://127.8.9.10/hook",
            "http://localhost:3000/hook",
            "http://receiver.localhost/hook",
            "https://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://example.com/hooks",
        ] {
            check_url_syntax(case, INSECURE).unwrap_or_else(|e| panic!("{case}: {e:?}"));
        }
        // Every other private, link-local, metadata or reserved range, and
        // local names that resolve there, stay refused in development.
        for case in [
            "http://169.254.169.254/latest/meta-data/",
            "http://10.1.2.3/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
            "http://[fc00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[fd00:ec2::254]/",
            "http://intranet/",
            "http://printer.local/",
            "http://metadata.google.internal/",
            "ftp://127.0.0.1/",
            "http://u:p@127.0.0.1/",
        ] {
            assert_refused_url(check_url_syntax(case, INSECURE), case);
        }
    }

    #[test]
    fn url_length_limits_count_characters() {
        let exactly_12 = "https://a.io";
        assert_eq!(exactly_12.chars().count(), 12);
        check_url_syntax(exactly_12, STRICT).expect("12 characters are enough");

        let (code, param, _) = rejection(check_url_syntax("https://a.i", STRICT));
        assert_eq!((code, param.as_deref()), (ErrorCode::InvalidRequest, Some("url")));

        let base = "https://example.com/";
        let url_of = |chars: usize| format!("{base}{}", "a".repeat(chars - base.len()));
        check_url_syntax(&url_of(2000), STRICT).expect("2000 characters are allowed");
        let (code, param, _) = rejection(check_url_syntax(&url_of(2001), STRICT));
        assert_eq!((code, param.as_deref()), (ErrorCode::InvalidRequest, Some("url")));

        // Characters, not bytes: 2000 characters of which many are multi-byte.
        let wide = format!("{base}{}", "é".repeat(2000 - base.len()));
        assert!(wide.len() > 2000);
        check_url_syntax(&wide, STRICT).expect("2000 characters are allowed");
    }

    /// Answers every lookup with fixed addresses (with the asked port) or an error.
    struct FakeResolver {
        answer: Option<Vec<IpAddr>>,
        asked: Mutex<Vec<(String, u16)>>,
    }

    impl FakeResolver {
        fn answering(addresses: &[&str]) -> FakeResolver {
            FakeResolver {
                answer: Some(addresses.iter().map(|text| ip(text)).collect()),
                asked: Mutex::new(Vec::new()),
            }
        }

        fn failing() -> FakeResolver {
            FakeResolver {
                answer: None,
                asked: Mutex::new(Vec::new()),
            }
        }

        fn asked(&self) -> Vec<(String, u16)> {
            self.asked.lock().expect("not poisoned").clone()
        }
    }

    impl Resolver for FakeResolver {
        fn lookup(
            &self,
            host: &str,
            port: u16,
        ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + '_>> {
            self.asked.lock().expect("not poisoned").push((host.to_owned(), port));
            let answer = match &self.answer {
                Some(ips) => Ok(ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect()),
                None => Err(std::io::Error::other("no such host")),
            };
            Box::pin(std::future::ready(answer))
        }
    }

    fn url(text: &str) -> Url {
        Url::parse(text).expect("test URL")
    }

    #[tokio::test]
    async fn name_resolving_to_a_private_address_is_refused() {
        let resolver = FakeResolver::answering(&["10.0.0.5"]);
        let result = resolve_target(&url("https://hooks.example.com/x"), STRICT, &resolver).await;
        assert_refused_url(result, "private answer");
        assert_eq!(resolver.asked(), vec![("hooks.example.com".to_owned(), 443)]);
    }

    #[tokio::test]
    async fn name_resolving_to_a_public_address_returns_it() {
        let resolver = FakeResolver::answering(&["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]);
        let address = resolve_target(&url("https://hooks.example.com/x"), STRICT, &resolver)
            .await
            .expect("public answer");
        assert_eq!(address, "93.184.215.14:443".parse().expect("socket address"));

        let address = resolve_target(&url("https://hooks.example.com:8443/x"), STRICT, &resolver)
            .await
            .expect("public answer");
        assert_eq!(address.port(), 8443);
    }

    #[tokio::test]
    async fn any_private_address_among_public_ones_is_refused() {
        for answer in [
            ["93.184.215.14", "127.0.0.1"],
            ["169.254.169.254", "93.184.215.14"],
            ["93.184.215.14", "::ffff:10.0.0.1"],
        ] {
            let resolver = FakeResolver::answering(&answer);
            let result = resolve_target(&url("https://hooks.example.com/"), STRICT, &resolver).await;
            assert_refused_url(result, &format!("{answer:?}"));
        }
    }

    #[tokio::test]
    async fn unresolvable_names_are_refused() {
        for resolver in [FakeResolver::failing(), FakeResolver::answering(&[])] {
            let result = resolve_target(&url("https://hooks.example.com/"), STRICT, &resolver).await;
            let (code, param, message) = rejection(result);
            assert_eq!((code, param.as_deref()), (ErrorCode::InvalidWebhookUrl, Some("url")));
            assert!(message.contains("could not be resolved"), "{message}");
            let again = resolve_target(&url("https://hooks.example.com/"), STRICT, &FakeResolver::failing()).await;
            assert!(again.as_ref().is_err_and(is_unresolvable), "{again:?}");
        }
        let result = resolve_target(&url("http://localhost:8080/"), INSECURE, &FakeResolver::failing()).await;
        assert_refused_url(result, "unresolvable in development");
    }

    #[tokio::test]
    async fn only_lookup_failures_count_as_unresolvable() {
        let private = resolve_target(
            &url("https://hooks.example.com/"),
            STRICT,
            &FakeResolver::answering(&["10.0.0.5"]),
        )
        .await;
        assert!(private.as_ref().is_err_and(|e| !is_unresolvable(e)), "{private:?}");
        let syntax = check_url_syntax("http://example.com/hook", STRICT);
        assert!(syntax.as_ref().is_err_and(|e| !is_unresolvable(e)), "{syntax:?}");
    }

    #[tokio::test]
    async fn ip_literal_hosts_need_no_lookup() {
        let resolver = FakeResolver::failing();
        let address = resolve_target(&url("https://93.184.215.14/"), STRICT, &resolver)
            .await
            .expect("public literal");
        assert_eq!(address, "93.184.215.14:443".parse().expect("socket address"));
        let address = resolve_target(
            &url("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/"),
            STRICT,
            &resolver,
        )
        .await
        .expect("public literal");
        assert_eq!(address.port(), 8443);
        assert_refused_url(
            resolve_target(&url("https://127.1/"), STRICT, &resolver).await,
            "loopback literal",
        );
        assert!(resolver.asked().is_empty());
    }

    #[tokio::test]
    async fn insecure_policy_accepts_loopback_answers_only() {
        for answers in [&["10.0.0.5"][..], &["127.0.0.1", "169.254.169.254"], &["192.168.0.2"]] {
            let result = resolve_target(
                &url("http://dev.example.com/"),
                INSECURE,
                &FakeResolver::answering(answers),
            )
            .await;
            assert_refused_url(result, &format!("{answers:?}"));
        }
        let resolver = FakeResolver::answering(&["127.0.0.1"]);
        let address = resolve_target(&url("http://localhost:8080/hook"), INSECURE, &resolver)
            .await
            .expect("development target");
        assert_eq!(address, "127.0.0.1:8080".parse().expect("socket address"));
        let address = resolve_target(&url("http://127.0.0.1:8080/hook"), INSECURE, &resolver)
            .await
            .expect("development target");
        assert_eq!(address, "127.0.0.1:8080".parse().expect("socket address"));
    }

    /// Serves one request on a local socket with a redirect elsewhere and
    /// returns the request head it received.
    fn serve_one_redirect() -> (SocketAddr, std::thread::JoinHandle<String>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("local address");
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("accept");
            let mut head = Vec::new();
            let mut buffer = [0u8; 1024];
            while !head.windows(4).any(|window| window == b"\r\n\r\n") {
                let read = stream.read(&mut buffer).expect("read");
                if read == 0 {
                    break;
                }
                head.extend_from_slice(&buffer[..read]);
            }
            stream
                .write_all(
                    b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\n\
                      Content-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .expect("write");
            String::from_utf8_lossy(&head).into_owned()
        });
        (address, server)
    }

    #[tokio::test]
    async fn pinned_client_connects_to_the_pinned_address_and_keeps_redirects() {
        let (address, server) = serve_one_redirect();
        // The name does not exist in DNS: only the pin can make this connect.
        let target = url(&format!("http://hooks.courier-pin.invalid:{}/hook", address.port()));
        let client = pinned_client(&target, address, Duration::from_secs(5)).expect("client");
        let response = client.post(target.as_str()).body("{}").send().await.expect("response");
        assert_eq!(
            response.status().as_u16(),
            302,
            "the redirect is returned, not followed"
        );
        let head = server.join().expect("server thread").to_ascii_lowercase();
        assert!(head.starts_with("post /hook "), "{head}");
        assert!(
            head.contains(&format!("host: hooks.courier-pin.invalid:{}", address.port())),
            "{head}"
        );
    }

    #[test]
    fn pinned_client_refuses_an_address_that_is_not_the_literal_host() {
        let target = url("https://93.184.215.14/hook");
        pinned_client(
            &target,
            "93.184.215.14:443".parse().expect("addr"),
            Duration::from_secs(5),
        )
        .expect("same address");
        let result = pinned_client(&target, "10.0.0.1:443".parse().expect("addr"), Duration::from_secs(5));
        assert!(matches!(result, Err(CoreError::Internal(_))));
    }
}
