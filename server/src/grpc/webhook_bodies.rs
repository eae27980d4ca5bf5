//! The body of a webhook request: the event envelope
//! `{id, type, version, created_at, data}` (docs/guide.md "Events") as JSON
//! bytes. `data` is the stored delivery snapshot rendered by the same
//! [`EventDeliveryJson`] the edge uses for `GET /v1/events`, so a webhook body
//! and the events API always agree.
//!
//! The bytes are rendered once per attempt and signed as they are sent; the
//! receiver must verify the raw bytes, never a re-serialisation.

use courier::json::{EventDataJson, EventDeliveryJson};
use courier::time::{format_rfc3339, from_micros, micros_to_proto};
use courier::v1 as pb;
use serde::Serialize;

use super::delivery_out::snapshot;
use super::enums::ToProto;

use courier_core::{CoreError, CoreResult};
use courier_identity::auth::Mode;
use courier_orders::events::Event;
use courier_orders::events::{self, EventType};

#[derive(Serialize)]
struct Envelope<'a, D> {
    id: &'a str,
    r#type: &'a str,
    version: &'a str,
    created_at: String,
    data: D,
}

/// DeliveryEventData with the `test` flag of sample events.
#[derive(Serialize)]
struct SampleData {
    #[serde(flatten)]
    delivery: EventDeliveryJson,
    test: bool,
}

/// The JSON body of a stored `event`.
pub fn event_body(event: &Event) -> CoreResult<Vec<u8>> {
    render(&Envelope {
        id: &event.id,
        r#type: event.event_type.as_str(),
        version: &event.version,
        created_at: format_rfc3339(from_micros(event.created_at)),
        data: EventDataJson::new(
            event.event_type.to_proto(),
            snapshot(event)?,
            event.changed_fields.clone(),
        ),
    })
}

/// The body of sample event `id` for `POST /v1/webhooks/{id}/test`: a
/// `delivery.status_updated` event about a made-up delivery in `picked_up`,
/// with `data.test` true. It is not stored and never listed.
pub fn sample_body(id: &str, mode: Mode, now: i64) -> CoreResult<Vec<u8>> {
    render(&Envelope {
        id,
        r#type: EventType::StatusUpdated.as_str(),
        version: events::VERSION,
        created_at: format_rfc3339(from_micros(now)),
        data: SampleData {
            delivery: EventDeliveryJson::from(sample_delivery(mode, now)),
            test: true,
        },
    })
}

/// A plausible delivery in `picked_up` for sample events.
fn sample_delivery(mode: Mode, now: i64) -> pb::Delivery {
    const MINUTE: i64 = 60_000_000;
    let contact = |name: &str, phone: &str| pb::Contact {
        name: name.to_owned(),
        phone: phone.to_owned(),
        email: None,
    };
    pb::Delivery {
        id: courier_store::ids::new_id("del"),
        status: pb::DeliveryStatus::PickedUp as i32,
        mode: match mode {
            Mode::Live => pb::Mode::Live,
            Mode::Test => pb::Mode::Test,
        } as i32,
        external_id: None,
        quote_id: None,
        amount_cents: Some(1490),
        currency: Some("EUR".to_owned()),
        breakdown: Some(pb::PriceBreakdown {
            route_cents: 1190,
            extras: Vec::new(),
            surcharges: Vec::new(),
            discount_cents: 0,
            service_fee_cents: 300,
        }),
        pickup: Some(pb::Waypoint {
            address: "Alexanderplatz 1, 10178 Berlin".to_owned(),
            latitude: 52.5219,
            longitude: 13.4132,
            contact: Some(contact("Sample Sender", "+49 30 1234567")),
            instructions: None,
        }),
        dropoff: Some(pb::Waypoint {
            address: "Oranienstraße 25, 10999 Berlin".to_owned(),
            latitude: 52.5010,
            longitude: 13.4190,
            contact: Some(contact("Sample Recipient", "+49 151 2345678")),
            instructions: Some("Ring twice".to_owned()),
        }),
        stops: Vec::new(),
        vehicle_type_id: "cargo_bike".to_owned(),
        notes: None,
        scheduled_at: None,
        proof_of_delivery: Some(pb::ProofOfDeliveryRequirements {
            pickup: Some(pb::PickupProofRequirements {
                photos: 1,
                ..Default::default()
            }),
            dropoff: Some(pb::DropoffProofRequirements {
                photos: 1,
                ..Default::default()
            }),
        }),
        tracking_available_at: Some(micros_to_proto(now - 10 * MINUTE)),
        tracking_url: None,
        courier: Some(pb::Courier {
            name: Some("Sam".to_owned()),
            ..Default::default()
        }),
        created_at: Some(micros_to_proto(now - 15 * MINUTE)),
        updated_at: Some(micros_to_proto(now)),
        cancelled_at: None,
        cancellation_reason: pb::CancellationReason::Unspecified as i32,
        delivered_at: None,
        pickup_window: None,
        dropoff_window: None,
        pickup_eta: None,
        dropoff_eta: Some(micros_to_proto(now + 12 * MINUTE)),
        promised_by: None,
        delayed_at: None,
        on_time: None,
        batching: pb::Batching::Allowed as i32,
        notifications: None,
        dropoff_pin: None,
        handover_blocked: false,
        undeliverable_action: pb::UndeliverableAction::ReturnToPickup as i32,
        return_of: None,
        return_delivery_id: None,
        tip_cents: 0,
    }
}

