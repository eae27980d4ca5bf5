//! Live tracking of one delivery for its owner (docs/guide.md "Tracking"):
//! the authoritative `tracking_available_at` and
//! courier position, the ETAs, and `WatchDelivery`, which pushes each change
//! as it happens.
//!
//! Reads the `deliveries` table only.

use std::time::Duration;

use courier::time::micros_to_proto;
use courier::v1 as pb;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use crate::auth::Principal;
use crate::deliveries::{self, Delivery};
use crate::{Core, CoreResult};

/// How often a watcher re-reads the delivery anyway: changes made by other
/// PostgreSQL replicas reach `Core::changes` through their announcements
/// (`cache_feed`), and this is the backstop for one that was lost.
const WATCH_POLL: Duration = Duration::from_secs(1);

/// `GET /v1/deliveries/{id}/tracking` for `principal`.
pub async fn get(core: &Core, principal: &Principal, delivery_id: &str) -> CoreResult<pb::DeliveryTracking> {
    let delivery = deliveries::get(core, principal, delivery_id).await?;
    let delivery = deliveries::located(core, delivery).await?;
    Ok(view(core, &delivery))
}

/// The tracking view of `d` now: the courier's location only once tracking
/// is open.
fn view(core: &Core, d: &Delivery) -> pb::DeliveryTracking {
    let now = core.clock.now_micros();
    let open = d.tracking_available_at.is_some_and(|at| at <= now);
    let snapshot = deliveries::to_proto(d, &core.config.public_base_url);
    pb::DeliveryTracking {
        delivery_id: snapshot.id,
        status: snapshot.status,
        tracking_available_at: snapshot.tracking_available_at,
        tracking_url: snapshot.tracking_url,
        courier: snapshot.courier.map(|c| pb::Courier {
            location: c.location.filter(|_| open),
            ..c
        }),
        eta: Some(eta(d)),
    }
}

fn eta(d: &Delivery) -> pb::DeliveryEta {
    pb::DeliveryEta {
        pickup_at: d.pickup_eta.map(micros_to_proto),
        dropoff_at: d.dropoff_eta.map(micros_to_proto),
    }
}

/// One message of `WatchDelivery`: the delivery and its ETAs as they are.
pub type WatchUpdate = CoreResult<pb::WatchDeliveryResponse>;

/// Watches delivery `delivery_id` of `principal`: the current state first,
/// then every change of status, ETA or courier (location included), until
/// the delivery ends (its final state is the last message) or the receiver
/// is dropped. An unknown delivery is an error before the stream starts.
pub async fn watch(core: &Core, principal: &Principal, delivery_id: &str) -> CoreResult<mpsc::Receiver<WatchUpdate>> {
    let delivery = deliveries::get(core, principal, delivery_id).await?;
    let delivery = deliveries::located(core, delivery).await?;
    let (sender, receiver) = mpsc::channel(16);
    let mut changes = core.changes.subscribe();
    let core = core.clone();
    let principal = principal.clone();
    tokio::spawn(async move {
        let mut last = update_of(&core, &delivery);
        let mut ended = delivery.status.is_terminal();
        if sender.send(Ok(last.clone())).await.is_err() {
            return;
        }
        let mut poll = tokio::time::interval(WATCH_POLL);
        while !ended {
            tokio::select! {
                () = sender.closed() => return,
                () = core.stopping.cancelled() => return,
                _ = poll.tick() => {}
                change = changes.recv() => match change {
                    Ok(id) if id != delivery.id => continue,
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                },
            }
            let read = match deliveries::get(&core, &principal, &delivery.id).await {
                Ok(current) => deliveries::located(&core, current).await,
                Err(error) => Err(error),
            };
            let current = match read {
                Ok(current) => current,
                Err(error) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
            };
            let update = update_of(&core, &current);
            if update == last {
                continue;
            }
            ended = current.status.is_terminal();
            if sender.send(Ok(update.clone())).await.is_err() {
                return;
            }
            last = update;
        }
    });
    Ok(receiver)
}

fn update_of(core: &Core, d: &Delivery) -> pb::WatchDeliveryResponse {
    pb::WatchDeliveryResponse {
        delivery: Some(deliveries::to_proto(d, &core.config.public_base_url)),
        eta: Some(eta(d)),
    }
}
