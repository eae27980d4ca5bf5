//! The delivery page's change form (docs/console.md "Pages"): owners and
//! admins change the notes, the dropoff contact and the instructions of a
//! delivery that has not ended, its dropoff window until pickup and its
//! dropoff's address and position until the courier is there, as `PATCH
//! /v1/deliveries/{id}` does (docs/guide.md "Change a delivery"). A moved
//! position that changes the price is refused with the new total, which
//! the form then shows and sends back as `accept_amount_cents` once the
//! user saves again. Only what differs from the delivery
//! as the page showed it is sent, against the `updated_at` the page showed
//! (a delivery changed meanwhile is refused, not overwritten), under an
//! idempotency key made when the page rendered (a double click changes
//! once). The tip form beside it sets the courier's tip (`TipForm`).

use courier::v1 as pb;

use crate::page::{Refusal, field};
use crate::times::Zone;

/// The form as shown: the delivery's values, or what was sent when the
/// core refused it.
pub(crate) struct ChangeForm {
    pub(crate) action: String,
    pub(crate) csrf: String,
    pub(crate) idempotency_key: String,
    /// The delivery's `updated_at` the form was made from, unix microseconds.
    pub(crate) updated_at: String,
    pub(crate) notes: String,
    pub(crate) dropoff_name: String,
    pub(crate) dropoff_phone: String,
    pub(crate) dropoff_instructions: String,
    /// Offered until the goods are picked up (the pickup's instructions
    /// mean nothing after).
    pub(crate) pickup_instructions: Option<String>,
    /// Offered until the goods are picked up: the dropoff window's start
    /// and end on the workspace's clock, as `datetime-local` fields hold
    /// them (both empty: no window).
    pub(crate) dropoff_window: Option<(String, String)>,
    /// Offered until the courier is at the dropoff: its address, and its
    /// position as "latitude, longitude" (a moved one is priced again).
    pub(crate) dropoff_place: Option<(String, String)>,
    /// The same of the pickup, offered until a courier has the delivery.
    pub(crate) pickup_place: Option<(String, String)>,
    /// The total a moved place costs, as the core named it when it refused
    /// the change (`price_changed`): cents and as shown. Saving again
    /// accepts it.
    pub(crate) new_price: Option<(i64, String)>,
    /// The core's refusal of a field: its dot path and message.
    pub(crate) error: Option<(String, String)>,
}

/// The members this form has a field for, as the core names them.
const SHOWN: [&str; 12] = [
    "notes",
    "dropoff.contact.name",
    "dropoff.contact.phone",
    "dropoff.instructions",
    "pickup.instructions",
    "dropoff_window.start",
    "dropoff_window.end",
    "dropoff.address",
    "dropoff.position",
    "pickup.address",
    "pickup.position",
    "accept_amount_cents",
];

impl ChangeForm {
    /// The form for `delivery`, its times on `zone`'s clock, posting to
    /// `action`.
    pub(crate) fn of(delivery: &pb::Delivery, zone: Zone, action: String, csrf: String) -> ChangeForm {
        let dropoff = delivery.dropoff.clone().unwrap_or_default();
        let contact = dropoff.contact.clone().unwrap_or_default();
        let before_pickup = matches!(
            delivery.status(),
            pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::AtPickup
        );
        let before_dropoff = before_pickup
            || matches!(
                delivery.status(),
                pb::DeliveryStatus::PickedUp | pb::DeliveryStatus::InTransit
            );
        let window = delivery.dropoff_window.as_ref();
        ChangeForm {
            action,
            csrf,
            idempotency_key: new_key(),
            updated_at: delivery
                .updated_at
                .as_ref()
                .and_then(courier::time::from_proto)
                .map(|at| at.timestamp_micros().to_string())
                .unwrap_or_default(),
            notes: delivery.notes.clone().unwrap_or_default(),
            dropoff_name: contact.name,
            dropoff_phone: contact.phone,
            dropoff_window: before_pickup.then(|| {
                (
                    zone.field_value(window.and_then(|w| w.start.as_ref())),
                    zone.field_value(window.and_then(|w| w.end.as_ref())),
                )
            }),
            dropoff_place: before_dropoff.then(|| place_of(&dropoff)),
            pickup_place: (delivery.status() == pb::DeliveryStatus::Pending)
                .then(|| place_of(&delivery.pickup.clone().unwrap_or_default())),
            new_price: None,
            dropoff_instructions: dropoff.instructions.unwrap_or_default(),
            pickup_instructions: before_pickup.then(|| {
                delivery
                    .pickup
                    .as_ref()
                    .and_then(|p| p.instructions.clone())
                    .unwrap_or_default()
            }),
            error: None,
        }
    }

