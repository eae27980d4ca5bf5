//! A delivery and a fleet order as the public API shows them
//! (`courier.v1.Delivery`, `courier.v1.FleetOrder`): the answer of every
//! delivery RPC and the snapshot kept with each event (`wire`).

use courier::time::micros_to_proto;
use courier::v1 as pb;
use prost::Message;

use super::enums::ToProto;
use courier_core::{CoreError, CoreResult};
use courier_identity::auth::Mode;
use courier_orders::deliveries::{Batching, Courier, Delivery, ProofRequirements, UndeliverableAction};
use courier_orders::events::Event;
use courier_orders::fleet::FleetOrder;
use courier_orders::validate::{ContactInput, WaypointInput};
use courier_orders::windows::Window;
use courier_pricing::prices::Breakdown;

pub fn to_proto(d: &Delivery, public_base_url: &str) -> pb::Delivery {
    let (pickup_eta, dropoff_eta) = d.etas();
    pb::Delivery {
        id: d.id.clone(),
        status: d.status.to_proto() as i32,
        mode: match d.mode {
            Mode::Live => pb::Mode::Live,
            Mode::Test => pb::Mode::Test,
        } as i32,
        external_id: d.external_id.clone(),
        quote_id: d.quote_id.clone(),
        amount_cents: d.amount_cents,
        currency: d.currency.clone(),
        breakdown: d.breakdown.as_ref().map(breakdown_out),
        pickup: Some(waypoint_out(&d.route.pickup)),
        dropoff: Some(waypoint_out(&d.route.dropoff)),
        stops: d.route.stops.iter().map(waypoint_out).collect(),
        vehicle_type_id: d.vehicle_type_id.clone(),
        notes: d.notes.clone(),
        scheduled_at: d.scheduled_at.map(micros_to_proto),
        proof_of_delivery: Some(proof_out(&d.proof)),
        tracking_available_at: d.tracking_available_at.map(micros_to_proto),
        tracking_url: Some(format!(
            "{}/t/{}",
            public_base_url.trim_end_matches('/'),
            d.tracking_token
        )),
        courier: d.courier.as_ref().map(|c| courier_out(c, d.status.is_terminal())),
        created_at: Some(micros_to_proto(d.created_at)),
        updated_at: Some(micros_to_proto(d.updated_at)),
        cancelled_at: d.cancelled_at.map(micros_to_proto),
        cancellation_reason: d
            .cancellation_reason
            .map_or(pb::CancellationReason::Unspecified, ToProto::to_proto) as i32,
        delivered_at: d.delivered_at.map(micros_to_proto),
        pickup_window: window_out(d.windows.pickup),
        dropoff_window: window_out(d.windows.dropoff),
        pickup_eta: pickup_eta.map(micros_to_proto),
        dropoff_eta: dropoff_eta.map(micros_to_proto),
        promised_by: d.promised_by.map(micros_to_proto),
        delayed_at: d.delayed_at.map(micros_to_proto),
        on_time: d.on_time,
        batching: match d.batching {
            Batching::Allowed => pb::Batching::Allowed,
            Batching::Never => pb::Batching::Never,
        } as i32,
        notifications: (!d.notifications.is_empty()).then(|| pb::NotificationPreferences {
            recipient: d.notifications.recipient,
            sender: d.notifications.sender,
            language: d.notifications.language.map(|l| l.as_str().to_owned()),
        }),
        dropoff_pin: d.dropoff_pin.clone(),
        handover_blocked: d.handover_blocked(),
        undeliverable_action: match d.undeliverable_action {
            UndeliverableAction::ReturnToPickup => pb::UndeliverableAction::ReturnToPickup,
            UndeliverableAction::Dispose => pb::UndeliverableAction::Dispose,
        } as i32,
        return_of: d.return_of.clone(),
        return_delivery_id: d.return_delivery_id.clone(),
        tip_cents: d.tip_cents,
    }
}

/// A promised time as the public API shows it.
pub fn window_out(window: Option<Window>) -> Option<pb::TimeWindow> {
    window.map(|w| pb::TimeWindow {
        start: Some(micros_to_proto(w.start)),
        end: Some(micros_to_proto(w.end)),
    })
}

