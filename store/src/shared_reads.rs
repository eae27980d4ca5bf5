//! One read for identical requests in flight: the read side of group
//! commit. A request joins the next read of its key, never one already
//! under way, so what it gets was read after it arrived, exactly as if it
//! had read alone (docs/scaling.md, "List pages").
//!
//! The first request of a key starts a reader task and waits like every
//! other. The reader takes the requests waiting, reads once, answers them
//! all, and goes on while more arrived during the read; it ends when none
//! did. A read that fails is not shared: each request of that round reads
//! alone and gets its own error. A request whose reader is gone (it
//! panicked) reads alone too.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use crate::CoreResult;
use crate::metrics::SharedReadCounters;

/// What a waiting request gets: the round's value, or `None` when the
/// round's read failed and the request reads alone.
type Waiter<V> = oneshot::Sender<Option<V>>;

/// Reads in flight by key, each with the requests waiting for its next round.
pub struct SharedReads<V> {
    waiting: Mutex<HashMap<String, Vec<Waiter<V>>>>,
    counters: SharedReadCounters,
}

impl<V: Clone + Send + 'static> SharedReads<V> {
    pub fn new(counters: SharedReadCounters) -> SharedReads<V> {
        SharedReads {
            waiting: Mutex::default(),
            counters,
        }
    }

    /// `read()`'s value, from a round of `key` that started after this call.
    /// `key` must name everything the read depends on (the statement and
    /// its values): requests of one key get the same value.
    pub async fn read<F, Fut>(self: &Arc<Self>, key: String, read: F) -> CoreResult<V>
    where
        F: Fn() -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = CoreResult<V>> + Send + 'static,
    {
        self.counters.requested();
        let (sender, answer) = oneshot::channel();
        let first = match self.lock().entry(key.clone()) {
            Entry::Occupied(mut waiting) => {
                waiting.get_mut().push(sender);
                false
            }
            Entry::Vacant(vacant) => {
                vacant.insert(vec![sender]);
                true
            }
        };
        if first {
            tokio::spawn(rounds(self.clone(), key, read.clone()));
        }
        match answer.await {
            Ok(Some(value)) => Ok(value),
            Ok(None) | Err(_) => {
                self.counters.read();
                read().await
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Waiter<V>>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The reader of `key`: one read per round, while requests keep coming.
async fn rounds<V, F, Fut>(shared: Arc<SharedReads<V>>, key: String, read: F)
where
    V: Clone + Send + 'static,
    F: Fn() -> Fut,
    Fut: Future<Output = CoreResult<V>>,
{
    let mut reader = Reader {
        shared,
        key,
        done: false,
    };
    loop {
        let round = {
            let mut waiting = reader.shared.lock();
            let round = waiting.get_mut(&reader.key).map(std::mem::take).unwrap_or_default();
            if round.is_empty() {
                waiting.remove(&reader.key);
                break;
            }
            round
        };
        reader.shared.counters.read();
        let value = read().await.ok();
        for waiter in round {
            // A request that went away no longer waits.
            let _ = waiter.send(value.clone());
        }
    }
    reader.done = true;
}

/// Ends a reader's key when the reader stops early (a panic): its waiting
/// requests then read alone, and the next request of the key starts a new
/// reader instead of waiting for this one.
struct Reader<V: Clone + Send + 'static> {
    shared: Arc<SharedReads<V>>,
    key: String,
    done: bool,
}

impl<V: Clone + Send + 'static> Drop for Reader<V> {
    fn drop(&mut self) {
        if !self.done {
            self.shared.lock().remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CoreError;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::sync::Notify;

    type Read = Pin<Box<dyn Future<Output = CoreResult<usize>> + Send>>;

    fn shared() -> Arc<SharedReads<usize>> {
        Arc::new(SharedReads::new(SharedReadCounters::default()))
    }

    /// A read that counts its rounds and, while `gate` is given, waits for
    /// it before answering the round's number.
    fn counting(
        reads: Arc<AtomicUsize>,
        gate: Option<Arc<Notify>>,
    ) -> impl Fn() -> Read + Clone + Send + Sync + 'static {
        move || {
            let (reads, gate) = (reads.clone(), gate.clone());
            Box::pin(async move {
                let round = reads.fetch_add(1, Ordering::SeqCst) + 1;
                if let Some(gate) = gate {
                    gate.notified().await;
                }
                Ok(round)
            })
        }
    }

    #[tokio::test]
    async fn requests_that_arrive_during_a_read_share_the_next_one() {
        let shared = shared();
        let reads = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(Notify::new());
        let read = counting(reads.clone(), Some(gate.clone()));
        let first = tokio::spawn({
            let (shared, read) = (shared.clone(), read.clone());
            async move { shared.read("k".into(), read).await }
        });
        // The first round is under way once it counted itself.
        while reads.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let later: Vec<_> = (0..5)
            .map(|_| {
                let (shared, read) = (shared.clone(), read.clone());
                tokio::spawn(async move { shared.read("k".into(), read).await })
            })
            .collect();
        while shared.lock().get("k").map_or(0, Vec::len) < 5 {
            tokio::task::yield_now().await;
        }
        gate.notify_one();
        assert_eq!(first.await.expect("joins").expect("reads"), 1);
        // The second round started after all five arrived, and serves them.
        while reads.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        gate.notify_one();
        for request in later {
            assert_eq!(request.await.expect("joins").expect("reads"), 2);
        }
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        assert!(shared.lock().is_empty(), "the reader ended with its last round");
    }

    #[tokio::test]
    async fn other_keys_do_not_share() {
        let shared = shared();
        let reads = Arc::new(AtomicUsize::new(0));
        let read = counting(reads.clone(), None);
        let (a, b) = tokio::join!(shared.read("a".into(), read.clone()), shared.read("b".into(), read));
        assert_ne!(a.expect("reads"), b.expect("reads"));
    }

    #[tokio::test]
    async fn a_failed_round_leaves_each_request_to_read_alone() {
        let shared = shared();
        let attempts = Arc::new(AtomicUsize::new(0));
        let read = {
            let attempts = attempts.clone();
            move || {
                let attempts = attempts.clone();
                async move {
                    // The shared round fails; the request's own read succeeds.
                    match attempts.fetch_add(1, Ordering::SeqCst) {
                        0 => Err(CoreError::Internal("the database went away".into())),
                        n => Ok(n),
                    }
                }
            }
        };
        assert_eq!(shared.read("k".into(), read).await.expect("reads alone"), 1);
    }

    #[tokio::test]
    async fn a_reader_that_panics_leaves_no_key_behind() {
        let shared = shared();
        async fn read() -> CoreResult<usize> {
            panic!("the read panicked")
        }
        // The request's own read panics too, in its own task.
        let request = tokio::spawn({
            let shared = shared.clone();
            async move { shared.read("k".into(), read).await }
        });
        assert!(request.await.is_err());
        while !shared.lock().is_empty() {
            tokio::task::yield_now().await;
        }
        async fn fine() -> CoreResult<usize> {
            Ok(7)
        }
        assert_eq!(shared.read("k".into(), fine).await.expect("reads"), 7);
    }
}
