//! The per-key rate limits counted in Redis against counted in memory
//! (`--only limits`, BENCHMARKS.md): a second edge on the same core counts
//! every request in Redis (`COURIER_RATE_LIMIT_REDIS_URL`), with limits so
//! high that nothing is refused, and `GET /v1/deliveries/{id}` at 64
//! connections runs on it and on the bench's in-memory edge alternately.
//! Target: the Redis edge's rate at least 0.8 of the in-memory edge's.

use std::path::Path;
use std::time::Duration;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};

use crate::service::{BenchResult, Edge, Service};

/// Where Redis is, unless `COURIER_BENCH_REDIS_URL` says otherwise.
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";
/// How long the check waits on Redis.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Connections of the paired runs.
pub const CONNECTIONS: usize = 64;

/// The Redis the bench uses.
pub fn redis_url() -> String {
    std::env::var("COURIER_BENCH_REDIS_URL")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| DEFAULT_REDIS_URL.to_owned())
}

/// A plain connection to Redis speaking inline commands: enough to see that
/// it answers and which keys the edge wrote (blocking, with 2 s timeouts:
/// a handful of short exchanges outside the measured runs).
struct Redis {
    reader: BufReader<TcpStream>,
}

impl Redis {
    fn connect(url: &str) -> BenchResult<Redis> {
        let rest = url
            .strip_prefix("redis://")
            .ok_or_else(|| format!("{url}: only redis:// URLs are supported by the bench's check"))?;
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (password, host) = match authority.rsplit_once('@') {
            Some((user, host)) => (Some(user.rsplit(':').next().unwrap_or(user).to_owned()), host),
            None => (None, authority),
        };
        let host = if host.contains(':') {
            host.to_owned()
        } else {
            format!("{host}:6379")
        };
        let unreachable = |error: std::io::Error| format!("Redis at {url} is unreachable: {error}");
        let addr = host
            .to_socket_addrs()
            .map_err(unreachable)?
            .next()
            .ok_or_else(|| format!("Redis at {url}: {host} resolves to no address"))?;
        let stream = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(unreachable)?;
        stream.set_read_timeout(Some(TIMEOUT))?;
        stream.set_write_timeout(Some(TIMEOUT))?;
        let mut redis = Redis {
            reader: BufReader::new(stream),
        };
        if let Some(password) = password.filter(|p| !p.is_empty()) {
            redis.command(&format!("AUTH {password}"))?;
        }
        if let Some(db) = path.split('?').next().filter(|db| !db.is_empty()) {
            redis.command(&format!("SELECT {db}"))?;
        }
        let pong = redis
            .command("PING")
            .map_err(|error| format!("Redis at {url} did not answer PING: {error}"))?;
        if pong != "+PONG" {
            return Err(format!("Redis at {url} answered PING with {pong}").into());
        }
        Ok(redis)
    }

    /// Sends one inline command and reads the first line of its answer.
    fn command(&mut self, command: &str) -> BenchResult<String> {
        self.reader.get_mut().write_all(format!("{command}\r\n").as_bytes())?;
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let line = line.trim_end().to_owned();
        if line.starts_with('-') {
            return Err(format!("Redis refused {command}: {line}").into());
        }
        Ok(line)
    }

    /// Scripts Redis has run since it started (`EVALSHA`, `EVAL` and
    /// `FCALL` in `INFO commandstats`): the edge takes each token in one.
    fn scripts_run(&mut self) -> BenchResult<u64> {
        let head = self.command("INFO commandstats")?;
        let length: usize = head
            .strip_prefix('$')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("Redis answered INFO with {head}"))?;
        let mut body = vec![0; length + 2];
        std::io::Read::read_exact(&mut self.reader, &mut body)?;
        let text = String::from_utf8_lossy(&body);
        Ok(text
            .lines()
            .filter(|line| {
                ["cmdstat_evalsha:", "cmdstat_eval:", "cmdstat_fcall:"]
                    .iter()
                    .any(|name| line.starts_with(name))
            })
            .filter_map(|line| {
                let calls = line.split_once("calls=")?.1;
                calls.split(',').next()?.parse::<u64>().ok()
            })
            .sum())
    }
}

/// Requests the check sends to the Redis edge.
const CHECK_REQUESTS: u64 = 100;
/// What the edge logs when it cannot reach Redis and counts in memory.
const OUTAGE: &str = "Redis unreachable";

/// The edge that counts in Redis, and what its check found.
pub struct RedisEdge {
    pub edge: Edge,
    log: std::path::PathBuf,
}

impl RedisEdge {
    /// Stops the edge; an error if it lost Redis at any time (it then
    /// counted in memory and the figures are not the Redis limiter's).
    pub async fn stop(self) -> BenchResult<()> {
        self.edge.stop().await;
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        if log.contains(OUTAGE) {
            return Err(format!("the Redis edge lost Redis during the runs (see {})", self.log.display()).into());
        }
        Ok(())
    }
}

/// Starts the edge that counts in Redis and checks that it does: every
/// request answers with `RateLimit-*` headers, and Redis runs a script for
/// each (a token bucket lives a millisecond at the bench's limits, too
/// short to find its key).
pub async fn start_redis_edge(
    bin_dir: &Path,
    service: &Service,
    client: &reqwest::Client,
    delivery_id: &str,
) -> BenchResult<RedisEdge> {
    let url = redis_url();
    let mut redis = Redis::connect(&url)?;
    let prefix = format!("courier-bench:{}:", std::process::id());
    let log_name = "edge-redis.log";
    let edge = service
        .start_edge(
            bin_dir,
            &[
                ("COURIER_RATE_LIMIT_REDIS_URL", url.as_str()),
                ("COURIER_RATE_LIMIT_REDIS_PREFIX", prefix.as_str()),
            ],
            log_name,
        )
        .await?;
    let edge = RedisEdge {
        edge,
        log: service.database.dir.join(log_name),
    };
    let before = redis.scripts_run()?;
    for _ in 0..CHECK_REQUESTS {
        let answer = client
            .get(format!("{}/v1/deliveries/{delivery_id}", edge.edge.base_url))
            .header("x-api-key", &service.live_key)
            .send()
            .await?;
        let limited = answer.headers().contains_key("ratelimit-remaining");
        if !answer.status().is_success() || !limited {
            let status = answer.status();
            edge.edge.stop().await;
            return Err(format!("the Redis edge answered GET with {status} (RateLimit-* headers: {limited})").into());
        }
    }
    let counted = redis.scripts_run()?.saturating_sub(before);
    if counted < CHECK_REQUESTS {
        edge.edge.stop().await;
        return Err(format!(
            "the edge with COURIER_RATE_LIMIT_REDIS_URL={url} ran {counted} scripts in Redis for {CHECK_REQUESTS} requests: it does not count there"
        )
        .into());
    }
    Ok(edge)
}