/// A price breakdown as the public API shows it.
pub fn breakdown_out(b: &Breakdown) -> pb::PriceBreakdown {
    pb::PriceBreakdown {
        route_cents: b.route_cents,
        extras: b
            .extras
            .iter()
            .map(|e| pb::PriceExtra {
                extra_id: e.extra_id.clone(),
                option_id: e.option_id.clone(),
                name: e.name.clone(),
                option_name: e.option_name.clone(),
                quantity: e.quantity,
                unit_amount_cents: e.unit_amount_cents,
                amount_cents: e.amount_cents,
            })
            .collect(),
        surcharges: b
            .surcharges
            .iter()
            .map(|s| pb::PriceSurcharge {
                code: s.code.clone(),
                label: s.label.clone(),
                amount_cents: s.amount_cents,
            })
            .collect(),
        discount_cents: b.discount_cents,
        service_fee_cents: b.service_fee_cents,
    }
}

/// A fleet order as the public API shows it. No tracking page exists for
/// fleet orders (the fleet's own couriers carry them), so `tracking_url` is
/// always empty.
pub fn fleet_order_out(order: &FleetOrder) -> pb::FleetOrder {
    pb::FleetOrder {
        id: order.id.clone(),
        status: order.status.to_proto() as i32,
        reference: order.reference.clone(),
        order_id: order.order_id.clone(),
        tracking_url: None,
        created_at: Some(micros_to_proto(order.created_at)),
        updated_at: Some(micros_to_proto(order.updated_at)),
        pickup_window: window_out(order.windows.pickup),
        dropoff_window: window_out(order.windows.dropoff),
    }
}

/// The delivery an event keeps (`Wire::event_snapshot`).
pub fn snapshot(event: &Event) -> CoreResult<pb::Delivery> {
    pb::Delivery::decode(event.data.as_slice())
        .map_err(|error| CoreError::Internal(format!("event {} data: {error}", event.id)))
}

/// The delivery as an event carries it: the courier reduced to its name.
pub fn event_data(mut delivery: pb::Delivery) -> pb::Delivery {
    delivery.courier = delivery.courier.map(|c| pb::Courier {
        name: c.name,
        ..Default::default()
    });
    delivery
}

pub fn waypoint_out(w: &WaypointInput) -> pb::Waypoint {
    pb::Waypoint {
        address: w.address.clone(),
        latitude: w.latitude,
        longitude: w.longitude,
        contact: w.contact.as_ref().map(contact_out),
        instructions: w.instructions.clone(),
    }
}

pub fn contact_out(c: &ContactInput) -> pb::Contact {
    pb::Contact {
        name: c.name.clone(),
        phone: c.phone.clone(),
        email: c.email.clone(),
    }
}

pub fn proof_out(p: &ProofRequirements) -> pb::ProofOfDeliveryRequirements {
    pb::ProofOfDeliveryRequirements {
        pickup: Some(pb::PickupProofRequirements {
            photos: p.pickup.photos as i32,
            signature: p.pickup.signature,
            sender_name: p.pickup.sender_name,
            barcode: p.pickup.barcode,
        }),
        dropoff: Some(pb::DropoffProofRequirements {
            photos: p.dropoff.photos as i32,
            signature: p.dropoff.signature,
            recipient_name: p.dropoff.recipient_name,
            barcode: p.dropoff.barcode,
            age_check: p.dropoff.age_check,
            leave_at_door: p.dropoff.leave_at_door,
            pin: p.dropoff.pin,
        }),
    }
}

/// The courier; once the delivery has ended, the plate shows only its last
/// two characters.
pub fn courier_out(c: &Courier, ended: bool) -> pb::Courier {
    pb::Courier {
        name: c.name.clone(),
        photo_url: c.photo_url.clone(),
        rating: c.rating,
        vehicle: c.vehicle.as_ref().map(|v| pb::CourierVehicle {
            make: v.make.clone(),
            model: v.model.clone(),
            color: v.color.clone(),
            license_plate: v
                .license_plate
                .as_deref()
                .map(|plate| if ended { mask_plate(plate) } else { plate.to_owned() }),
            photo_url: v.photo_url.clone(),
        }),
        location: c.location.as_ref().map(|l| pb::CourierLocation {
            latitude: l.latitude,
            longitude: l.longitude,
            recorded_at: l.recorded_at.map(micros_to_proto),
        }),
    }
}

/// All but the last two characters as `*`.
pub fn mask_plate(plate: &str) -> String {
    let count = plate.chars().count();
    plate
        .chars()
        .enumerate()
        .map(|(i, c)| if i + 2 < count { '*' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plates_are_masked_but_the_last_two() {
        assert_eq!(mask_plate("B-MM 1234"), "*******34");
        assert_eq!(mask_plate("AB"), "AB");
        assert_eq!(mask_plate(""), "");
    }
}
