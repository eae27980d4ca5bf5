//! The fleet's rules over orders (ARCHITECTURE.md, "Crates"): couriers,
//! their positions, automatic and manual dispatch, couriers' jobs, the
//! dispatch map, what tracking shows, and who is calling (`caller`);
//! `courier-server` serves them and `courier-orders`' over gRPC
//! (`courier.v1` to the edge and mobile teams, `courier.internal.v1` to
//! dispatch, billing and the back office) and runs their workers.
//!
//! Domain modules decide; the server decodes requests, asks them and
//! encodes their answers.

pub mod audit_log;
pub mod auto_dispatch;
pub mod caller;
pub mod couriers;
pub mod demo;
pub mod dispatch;
pub mod dispatch_map;
pub mod jobs;
pub mod plans;
pub mod positions;
pub mod public_tracking;
pub mod testing;
pub mod tracking;

use std::borrow::Borrow;
use std::sync::Arc;

use courier_identity::Identity;
use courier_orders::Orders;
pub use courier_store::{CoreError, CoreResult, Store};

/// Everything a request or worker of the core needs, cheap to clone: the
/// rules of orders beneath (`Orders`, which it derefs to, and through it
/// `Identity` and the `Store`) and the state of the fleet's rules.
#[derive(Clone)]
pub struct Core {
    pub orders: Orders,
    /// Dispatch maps being read, shared by the watchers of one map.
    pub map_reads: Arc<courier_store::shared_reads::SharedReads<Arc<dispatch_map::model::Map>>>,
    /// Couriers' positions taken in and not yet written (`positions`).
    pub positions: Arc<positions::intake::Intake>,
}

impl std::ops::Deref for Core {
    type Target = Orders;

    fn deref(&self) -> &Orders {
        &self.orders
    }
}

/// A courier's sessions end on the core's handle (`couriers::sessions`).
impl Borrow<Identity> for Core {
    fn borrow(&self) -> &Identity {
        &self.orders.identity
    }
}

impl Core {
    /// Opens the store (the database, migrated; secrets; the blob store) and
    /// loads the catalogue and the router; `wire` writes what the domain
    /// keeps of answers and events.
    pub async fn start(
        config: courier_store::config::CoreConfig,
        clock: courier_store::clock::Clock,
        wire: Arc<dyn courier_orders::wire::Wire>,
    ) -> CoreResult<Core> {
        let store = Store::open(config, clock).await?;
        let map_reads = courier_store::shared_reads::SharedReads::new(store.metrics.dispatch_map_reads());
        Ok(Core {
            orders: Orders::new(Identity::new(store), wire)?,
            map_reads: Arc::new(map_reads),
            positions: Arc::default(),
        })
    }
}

/// What this replica does with another replica's announced change
/// (`courier_store::cache_feed::listen`): evict it from the caches and wake
/// the streams and workers that wait for it.
impl courier_store::cache_feed::Listener for Core {
    fn connected(&self) {
        self.keys.forget_all();
        self.delivery_cache.forget_all();
        // Couriers' streams check what they may have missed (a suspension,
        // a sign-out on another replica).
        self.courier_signals.wake_all();
    }

    fn changed(&self, change: courier_store::cache_feed::Change) {
        use courier_store::cache_feed::Change;
        match change {
            Change::Keys => self.keys.forget_all(),
            Change::Delivery { id, .. } => {
                // Evicted first: the streams woken read it anew.
                self.delivery_cache.forget(&id);
                self.changes.publish(&id);
                // It may have queued webhooks for this replica's dispatcher
                // to send.
                self.webhook_wake.notify_one();
            }
            Change::Couriers { ids, .. } => {
                for id in ids {
                    self.courier_signals.wake(&id);
                }
                self.map_wake.wake();
            }
        }
    }
}
