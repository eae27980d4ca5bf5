//! A closed-loop load generator: `concurrency` workers, each sending its
//! next request as soon as the previous one answered, for a fixed time.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Whether a request succeeded, with its whole body read as a client reads
/// it. A body left unread would close the connection instead of returning
/// it to the pool, so large answers would pay a new connection each.
pub async fn succeeded(sent: impl Future<Output = reqwest::Result<reqwest::Response>>) -> bool {
    match sent.await {
        Ok(answer) if answer.status().is_success() => answer.bytes().await.is_ok(),
        _ => false,
    }
}

/// What one load run measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub requests_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Requests that succeeded.
    pub completed: u64,
    pub errors: u64,
}

/// Runs `request(n)` (with a unique `n` per call) from `concurrency`
/// workers for `duration`; a request answers whether it succeeded.
pub async fn run<F, Fut>(concurrency: usize, duration: Duration, request: F) -> Stats
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send,
{
    let request = Arc::new(request);
    let counter = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + duration;
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (request, counter) = (request.clone(), counter.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut errors = 0;
                while Instant::now() < deadline {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let sent = Instant::now();
                    if request(n).await {
                        latencies.push(sent.elapsed());
                    } else {
                        errors += 1;
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for worker in workers {
        if let Ok((mut l, e)) = worker.await {
            latencies.append(&mut l);
            errors += e;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    Stats {
        requests_per_second: latencies.len() as f64 / elapsed,
        p50_ms: percentile_ms(&latencies, 0.50),
        p99_ms: percentile_ms(&latencies, 0.99),
        completed: latencies.len() as u64,
        errors,
    }
}

/// The `q` quantile of sorted `values`, in milliseconds (0 when empty).
pub fn percentile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index].as_secs_f64() * 1000.0
}

/// The median of each field over repeated runs.
pub fn median(runs: &[Stats]) -> Stats {
    let pick = |f: fn(&Stats) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or_default()
    };
    Stats {
        requests_per_second: pick(|s| s.requests_per_second),
        p50_ms: pick(|s| s.p50_ms),
        p99_ms: pick(|s| s.p99_ms),
        completed: runs.iter().map(|s| s.completed).sum(),
        errors: runs.iter().map(|s| s.errors).sum(),
    }
}