    /// The form as sent, shown again with the core's `error` at a field.
    pub(crate) fn sent(mut self, form: &[(String, String)], error: Option<(String, String)>) -> ChangeForm {
        self.notes = field(form, "notes").to_owned();
        self.dropoff_name = field(form, "dropoff_name").to_owned();
        self.dropoff_phone = field(form, "dropoff_phone").to_owned();
        self.dropoff_instructions = field(form, "dropoff_instructions").to_owned();
        if self.pickup_instructions.is_some() {
            self.pickup_instructions = Some(field(form, "pickup_instructions").to_owned());
        }
        if self.dropoff_window.is_some() {
            let sent = |name: &str| field(form, name).to_owned();
            self.dropoff_window = Some((sent("dropoff_window_start"), sent("dropoff_window_end")));
        }
        for (place, end) in [(&mut self.dropoff_place, "dropoff"), (&mut self.pickup_place, "pickup")] {
            if place.is_some() {
                let sent = |name: &str| field(form, &format!("{end}_{name}")).to_owned();
                *place = Some((sent("address"), sent("position")));
            }
        }
        // The core names the coordinate; the form has one field for both.
        self.error = error.map(|(param, message)| match param.split_once('.') {
            Some((end, "latitude" | "longitude")) => (format!("{end}.position"), message),
            _ => (param, message),
        });
        self
    }

    /// The form with the total a moved place costs, to be accepted.
    pub(crate) fn priced(mut self, new_price: Option<(i64, String)>) -> ChangeForm {
        self.new_price = new_price;
        self
    }

    /// The field's error, when the core named it.
    pub(crate) fn error_at(&self, param: &str) -> Option<&str> {
        self.error
            .as_ref()
            .filter(|(at, _)| at == param)
            .map(|(_, message)| message.as_str())
    }

    /// The core's refusal naming no field this form shows.
    pub(crate) fn other_error(&self) -> Option<&str> {
        self.error
            .as_ref()
            .filter(|(at, _)| !SHOWN.contains(&at.as_str()))
            .map(|(_, message)| message.as_str())
    }
}

/// A change sent from the form, its times typed on `zone`'s clock: what
/// differs from `delivery` as it is, and the names of what changed (for the
/// notice); `None` when nothing does; a refusal naming the field of a time
/// or a position that is none.
pub(crate) fn change_of(
    delivery: &pb::Delivery,
    zone: Zone,
    form: &[(String, String)],
) -> Result<Option<(pb::UpdateDeliveryRequest, Vec<&'static str>)>, Refusal> {
    let shown = ChangeForm::of(delivery, zone, String::new(), String::new());
    let mut request = pb::UpdateDeliveryRequest {
        delivery_id: delivery.id.clone(),
        if_updated_at: field(form, "updated_at")
            .parse::<i64>()
            .ok()
            .map(courier::time::micros_to_proto),
        accept_amount_cents: field(form, "accept_amount_cents").parse().ok(),
        ..Default::default()
    };
    let mut changed = Vec::new();
    let sent = |name: &str| field(form, name).trim().to_owned();
    if sent("notes") != shown.notes.trim() {
        request.notes = Some(sent("notes"));
        changed.push("notes");
    }
    let mut dropoff = pb::WaypointChange::default();
    if sent("dropoff_name") != shown.dropoff_name.trim() || sent("dropoff_phone") != shown.dropoff_phone.trim() {
        let email = delivery
            .dropoff
            .as_ref()
            .and_then(|d| d.contact.as_ref())
            .and_then(|c| c.email.clone());
        dropoff.contact = Some(pb::Contact {
            name: sent("dropoff_name"),
            phone: sent("dropoff_phone"),
            email,
        });
        changed.push("dropoff contact");
    }
    if sent("dropoff_instructions") != shown.dropoff_instructions.trim() {
        dropoff.instructions = Some(sent("dropoff_instructions"));
        changed.push("dropoff instructions");
    }
    if let Some(place) = &shown.dropoff_place {
        changed.extend(moved(form, End::Dropoff, place, &mut dropoff)?);
    }
    if dropoff != pb::WaypointChange::default() {
        request.dropoff = Some(dropoff);
    }
    if let Some((start, end)) = &shown.dropoff_window
        && (sent("dropoff_window_start") != start.trim() || sent("dropoff_window_end") != end.trim())
    {
        match window_of(zone, &sent("dropoff_window_start"), &sent("dropoff_window_end"))? {
            Some(window) => request.dropoff_window = Some(window),
            None => request.clear_dropoff_window = true,
        }
        changed.push("dropoff window");
    }
    let mut pickup = pb::WaypointChange::default();
    if let Some(before) = &shown.pickup_instructions
        && sent("pickup_instructions") != before.trim()
    {
        pickup.instructions = Some(sent("pickup_instructions"));
        changed.push("pickup instructions");
    }
    if let Some(place) = &shown.pickup_place {
        changed.extend(moved(form, End::Pickup, place, &mut pickup)?);
    }
    if pickup != pb::WaypointChange::default() {
        request.pickup = Some(pickup);
    }
    Ok((!changed.is_empty()).then_some((request, changed)))
}

