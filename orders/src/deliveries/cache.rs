//! Deliveries kept in memory for reads (`GET /v1/deliveries/{id}`, its
//! tracking, and the other reads by id), exact: a read never sees a
//! delivery older than the database would show it.
//!
//! On SQLite one serving process makes every change to deliveries
//! (`db::ServeLock`), so what it keeps is exact. PostgreSQL replicas change
//! deliveries behind each other's backs: there the cache keeps deliveries as
//! `cache_feed` allows (while other replicas' announcements arrive, each
//! evicting the delivery it names, and for one second at most), and this
//! replica's own writes are exact as below.
//!
//! Every change of a delivery row goes through [`super::update`], inside a
//! `db::WriteTransaction`, and holds a [`Writing`] mark on the delivery from
//! before its statement until its transaction has ended:
//! - while a delivery is being written, its reads bypass the cache (they
//!   read what the database shows, before or after the commit) and put
//!   nothing back;
//! - when the write ends, the delivery's slot moves to a new generation, and
//!   a read that started before that (it may have read the old row) cannot
//!   put its result back.
//!
//! Marks and generations are kept per slot (a hash of the id), so that
//! their memory is fixed; deliveries sharing a slot only bypass the cache
//! together.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::Delivery;
use courier_store::cache_feed::Freshness;
use courier_store::metrics::CacheCounters;

/// Deliveries kept at most: about 2 KiB each.
const CAPACITY: usize = 4_096;

/// Slots of write marks and generations.
const SLOTS: usize = 1_024;

#[derive(Debug)]
pub struct DeliveryCache {
    freshness: Freshness,
    counters: CacheCounters,
    hasher: RandomState,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Each delivery with when it was stored.
    deliveries: HashMap<String, (Arc<Delivery>, Instant)>,
    slots: Vec<Slot>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    generation: u64,
    /// Writes of the slot's deliveries whose transaction has not ended.
    writing: u32,
}

/// Where a read stood before it went to the database; see
/// [`DeliveryCache::put`].
#[derive(Clone, Copy, Debug)]
pub struct Ticket {
    slot: usize,
    generation: u64,
}

