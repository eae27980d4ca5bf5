//! Who a web front's visitor is, for the core's sign-in throttle
//! (docs/access.md, "Sign-in throttle"): the TCP peer of the connection,
//! or, when that peer is one of the configured trusted proxies, the
//! rightmost address of the forwarding header that is not itself a
//! trusted proxy. A header sent by anyone else is ignored, so a client
//! cannot name its own address; and the front presents its service token
//! (role `front`) with the address, the only caller whose address the core
//! takes as said.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The TCP peer of the connection a request came on, as the server put it
/// in the request's extensions; a handler extracts it (`None` where the
/// request did not come from a socket, as in a router's own tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

impl<S: Send + Sync> axum::extract::OptionalFromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Option<Peer>, Self::Rejection> {
        Ok(parts.extensions.get::<Peer>().copied())
    }
}

/// Which header the trusted proxies write the client's address into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (ingress-nginx, most
    /// load balancers).
    #[default]
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client, for=proxy1`.
    Forwarded,
}

/// The fronts' settings for reading a visitor's address and telling the
/// core who they are.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct FrontArgs {
    /// The proxies in front of this server whose forwarding header is
    /// believed (CIDR ranges or addresses, separated by commas). Empty: the
    /// connection's peer is the client, and forwarding headers are ignored.
    #[arg(long, env = "COURIER_TRUSTED_PROXIES", default_value = "", value_parser = TrustedProxies::from_str)]
    pub trusted_proxies: TrustedProxies,
    /// The header the trusted proxies write the client's address into.
    #[arg(long, env = "COURIER_FORWARDED_HEADER", value_enum, default_value_t = ForwardedHeader::XForwardedFor)]
    pub forwarded_header: ForwardedHeader,
    /// A service token of role `front` (`courier-core token --role front`):
    /// the core then counts failed sign-ins per visitor address. Without
    /// it the core counts them per this front's own address.
    #[arg(long, env = "COURIER_SERVICE_TOKEN", hide_env_values = true)]
    pub service_token: Option<String>,
}

impl FrontArgs {
    /// The address of the visitor of a request that came from `peer`
    /// with `headers`.
    pub fn client_address(&self, peer: Option<Peer>, headers: &HeaderMap) -> String {
        match peer {
            Some(Peer(peer)) => self
                .trusted_proxies
                .client_of(peer.ip(), headers, self.forwarded_header)
                .to_string(),
            None => String::new(),
        }
    }

    /// `message` as a sign-in call of this front: with its service token,
    /// whose holder's `client_address` the core believes.
    pub fn sign_in<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(value) = self
            .service_token
            .as_deref()
            .map(str::trim)
            .filter(|token| !token.is_empty())
            .and_then(|token| format!("Bearer {token}").parse().ok())
        {
            request.metadata_mut().insert("authorization", value);
        }
        request
    }
}

/// Address ranges of trusted proxies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl FromStr for TrustedProxies {
    type Err = String;

    fn from_str(list: &str) -> Result<TrustedProxies, String> {
        list.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                item.parse::<IpNet>()
                    .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{item:?} is neither an address nor a CIDR range (10.0.0.0/8)"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl TrustedProxies {
    fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|range| range.contains(&address))
    }

    /// The client behind `peer`: `peer` itself unless it is trusted; else
    /// the rightmost hop of `header` that is not trusted. A hop that cannot
    /// be read ends the walk at the last trusted address (whatever is left
    /// of it was written by the client).
    pub fn client_of(&self, peer: IpAddr, headers: &HeaderMap, header: ForwardedHeader) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        for hop in hops(headers, header).into_iter().rev() {
            let Some(address) = hop else {
                return client;
            };
            client = address.to_canonical();
            if !self.trusts(client) {
                return client;
            }
        }
        client
    }
}

/// The hops of every `header` line, oldest first; `None` for one that is
/// not an address.
fn hops(headers: &HeaderMap, header: ForwardedHeader) -> Vec<Option<IpAddr>> {
    let name = match header {
        ForwardedHeader::XForwardedFor => "x-forwarded-for",
        ForwardedHeader::Forwarded => "forwarded",
    };
    let mut hops = Vec::new();
    for value in headers.get_all(name) {
        let Ok(value) = value.to_str() else {
            hops.push(None);
            continue;
        };
        for element in value.split(',') {
            hops.push(match header {
                ForwardedHeader::XForwardedFor => node(element),
                ForwardedHeader::Forwarded => element
                    .split(';')
                    .filter_map(|pair| pair.trim().split_once('='))
                    .find(|(key, _)| key.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, value)| node(value)),
            });
        }
    }
    hops
}

/// An address as a forwarding header writes it: `192.0.2.1`,
/// `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`, quoted or not.
fn node(text: &str) -> Option<IpAddr> {
    let text = text.trim().trim_matches('"');
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(socket) = text.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    text.strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(address, _)| address.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: &str, values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).expect("name"),
                value.parse().expect("value"),
            );
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let none = TrustedProxies::default();
        let forged = headers("x-forwarded-for", &["203.0.113.99"]);
        assert_eq!(
            none.client_of(ip("198.51.100.7"), &forged, ForwardedHeader::XForwardedFor),
            ip("198.51.100.7")
        );
        let proxies: TrustedProxies = "10.0.0.0/8".parse().expect("list");
        assert_eq!(
            proxies.client_of(ip("198.51.100.7"), &forged, ForwardedHeader::XForwardedFor),
            ip("198.51.100.7")
        );
    }

    #[test]
    fn behind_trusted_proxies_the_rightmost_untrusted_hop_is_the_client() {
        let proxies: TrustedProxies = "10.0.0.0/8, 192.168.1.1".parse().expect("list");
        // The client forged the first hop; the proxies appended the rest.
        let forwarded = headers("x-forwarded-for", &["203.0.113.99, 198.51.100.7", "192.168.1.1"]);
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &forwarded, ForwardedHeader::XForwardedFor),
            ip("198.51.100.7")
        );
        // Every hop trusted: the first is the client.
        let inside = headers("x-forwarded-for", &["10.9.9.9, 10.1.1.1"]);
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &inside, ForwardedHeader::XForwardedFor),
            ip("10.9.9.9")
        );
        // No header: the proxy itself.
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &HeaderMap::new(), ForwardedHeader::XForwardedFor),
            ip("10.1.2.3")
        );
    }

    #[test]
    fn an_unreadable_hop_ends_the_walk_at_the_last_trusted_address() {
        let proxies: TrustedProxies = "10.0.0.0/8".parse().expect("list");
        let garbage = headers("x-forwarded-for", &["198.51.100.7, not-an-address, 10.2.2.2"]);
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &garbage, ForwardedHeader::XForwardedFor),
            ip("10.2.2.2")
        );
    }

    #[test]
    fn forwarded_is_read_only_when_configured() {
        let proxies: TrustedProxies = "10.0.0.0/8".parse().expect("list");
        let mut both = headers(
            "forwarded",
            &[r#"for=198.51.100.7;proto=https, for="[2001:db8::1]:4711""#],
        );
        both.append("x-forwarded-for", "203.0.113.99".parse().expect("value"));
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &both, ForwardedHeader::Forwarded),
            ip("2001:db8::1")
        );
        assert_eq!(
            proxies.client_of(ip("10.1.2.3"), &both, ForwardedHeader::XForwardedFor),
            ip("203.0.113.99")
        );
    }

    #[test]
    fn a_mapped_ipv4_peer_matches_its_ipv4_range() {
        let proxies: TrustedProxies = "127.0.0.1".parse().expect("list");
        let forwarded = headers("x-forwarded-for", &["198.51.100.7"]);
        assert_eq!(
            proxies.client_of(ip("::ffff:127.0.0.1"), &forwarded, ForwardedHeader::XForwardedFor),
            ip("198.51.100.7")
        );
    }

    #[test]
    fn a_bad_range_is_refused_by_name() {
        let error = "10.0.0.0/8, nonsense".parse::<TrustedProxies>().expect_err("refused");
        assert!(error.contains("\"nonsense\""), "{error}");
    }
}
