//! The public names of the protobuf enums that the JSON API shows
//! (`picked_up`, `delivery.created`, …), and their JSON Schemas for the
//! OpenAPI document. Each enum's name table is written once, here: the JSON
//! rendering, the parsing of request values and the schema's `enum` all read
//! it, so the document cannot list a value the API does not use.

use std::borrow::Cow;

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::v1 as pb;

/// A protobuf enum whose values have public names.
pub trait PublicName: Sized + Copy + 'static {
    /// Every value the API shows, with its public name, in the API's order.
    const NAMES: &'static [(Self, &'static str)];

    /// The public name, `None` for a value the API never shows (unspecified).
    fn public_name(self) -> Option<&'static str>;

    /// The value of a public name.
    fn from_public_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(_, n)| *n == name).map(|(value, _)| *value)
    }

    /// "a, b, c" for messages that list the accepted values.
    fn public_names() -> String {
        Self::NAMES.iter().map(|(_, name)| *name).collect::<Vec<_>>().join(", ")
    }
}

/// A string schema whose values are exactly `names`.
pub fn string_enum(names: impl IntoIterator<Item = &'static str>, description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names))
        .description(Some(description))
        .into()
}

macro_rules! public_names {
    ($( $ty:ident as $schema:literal, $doc:literal { $( $variant:ident => $name:literal ),* $(,)? } )*) => {
        $(
            impl PublicName for pb::$ty {
                const NAMES: &'static [(Self, &'static str)] = &[$( (pb::$ty::$variant, $name), )*];

                fn public_name(self) -> Option<&'static str> {
                    Self::NAMES.iter().find(|(value, _)| *value == self).map(|(_, name)| *name)
                }
            }

            impl utoipa::PartialSchema for pb::$ty {
                fn schema() -> RefOr<Schema> {
                    string_enum(Self::NAMES.iter().map(|(_, name)| *name), $doc)
                }
            }

            impl utoipa::ToSchema for pb::$ty {
                fn name() -> Cow<'static, str> {
                    Cow::Borrowed($schema)
                }
            }
        )*
    };
}