/// The end of a delivery a place field is of.
#[derive(Clone, Copy)]
enum End {
    Pickup,
    Dropoff,
}

impl End {
    /// The API's name, the prefix of its members and of the form's fields.
    fn name(self) -> &'static str {
        match self {
            End::Pickup => "pickup",
            End::Dropoff => "dropoff",
        }
    }

    /// What changed, as the notice names it.
    fn changed(self) -> [&'static str; 2] {
        match self {
            End::Pickup => ["pickup address", "pickup position"],
            End::Dropoff => ["dropoff address", "dropoff position"],
        }
    }
}

/// The place as the form shows it: its address, and its position as
/// "latitude, longitude".
fn place_of(waypoint: &pb::Waypoint) -> (String, String) {
    (
        waypoint.address.clone(),
        format!("{}, {}", waypoint.latitude, waypoint.longitude),
    )
}

/// Sets in `change` the address and position of `end` the form sent, where
/// they differ from `shown`; what changed.
fn moved(
    form: &[(String, String)],
    end: End,
    (address, position): &(String, String),
    change: &mut pb::WaypointChange,
) -> Result<Vec<&'static str>, Refusal> {
    let sent = |name: &str| field(form, &format!("{}_{name}", end.name())).trim().to_owned();
    let [address_changed, position_changed] = end.changed();
    let mut changed = Vec::new();
    if sent("address") != address.trim() {
        change.address = Some(sent("address"));
        changed.push(address_changed);
    }
    if sent("position") != position.trim() {
        let (latitude, longitude) = position_of(&sent("position")).ok_or_else(|| Refusal {
            param: Some(format!("{}.position", end.name())),
            message: "A position as latitude, longitude, such as 52.5200, 13.4050.".into(),
        })?;
        (change.latitude, change.longitude) = (Some(latitude), Some(longitude));
        changed.push(position_changed);
    }
    Ok(changed)
}

/// "52.5200, 13.4050" as a latitude and a longitude.
fn position_of(text: &str) -> Option<(f64, f64)> {
    let (latitude, longitude) = text.split_once(',')?;
    Some((latitude.trim().parse().ok()?, longitude.trim().parse().ok()?))
}

/// The window typed from `start` to `end` on `zone`'s clock; none when
/// both are empty (the window is removed).
fn window_of(zone: Zone, start: &str, end: &str) -> Result<Option<pb::TimeWindow>, Refusal> {
    if start.is_empty() && end.is_empty() {
        return Ok(None);
    }
    let at = |text: &str, member: &str| {
        let refusal = |message: String| Refusal {
            param: Some(format!("dropoff_window.{member}")),
            message,
        };
        if text.is_empty() {
            return Err(refusal(
                "Give both the start and the end of the window, or neither to remove it.".into(),
            ));
        }
        zone.typed(text).ok_or_else(|| {
            refusal(format!(
                "A date and time on the {} clock, such as 2026-12-01T14:00.",
                zone.name()
            ))
        })
    };
    Ok(Some(pb::TimeWindow {
        start: Some(at(start, "start")?),
        end: Some(at(end, "end")?),
    }))
}

