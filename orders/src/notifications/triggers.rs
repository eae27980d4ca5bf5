//! Which change of a delivery fires which message (DECISIONS "Recipient
//! notifications"): read off the events a change records, in its
//! transaction, so a message is queued exactly when its change commits.

use super::Trigger;
use crate::deliveries::{CourierLocation, Delivery};
use crate::events::EventType;
use crate::statuses::Status;
use courier_pricing::geo::{GeoPoint, distance_km};

/// The dropoff is "arriving" when it is at most this far away in time…
pub const ARRIVING_WITHIN_MICROS: i64 = 5 * 60 * 1_000_000;
/// …or the courier at most this far from it.
pub const ARRIVING_WITHIN_KM: f64 = 0.3;

/// The trigger an event of `delivery` (as it is after the change) fires.
/// `failed` is fired by the move itself (`lifecycle::advance`), which knows
/// the delivery had been picked up.
pub fn fired_by(delivery: &Delivery, event_type: EventType, at: i64) -> Option<Trigger> {
    match (event_type, delivery.status) {
        (EventType::CourierAssigned, _) => Some(Trigger::CourierAssigned),
        (EventType::StatusUpdated, Status::PickedUp) => Some(Trigger::PickedUp),
        // The courier at the door before any ETA said so: still worth a word.
        (EventType::StatusUpdated, Status::AtDropoff) => Some(Trigger::Arriving),
        (EventType::EtaUpdated, Status::InTransit) if is_arriving(delivery, at) => Some(Trigger::Arriving),
        (EventType::Delivered, _) => Some(Trigger::Delivered),
        (EventType::Delayed, status) if !status.is_terminal() => Some(Trigger::Delayed),
        _ => None,
    }
}

/// Whether a delivery in transit is about to arrive at `now`: its dropoff
/// ETA at most 5 minutes away, or its courier within 300 m.
pub fn is_arriving(delivery: &Delivery, now: i64) -> bool {
    if delivery.status != Status::InTransit {
        return false;
    }
    let soon = delivery
        .dropoff_eta
        .is_some_and(|eta| eta - now <= ARRIVING_WITHIN_MICROS);
    let near = delivery
        .courier
        .as_ref()
        .and_then(|c| c.location.as_ref())
        .is_some_and(|l| is_near(delivery, l));
    soon || near
}

/// Whether a courier at `location` is within 300 m of `delivery`'s dropoff.
pub fn is_near(delivery: &Delivery, location: &CourierLocation) -> bool {
    let courier = GeoPoint::new(location.latitude, location.longitude);
    distance_km(courier, delivery.route.dropoff.point()) <= ARRIVING_WITHIN_KM
}

/// Whether a move from `from` to `to` ends a delivery without reaching its
/// recipient after its pickup.
pub fn fails(from: Status, to: Status) -> bool {
    to == Status::Cancelled && !from.before_pickup() && !from.is_terminal()
}
