//! The public JSON shapes that both the edge (API answers) and the core
//! (webhook payloads) render, so that a delivery looks the same everywhere.
//! Every field is always present, `null` where unset (docs/guide.md "Conventions").

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::names::PublicName;
use crate::v1 as pb;

/// A time of a response: RFC 3339, UTC, `Z`.
pub fn time_out(ts: Option<&prost_types::Timestamp>) -> Option<String> {
    ts.and_then(crate::time::from_proto).map(crate::time::format_rfc3339)
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Contact)]
pub struct ContactJson {
    pub name: String,
    pub phone: String,
    pub email: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Waypoint)]
pub struct WaypointJson {
    pub address: String,
    pub latitude: f64,
    pub longitude: f64,
    pub contact: Option<ContactJson>,
    pub instructions: Option<String>,
}

impl From<pb::Waypoint> for WaypointJson {
    fn from(w: pb::Waypoint) -> Self {
        WaypointJson {
            address: w.address,
            latitude: w.latitude,
            longitude: w.longitude,
            contact: w.contact.map(|c| ContactJson {
                name: c.name,
                phone: c.phone,
                email: c.email,
            }),
            instructions: w.instructions,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = BreakdownExtra)]
pub struct BreakdownExtraJson {
    pub extra_id: String,
    pub option_id: Option<String>,
    pub name: String,
    pub option_name: Option<String>,
    pub quantity: i64,
    pub unit_amount_cents: i64,
    pub amount_cents: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Surcharge)]
pub struct SurchargeJson {
    pub code: String,
    pub label: String,
    pub amount_cents: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = PriceBreakdown)]
pub struct BreakdownJson {
    pub route_cents: i64,
    pub extras: Vec<BreakdownExtraJson>,
    pub surcharges: Vec<SurchargeJson>,
    pub discount_cents: i64,
    pub service_fee_cents: i64,
}

impl From<pb::PriceBreakdown> for BreakdownJson {
    fn from(b: pb::PriceBreakdown) -> Self {
        BreakdownJson {
            route_cents: b.route_cents,
            extras: b
                .extras
                .into_iter()
                .map(|e| BreakdownExtraJson {
                    extra_id: e.extra_id,
                    option_id: e.option_id,
                    name: e.name,
                    option_name: e.option_name,
                    quantity: e.quantity,
                    unit_amount_cents: e.unit_amount_cents,
                    amount_cents: e.amount_cents,
                })
                .collect(),
            surcharges: b
                .surcharges
                .into_iter()
                .map(|s| SurchargeJson {
                    code: s.code,
                    label: s.label,
                    amount_cents: s.amount_cents,
                })
                .collect(),
            discount_cents: b.discount_cents,
            service_fee_cents: b.service_fee_cents,
        }
    }
}

/// Every amount includes VAT.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaxBehavior {
    Inclusive,
}
/// The public name of a status.
pub fn status_name(status: pb::DeliveryStatus) -> Option<&'static str> {
    status.public_name()
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = PickupProofRequirements)]
pub struct PickupProofJson {
    pub photos: i32,
    pub signature: bool,
    pub sender_name: bool,
    pub barcode: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DropoffProofRequirements)]
pub struct DropoffProofJson {
    pub photos: i32,
    pub signature: bool,
    pub recipient_name: bool,
    pub barcode: bool,
    pub age_check: bool,
    pub leave_at_door: bool,
    /// The courier enters `dropoff_pin` to hand over.
    pub pin: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProofOfDeliveryRequirements)]
pub struct ProofRequirementsJson {
    pub pickup: Option<PickupProofJson>,
    pub dropoff: Option<DropoffProofJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CourierVehicle)]
pub struct CourierVehicleJson {
    pub make: Option<String>,
    pub model: Option<String>,
    pub color: Option<String>,
    pub license_plate: Option<String>,
    pub photo_url: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CourierLocation)]
pub struct CourierLocationJson {
    pub latitude: f64,
    pub longitude: f64,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub recorded_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Courier)]
pub struct CourierJson {
    pub name: Option<String>,
    pub photo_url: Option<String>,
    pub rating: Option<f64>,
    pub vehicle: Option<CourierVehicleJson>,
    pub location: Option<CourierLocationJson>,
}