impl DeliveryCache {
    /// A cache that keeps deliveries as `freshness` allows.
    pub fn new(freshness: Freshness, counters: CacheCounters) -> DeliveryCache {
        DeliveryCache {
            freshness,
            counters,
            hasher: RandomState::new(),
            state: Mutex::new(State {
                deliveries: HashMap::new(),
                slots: vec![Slot::default(); SLOTS],
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every change under the lock is one insert, removal or counter
        // step: a panicking holder leaves nothing half done.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn slot(&self, id: &str) -> usize {
        (self.hasher.hash_one(id) % SLOTS as u64) as usize
    }

    /// The delivery as last read, unless it is being written.
    pub fn get(&self, id: &str) -> Option<Arc<Delivery>> {
        let freshness = &self.freshness;
        let slot = self.slot(id);
        let found = {
            let state = self.state();
            if state.slots[slot].writing > 0 {
                None
            } else {
                state
                    .deliveries
                    .get(id)
                    .filter(|(_, stored)| freshness.serves(*stored))
                    .map(|(delivery, _)| delivery.clone())
            }
        };
        self.counters.lookup(found.is_some());
        found
    }

    /// Take before reading delivery `id` from the database; `None` when what
    /// is read must not be kept (a write is under way, or no cache).
    pub fn ticket(&self, id: &str) -> Option<Ticket> {
        if !self.freshness.usable() {
            return None;
        }
        let slot = self.slot(id);
        let state = self.state();
        let Slot { generation, writing } = state.slots[slot];
        (writing == 0).then_some(Ticket { slot, generation })
    }

    /// Keeps `delivery`, read from the database after `ticket` was taken,
    /// unless a write of its slot began or ended since.
    pub fn put(&self, ticket: Ticket, delivery: Arc<Delivery>) {
        let mut state = self.state();
        let Slot { generation, writing } = state.slots[ticket.slot];
        if writing > 0 || generation != ticket.generation {
            return;
        }
        if state.deliveries.len() >= CAPACITY
            && let Some(evicted) = state.deliveries.keys().next().cloned()
        {
            state.deliveries.remove(&evicted);
        }
        state.deliveries.insert(delivery.id.clone(), (delivery, Instant::now()));
    }

    /// Forgets delivery `id`, changed by another replica: a read that began
    /// before cannot put its answer back.
    pub fn forget(&self, id: &str) {
        let slot = self.slot(id);
        let mut state = self.state();
        state.slots[slot].generation += 1;
        state.deliveries.remove(id);
    }

    /// Forgets every delivery; no read that began before puts its answer
    /// back.
    pub fn forget_all(&self) {
        let mut state = self.state();
        for slot in &mut state.slots {
            slot.generation += 1;
        }
        state.deliveries.clear();
    }

    /// Marks delivery `id` as being written until the returned mark drops:
    /// take it before the statement, drop it once the transaction ended.
    pub fn writing(self: &Arc<Self>, id: &str) -> Writing {
        let slot = self.slot(id);
        let mut state = self.state();
        state.slots[slot].writing += 1;
        state.deliveries.remove(id);
        Writing(Some((self.clone(), slot, id.to_owned())))
    }
}

/// A write of one delivery under way (see the module).
#[derive(Debug)]
pub struct Writing(Option<(Arc<DeliveryCache>, usize, String)>);

impl Drop for Writing {
    fn drop(&mut self) {
        let Some((cache, slot, id)) = self.0.take() else {
            return;
        };
        let mut state = cache.state();
        let slot = &mut state.slots[slot];
        slot.writing = slot.writing.saturating_sub(1);
        slot.generation += 1;
        state.deliveries.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::Status;

    fn delivery(id: &str, status: Status) -> Arc<Delivery> {
        Arc::new(Delivery {
            id: id.into(),
            status,
            ..crate::testing::sample_delivery()
        })
    }

    fn status_of(cache: &DeliveryCache, id: &str) -> Option<&'static str> {
        cache.get(id).map(|d| d.status.as_str())
    }

    #[test]
    fn a_read_from_before_a_write_is_not_kept() {
        let cache = Arc::new(DeliveryCache::new(Freshness::Exact, CacheCounters::default()));
        // Read before the write began, put back after it ended.
        let ticket = cache.ticket("del_1").expect("no write under way");
        drop(cache.writing("del_1"));
        cache.put(ticket, delivery("del_1", Status::Pending));
        assert_eq!(status_of(&cache, "del_1"), None);

        // Read while the write is under way: nothing to keep.
        let writing = cache.writing("del_1");
        assert!(cache.ticket("del_1").is_none());
        drop(writing);

        // Read after it: kept.
        let ticket = cache.ticket("del_1").expect("no write under way");
        cache.put(ticket, delivery("del_1", Status::CourierAssigned));
        assert_eq!(status_of(&cache, "del_1"), Some("courier_assigned"));
    }

    #[test]
    fn a_write_hides_the_delivery_until_its_transaction_ended() {
        let cache = Arc::new(DeliveryCache::new(Freshness::Exact, CacheCounters::default()));
        let ticket = cache.ticket("del_1").expect("ticket");
        cache.put(ticket, delivery("del_1", Status::Pending));
        let writing = cache.writing("del_1");
        assert_eq!(status_of(&cache, "del_1"), None);
        // A read that began before the write cannot put its answer back
        // while the write is under way either.
        cache.put(ticket, delivery("del_1", Status::Pending));
        assert_eq!(status_of(&cache, "del_1"), None);
        drop(writing);
        assert_eq!(status_of(&cache, "del_1"), None);
    }

    #[test]
    fn a_replica_without_announcements_keeps_nothing() {
        let feed = Arc::new(courier_store::cache_feed::Feed::default());
        let cache = Arc::new(DeliveryCache::new(Freshness::Announced(feed), CacheCounters::default()));
        assert!(cache.ticket("del_1").is_none());
        drop(cache.writing("del_1"));
        assert!(cache.get("del_1").is_none());
    }

    #[test]
    fn another_replicas_change_evicts_and_outdates_reads_under_way() {
        let cache = Arc::new(DeliveryCache::new(Freshness::Exact, CacheCounters::default()));
        let ticket = cache.ticket("del_1").expect("ticket");
        cache.put(ticket, delivery("del_1", Status::Pending));
        let read_under_way = cache.ticket("del_1").expect("ticket");
        cache.forget("del_1");
        assert_eq!(status_of(&cache, "del_1"), None);
        cache.put(read_under_way, delivery("del_1", Status::Pending));
        assert_eq!(status_of(&cache, "del_1"), None, "read before the change");
        let read_under_way = cache.ticket("del_1").expect("ticket");
        cache.forget_all();
        cache.put(read_under_way, delivery("del_1", Status::Pending));
        assert_eq!(status_of(&cache, "del_1"), None, "read before the reconnect");
    }

    #[test]
    fn a_full_cache_makes_room() {
        let cache = Arc::new(DeliveryCache::new(Freshness::Exact, CacheCounters::default()));
        for n in 0..=CAPACITY {
            let id = format!("del_{n}");
            let ticket = cache.ticket(&id).expect("ticket");
            cache.put(ticket, delivery(&id, Status::Pending));
        }
        assert_eq!(cache.state().deliveries.len(), CAPACITY);
        assert!(cache.get(&format!("del_{CAPACITY}")).is_some());
    }
}