fn render<T: Serialize>(envelope: &T) -> CoreResult<Vec<u8>> {
    serde_json::to_vec(envelope).map_err(|error| CoreError::Internal(format!("webhook body: {error}")))
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    #[test]
    fn sample_events_carry_the_test_flag_and_a_picked_up_delivery() {
        let now = 1_795_000_000_000_000;
        let sample = sample_body("evt_sample", Mode::Test, now).expect("sample");
        let body: serde_json::Value = serde_json::from_slice(&sample).expect("json");
        assert_eq!(body["id"], "evt_sample");
        assert_eq!(body["type"], "delivery.status_updated");
        assert_eq!(body["version"], events::VERSION);
        assert_eq!(body["data"]["test"], true);
        assert_eq!(body["data"]["status"], "picked_up");
        assert_eq!(body["data"]["mode"], "test");
        assert_eq!(body["data"]["courier"], serde_json::json!({ "name": "Sam" }));
        let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
        assert_eq!(keys.len(), 5, "{keys:?}");
    }

    #[test]
    fn event_bodies_have_no_test_flag() {
        let event = Event {
            id: "evt_1".into(),
            event_type: EventType::Created,
            version: "2026-11".into(),
            created_at: 1_795_000_000_000_000,
            data: sample_delivery(Mode::Live, 1_795_000_000_000_000).encode_to_vec(),
            changed_fields: Vec::new(),
        };
        let body = event_body(&event).expect("body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(body["type"], "delivery.created");
        assert_eq!(body["created_at"], "2026-11-18T11:06:40Z");
        assert!(body["data"].get("test").is_none());
        assert!(body["data"].get("changed_fields").is_none());
    }

    #[test]
    fn update_bodies_name_the_changed_members() {
        let event = Event {
            id: "evt_2".into(),
            event_type: EventType::Updated,
            version: "2026-11".into(),
            created_at: 1_795_000_000_000_000,
            data: sample_delivery(Mode::Live, 1_795_000_000_000_000).encode_to_vec(),
            changed_fields: vec!["notes".into(), "dropoff.contact".into()],
        };
        let body: serde_json::Value = serde_json::from_slice(&event_body(&event).expect("body")).expect("json");
        assert_eq!(body["type"], "delivery.updated");
        assert_eq!(
            body["data"]["changed_fields"],
            serde_json::json!(["notes", "dropoff.contact"])
        );
        assert_eq!(body["data"]["status"], "picked_up");
    }
}
