//! From couriers' positions to their jobs (docs/couriers.md "Positions"):
//! the worker that writes the buffered positions ([`positions::flush`]) and
//! then moves the ETAs of the deliveries their couriers hold, as the
//! contract's `delivery.eta_updated` rule says (a dropoff ETA that moves by
//! a minute or more, while in transit, is announced).

use std::collections::HashMap;

use tokio_util::sync::CancellationToken;

use crate::dispatch;
use crate::positions::{self, Position};
use crate::{Core, CoreResult};
use courier_orders::deliveries;
use courier_orders::statuses::Status;
use courier_pricing::geo::GeoPoint;
use courier_pricing::routing::RoutePoint;
use courier_store::runner::{Done, Runner, Work};

/// A job's ETAs are computed again at most this often (a road router is
/// asked once per job per interval, however often its courier reports).
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

/// The position writer, with when each job's ETAs were last computed.
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
            if self.computed.contains_key(&moved.job_id) || !moved.job_id.starts_with("del_") {
                continue;
            }
            self.computed.insert(moved.job_id.clone(), now);
            if let Err(error) = move_etas(&self.core, &moved.job_id, &moved.position).await {
                tracing::warn!(%error, job = %moved.job_id, "ETA not updated");
            }
        }
        Ok(Done::Idle)
    }
}

/// The ETAs of delivery `delivery_id` from its courier's `position`: to the
/// pickup until they are there, to the dropoff from the pickup on.
async fn move_etas(core: &Core, delivery_id: &str, position: &Position) -> CoreResult<()> {
    let Some(delivery) = deliveries::find(&core.db, delivery_id).await? else {
        return Ok(());
    };
    let (pickup_eta, dropoff_eta) = match delivery.status {
        Status::CourierAssigned => (
            eta_from(core, position, delivery.route.pickup.point(), &delivery.vehicle_type_id).await,
            None,
        ),
        Status::PickedUp | Status::InTransit => (
            None,
            eta_from(
                core,
                position,
                delivery.route.dropoff.point(),
                &delivery.vehicle_type_id,
            )
            .await,
        ),
        _ => return Ok(()),
    };
    dispatch::update_etas(core, &delivery, pickup_eta, dropoff_eta).await
}

/// When a courier at `position` would reach `to` by the routing provider
/// for `vehicle_type_id` (`None` without a route).
pub async fn eta_from(core: &Core, position: &Position, to: GeoPoint, vehicle_type_id: &str) -> Option<i64> {
    let vehicle = core.catalog.vehicle_type(vehicle_type_id)?;
    let from = GeoPoint {
        latitude: position.latitude,
        longitude: position.longitude,
    };
    let leg = [
        RoutePoint {
            param: "position".into(),
            point: from,
        },
        RoutePoint {
            param: "to".into(),
            point: to,
        },
    ];
    let route = core.router.route(&leg, vehicle).await.ok()?;
    Some(core.clock.now_micros() + route.duration_min * 60_000_000)
}
