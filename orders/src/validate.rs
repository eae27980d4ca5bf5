//! Request field rules shared by quotes, deliveries and fleet orders
//! (docs/guide.md "Vehicle types and pricing", "Limits"): places, contacts,
//! stops, times, over the text rules of `courier_identity::text`. Every
//! refusal names its field as a dot path.

use chrono::{DateTime, Duration, Utc};

use courier::limits;
use courier_identity::text::{email, phone, text_within};
use courier_pricing::geo::GeoPoint;
use courier_store::{CoreError, CoreResult};

/// A waypoint as a request carries it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WaypointInput {
    pub address: String,
    pub latitude: f64,
    pub longitude: f64,
    pub contact: Option<ContactInput>,
    pub instructions: Option<String>,
}

impl WaypointInput {
    pub fn point(&self) -> GeoPoint {
        GeoPoint {
            latitude: self.latitude,
            longitude: self.longitude,
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactInput {
    pub name: String,
    pub phone: String,
    pub email: Option<String>,
}

/// Whether a waypoint may, must or must not carry a contact and instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactRule {
    /// Quotes: address and coordinates only.
    Forbidden,
    /// Delivery pickup and dropoff.
    Required,
    /// Delivery stops and fleet order waypoints.
    Optional,
}

pub const MAX_STOPS: usize = limits::STOPS.max as usize;

/// A waypoint's latitude (`{param}.latitude`): from -90 to 90.
pub fn latitude(param: &str, latitude: f64) -> CoreResult<()> {
    let (min, max) = limits::LATITUDE;
    if !latitude.is_finite() || !(min..=max).contains(&latitude) {
        return Err(CoreError::invalid(
            format!("{param}.latitude"),
            "latitude must be a number from -90 to 90.",
        ));
    }
    Ok(())
}

/// A waypoint's longitude (`{param}.longitude`): from -180 to 180.
pub fn longitude(param: &str, longitude: f64) -> CoreResult<()> {
    let (min, max) = limits::LONGITUDE;
    if !longitude.is_finite() || !(min..=max).contains(&longitude) {
        return Err(CoreError::invalid(
            format!("{param}.longitude"),
            "longitude must be a number from -180 to 180.",
        ));
    }
    Ok(())
}

pub fn waypoint(param: &str, waypoint: &WaypointInput, rule: ContactRule) -> CoreResult<()> {
    text_within(&format!("{param}.address"), &waypoint.address, limits::ADDRESS)?;
    latitude(param, waypoint.latitude)?;
    longitude(param, waypoint.longitude)?;
    match (rule, &waypoint.contact) {
        (ContactRule::Forbidden, Some(_)) => {
            return Err(CoreError::invalid(
                format!("{param}.contact"),
                "Quotes take no contact.",
            ));
        }
        (ContactRule::Required, None) => {
            return Err(CoreError::invalid(format!("{param}.contact"), "contact is required."));
        }
        (_, Some(c)) => contact(&format!("{param}.contact"), c)?,
        _ => {}
    }
    if let Some(instructions) = &waypoint.instructions {
        if rule == ContactRule::Forbidden {
            return Err(CoreError::invalid(
                format!("{param}.instructions"),
                "Quotes take no instructions.",
            ));
        }
        text_within(&format!("{param}.instructions"), instructions, limits::INSTRUCTIONS)?;
    }
    Ok(())
}

pub fn contact(param: &str, contact: &ContactInput) -> CoreResult<()> {
    text_within(&format!("{param}.name"), &contact.name, limits::CONTACT_NAME)?;
    phone(&format!("{param}.phone"), &contact.phone)?;
    if let Some(email_address) = &contact.email {
        email(&format!("{param}.email"), email_address)?;
    }
    Ok(())
}

/// A tip (docs/couriers.md "Tips"): whole minor units within
/// [`limits::TIP_CENTS`].
pub fn tip_cents(cents: i64) -> CoreResult<()> {
    let range = limits::TIP_CENTS;
    if !(range.min..=range.max).contains(&cents) {
        return Err(CoreError::invalid(
            "tip_cents",
            format!(
                "tip_cents is the tip in minor units of the delivery's currency, {} to {}.",
                range.min, range.max
            ),
        ));
    }
    Ok(())
}

/// `scheduled_at` lies at least 1 minute and at most 30 days ahead.
pub fn scheduled_at(now: DateTime<Utc>, at: DateTime<Utc>) -> CoreResult<()> {
    if at < now + Duration::minutes(1) {
        return Err(CoreError::invalid(
            "scheduled_at",
            "scheduled_at must be at least 1 minute in the future.",
        ));
    }
    if at > now + Duration::days(30) {
        return Err(CoreError::invalid(
            "scheduled_at",
            "scheduled_at must be at most 30 days ahead.",
        ));
    }
    Ok(())
}

/// The route's stops: at most 10, each a valid waypoint.
pub fn stops(stops: &[WaypointInput], rule: ContactRule) -> CoreResult<()> {
    if stops.len() > MAX_STOPS {
        return Err(CoreError::invalid(
            "stops",
            format!("At most {MAX_STOPS} stops (got {}).", stops.len()),
        ));
    }
    for (index, stop) in stops.iter().enumerate() {
        waypoint(&format!("stops.{index}"), stop, rule)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param_of(result: CoreResult<()>) -> Option<String> {
        match result {
            Err(CoreError::Rejected { param, .. }) => param,
            _ => None,
        }
    }

    fn point(address: &str) -> WaypointInput {
        WaypointInput {
            address: address.to_owned(),
            latitude: 52.5,
            longitude: 13.4,
            contact: None,
            instructions: None,
        }
    }

    #[test]
    fn address_length_boundaries() {
        assert!(waypoint("pickup", &point("abc"), ContactRule::Forbidden).is_ok());
        assert_eq!(
            param_of(waypoint("pickup", &point("ab"), ContactRule::Forbidden)).as_deref(),
            Some("pickup.address")
        );
        assert!(waypoint("pickup", &point(&"a".repeat(500)), ContactRule::Forbidden).is_ok());
        assert!(waypoint("pickup", &point(&"a".repeat(501)), ContactRule::Forbidden).is_err());
        assert!(waypoint("pickup", &point(&"ü".repeat(500)), ContactRule::Forbidden).is_ok());
    }
}
