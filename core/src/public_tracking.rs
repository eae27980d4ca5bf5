//! What the public tracking page (`{public_base_url}/t/<token>`) may show.
//!
//! The page needs no API key: the delivery's unguessable `tracking_token` is
//! the capability, and the link is meant to be forwarded to the recipient.
//! So this module decides, in one place, the little a stranger holding the
//! link may learn: the status, the courier's first name and vehicle (plate
//! masked once the delivery ended), the ETAs, the route's coordinates with
//! city-level place names, and the courier's position while tracking is open
//! and the delivery has not ended, and the handover PIN until it ended (the
//! recipient is who the link is for). Contacts, phone numbers, e-mail addresses,
//! street addresses, instructions, notes, prices and ids never leave here.
//!
//! It reads the `deliveries` table (by token, the one unscoped read of it)
//! and writes nothing.

use chrono::{Offset, TimeZone};

use crate::{Core, CoreError, CoreResult};
use courier_identity::auth::Mode;
use courier_orders::deliveries::{self, Courier, CourierVehicle, Delivery};
use courier_orders::statuses::Status;
use courier_orders::validate::WaypointInput;

/// The tracking page's view of the delivery whose token is `token`; unknown
/// tokens are `404 not_found`.
pub async fn by_token(core: &Core, token: &str) -> CoreResult<PublicView> {
    let not_found = || CoreError::not_found("tracking page");
    // Tokens are base62; anything else cannot match, so do not ask.
    if token.is_empty() || token.len() > 64 || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    let delivery = deliveries::by_tracking_token(&core.db, token)
        .await?
        .ok_or_else(not_found)?;
    let delivery = crate::tracking::located(core, std::sync::Arc::new(delivery)).await?;
    let now = core.clock.now();
    let zone = core.catalog.time_zone(&delivery.service_area_id);
    let offset = zone.offset_from_utc_datetime(&now.naive_utc()).fix();
    let (utc_offset_minutes, time_zone) = (offset.local_minus_utc() / 60, zone.name().to_owned());
    let mut view = view(&delivery, now.timestamp_micros(), utc_offset_minutes, time_zone);
    view.stops_before_dropoff = crate::tracking::stops_before_dropoff(core, &delivery).await?;
    Ok(view)
}

/// What the page shows of a delivery. Times are unix microseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct PublicView {
    pub status: Status,
    /// First name, vehicle without its photo, and position while tracking
    /// is open; nothing else. Its plate goes out masked once the delivery
    /// ended, as in every answer that shows a courier.
    pub courier: Option<Courier>,
    pub pickup: PublicPlace,
    pub stops: Vec<PublicPlace>,
    pub dropoff: PublicPlace,
    /// ETAs only until the delivery ends.
    pub pickup_eta: Option<i64>,
    pub dropoff_eta: Option<i64>,
    pub tracking_available_at: Option<i64>,
    pub updated_at: i64,
    pub delivered_at: Option<i64>,
    pub generated_at: i64,
    /// The service area's offset from UTC at `generated_at`, and its zone.
    pub utc_offset_minutes: i32,
    pub time_zone: String,
    pub test: bool,
    /// How many of the courier's stops come before this dropoff.
    pub stops_before_dropoff: Option<usize>,
    /// The handover PIN, for the recipient who holds the link; only until
    /// the delivery ends (docs/guide.md, "Proof of delivery").
    pub dropoff_pin: Option<String>,
}

/// A waypoint as the page shows it: coordinates and a city-level name.
#[derive(Clone, Debug, PartialEq)]
pub struct PublicPlace {
    pub latitude: f64,
    pub longitude: f64,
    pub locality: String,
}

