//! Live tracking of one delivery for its owner (docs/guide.md "Tracking"):
//! the authoritative `tracking_available_at` and
//! courier position, the ETAs, and `WatchDelivery`, which pushes each change
//! as it happens.
//!
//! Reads the `deliveries` table, and couriers' positions ([`located`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use crate::jobs::route;
use crate::positions;
use crate::{Core, CoreResult};
use courier_identity::auth::{Mode, Principal};
use courier_orders::deliveries::{self, CourierLocation, Delivery};
use courier_orders::statuses::Status;

/// How often a watcher re-reads the delivery anyway: changes made by other
/// PostgreSQL replicas reach `Core::changes` through their announcements
/// (`cache_feed`), and this is the backstop for one that was lost.
const WATCH_POLL: Duration = Duration::from_secs(1);

/// `d` with its courier's last reported position as `courier.location`,
/// when a courier of the platform carries it and tracking is open
/// (docs/couriers.md "What each party sees"); positions are not written to
/// the delivery's row.
pub async fn located(core: &Core, d: Arc<Delivery>) -> CoreResult<Arc<Delivery>> {
    let now = core.clock.now_micros();
    let open = d.tracking_available_at.is_some_and(|at| at <= now) && !d.status.is_terminal();
    let Some(courier_id) = d.courier.as_ref().and_then(|c| c.id.clone()).filter(|_| open) else {
        return Ok(d);
    };
    let Some(position) = positions::latest(core, &courier_id).await? else {
        return Ok(d);
    };
    let mut located = (*d).clone();
    if let Some(courier) = located.courier.as_mut() {
        courier.location = Some(CourierLocation {
            latitude: position.latitude,
            longitude: position.longitude,
            recorded_at: Some(position.recorded_at),
        });
    }
    Ok(Arc::new(located))
}

/// What `GET /v1/deliveries/{id}/tracking` shows: the delivery with its
/// ETAs (`pickup_eta`, `dropoff_eta`), its courier's location only once
/// tracking is open, and how many of the courier's stops come before its
/// dropoff.
#[derive(Clone, Debug)]
pub struct Tracking {
    pub delivery: Arc<Delivery>,
    pub stops_before_dropoff: Option<usize>,
}

/// `GET /v1/deliveries/{id}/tracking` for `principal`.
pub async fn get(core: &Core, principal: &Principal, delivery_id: &str) -> CoreResult<Tracking> {
    let delivery = deliveries::get(core, principal, delivery_id).await?;
    let delivery = located(core, delivery).await?;
    let stops = stops_before_dropoff(core, &delivery).await?;
    Ok(view(delivery, stops, core.clock.now_micros()))
}

/// How many of its courier's stops come before `d`'s dropoff
/// (docs/guide.md "Several jobs per courier"): `None` before a courier has
/// it and once it ended; a test delivery's simulated courier carries it
/// alone.
pub async fn stops_before_dropoff(core: &Core, d: &Delivery) -> CoreResult<Option<usize>> {
    let courier_id = d.courier.as_ref().and_then(|c| c.id.as_deref());
    match courier_id {
        _ if d.status.is_terminal() || d.status == Status::Pending => Ok(None),
        Some(courier_id) if d.mode == Mode::Live => route::stops_before_dropoff(&core.db, courier_id, &d.id).await,
        _ => Ok(Some(0)),
    }
}

/// The tracking view of `delivery` at `now` (unix microseconds).
fn view(mut delivery: Arc<Delivery>, stops_before_dropoff: Option<usize>, now: i64) -> Tracking {
    let open = delivery.tracking_available_at.is_some_and(|at| at <= now);
    if !open
        && delivery.courier.as_ref().is_some_and(|c| c.location.is_some())
        && let Some(courier) = Arc::make_mut(&mut delivery).courier.as_mut()
    {
        courier.location = None;
    }
    Tracking {
        delivery,
        stops_before_dropoff,
    }
}

/// One message of `WatchDelivery`: the delivery (with its ETAs) as it is.
#[derive(Clone, Debug)]
pub struct WatchUpdate {
    pub delivery: Arc<Delivery>,
}

/// Watches delivery `delivery_id` of `principal`: the current state first,
/// then every change of status, ETA or courier (location included), until
/// the delivery ends (its final state is the last message) or the receiver
/// is dropped. An unknown delivery is an error before the stream starts.
pub async fn watch(
    core: &Core,
    principal: &Principal,
    delivery_id: &str,
) -> CoreResult<mpsc::Receiver<CoreResult<WatchUpdate>>> {
    let delivery = deliveries::get(core, principal, delivery_id).await?;
    let delivery = located(core, delivery).await?;
    let (sender, receiver) = mpsc::channel(16);
    let mut changes = core.changes.subscribe();
    let core = core.clone();
    let principal = principal.clone();
    tokio::spawn(async move {
        let mut ended = delivery.status.is_terminal();
        let mut last = delivery.clone();
        if sender.send(Ok(WatchUpdate { delivery })).await.is_err() {
            return;
        }
        let mut poll = tokio::time::interval(WATCH_POLL);
        while !ended {
            tokio::select! {
                () = sender.closed() => return,
                () = core.stopping.cancelled() => return,
                _ = poll.tick() => {}
                change = changes.recv() => match change {
                    Ok(id) if id != last.id => continue,
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                },
            }
            let read = match deliveries::get(&core, &principal, &last.id).await {
                Ok(current) => located(&core, current).await,
                Err(error) => Err(error),
            };
            let current = match read {
                Ok(current) => current,
                Err(error) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
            };
            if unchanged_for_watcher(&last, &current) {
                continue;
            }
            ended = current.status.is_terminal();
            let update = WatchUpdate {
                delivery: current.clone(),
            };
            if sender.send(Ok(update)).await.is_err() {
                return;
            }
            last = current;
        }
    });
    Ok(receiver)
}

/// Whether `current` shows a watcher nothing new over `last`: a move of the
/// schedule alone (`next_step_at`, never shown to clients) is no update.
fn unchanged_for_watcher(last: &Delivery, current: &Delivery) -> bool {
    *last
        == Delivery {
            next_step_at: last.next_step_at,
            ..current.clone()
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier_orders::deliveries::{Courier, CourierLocation};

    fn located(tracking_available_at: Option<i64>) -> Arc<Delivery> {
        Arc::new(Delivery {
            tracking_available_at,
            courier: Some(Courier {
                name: Some("Lena".into()),
                location: Some(CourierLocation {
                    latitude: 52.51,
                    longitude: 13.41,
                    recorded_at: Some(20),
                }),
                ..Courier::default()
            }),
            ..courier_orders::testing::sample_delivery()
        })
    }

    #[test]
    fn the_location_shows_once_tracking_is_open() {
        let location = |t: Tracking| t.delivery.courier.clone().and_then(|c| c.location);
        assert!(location(view(located(Some(10)), None, 10)).is_some());
        assert!(location(view(located(Some(11)), None, 10)).is_none());
        assert!(location(view(located(None), None, 10)).is_none());
    }

    #[test]
    fn a_moved_schedule_alone_is_no_update() {
        let last = courier_orders::testing::sample_delivery();
        let rescheduled = Delivery {
            next_step_at: Some(99),
            ..last.clone()
        };
        assert!(unchanged_for_watcher(&last, &rescheduled));
        let later_eta = Delivery {
            dropoff_eta: Some(99),
            ..last.clone()
        };
        assert!(!unchanged_for_watcher(&last, &later_eta));
    }
}