/// The delivery page's tip form (docs/couriers.md "Tips"): owners and
/// admins set the courier's tip until the delivery is delivered, then only
/// raise it, for 7 days (the core refuses a lower or a late one at the
/// field); none on a cancelled delivery.
pub(crate) struct TipForm {
    pub(crate) action: String,
    pub(crate) csrf: String,
    pub(crate) idempotency_key: String,
    /// The tip as the delivery has it ("3.50", empty for none), or as sent.
    pub(crate) amount: String,
    pub(crate) currency: String,
    /// What may still change, in words.
    pub(crate) hint: String,
    /// The refusal of what was sent.
    pub(crate) error: Option<String>,
}

/// How long after its delivery a tip may still be raised, in seconds.
const TIP_RAISE_SECONDS: i64 = 7 * 86_400;

impl TipForm {
    /// The form for `delivery`, posting to `action`; none once cancelled,
    /// nor a week after its delivery at `now` (Unix seconds), when the core
    /// takes no more change of the tip (docs/couriers.md "Tips").
    pub(crate) fn of(delivery: &pb::Delivery, zone: Zone, action: String, csrf: String, now: i64) -> Option<TipForm> {
        let hint = match delivery.status() {
            pb::DeliveryStatus::Cancelled => return None,
            pb::DeliveryStatus::Delivered => {
                let until = delivery.delivered_at.map(|at| prost_types::Timestamp {
                    seconds: at.seconds + TIP_RAISE_SECONDS,
                    nanos: at.nanos,
                });
                if until.is_some_and(|until| now > until.seconds) {
                    return None;
                }
                format!(
                    "Delivered: you may raise the tip until {}; each raise goes to the courier and on your statement.",
                    zone.minute(until.as_ref(), "a week after delivery")
                )
            }
            _ => "All of it goes to the courier who delivers, and is billed on its own line once delivered; until then you may change or remove it.".to_owned(),
        };
        Some(TipForm {
            action,
            csrf,
            idempotency_key: new_key(),
            amount: match delivery.tip_cents {
                0 => String::new(),
                cents => courier::statements::amount(cents),
            },
            currency: delivery.currency.clone().unwrap_or_default(),
            hint,
            error: None,
        })
    }

    /// The form as sent, shown again with its refusal.
    pub(crate) fn sent(mut self, form: &[(String, String)], error: String) -> TipForm {
        self.amount = field(form, "tip").to_owned();
        self.error = Some(error);
        self
    }
}

/// The tip sent from the form as a change of `delivery`; `None` when it is
/// the tip the delivery has; a refusal at `tip_cents` of an amount that is
/// none.
pub(crate) fn tip_of(
    delivery: &pb::Delivery,
    form: &[(String, String)],
) -> Result<Option<pb::UpdateDeliveryRequest>, Refusal> {
    let tip_cents = crate::forms::tip_cents(field(form, "tip"))?;
    Ok((tip_cents != delivery.tip_cents).then(|| pb::UpdateDeliveryRequest {
        delivery_id: delivery.id.clone(),
        tip_cents: Some(tip_cents),
        ..Default::default()
    }))
}

