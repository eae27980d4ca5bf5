//! `courier listen`: each event of the stream POSTed to a local URL as the
//! service's webhooks send it (the Event as body, Standard Webhooks headers
//! signed with the machine's secret), a line per event with the local
//! answer's status and latency.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::api::Failure;
use crate::stream::{EventStream, Streamed};

/// How long the local receiver may take to answer.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

/// Checks that `target` is an http(s) URL on this machine (a loopback
/// address or `localhost`), unless `allow_remote`.
pub fn check_target(target: &str, allow_remote: bool) -> Result<url::Url, Failure> {
    let url = url::Url::parse(target)
        .map_err(|error| Failure::Usage(format!("--forward-to {target} is not a URL: {error}")))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Failure::Usage(format!(
            "--forward-to {target} is not an http or https URL"
        )));
    }
    let local = match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(address)) => IpAddr::V4(address).is_loopback(),
        Some(url::Host::Ipv6(address)) => IpAddr::V6(address).is_loopback(),
        None => false,
    };
    if !local && !allow_remote {
        return Err(Failure::Usage(format!(
            "--forward-to {target} is not on this machine (localhost or a loopback address); \
             pass --allow-remote to forward events there anyway"
        )));
    }
    Ok(url)
}

/// What one forward came to.
pub struct Forwarded {
    pub status: Result<u16, String>,
    pub latency: Duration,
}

/// Forwards every event of `stream` to `target`, signed with `secret`,
/// calling `report` after each; returns only on a failure that ends the
/// stream.
pub async fn run(
    mut stream: EventStream,
    target: url::Url,
    secret: &str,
    types: &[String],
    mut report: impl FnMut(&Streamed, &Forwarded),
) -> Result<(), Failure> {
    let signer = standardwebhooks::Webhook::new(secret)
        .map_err(|error| Failure::Local(format!("the signing secret is not usable: {error}")))?;
    let http = reqwest::Client::builder()
        .user_agent(concat!("courier-cli/", env!("CARGO_PKG_VERSION")))
        .timeout(FORWARD_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| Failure::Local(format!("HTTP client: {error}")))?;
    loop {
        let streamed = stream.next().await?;
        let event_type = streamed.event["type"].as_str().unwrap_or_default();
        if !types.is_empty() && !types.iter().any(|t| t == event_type) {
            continue;
        }
        let forwarded = forward(&http, &signer, &target, &streamed).await;
        report(&streamed, &forwarded);
    }
}

async fn forward(
    http: &reqwest::Client,
    signer: &standardwebhooks::Webhook,
    target: &url::Url,
    streamed: &Streamed,
) -> Forwarded {
    let started = Instant::now();
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64);
    let signature = match signer.sign(&streamed.id, timestamp, streamed.data.as_bytes()) {
        Ok(signature) => signature,
        Err(error) => {
            return Forwarded {
                status: Err(format!("not signed: {error}")),
                latency: started.elapsed(),
            };
        }
    };
    let sent = http
        .post(target.clone())
        .header("content-type", "application/json")
        .header(standardwebhooks::HEADER_WEBHOOK_ID, &streamed.id)
        .header(standardwebhooks::HEADER_WEBHOOK_TIMESTAMP, timestamp.to_string())
        .header(standardwebhooks::HEADER_WEBHOOK_SIGNATURE, signature)
        .body(streamed.data.clone())
        .send()
        .await;
    Forwarded {
        status: sent.map(|answer| answer.status().as_u16()).map_err(|error| {
            let mut reason = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                reason = format!("{reason}: {cause}");
                source = cause.source();
            }
            reason
        }),
        latency: started.elapsed(),
    }
}

/// One `--json` line of a forward.
pub fn json_line(streamed: &Streamed, forwarded: &Forwarded) -> serde_json::Value {
    json!({
        "event_id": streamed.id,
        "type": streamed.event["type"],
        "delivery_id": streamed.event["data"]["id"],
        "status": forwarded.status.as_ref().ok(),
        "error": forwarded.status.as_ref().err(),
        "latency_ms": forwarded.latency.as_millis() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_targets_unless_allowed() {
        for local in [
            "http://localhost:3000/hooks",
            "http://127.0.0.1:3000/",
            "http://127.9.9.9/x",
            "http://[::1]:8080/h",
            "https://app.localhost/h",
        ] {
            assert!(check_target(local, false).is_ok(), "{local}");
        }
        for remote in [
            "http://example.com/hooks",
            "http://10.0.0.1/h",
            "http://[2001:db8::1]/h",
        ] {
            let refused = check_target(remote, false)
                .err()
                .map(|f| f.to_string())
                .unwrap_or_default();
            assert!(refused.contains("--allow-remote"), "{remote}: {refused}");
            assert!(check_target(remote, true).is_ok(), "{remote}");
        }
        assert!(check_target("ftp://localhost/x", true).is_err());
        assert!(check_target("not a url", true).is_err());
    }
}
