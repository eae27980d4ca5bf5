//! Tracking on the wire: the owner's tracking and watch messages
//! (`courier.v1.DeliveryTracking`, `WatchDeliveryResponse`) and the public
//! page's `PublicTracking`, from what `tracking` and `public_tracking` chose
//! to show.

use courier::time::micros_to_proto;
use courier::v1 as pb;

use super::delivery_out::{courier_out, to_proto};
use super::enums::ToProto;
use courier_core::public_tracking::{PublicPlace, PublicView};
use courier_core::tracking::{Tracking, WatchUpdate};
use courier_orders::deliveries::Delivery;

pub fn tracking_out(tracking: &Tracking, public_base_url: &str) -> pb::DeliveryTracking {
    let snapshot = to_proto(&tracking.delivery, public_base_url);
    pb::DeliveryTracking {
        delivery_id: snapshot.id,
        status: snapshot.status,
        tracking_available_at: snapshot.tracking_available_at,
        tracking_url: snapshot.tracking_url,
        courier: snapshot.courier,
        eta: Some(eta_out(&tracking.delivery)),
        stops_before_dropoff: tracking.stops_before_dropoff.map(count_out),
    }
}

pub fn watch_update_out(update: &WatchUpdate, public_base_url: &str) -> pb::WatchDeliveryResponse {
    pb::WatchDeliveryResponse {
        delivery: Some(to_proto(&update.delivery, public_base_url)),
        eta: Some(eta_out(&update.delivery)),
    }
}

fn eta_out(d: &Delivery) -> pb::DeliveryEta {
    pb::DeliveryEta {
        pickup_at: d.pickup_eta.map(micros_to_proto),
        dropoff_at: d.dropoff_eta.map(micros_to_proto),
    }
}

pub fn public_tracking_out(view: PublicView) -> pb::PublicTracking {
    let ended = view.status.is_terminal();
    pb::PublicTracking {
        status: view.status.to_proto() as i32,
        courier: view.courier.map(|c| {
            let shown = courier_out(&c, ended);
            pb::PublicCourier {
                name: shown.name,
                vehicle: shown.vehicle,
                location: shown.location,
            }
        }),
        pickup: Some(place_out(view.pickup)),
        stops: view.stops.into_iter().map(place_out).collect(),
        dropoff: Some(place_out(view.dropoff)),
        pickup_eta: view.pickup_eta.map(micros_to_proto),
        dropoff_eta: view.dropoff_eta.map(micros_to_proto),
        tracking_available_at: view.tracking_available_at.map(micros_to_proto),
        updated_at: Some(micros_to_proto(view.updated_at)),
        delivered_at: view.delivered_at.map(micros_to_proto),
        generated_at: Some(micros_to_proto(view.generated_at)),
        utc_offset_minutes: view.utc_offset_minutes,
        time_zone: view.time_zone,
        test: view.test,
        stops_before_dropoff: view.stops_before_dropoff.map(count_out),
        dropoff_pin: view.dropoff_pin,
    }
}

fn count_out(count: usize) -> i32 {
    i32::try_from(count).unwrap_or(i32::MAX)
}

fn place_out(place: PublicPlace) -> pb::PublicPlace {
    pb::PublicPlace {
        latitude: place.latitude,
        longitude: place.longitude,
        locality: place.locality,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier_orders::deliveries::{Courier, CourierVehicle};
    use courier_orders::statuses::Status;

    #[test]
    fn the_public_page_masks_the_plate_once_the_delivery_ended() {
        let place = || PublicPlace {
            latitude: 52.5,
            longitude: 13.4,
            locality: "Berlin".into(),
        };
        let view = |status| PublicView {
            status,
            courier: Some(Courier {
                name: Some("Lena".into()),
                vehicle: Some(CourierVehicle {
                    license_plate: Some("B-MM 1234".into()),
                    ..CourierVehicle::default()
                }),
                ..Courier::default()
            }),
            pickup: place(),
            stops: vec![],
            dropoff: place(),
            pickup_eta: None,
            dropoff_eta: None,
            tracking_available_at: None,
            updated_at: 30,
            delivered_at: None,
            generated_at: 100,
            utc_offset_minutes: 60,
            time_zone: "Europe/Berlin".into(),
            stops_before_dropoff: None,
            dropoff_pin: None,
            test: false,
        };
        let plate = |status| {
            public_tracking_out(view(status))
                .courier
                .and_then(|c| c.vehicle)
                .and_then(|v| v.license_plate)
        };
        assert_eq!(plate(Status::InTransit).as_deref(), Some("B-MM 1234"));
        assert_eq!(plate(Status::Delivered).as_deref(), Some("*******34"));
    }
}