public_names! {
    DeliveryStatus as "DeliveryStatus", "Status of a delivery (and of a fleet order); `delivered` and `cancelled` are final." {
        Pending => "pending",
        CourierAssigned => "courier_assigned",
        AtPickup => "at_pickup",
        PickedUp => "picked_up",
        InTransit => "in_transit",
        AtDropoff => "at_dropoff",
        Delivered => "delivered",
        Cancelled => "cancelled",
    }
    Mode as "Mode", "The key mode a resource belongs to." {
        Live => "live",
        Test => "test",
    }
    CancellationReason as "CancellationReason", "Why a delivery was cancelled." {
        CancelledByYou => "cancelled_by_you",
        NoCourierFound => "no_courier_found",
        PickupNoShow => "pickup_no_show",
        CancelledByMaxmove => "cancelled_by_maxmove",
    }
    CancelReason as "CancelReason", "Why the client cancelled." {
        FoundAnotherService => "found_another_service",
        WaitedTooLong => "waited_too_long",
        BookedByMistake => "booked_by_mistake",
        NoLongerNeeded => "no_longer_needed",
        ChangeDetails => "change_details",
        Other => "other",
    }
    TestScenario as "TestScenario", "How the simulator plays a test delivery out instead of delivering it." {
        NoCourierFound => "no_courier_found",
        CourierCancelled => "courier_cancelled",
        PickupNoShow => "pickup_no_show",
        DeliveryFailed => "delivery_failed",
        Delayed => "delayed",
        Returned => "returned",
    }
    UndeliverableAction as "UndeliverableAction", "What a failed handover does with the goods: a return delivery brings them back to the pickup (`return_to_pickup`, the default) or the courier disposes of them (`dispose`)." {
        ReturnToPickup => "return_to_pickup",
        Dispose => "dispose",
    }
    Batching as "Batching", "Whether the delivery may share its courier with other jobs (`allowed`, the default) or rides alone (`never`)." {
        Allowed => "allowed",
        Never => "never",
    }
    PromiseState as "PromiseState", "Deliveries by their promised dropoff: `at_risk` (not ended, and reported at risk or past the promise), `late` (delivered after the promise, or not ended and past it)." {
        AtRisk => "at_risk",
        Late => "late",
    }
    NotificationChannel as "NotificationChannel", "How a notification goes out." {
        Sms => "sms",
        Email => "email",
    }
    NotificationAudience as "NotificationAudience", "Whom a notification is for: the dropoff's contact (`recipient`) or the pickup's (`sender`)." {
        Recipient => "recipient",
        Sender => "sender",
    }
    NotificationTrigger as "NotificationTrigger", "The moment a notification is about." {
        CourierAssigned => "courier_assigned",
        PickedUp => "picked_up",
        Arriving => "arriving",
        Delivered => "delivered",
        Delayed => "delayed",
        Failed => "failed",
    }
    NotificationStatus as "NotificationStatus", "Where a notification stands: `queued`, `held` (quiet hours), `sent` (in test mode: in the test inbox), `delivered` (reported by the provider), `failed`, `dropped` (the delivery ended before it could go out) or `opted_out`." {
        Queued => "queued",
        Held => "held",
        Sent => "sent",
        Delivered => "delivered",
        Failed => "failed",
        Dropped => "dropped",
        OptedOut => "opted_out",
    }
    EventType as "EventType", "The type of an event." {
        DeliveryCreated => "delivery.created",
        DeliveryStatusUpdated => "delivery.status_updated",
        DeliveryCourierAssigned => "delivery.courier_assigned",
        DeliveryCourierArrived => "delivery.courier_arrived",
        DeliveryEtaUpdated => "delivery.eta_updated",
        DeliveryPodSubmitted => "delivery.pod_submitted",
        DeliveryDelivered => "delivery.delivered",
        DeliveryCancelled => "delivery.cancelled",
        DeliveryDelayed => "delivery.delayed",
        DeliveryUpdated => "delivery.updated",
    }
    WebhookAttemptStatus as "WebhookAttemptStatus", "How the attempt ended: `succeeded` (a `2xx` answer) or `failed`, whether or not a retry follows; `pending` while its request is being made." {
        Succeeded => "succeeded",
        Failed => "failed",
        Pending => "pending",
    }
    WebhookEndpointStatus as "WebhookEndpointStatus", "Whether the endpoint receives events." {
        Active => "active",
        Disabled => "disabled",
    }
    WebhookDisabledReason as "WebhookDisabledReason", "Why the endpoint is disabled: by a PATCH (`manual`) or after failing for a day (`failing`)." {
        Manual => "manual",
        Failing => "failing",
    }
    CheckpointKind as "CheckpointKind", "Where the proof was taken; `unknown` for kinds added later." {
        Pickup => "pickup",
        Dropoff => "dropoff",
        Unspecified => "unknown",
    }
    ArtifactKind as "ArtifactKind", "What a proof file shows; `unknown` for kinds added later." {
        Photo => "photo",
        Signature => "signature",
        SignedDeliveryNote => "signed_delivery_note",
        Document => "document",
        Unspecified => "unknown",
    }
}

/// A vehicle type of the catalogue in the words a person reads ("Cargo
/// bike" for `cargo_bike`), for documents and pages that hold only the id;
/// an id the catalogue adds later reads with spaces for its underscores.
pub fn vehicle_type_words(id: &str) -> String {
    match id {
        "bicycle" => "Bicycle".into(),
        "cargo_bike" => "Cargo bike".into(),
        "car" => "Car".into(),
        "small_van" => "Small van".into(),
        "large_van" => "Large van".into(),
        other => {
            let spaced = other.replace('_', " ");
            let mut letters = spaced.chars();
            letters
                .next()
                .map(|first| first.to_uppercase().chain(letters).collect())
                .unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (status, name) in pb::DeliveryStatus::NAMES {
            assert_eq!(status.public_name(), Some(*name));
            assert_eq!(pb::DeliveryStatus::from_public_name(name), Some(*status));
        }
        assert_eq!(pb::DeliveryStatus::Unspecified.public_name(), None);
        assert_eq!(pb::EventType::from_public_name("delivery.unknown"), None);
        assert!(pb::EventType::public_names().starts_with("delivery.created, delivery.status_updated"));
    }
}
