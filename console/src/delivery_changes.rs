//! The delivery page's change form (docs/console.md "Pages"): owners and
//! admins change the notes, the dropoff contact and the instructions of a
//! delivery that has not ended, as `PATCH /v1/deliveries/{id}` does
//! (docs/guide.md "Change a delivery"). Only what differs from the delivery
//! as the page showed it is sent, against the `updated_at` the page showed
//! (a delivery changed meanwhile is refused, not overwritten), under an
//! idempotency key made when the page rendered (a double click changes
//! once).

use courier::v1 as pb;

use crate::page::field;

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
    /// The core's refusal of a field: its dot path and message.
    pub(crate) error: Option<(String, String)>,
}

impl ChangeForm {
    /// The form for `delivery`, posting to `action`.
    pub(crate) fn of(delivery: &pb::Delivery, action: String, csrf: String) -> ChangeForm {
        let dropoff = delivery.dropoff.clone().unwrap_or_default();
        let contact = dropoff.contact.unwrap_or_default();
        let before_pickup = matches!(
            delivery.status(),
            pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::AtPickup
        );
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
        self.error = error;
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
        const SHOWN: [&str; 5] = [
            "notes",
            "dropoff.contact.name",
            "dropoff.contact.phone",
            "dropoff.instructions",
            "pickup.instructions",
        ];
        self.error
            .as_ref()
            .filter(|(at, _)| !SHOWN.contains(&at.as_str()))
            .map(|(_, message)| message.as_str())
    }
}

/// A change sent from the form: what differs from `delivery` as it is, and
/// the names of what changed (for the notice); `None` when nothing does.
pub(crate) fn change_of(
    delivery: &pb::Delivery,
    form: &[(String, String)],
) -> Option<(pb::UpdateDeliveryRequest, Vec<&'static str>)> {
    let shown = ChangeForm::of(delivery, String::new(), String::new());
    let mut request = pb::UpdateDeliveryRequest {
        delivery_id: delivery.id.clone(),
        if_updated_at: field(form, "updated_at")
            .parse::<i64>()
            .ok()
            .map(courier::time::micros_to_proto),
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
    if dropoff != pb::WaypointChange::default() {
        request.dropoff = Some(dropoff);
    }
    if let Some(before) = &shown.pickup_instructions
        && sent("pickup_instructions") != before.trim()
    {
        request.pickup = Some(pb::WaypointChange {
            instructions: Some(sent("pickup_instructions")),
            ..Default::default()
        });
        changed.push("pickup instructions");
    }
    (!changed.is_empty()).then_some((request, changed))
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
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn only_what_differs_is_sent_against_the_updated_at_shown() {
        let d = delivery();
        let shown = ChangeForm::of(&d, String::new(), String::new());
        assert_eq!(shown.updated_at, "1700000000123456");
        let same = form(&[
            ("notes", "Fragile"),
            ("dropoff_name", "Rui"),
            ("dropoff_phone", "+49 151 2345678"),
            ("dropoff_instructions", "Ring twice "),
            ("pickup_instructions", ""),
            ("updated_at", "1700000000123456"),
        ]);
        assert!(change_of(&d, &same).is_none());
        let mut moved = same.clone();
        moved[1].1 = "Rui Receiver".into();
        moved[4].1 = "Gate 3".into();
        let (request, changed) = change_of(&d, &moved).expect("a change");
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
        let at_phone = ChangeForm::of(&d, String::new(), String::new()).sent(
            &sent,
            Some(("dropoff.contact.phone".into(), "Not a phone number.".into())),
        );
        assert_eq!(at_phone.dropoff_phone, "call me");
        assert_eq!(at_phone.error_at("dropoff.contact.phone"), Some("Not a phone number."));
        assert!(at_phone.other_error().is_none());
        let elsewhere =
            ChangeForm::of(&d, String::new(), String::new()).sent(&sent, Some(("body".into(), "Too long.".into())));
        assert_eq!(elsewhere.other_error(), Some("Too long."));
    }
}