impl From<pb::Courier> for CourierJson {
    fn from(c: pb::Courier) -> Self {
        CourierJson {
            name: c.name,
            photo_url: c.photo_url,
            rating: c.rating,
            vehicle: c.vehicle.map(|v| CourierVehicleJson {
                make: v.make,
                model: v.model,
                color: v.color,
                license_plate: v.license_plate,
                photo_url: v.photo_url,
            }),
            location: c.location.map(|l| CourierLocationJson {
                latitude: l.latitude,
                longitude: l.longitude,
                recorded_at: time_out(l.recorded_at.as_ref()),
            }),
        }
    }
}

/// A delivery. Every field is always present, `null` where
/// unset. Events carry the same shape with `courier` reduced to its name.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Delivery)]
pub struct DeliveryJson<C = Option<CourierJson>> {
    pub id: String,
    #[schema(value_type = pb::DeliveryStatus)]
    pub status: Option<&'static str>,
    #[schema(value_type = pb::Mode)]
    pub mode: &'static str,
    pub external_id: Option<String>,
    pub quote_id: Option<String>,
    pub amount_cents: Option<i64>,
    pub currency: Option<String>,
    pub tax_behavior: TaxBehavior,
    pub breakdown: Option<BreakdownJson>,
    #[schema(value_type = WaypointJson)]
    pub pickup: Option<WaypointJson>,
    #[schema(value_type = WaypointJson)]
    pub dropoff: Option<WaypointJson>,
    pub stops: Vec<WaypointJson>,
    pub vehicle_type_id: String,
    pub notes: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub scheduled_at: Option<String>,
    pub proof_of_delivery: Option<ProofRequirementsJson>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub tracking_available_at: Option<String>,
    pub tracking_url: Option<String>,
    /// `Option<…>` as a type argument rather than around it, so that the
    /// schema shows the courier as nullable.
    pub courier: C,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub cancelled_at: Option<String>,
    #[schema(value_type = Option<pb::CancellationReason>)]
    pub cancellation_reason: Option<&'static str>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub delivered_at: Option<String>,
    /// When the pickup is promised; `null` when none.
    pub pickup_window: Option<TimeWindowJson>,
    /// When the dropoff is promised; `null` when none.
    pub dropoff_window: Option<TimeWindowJson>,
    /// When the courier is planned (or, on the way, predicted) at the
    /// pickup; `null` once picked up or ended.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub pickup_eta: Option<String>,
    /// When the courier is planned or predicted at the dropoff; `null` once
    /// ended.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub dropoff_eta: Option<String>,
    /// Whether the courier may carry other jobs meanwhile.
    #[schema(value_type = pb::Batching)]
    pub batching: &'static str,
    /// The delivery's own choice of recipient notifications over its
    /// workspace's settings (docs/guide.md "Notifications"); `null` when it
    /// chose nothing.
    pub notifications: Option<NotificationPreferencesJson>,
    /// The 4 digits the recipient tells the courier at the dropoff
    /// (`proof_of_delivery.dropoff.pin`), also on the tracking page; `null`
    /// when the delivery asks for none.
    pub dropoff_pin: Option<String>,
    /// What a failed handover does with the goods (docs/guide.md
    /// "Returns").
    #[schema(value_type = pb::UndeliverableAction)]
    pub undeliverable_action: &'static str,
    /// On a return: the delivery whose goods it brings back; `null`
    /// otherwise.
    pub return_of: Option<String>,
    /// Once the handover failed and the goods go back: the return
    /// delivery; `null` otherwise.
    pub return_delivery_id: Option<String>,
    /// The tip, in minor units of `currency`, all of it the courier's
    /// (docs/guide.md "Tips"); 0 without one.
    pub tip_cents: i64,
}

/// A language whose notification texts ship with the platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationLanguage {
    En,
    De,
}

impl NotificationLanguage {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationLanguage::En => "en",
            NotificationLanguage::De => "de",
        }
    }
}

/// A delivery's choice of recipient notifications; `null` members keep the
/// workspace's settings.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = NotificationPreferences)]
pub struct NotificationPreferencesJson {
    /// `false`: no message to the dropoff's contact.
    pub recipient: Option<bool>,
    /// `false`: no message to the pickup's contact.
    pub sender: Option<bool>,
    /// The messages' language.
    #[schema(value_type = Option<NotificationLanguage>)]
    pub language: Option<String>,
}

impl From<pb::NotificationPreferences> for NotificationPreferencesJson {
    fn from(p: pb::NotificationPreferences) -> Self {
        NotificationPreferencesJson {
            recipient: p.recipient,
            sender: p.sender,
            language: p.language,
        }
    }
}

