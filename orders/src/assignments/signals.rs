//! Wakes for the watchers of couriers' feeds in this process
//! (`super::feed`): state the core holds, with no rule of its own.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::watch;

/// Wakes the watchers of a courier's feed in this process. Each watcher
/// holds its own [`Wake`]: a wake is kept for every watcher that has not
/// seen it yet, however many watch one courier (a stream of jobs, one of
/// positions) and whatever each is doing when it comes.
#[derive(Debug, Default)]
pub struct Signals(Mutex<HashMap<String, watch::Sender<()>>>);

impl Signals {
    /// A watcher of `courier_id`, woken by every wake from now on.
    pub fn subscribe(&self, courier_id: &str) -> Wake {
        Wake(
            self.lock()
                .entry(courier_id.to_owned())
                .or_insert_with(|| watch::channel(()).0)
                .subscribe(),
        )
    }

    /// Wakes the watchers of `courier_id`.
    pub fn wake(&self, courier_id: &str) {
        if let Some(sender) = self.lock().get(courier_id) {
            sender.send_modify(|_| {});
        }
    }

    /// Wakes every watcher in this process: after a time in which other
    /// replicas' announcements may have been missed.
    pub fn wake_all(&self) {
        for sender in self.lock().values() {
            sender.send_modify(|_| {});
        }
    }

    /// Forgets couriers nobody watches any more.
    pub fn forget_unwatched(&self) {
        self.lock().retain(|_, sender| sender.receiver_count() > 0);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<()>>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One watcher's wakes ([`Signals::subscribe`]). A wake that comes while
/// the watcher reads (between two waits) ends its next wait at once, so a
/// commit landing between a read and the next wait is read too.
#[derive(Debug)]
pub struct Wake(watch::Receiver<()>);

impl Wake {
    /// Waits for a wake this watcher has not seen yet.
    pub async fn woken(&mut self) {
        if self.0.changed().await.is_err() {
            // The sender lives while a receiver does (`forget_unwatched`),
            // so this is never reached; were it, no wake could come.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Signals;

    const AT_ONCE: Duration = Duration::from_millis(200);

    /// Two watchers of one courier (a stream of jobs, one of positions):
    /// one that waits again at once after a wake does not take the wake of
    /// the other, which was reading when it came.
    #[tokio::test]
    async fn a_wake_reaches_a_watcher_that_was_reading_when_it_came() {
        let signals = Signals::default();
        for _ in 0..1_000 {
            let mut reading = signals.subscribe("courier");
            let mut waiting = signals.subscribe("courier");
            let woken = tokio::spawn(async move {
                waiting.woken().await;
                waiting
            });
            tokio::task::yield_now().await;
            signals.wake("courier");
            let mut waiting = tokio::time::timeout(AT_ONCE, woken)
                .await
                .expect("the waiting watcher woke")
                .expect("task");
            // It waits again at once; the wake was one, and it saw it.
            assert!(
                tokio::time::timeout(Duration::from_millis(1), waiting.woken())
                    .await
                    .is_err()
            );
            tokio::time::timeout(AT_ONCE, reading.woken())
                .await
                .expect("the reading watcher finds the wake it has not seen");
        }
    }

    #[tokio::test]
    async fn watchers_of_nobody_are_forgotten_and_new_ones_miss_no_wake() {
        let signals = Signals::default();
        let watcher = signals.subscribe("a");
        signals.forget_unwatched();
        assert_eq!(signals.lock().len(), 1, "still watched");
        drop(watcher);
        signals.forget_unwatched();
        assert!(signals.lock().is_empty());
        let mut watcher = signals.subscribe("a");
        signals.wake_all();
        tokio::time::timeout(AT_ONCE, watcher.woken()).await.expect("woken");
    }
}