/// The public view of `d` at `now` (unix microseconds).
fn view(d: &Delivery, now: i64, utc_offset_minutes: i32, time_zone: String) -> PublicView {
    let ended = d.status.is_terminal();
    let tracking_open = d.tracking_available_at.is_some_and(|at| at <= now) && !ended;
    let courier = d.courier.as_ref().map(|c| Courier {
        name: c.name.as_deref().and_then(first_name),
        vehicle: c.vehicle.clone().map(|v| CourierVehicle { photo_url: None, ..v }),
        location: c.location.clone().filter(|_| tracking_open),
        ..Courier::default()
    });
    PublicView {
        status: d.status,
        courier,
        pickup: place(&d.route.pickup),
        stops: d.route.stops.iter().map(place).collect(),
        dropoff: place(&d.route.dropoff),
        pickup_eta: d.pickup_eta.filter(|_| !ended),
        dropoff_eta: d.dropoff_eta.filter(|_| !ended),
        tracking_available_at: d.tracking_available_at,
        updated_at: d.updated_at,
        delivered_at: d.delivered_at,
        generated_at: now,
        utc_offset_minutes,
        time_zone,
        test: d.mode == Mode::Test,
        stops_before_dropoff: None,
        dropoff_pin: d.dropoff_pin.clone().filter(|_| !ended),
    }
}

/// The first word of a name: the page shows first names only.
fn first_name(name: &str) -> Option<String> {
    name.split_whitespace().next().map(str::to_owned)
}

fn place(w: &WaypointInput) -> PublicPlace {
    PublicPlace {
        latitude: w.latitude,
        longitude: w.longitude,
        locality: locality(&w.address),
    }
}

