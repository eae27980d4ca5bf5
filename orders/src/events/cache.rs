//! Events kept in memory for the events list. An event never changes once
//! recorded, so an entry needs no invalidation, on any replica: it is
//! exact for as long as the event exists. Events leave only by retention
//! (`history::purge_expired`), and a page's ids always come from the
//! database, so a purged event is never listed from memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Event;
use courier_store::metrics::CacheCounters;

/// Events kept at most: about 2 KiB each (the delivery snapshot).
const CAPACITY: usize = 4_096;

#[derive(Debug)]
pub struct EventCache {
    counters: CacheCounters,
    events: Mutex<HashMap<String, Arc<Event>>>,
}

impl EventCache {
    pub fn new(counters: CacheCounters) -> EventCache {
        EventCache {
            counters,
            events: Mutex::default(),
        }
    }

    /// Event `id` if kept.
    pub fn get(&self, id: &str) -> Option<Arc<Event>> {
        let found = self.lock().get(id).cloned();
        self.counters.lookup(found.is_some());
        found
    }

    /// Keeps `event`; when full, another event makes room.
    pub fn put(&self, event: Arc<Event>) {
        let mut events = self.lock();
        if events.len() >= CAPACITY
            && let Some(evicted) = events.keys().next().cloned()
        {
            events.remove(&evicted);
        }
        events.insert(event.id.clone(), event);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Event>>> {
        self.events.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::EventType;

    fn event(id: String) -> Arc<Event> {
        Arc::new(Event {
            id,
            event_type: EventType::Created,
            version: "2026-11-01".into(),
            created_at: 1,
            data: Vec::new(),
            changed_fields: Vec::new(),
        })
    }

    #[test]
    fn keeps_events_up_to_its_capacity() {
        let cache = EventCache::new(courier_store::metrics::CoreMetrics::default().cache_counters("events"));
        assert!(cache.get("evt_1").is_none());
        cache.put(event("evt_1".into()));
        assert_eq!(cache.get("evt_1").map(|e| e.id.clone()).as_deref(), Some("evt_1"));
        for n in 0..CAPACITY + 10 {
            cache.put(event(format!("evt_more_{n}")));
        }
        assert_eq!(cache.lock().len(), CAPACITY);
    }
}
