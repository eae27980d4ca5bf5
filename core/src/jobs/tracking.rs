//! From couriers' positions to their jobs (docs/couriers.md "Positions"):
//! the worker that writes the buffered positions ([`positions::flush`]) and
//! then moves the ETAs of the deliveries their couriers hold, along each
//! courier's route, as the contract's `delivery.eta_updated` rule says (a
//! dropoff ETA that moves by a minute or more, while in transit, is
//! announced).

use std::collections::HashMap;

use tokio_util::sync::CancellationToken;

use super::route;
use crate::positions;
use crate::{Core, CoreResult, couriers, dispatch};
use courier_orders::routes::StopKind;
use courier_orders::statuses::Status;
use courier_orders::{assignments, deliveries};
use courier_store::runner::{Done, Runner, Work};

/// A courier's ETAs are computed again at most this often (a road router
/// is asked once per courier per interval, however often they report).
const ETA_EVERY_MICROS: i64 = 30 * 1_000_000;

/// Writes positions every [`positions::FLUSH_EVERY`] and moves ETAs, until
/// `stop`; a last write on the way out.
pub async fn run(core: Core, stop: CancellationToken) {
    let writer = Writer {
        core,
        computed: HashMap::new(),
    };
    Runner::every(positions::FLUSH_EVERY)
        .last_run_at_stop()
        .run(&stop, writer)
        .await
}

/// The position writer, with when each courier's ETAs were last computed.
struct Writer {
    core: Core,
    computed: HashMap<String, i64>,
}

impl Work for Writer {
    /// A write that fails keeps its positions for the next.
    async fn run(&mut self) -> CoreResult<Done> {
        let flushed = positions::flush(&self.core).await?;
        let now = self.core.clock.now_micros();
        self.computed.retain(|_, at| now - *at < ETA_EVERY_MICROS);
        for moved in flushed {
            if self.computed.contains_key(&moved.courier_id) {
                continue;
            }
            self.computed.insert(moved.courier_id.clone(), now);
            if let Err(error) = move_etas(&self.core, &moved.courier_id).await {
                tracing::warn!(%error, courier = %moved.courier_id, "ETAs not updated");
            }
        }
        Ok(Done::Idle)
    }
}

/// After the client changed job `job_id` (`deliveries::edit`): the route of
/// the courier holding it is kept as it now stands, and their ETAs moved
/// along it. A job nobody holds is weighed again by the next dispatch
/// round, woken now, and shown anew on the dispatch map.
pub async fn replan_after_edit(core: &Core, job_id: &str) -> CoreResult<()> {
    let Some(held) = assignments::open_for_job(&core.db, job_id).await? else {
        core.dispatch_wake.notify_one();
        core.map_wake.wake();
        return Ok(());
    };
    let courier = couriers::get(&core.db, &held.courier_id).await?;
    route::settle(core, &courier).await?;
    move_etas(core, &courier.id).await
}

/// The ETAs of the deliveries courier `courier_id` holds, from their
/// route (docs/guide.md "Several jobs per courier": a delivery later in
/// the route is later): the pickup and the dropoff, with the stops between
/// them, until they are at the pickup; the dropoff from the pickup on.
async fn move_etas(core: &Core, courier_id: &str) -> CoreResult<()> {
    let courier = couriers::get(&core.db, courier_id).await?;
    let route = route::current(core, &courier).await?;
    let mut held: Vec<String> = route
        .stops
        .iter()
        .filter(|stop| stop.job_id.starts_with("del_"))
        .map(|stop| stop.job_id.clone())
        .collect();
    held.sort_unstable();
    held.dedup();
    for delivery in deliveries::find_many(&core.db, &held).await? {
        let (pickup_eta, dropoff_eta) = match delivery.status {
            Status::CourierAssigned => (
                route.eta(&delivery.id, StopKind::Pickup),
                route.eta(&delivery.id, StopKind::Dropoff),
            ),
            Status::PickedUp | Status::InTransit => (None, route.eta(&delivery.id, StopKind::Dropoff)),
            _ => continue,
        };
        dispatch::update_etas(core, &delivery, pickup_eta, dropoff_eta).await?;
    }
    Ok(())
}