/// A promised time: from `start` to `end` (docs/guide.md "Windows").
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TimeWindow)]
pub struct TimeWindowJson {
    #[schema(value_type = String, format = DateTime)]
    pub start: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub end: Option<String>,
}

impl From<pb::TimeWindow> for TimeWindowJson {
    fn from(w: pb::TimeWindow) -> Self {
        TimeWindowJson {
            start: time_out(w.start.as_ref()),
            end: time_out(w.end.as_ref()),
        }
    }
}

impl<C: From<pb::Courier>> From<pb::Delivery> for DeliveryJson<Option<C>> {
    fn from(d: pb::Delivery) -> Self {
        DeliveryJson {
            status: status_name(d.status()),
            mode: if d.mode() == pb::Mode::Test { "test" } else { "live" },
            cancellation_reason: d.cancellation_reason().public_name(),
            scheduled_at: time_out(d.scheduled_at.as_ref()),
            tracking_available_at: time_out(d.tracking_available_at.as_ref()),
            created_at: time_out(d.created_at.as_ref()),
            updated_at: time_out(d.updated_at.as_ref()),
            cancelled_at: time_out(d.cancelled_at.as_ref()),
            delivered_at: time_out(d.delivered_at.as_ref()),
            pickup_eta: time_out(d.pickup_eta.as_ref()),
            dropoff_eta: time_out(d.dropoff_eta.as_ref()),
            pickup_window: d.pickup_window.map(Into::into),
            dropoff_window: d.dropoff_window.map(Into::into),
            batching: d.batching().public_name().unwrap_or("allowed"),
            undeliverable_action: d.undeliverable_action().public_name().unwrap_or("return_to_pickup"),
            notifications: d.notifications.map(Into::into),
            dropoff_pin: d.dropoff_pin,
            return_of: d.return_of,
            return_delivery_id: d.return_delivery_id,
            tip_cents: d.tip_cents,
            id: d.id,
            external_id: d.external_id,
            quote_id: d.quote_id,
            amount_cents: d.amount_cents,
            currency: d.currency,
            tax_behavior: TaxBehavior::Inclusive,
            breakdown: d.breakdown.map(Into::into),
            pickup: d.pickup.map(Into::into),
            dropoff: d.dropoff.map(Into::into),
            stops: d.stops.into_iter().map(Into::into).collect(),
            vehicle_type_id: d.vehicle_type_id,
            notes: d.notes,
            proof_of_delivery: d.proof_of_delivery.map(|p| ProofRequirementsJson {
                pickup: p.pickup.map(|x| PickupProofJson {
                    photos: x.photos,
                    signature: x.signature,
                    sender_name: x.sender_name,
                    barcode: x.barcode,
                }),
                dropoff: p.dropoff.map(|x| DropoffProofJson {
                    photos: x.photos,
                    signature: x.signature,
                    recipient_name: x.recipient_name,
                    barcode: x.barcode,
                    age_check: x.age_check,
                    leave_at_door: x.leave_at_door,
                    pin: x.pin,
                }),
            }),
            tracking_url: d.tracking_url,
            courier: d.courier.map(Into::into),
        }
    }
}

/// The courier as events show it: its name only.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = EventCourier)]
pub struct CourierNameJson {
    pub name: Option<String>,
}

impl From<pb::Courier> for CourierNameJson {
    fn from(c: pb::Courier) -> Self {
        CourierNameJson { name: c.name }
    }
}

/// DeliveryEventData: an event's `data` (docs/guide.md "Events").
pub type EventDeliveryJson = DeliveryJson<Option<CourierNameJson>>;

/// An event's `data` as it is sent: the delivery and, on `delivery.updated`
/// only, the members the client changed, as dot paths (`changed_fields`).
/// The OpenAPI document adds the member to DeliveryEventData.
#[derive(Debug, Serialize)]
pub struct EventDataJson {
    #[serde(flatten)]
    pub delivery: EventDeliveryJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_fields: Option<Vec<String>>,
}

impl EventDataJson {
    /// The data of an event of type `event_type` about `delivery`.
    pub fn new(event_type: pb::EventType, delivery: pb::Delivery, changed_fields: Vec<String>) -> Self {
        EventDataJson {
            delivery: delivery.into(),
            changed_fields: (event_type == pb::EventType::DeliveryUpdated).then_some(changed_fields),
        }
    }
}
