//! The one loop of every background worker: it runs the worker's work at
//! once, then on a clock, early when woken, again at once while more is
//! due, never two runs closer than a gap, until its cancellation token
//! fires; a failed run is logged and the next one tries again. The logs of
//! a worker carry its name through the span `courier_server::workers::spawn` starts it in.
//! Beneath every domain crate, so that their workers run on it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::CoreResult;

/// What a run leaves to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// Nothing before the next tick or wake.
    Idle,
    /// More is due now: the next run starts at once (no sooner than the
    /// gap).
    More,
}

/// A worker's work, one run at a time.
pub trait Work: Send {
    fn run(&mut self) -> impl Future<Output = CoreResult<Done>> + Send;

    /// The next run starts because of a wake, not the clock.
    fn woken(&mut self) {}
}

/// A closure is work that keeps nothing from one run to the next.
impl<F, Fut> Work for F
where
    F: FnMut() -> Fut + Send,
    Fut: Future<Output = CoreResult<Done>> + Send,
{
    fn run(&mut self) -> impl Future<Output = CoreResult<Done>> + Send {
        self()
    }
}

/// When a worker runs.
#[derive(Debug)]
pub struct Runner {
    every: Duration,
    wake: Option<Arc<Notify>>,
    gap: Duration,
    last_run_at_stop: bool,
}

impl Runner {
    /// Runs every `every`, the first time at once. A run that takes longer
    /// delays the next tick rather than bunching ticks up after it.
    pub fn every(every: Duration) -> Runner {
        Runner {
            every,
            wake: None,
            gap: Duration::ZERO,
            last_run_at_stop: false,
        }
    }

    /// Runs also when `wake` is notified; a wake during a run starts the
    /// next one once it ends.
    pub fn woken_by(self, wake: Arc<Notify>) -> Runner {
        Runner {
            wake: Some(wake),
            ..self
        }
    }

    /// Starts runs no closer than `gap`, however often woken: a burst of
    /// wakes is one run.
    pub fn at_most_every(self, gap: Duration) -> Runner {
        Runner { gap, ..self }
    }

    /// Runs once more when stopped, for what the work holds in memory.
    pub fn last_run_at_stop(self) -> Runner {
        Runner {
            last_run_at_stop: true,
            ..self
        }
    }

    /// Runs `work` until `stop` fires.
    pub async fn run(self, stop: &CancellationToken, mut work: impl Work) {
        let mut tick = tokio::time::interval(self.every);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut started: Option<Instant> = None;
        let mut done = Done::Idle;
        loop {
            if done == Done::Idle {
                let woken = tokio::select! {
                    () = stop.cancelled() => break,
                    _ = tick.tick() => false,
                    () = notified(self.wake.as_deref()) => true,
                };
                if woken {
                    work.woken();
                }
            }
            let wait = started.map_or(Duration::ZERO, |at| self.gap.saturating_sub(at.elapsed()));
            if !wait.is_zero() {
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(wait) => {}
                }
            }
            if stop.is_cancelled() {
                break;
            }
            started = Some(Instant::now());
            done = once(&mut work).await;
        }
        if self.last_run_at_stop {
            once(&mut work).await;
        }
    }
}

/// Logs what a step of a run did, for runs whose steps go on whatever the
/// others did (a retention purge that fails must not stop the next): its
/// rows, as `done`, when there are any, or its failure, as `failed`.
pub fn log_step<T>(result: CoreResult<T>, done: &str, failed: &str)
where
    T: std::fmt::Display + Default + PartialEq,
{
    match result {
        Ok(rows) if rows == T::default() => {}
        Ok(rows) => tracing::info!(%rows, "{done}"),
        Err(error) => tracing::warn!(%error, "{failed}"),
    }
}

async fn once(work: &mut impl Work) -> Done {
    work.run().await.unwrap_or_else(|error| {
        tracing::warn!(%error, "background work failed; it runs again at its next turn");
        Done::Idle
    })
}

async fn notified(wake: Option<&Notify>) {
    match wake {
        Some(wake) => wake.notified().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::CoreError;
    use crate::testing::wait_until;

    const LIMIT: Duration = Duration::from_secs(5);

    /// Work that counts its runs in `runs` and answers `answers` in turn,
    /// then `Idle`.
    fn counted(runs: &Arc<AtomicUsize>, answers: Vec<CoreResult<Done>>) -> impl Work + 'static {
        let (runs, mut answers) = (runs.clone(), answers.into_iter());
        move || {
            runs.fetch_add(1, Ordering::SeqCst);
            let answer = answers.next().unwrap_or(Ok(Done::Idle));
            async move { answer }
        }
    }

    async fn runs_reach(runs: &AtomicUsize, wanted: usize) {
        wait_until(format!("{wanted} runs"), LIMIT, async || {
            match runs.load(Ordering::SeqCst) {
                n if n == wanted => Ok(()),
                n => Err(n),
            }
        })
        .await;
    }

    #[tokio::test]
    async fn runs_at_once_again_while_more_is_due_when_woken_and_once_more_at_stop() {
        let runs = Arc::new(AtomicUsize::new(0));
        let failed = Err(CoreError::Internal("the database is away".into()));
        let work = counted(&runs, vec![Ok(Done::More), failed, Ok(Done::More)]);
        let wake = Arc::new(Notify::new());
        let stop = CancellationToken::new();
        let runner = Runner::every(Duration::from_secs(3600))
            .woken_by(wake.clone())
            .last_run_at_stop();
        let running = tokio::spawn({
            let stop = stop.clone();
            async move { runner.run(&stop, work).await }
        });
        // The first run at once, then one more; a failure waits for the
        // next turn, here a wake.
        runs_reach(&runs, 2).await;
        wake.notify_one();
        runs_reach(&runs, 4).await;
        stop.cancel();
        running.await.expect("stopped");
        assert_eq!(runs.load(Ordering::SeqCst), 5, "one last run at the stop");
    }

    #[tokio::test]
    async fn runs_no_closer_than_the_gap() {
        let runs = Arc::new(AtomicUsize::new(0));
        let work = counted(&runs, vec![Ok(Done::More), Ok(Done::More)]);
        let gap = Duration::from_millis(40);
        let stop = CancellationToken::new();
        let started = Instant::now();
        let running = tokio::spawn({
            let stop = stop.clone();
            async move {
                Runner::every(Duration::from_secs(3600))
                    .at_most_every(gap)
                    .run(&stop, work)
                    .await
            }
        });
        runs_reach(&runs, 3).await;
        assert!(started.elapsed() >= 2 * gap, "{:?}", started.elapsed());
        stop.cancel();
        running.await.expect("stopped");
        assert_eq!(runs.load(Ordering::SeqCst), 3, "no run at the stop unless asked");
    }
}