fn new_key() -> String {
    format!("console-change-{}", hex::encode(rand::random::<[u8; 16]>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery() -> pb::Delivery {
        pb::Delivery {
            id: "del_1".into(),
            status: pb::DeliveryStatus::CourierAssigned as i32,
            notes: Some("Fragile".into()),
            updated_at: Some(courier::time::micros_to_proto(1_700_000_000_123_456)),
            pickup: Some(pb::Waypoint {
                instructions: None,
                ..Default::default()
            }),
            dropoff: Some(pb::Waypoint {
                contact: Some(pb::Contact {
                    name: "Rui".into(),
                    phone: "+49 151 2345678".into(),
                    email: Some("rui@example.com".into()),
                }),
                instructions: Some("Ring twice".into()),
                address: "Oranienstraße 25".into(),
                latitude: 52.501,
                longitude: 13.419,
            }),
            ..Default::default()
        }
    }

    fn berlin() -> Zone {
        Zone::named("Europe/Berlin")
    }

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn the_tip_form_goes_once_cancelled_or_a_week_after_delivery() {
        let tip_form = |d: &pb::Delivery, now: i64| TipForm::of(d, berlin(), String::new(), String::new(), now);
        let mut d = delivery();
        let delivered_at = 1_700_000_000;
        assert!(tip_form(&d, delivered_at).is_some(), "before delivery");
        d.status = pb::DeliveryStatus::Delivered as i32;
        d.delivered_at = Some(prost_types::Timestamp {
            seconds: delivered_at,
            nanos: 0,
        });
        let week = 7 * 86_400;
        let shown = tip_form(&d, delivered_at + week).expect("a week after: still");
        assert!(
            shown.hint.starts_with("Delivered: you may raise the tip until"),
            "{}",
            shown.hint
        );
        assert!(tip_form(&d, delivered_at + week + 1).is_none(), "past the week");
        d.status = pb::DeliveryStatus::Cancelled as i32;
        assert!(tip_form(&d, delivered_at).is_none(), "cancelled");
    }

    #[test]
    fn only_what_differs_is_sent_against_the_updated_at_shown() {
        let d = delivery();
        let shown = ChangeForm::of(&d, Zone::named("Europe/Berlin"), String::new(), String::new());
        assert_eq!(shown.updated_at, "1700000000123456");
        let same = form(&[
            ("notes", "Fragile"),
            ("dropoff_name", "Rui"),
            ("dropoff_phone", "+49 151 2345678"),
            ("dropoff_instructions", "Ring twice "),
            ("pickup_instructions", ""),
            ("updated_at", "1700000000123456"),
            ("dropoff_window_start", ""),
            ("dropoff_window_end", ""),
            ("dropoff_address", "Oranienstraße 25"),
            ("dropoff_position", "52.501, 13.419"),
        ]);
        assert!(change_of(&d, berlin(), &same).expect("read").is_none());
        let mut moved = same.clone();
        moved[1].1 = "Rui Receiver".into();
        moved[4].1 = "Gate 3".into();
        let (request, changed) = change_of(&d, berlin(), &moved).expect("read").expect("a change");
        assert_eq!(changed, ["dropoff contact", "pickup instructions"]);
        assert!(request.notes.is_none());
        let contact = request.dropoff.and_then(|w| w.contact).expect("contact");
        assert_eq!(contact.email.as_deref(), Some("rui@example.com"), "the email is kept");
        assert_eq!(request.if_updated_at, d.updated_at);
        assert_eq!(request.pickup.and_then(|w| w.instructions).as_deref(), Some("Gate 3"));
    }

    #[test]
    fn a_refusal_is_shown_at_its_field_or_above_the_form() {
        let d = delivery();
        let sent = form(&[("dropoff_phone", "call me")]);
        let at_phone = ChangeForm::of(&d, berlin(), String::new(), String::new()).sent(
            &sent,
            Some(("dropoff.contact.phone".into(), "Not a phone number.".into())),
        );
        assert_eq!(at_phone.dropoff_phone, "call me");
        assert_eq!(at_phone.error_at("dropoff.contact.phone"), Some("Not a phone number."));
        assert!(at_phone.other_error().is_none());
        let elsewhere = ChangeForm::of(&d, berlin(), String::new(), String::new())
            .sent(&sent, Some(("body".into(), "Too long.".into())));
        assert_eq!(elsewhere.other_error(), Some("Too long."));
    }

    #[test]
    fn a_window_is_read_on_the_workspaces_clock_and_a_moved_position_is_sent() {
        let d = delivery();
        let sent = form(&[
            ("dropoff_window_start", "2026-12-01T14:00"),
            ("dropoff_window_end", "2026-12-01T16:00"),
            ("dropoff_address", "Oranienstraße 25"),
            ("dropoff_position", " 52.5100 ,13.4200 "),
            ("accept_amount_cents", "1234"),
        ]);
        let (request, changed) = change_of(&d, berlin(), &sent).expect("read").expect("a change");
        assert!(
            changed.contains(&"dropoff window") && changed.contains(&"dropoff position"),
            "{changed:?}"
        );
        let window = request.dropoff_window.expect("window");
        let start = window
            .start
            .as_ref()
            .and_then(courier::time::from_proto)
            .expect("start");
        assert_eq!(start.to_rfc3339(), "2026-12-01T13:00:00+00:00", "14:00 in Berlin");
        let dropoff = request.dropoff.expect("dropoff");
        assert_eq!((dropoff.latitude, dropoff.longitude), (Some(52.51), Some(13.42)));
        assert_eq!(dropoff.address, None, "the address as it was");
        assert_eq!(request.accept_amount_cents, Some(1234));

        let half = form(&[
            ("dropoff_position", "52.501, 13.419"),
            ("dropoff_window_start", "2026-12-01T14:00"),
            ("dropoff_window_end", ""),
        ]);
        let refused = change_of(&d, berlin(), &half).expect_err("half a window");
        assert_eq!(refused.param.as_deref(), Some("dropoff_window.end"));
        let nowhere = form(&[("dropoff_position", "Kreuzberg")]);
        let refused = change_of(&d, berlin(), &nowhere).expect_err("no position");
        assert_eq!(refused.param.as_deref(), Some("dropoff.position"));

        // While pending, the pickup moves too.
        let pending = pb::Delivery {
            status: pb::DeliveryStatus::Pending as i32,
            pickup: Some(pb::Waypoint {
                address: "Alexanderplatz 1".into(),
                latitude: 52.5219,
                longitude: 13.4132,
                ..Default::default()
            }),
            ..delivery()
        };
        let shown = ChangeForm::of(&pending, berlin(), String::new(), String::new());
        assert_eq!(
            shown.pickup_place,
            Some(("Alexanderplatz 1".to_owned(), "52.5219, 13.4132".to_owned()))
        );
        let moved_pickup = form(&[
            ("notes", "Fragile"),
            ("dropoff_name", "Rui"),
            ("dropoff_phone", "+49 151 2345678"),
            ("dropoff_instructions", "Ring twice"),
            ("dropoff_address", "Oranienstraße 25"),
            ("dropoff_position", "52.501, 13.419"),
            ("pickup_address", "Alexanderplatz 2"),
            ("pickup_position", "52.5219, 13.4132"),
        ]);
        let (request, changed) = change_of(&pending, berlin(), &moved_pickup)
            .expect("read")
            .expect("a change");
        assert_eq!(changed, ["pickup address"]);
        assert_eq!(
            request.pickup.and_then(|p| p.address).as_deref(),
            Some("Alexanderplatz 2")
        );
        assert!(request.dropoff.is_none());
        let refused = ChangeForm::of(&pending, berlin(), String::new(), String::new())
            .sent(&moved_pickup, Some(("pickup.longitude".into(), "Out of range.".into())));
        assert_eq!(
            refused.error_at("pickup.position"),
            Some("Out of range."),
            "shown at the one field"
        );

        // Past pickup, neither the window nor (at the dropoff) the place.
        let at_dropoff = pb::Delivery {
            status: pb::DeliveryStatus::AtDropoff as i32,
            ..delivery()
        };
        let shown = ChangeForm::of(&at_dropoff, berlin(), String::new(), String::new());
        assert!(shown.dropoff_window.is_none() && shown.dropoff_place.is_none());
        let sent = form(&[
            ("notes", "Fragile"),
            ("dropoff_name", "Rui"),
            ("dropoff_phone", "+49 151 2345678"),
            ("dropoff_instructions", "Ring twice"),
            ("dropoff_window_start", "2026-12-01T14:00"),
            ("dropoff_window_end", "2026-12-01T16:00"),
            ("dropoff_position", "52.51, 13.42"),
        ]);
        assert!(
            change_of(&at_dropoff, berlin(), &sent).expect("read").is_none(),
            "fields not offered are not read"
        );
    }
}
