//! What a change after booking may set, and until when (docs/guide.md
//! "Change a delivery"): the rules a delivery's change and a fleet order's
//! change share, so that both judge a member and its status alike.

use crate::statuses::Status;
use crate::validate::{self, ContactInput, WaypointInput};
use crate::{CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier::time::{format_rfc3339, from_micros};
use courier_identity::text;

/// What a change sets on the pickup or the dropoff.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaypointEdit {
    /// Replaces the contact whole.
    pub contact: Option<ContactInput>,
    /// `Some(None)` removes the instructions.
    pub instructions: Option<Option<String>>,
    /// A new address text.
    pub address: Option<String>,
    /// A new latitude or longitude (a delivery is priced again).
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
}

impl WaypointEdit {
    pub(crate) fn is_empty(&self) -> bool {
        self.contact.is_none()
            && self.instructions.is_none()
            && self.address.is_none()
            && self.latitude.is_none()
            && self.longitude.is_none()
    }

    /// Whether it moves the place (a new latitude or longitude).
    pub(crate) fn moves(&self) -> bool {
        self.latitude.is_some() || self.longitude.is_some()
    }

    /// `waypoint` with this change applied.
    pub(crate) fn applied_to(&self, waypoint: &mut WaypointInput) {
        if let Some(contact) = &self.contact {
            waypoint.contact = Some(contact.clone());
        }
        if let Some(instructions) = &self.instructions {
            waypoint.instructions.clone_from(instructions);
        }
        if let Some(address) = &self.address {
            waypoint.address.clone_from(address);
        }
        if let Some(latitude) = self.latitude {
            waypoint.latitude = latitude;
        }
        if let Some(longitude) = self.longitude {
            waypoint.longitude = longitude;
        }
    }
}

/// A member a change may set, by when it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    /// Notes, contacts, instructions (and a fleet order's customer and
    /// reference): until the job ends.
    Details,
    /// The dropoff window: until the goods are picked up.
    DropoffWindow,
    /// The dropoff's address and position: until the courier is there.
    DropoffPlace,
    /// The pickup's address and position: until a courier is assigned.
    PickupPlace,
}

/// Whether `member` may still change in `status`.
fn editable(member: Member, status: Status) -> bool {
    match member {
        Member::Details => !status.is_terminal(),
        Member::DropoffWindow => status.before_pickup(),
        Member::DropoffPlace => !status.is_terminal() && status != Status::AtDropoff,
        Member::PickupPlace => status == Status::Pending,
    }
}

/// `409 not_editable` naming the first of the `changed` members that
/// `status` no longer lets change on the `what` ("delivery").
pub(crate) fn check_editable(changed: &[(String, Member)], status: Status, what: &str) -> CoreResult<()> {
    match changed.iter().find(|(_, member)| !editable(*member, status)) {
        Some((path, _)) => Err(CoreError::at(
            ErrorCode::NotEditable,
            path.as_str(),
            format!("{path} can no longer change: the {what} is {}.", status.as_str()),
        )),
        None => Ok(()),
    }
}

/// `412 precondition_failed` when the `what` changed since the
/// `updated_at` the client sent in `If-Match` (`None`: no check).
pub(crate) fn unchanged_since(expected: Option<i64>, updated_at: i64, what: &str) -> CoreResult<()> {
    match expected {
        Some(expected) if expected != updated_at => Err(CoreError::at(
            ErrorCode::PreconditionFailed,
            "If-Match",
            format!(
                "The {what} changed at {}, after the updated_at in If-Match; read it again and send the change again.",
                format_rfc3339(from_micros(updated_at))
            ),
        )),
        _ => Ok(()),
    }
}

/// The own rules of the change of `end` ("pickup", "dropoff"): contact,
/// texts, position.
pub(crate) fn check_waypoint(end: &str, waypoint: &WaypointEdit) -> CoreResult<()> {
    if let Some(contact) = &waypoint.contact {
        validate::contact(&format!("{end}.contact"), contact)?;
    }
    if let Some(Some(instructions)) = &waypoint.instructions {
        text::text_within(
            &format!("{end}.instructions"),
            instructions,
            courier::limits::INSTRUCTIONS,
        )?;
    }
    if let Some(address) = &waypoint.address {
        text::text_within(&format!("{end}.address"), address, courier::limits::ADDRESS)?;
    }
    if let Some(latitude) = waypoint.latitude {
        validate::latitude(end, latitude)?;
    }
    if let Some(longitude) = waypoint.longitude {
        validate::longitude(end, longitude)?;
    }
    Ok(())
}

/// The members of `end` that really change from `was` to `now`, as dot
/// paths, each with its rule (`place` for the address and position).
pub(crate) fn waypoint_changes(
    end: &str,
    (was, now): (&WaypointInput, &WaypointInput),
    place: Member,
) -> Vec<(String, Member)> {
    let members = [
        ("address", was.address != now.address, place),
        ("latitude", was.latitude != now.latitude, place),
        ("longitude", was.longitude != now.longitude, place),
        ("contact", was.contact != now.contact, Member::Details),
        ("instructions", was.instructions != now.instructions, Member::Details),
    ];
    members
        .into_iter()
        .filter(|(_, differs, _)| *differs)
        .map(|(member, _, rule)| (format!("{end}.{member}"), rule))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_change_until_the_end_and_the_window_until_pickup() {
        for status in Status::ALL {
            assert_eq!(editable(Member::Details, status), !status.is_terminal(), "{status:?}");
            let before_pickup = matches!(status, Status::Pending | Status::CourierAssigned | Status::AtPickup);
            assert_eq!(editable(Member::DropoffWindow, status), before_pickup, "{status:?}");
        }
        assert!(editable(Member::Details, Status::AtDropoff));
        assert!(!editable(Member::Details, Status::Delivered));
        assert!(!editable(Member::Details, Status::Cancelled));
        assert!(!editable(Member::DropoffWindow, Status::PickedUp));
        for status in Status::ALL {
            assert_eq!(
                editable(Member::PickupPlace, status),
                status == Status::Pending,
                "{status:?}"
            );
            let before_dropoff = !status.is_terminal() && status != Status::AtDropoff;
            assert_eq!(editable(Member::DropoffPlace, status), before_dropoff, "{status:?}");
        }
        assert!(editable(Member::DropoffPlace, Status::InTransit));
    }

    #[test]
    fn a_member_past_its_time_or_a_stale_read_is_refused() {
        let changed = [
            ("notes".to_owned(), Member::Details),
            ("pickup.latitude".to_owned(), Member::PickupPlace),
        ];
        let refused = check_editable(&changed, Status::CourierAssigned, "delivery").expect_err("pickup moved");
        assert!(format!("{refused:?}").contains("pickup.latitude"), "{refused:?}");
        assert!(unchanged_since(Some(1), 2, "delivery").is_err());
        assert!(unchanged_since(None, 2, "delivery").is_ok() && unchanged_since(Some(2), 2, "delivery").is_ok());
    }
}