/// City-level text of a free-form address ("street, postcode city[,
/// country]"), or empty. Prefers the last comma-separated part with a
/// postcode-like token (4+ characters with a digit), else the last part;
/// drops every token with a digit (postcodes, house numbers). A lone state
/// code (`CA 94043`) is joined with the part before it. A one-part address
/// yields only what follows a postcode, so a street is never shown.
pub fn locality(address: &str) -> String {
    let has_postcode = |part: &str| {
        part.split_whitespace()
            .any(|t| t.chars().count() >= 4 && t.chars().any(|c| c.is_ascii_digit()))
    };
    let strip = |part: &str| {
        part.split_whitespace()
            .filter(|t| !t.chars().any(|c| c.is_ascii_digit()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let parts: Vec<&str> = address.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let text = match parts.as_slice() {
        [] => String::new(),
        [only] => {
            let tokens: Vec<&str> = only.split_whitespace().collect();
            match tokens
                .iter()
                .rposition(|t| t.chars().count() >= 4 && t.chars().all(|c| c.is_ascii_digit()))
            {
                Some(at) => strip(&tokens[at + 1..].join(" ")),
                None => String::new(),
            }
        }
        _ => {
            let index = parts
                .iter()
                .rposition(|p| has_postcode(p))
                .filter(|&i| i > 0)
                .unwrap_or(parts.len() - 1);
            let city = strip(parts[index]);
            let is_state_code = city.len() <= 3 && !city.is_empty() && city.chars().all(|c| c.is_ascii_uppercase());
            if is_state_code && index > 1 {
                let before = strip(parts[index - 1]);
                if before.is_empty() {
                    city
                } else {
                    format!("{before}, {city}")
                }
            } else {
                city
            }
        }
    };
    text.trim_matches(|c: char| c.is_whitespace() || c == '-')
        .chars()
        .take(80)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier_orders::deliveries::{CourierLocation, StoredRoute};
    use courier_orders::validate::ContactInput;

    #[test]
    fn localities_are_city_level() {
        assert_eq!(locality("Alexanderplatz 1, 10178 Berlin"), "Berlin");
        assert_eq!(locality("Oranienstraße 10, 10997 Berlin, Germany"), "Berlin");
        assert_eq!(locality("Alexanderplatz 1, Berlin"), "Berlin");
        assert_eq!(locality("10 Downing St, London SW1A 2AA"), "London");
        assert_eq!(
            locality("1600 Amphitheatre Pkwy, Mountain View, CA 94043"),
            "Mountain View, CA"
        );
        assert_eq!(locality("Alexanderplatz 1 10178 Berlin"), "Berlin");
        assert_eq!(locality("Alexanderplatz 1"), "");
        assert_eq!(locality(""), "");
    }

    fn waypoint(address: &str, lat: f64) -> WaypointInput {
        WaypointInput {
            address: address.into(),
            latitude: lat,
            longitude: 13.4,
            contact: Some(ContactInput {
                name: "Rui Receiver".into(),
                phone: "+49 151 2345678".into(),
                email: Some("rui@example.com".into()),
            }),
            instructions: Some("Ring twice".into()),
        }
    }

    fn delivery(status: Status) -> Delivery {
        Delivery {
            id: "del_1".into(),
            mode: Mode::Live,
            status,
            external_id: Some("order-42".into()),
            amount_cents: Some(1200),
            currency: Some("EUR".into()),
            route: StoredRoute {
                pickup: waypoint("Alexanderplatz 1, 10178 Berlin", 52.52),
                dropoff: waypoint("Oranienstraße 10, 10997 Berlin", 52.50),
                stops: vec![],
                extras: vec![],
                items: None,
            },
            distance_km: 3.0,
            duration_min: 12,
            notes: Some("Fragile".into()),
            tracking_token: "tok".into(),
            tracking_available_at: Some(10),
            courier: Some(Courier {
                id: None,
                name: Some("Lena Schmidt".into()),
                photo_url: Some("https://cdn.example/lena.jpg".into()),
                rating: Some(4.9),
                vehicle: Some(CourierVehicle {
                    make: Some("VW".into()),
                    model: Some("ID.3".into()),
                    color: Some("blue".into()),
                    license_plate: Some("B-MM 1234".into()),
                    photo_url: Some("https://cdn.example/car.jpg".into()),
                }),
                location: Some(CourierLocation {
                    latitude: 52.51,
                    longitude: 13.41,
                    recorded_at: Some(20),
                }),
            }),
            created_at: 1,
            updated_at: 30,
            pickup_eta: Some(40),
            dropoff_eta: Some(50),
            ..courier_orders::testing::sample_delivery()
        }
    }

    #[test]
    fn the_view_shows_no_contact_data() {
        let v = view(&delivery(Status::InTransit), 100, 60, "Europe/Berlin".into());
        let text = format!("{v:?}");
        for secret in [
            "Rui",
            "+49",
            "rui@",
            "Ring twice",
            "Fragile",
            "order-42",
            "Schmidt",
            "1200",
            "cdn.example",
            "Alexanderplatz",
        ] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
        let courier = v.courier.expect("courier");
        assert_eq!(courier.name.as_deref(), Some("Lena"));
        assert_eq!(
            courier.vehicle.and_then(|v| v.license_plate).as_deref(),
            Some("B-MM 1234")
        );
        assert!(courier.location.is_some());
        assert_eq!(v.pickup.locality, "Berlin");
        assert!(v.dropoff_eta.is_some());
    }

    #[test]
    fn an_ended_delivery_hides_position_etas_and_pin() {
        let mut d = delivery(Status::AtDropoff);
        d.dropoff_pin = Some("0427".into());
        assert_eq!(view(&d, 100, 60, "UTC".into()).dropoff_pin.as_deref(), Some("0427"));
        d.status = Status::Delivered;
        let v = view(&d, 100, 60, "Europe/Berlin".into());
        assert!(v.dropoff_pin.is_none());
        let courier = v.courier.expect("courier");
        assert!(courier.location.is_none() && v.dropoff_eta.is_none());
        // Before tracking opens there is no position either.
        let mut d = delivery(Status::CourierAssigned);
        d.tracking_available_at = None;
        assert!(
            view(&d, 100, 0, "UTC".into())
                .courier
                .expect("courier")
                .location
                .is_none()
        );
    }
}
