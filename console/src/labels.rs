//! The plain words a person reads for every value the API names in its own
//! words (`courier_assigned`, `cancelled_by_maxmove`, `deliveries:write`):
//! one table per kind, read by every page. Pages keep the API's names for
//! links, form values and styles, and show these. Each table matches its
//! enum exhaustively, so a value added to the API needs its words here.

use courier::internal::v1 as internal;
use courier::names::PublicName;
use courier::v1 as pb;

/// A delivery's or a fleet order's status.
pub(crate) fn delivery_status(status: pb::DeliveryStatus) -> &'static str {
    match status {
        pb::DeliveryStatus::Pending => "Waiting for a courier",
        pb::DeliveryStatus::CourierAssigned => "Courier assigned",
        pb::DeliveryStatus::AtPickup => "Courier at pickup",
        pb::DeliveryStatus::PickedUp => "Picked up",
        pb::DeliveryStatus::InTransit => "On the way",
        pb::DeliveryStatus::AtDropoff => "Courier at drop-off",
        pb::DeliveryStatus::Delivered => "Delivered",
        pb::DeliveryStatus::Cancelled => "Cancelled",
        pb::DeliveryStatus::Unspecified => "Unknown",
    }
}

/// Why a delivery was cancelled. The service's own cancellations never name
/// the company: the reader is its customer.
pub(crate) fn cancellation(reason: pb::CancellationReason) -> &'static str {
    match reason {
        pb::CancellationReason::CancelledByYou => "Cancelled by you",
        pb::CancellationReason::NoCourierFound => "No courier was found",
        pb::CancellationReason::PickupNoShow => "Nobody handed the goods over at pickup",
        pb::CancellationReason::CancelledByMaxmove => "Cancelled by us",
        pb::CancellationReason::Unspecified => "",
    }
}

/// Why the client cancels (the cancel form's choices).
pub(crate) fn cancel_reason(reason: pb::CancelReason) -> &'static str {
    match reason {
        pb::CancelReason::FoundAnotherService => "Found another service",
        pb::CancelReason::WaitedTooLong => "Waited too long",
        pb::CancelReason::BookedByMistake => "Booked by mistake",
        pb::CancelReason::NoLongerNeeded => "No longer needed",
        pb::CancelReason::ChangeDetails => "The details need changing",
        pb::CancelReason::Other => "Another reason",
        pb::CancelReason::Unspecified => "",
    }
}

/// How the test mode plays a delivery out.
pub(crate) fn scenario(scenario: pb::TestScenario) -> &'static str {
    match scenario {
        pb::TestScenario::NoCourierFound => "No courier is found",
        pb::TestScenario::CourierCancelled => "The courier cancels",
        pb::TestScenario::PickupNoShow => "Nobody at the pickup",
        pb::TestScenario::DeliveryFailed => "The delivery fails",
        pb::TestScenario::Delayed => "The courier runs late",
        pb::TestScenario::Returned => "The delivery fails and comes back",
        pb::TestScenario::Unspecified => "Delivered: every status in turn",
    }
}

pub(crate) fn event_type(event_type: pb::EventType) -> &'static str {
    match event_type {
        pb::EventType::DeliveryCreated => "Delivery booked",
        pb::EventType::DeliveryStatusUpdated => "Status changed",
        pb::EventType::DeliveryCourierAssigned => "Courier assigned",
        pb::EventType::DeliveryCourierArrived => "Courier arrived",
        pb::EventType::DeliveryEtaUpdated => "Arrival time changed",
        pb::EventType::DeliveryPodSubmitted => "Proof of delivery received",
        pb::EventType::DeliveryDelivered => "Delivered",
        pb::EventType::DeliveryCancelled => "Cancelled",
        pb::EventType::DeliveryDelayed => "At risk of being late",
        pb::EventType::DeliveryUpdated => "Details changed",
        pb::EventType::Unspecified => "Unknown",
    }
}

/// How a webhook request ended.
pub(crate) fn attempt_status(status: pb::WebhookAttemptStatus) -> &'static str {
    match status {
        pb::WebhookAttemptStatus::Succeeded => "Received",
        pb::WebhookAttemptStatus::Failed => "Failed",
        pb::WebhookAttemptStatus::Pending => "Sending",
        pb::WebhookAttemptStatus::Unspecified => "Unknown",
    }
}

pub(crate) fn endpoint_status(status: pb::WebhookEndpointStatus) -> &'static str {
    match status {
        pb::WebhookEndpointStatus::Active => "Active",
        pb::WebhookEndpointStatus::Disabled => "Disabled",
        pb::WebhookEndpointStatus::Unspecified => "Unknown",
    }
}

pub(crate) fn disabled_reason(reason: pb::WebhookDisabledReason) -> &'static str {
    match reason {
        pb::WebhookDisabledReason::Manual => "turned off by hand",
        pb::WebhookDisabledReason::Failing => "turned off after failing for a day",
        pb::WebhookDisabledReason::Unspecified => "",
    }
}

pub(crate) fn checkpoint(kind: pb::CheckpointKind) -> &'static str {
    match kind {
        pb::CheckpointKind::Pickup => "At pickup",
        pb::CheckpointKind::Dropoff => "At drop-off",
        pb::CheckpointKind::Unspecified => "Proof",
    }
}

pub(crate) fn artifact(kind: pb::ArtifactKind) -> &'static str {
    match kind {
        pb::ArtifactKind::Photo => "photo",
        pb::ArtifactKind::Signature => "signature",
        pb::ArtifactKind::SignedDeliveryNote => "signed delivery note",
        pb::ArtifactKind::Document => "document",
        pb::ArtifactKind::Unspecified => "file",
    }
}

/// The moment a recipient notification is about.
pub(crate) fn notification_trigger(trigger: pb::NotificationTrigger) -> &'static str {
    match trigger {
        pb::NotificationTrigger::CourierAssigned => "Courier assigned",
        pb::NotificationTrigger::PickedUp => "Picked up",
        pb::NotificationTrigger::Arriving => "Arriving",
        pb::NotificationTrigger::Delivered => "Delivered",
        pb::NotificationTrigger::Delayed => "Running late",
        pb::NotificationTrigger::Failed => "Not delivered",
        pb::NotificationTrigger::Unspecified => "Unknown",
    }
}

/// When a trigger's message goes out, in a sentence.
pub(crate) fn notification_trigger_about(trigger: pb::NotificationTrigger) -> &'static str {
    match trigger {
        pb::NotificationTrigger::CourierAssigned => {
            "A courier took the delivery; the message carries the tracking link."
        }
        pb::NotificationTrigger::PickedUp => "The courier picked the goods up.",
        pb::NotificationTrigger::Arriving => {
            "The courier is at most 5 minutes or 300 m from the drop-off (never held by quiet hours)."
        }
        pb::NotificationTrigger::Delivered => "The goods were handed over.",
        pb::NotificationTrigger::Delayed => "The promised drop-off time will be missed.",
        pb::NotificationTrigger::Failed => "The delivery ended without reaching the recipient after its pickup.",
        pb::NotificationTrigger::Unspecified => "",
    }
}

/// Whom a notification is for.
pub(crate) fn notification_audience(audience: pb::NotificationAudience) -> &'static str {
    match audience {
        pb::NotificationAudience::Recipient => "Recipient",
        pb::NotificationAudience::Sender => "Sender",
        pb::NotificationAudience::Unspecified => "Unknown",
    }
}

pub(crate) fn notification_channel(channel: pb::NotificationChannel) -> &'static str {
    match channel {
        pb::NotificationChannel::Sms => "SMS",
        pb::NotificationChannel::Email => "Email",
        pb::NotificationChannel::Unspecified => "Unknown",
    }
}

/// Where a notification stands (in the test inbox, `sent` means it landed
/// there).
pub(crate) fn notification_status(status: pb::NotificationStatus) -> &'static str {
    match status {
        pb::NotificationStatus::Queued => "Waiting to be sent",
        pb::NotificationStatus::Held => "Held for quiet hours",
        pb::NotificationStatus::Sent => "Sent",
        pb::NotificationStatus::Delivered => "Delivered",
        pb::NotificationStatus::Failed => "Failed",
        pb::NotificationStatus::Dropped => "Not sent, the delivery had ended",
        pb::NotificationStatus::OptedOut => "Not sent, the address opted out",
        pb::NotificationStatus::Unspecified => "Unknown",
    }
}

/// A language of notification texts by its code (`en`, `de`).
pub(crate) fn language(code: &str) -> &'static str {
    match code {
        "en" => "English",
        "de" => "German",
        _ => "Another language",
    }
}

pub(crate) fn role(role: internal::MemberRole) -> &'static str {
    match role {
        internal::MemberRole::Owner => "Owner",
        internal::MemberRole::Admin => "Admin",
        internal::MemberRole::Member => "Member",
        internal::MemberRole::Unspecified => "Operator",
    }
}

pub(crate) fn statement_status(status: internal::StatementStatus) -> &'static str {
    match status {
        internal::StatementStatus::Open => "Open",
        internal::StatementStatus::Paid => "Paid",
        internal::StatementStatus::Void => "Void",
        internal::StatementStatus::Unspecified => "Unknown",
    }
}

pub(crate) fn workspace_kind(kind: internal::WorkspaceKind) -> &'static str {
    match kind {
        internal::WorkspaceKind::Business => "Business",
        internal::WorkspaceKind::Fleet => "Fleet",
        internal::WorkspaceKind::Unspecified => "Unknown",
    }
}

/// What an API key's permission lets it do. Permissions are the core's
/// strings (`access::Permission`); one it adds later reads as itself until
/// it is named here.
pub(crate) fn permission(name: &str) -> &str {
    match name {
        "quotes:create" => "Ask for prices",
        "deliveries:read" => "Read deliveries and events",
        "deliveries:write" => "Book and cancel deliveries",
        "webhooks:manage" => "Manage webhooks",
        "fleet_orders:create" => "Place fleet orders",
        "fleet_orders:read" => "Read fleet orders",
        other => other,
    }
}

/// A vehicle type by its catalogue id, for pages that have only the id (the
/// table is `courier::names`', which the printable statement reads too).
pub(crate) fn vehicle(id: &str) -> String {
    courier::names::vehicle_type_words(id)
}

/// A courier's availability as the pages show it, by its style name:
/// `suspended` (whatever the app last said), else `online` or `offline`.
pub(crate) fn availability(courier: &courier::app::v1::Courier) -> &'static str {
    use courier::app::v1::{Availability, CourierStatus};
    if courier.status() == CourierStatus::Suspended {
        "suspended"
    } else if courier.availability() == Availability::Online {
        "online"
    } else {
        "offline"
    }
}

/// The words of an [`availability`].
pub(crate) fn availability_named(name: &str) -> &'static str {
    match name {
        "online" => "Online",
        "suspended" => "Suspended",
        _ => "Offline",
    }
}

/// A job as lists and notices name it: its route (the id goes after, as
/// secondary text).
/// A route stop's kind (`pickup`, `dropoff`) in words.
pub(crate) fn stop_kind(kind: &str) -> &'static str {
    match kind {
        "pickup" => "Pickup",
        _ => "Dropoff",
    }
}

pub(crate) fn route(pickup: &str, dropoff: &str) -> String {
    format!("{pickup} → {dropoff}")
}

/// The route of a courier's job.
pub(crate) fn job_route(job: Option<&courier::app::v1::Job>) -> String {
    fn address(waypoint: Option<&pb::Waypoint>) -> &str {
        waypoint.map_or("", |w| w.address.as_str())
    }
    job.map_or_else(String::new, |job| {
        route(address(job.pickup.as_ref()), address(job.dropoff.as_ref()))
    })
}

/// A span of `seconds` in short words: to the second under a minute, else
/// to the minute, from an hour on to the hour ("35 s", "4 min", "2 h").
/// A promise filter's name on the deliveries list.
pub(crate) fn promise_named(name: &str) -> &'static str {
    match name {
        "at_risk" => "At risk or late",
        "late" => "Late",
        _ => "Any",
    }
}

pub(crate) fn duration_short(seconds: i64) -> String {
    match seconds {
        ..60 => format!("{} s", seconds.max(0)),
        60..3600 => format!("{} min", seconds / 60),
        _ => format!("{} h", seconds / 3600),
    }
}

/// Who made a change, from the core's `kind:name` (`user:ana@example.com`,
/// `operator:…`, `service:…`).
pub(crate) fn actor(actor: &str) -> String {
    match actor.split_once(':') {
        Some(("user", email)) => email.to_owned(),
        Some(("operator", email)) => format!("{email} (support)"),
        Some(("service", name)) => format!("the {name} system"),
        Some(("cli", name)) => format!("{name} (support)"),
        _ => actor.to_owned(),
    }
}

/// The words for a public name, for templates that hold the API's names:
/// `delivery_status_named("courier_assigned")` is "Courier assigned".
pub(crate) fn delivery_status_named(name: &str) -> &'static str {
    delivery_status(pb::DeliveryStatus::from_public_name(name).unwrap_or_default())
}

/// A cancellation reason by its public name; the name itself when unknown.
pub(crate) fn cancellation_reason_named(name: &str) -> String {
    match pb::CancellationReason::from_public_name(name) {
        Some(reason) if reason != pb::CancellationReason::Unspecified => cancellation(reason).to_owned(),
        _ => name.to_owned(),
    }
}

pub(crate) fn event_type_named(name: &str) -> &'static str {
    event_type(pb::EventType::from_public_name(name).unwrap_or_default())
}

pub(crate) fn attempt_status_named(name: &str) -> &'static str {
    attempt_status(pb::WebhookAttemptStatus::from_public_name(name).unwrap_or_default())
}

pub(crate) fn endpoint_status_named(name: &str) -> &'static str {
    endpoint_status(pb::WebhookEndpointStatus::from_public_name(name).unwrap_or_default())
}

pub(crate) fn disabled_reason_named(name: &str) -> &'static str {
    disabled_reason(pb::WebhookDisabledReason::from_public_name(name).unwrap_or_default())
}

pub(crate) fn cancel_reason_named(name: &str) -> &'static str {
    cancel_reason(pb::CancelReason::from_public_name(name).unwrap_or_default())
}

pub(crate) fn scenario_named(name: &str) -> &'static str {
    scenario(pb::TestScenario::from_public_name(name).unwrap_or_default())
}

/// A role by the console's name for it (`owner`, `admin`, `member`,
/// `operator`).
pub(crate) fn role_named(name: &str) -> &'static str {
    match name {
        "owner" => role(internal::MemberRole::Owner),
        "admin" => role(internal::MemberRole::Admin),
        "member" => role(internal::MemberRole::Member),
        _ => role(internal::MemberRole::Unspecified),
    }
}

/// How a job ended for a courier (`Job.outcome`: `delivered`,
/// `cancelled:<reason>`, `reassigned`, `unassigned`).
pub(crate) fn job_outcome(outcome: &str) -> String {
    match outcome.split_once(':') {
        Some(("cancelled", reason)) => {
            let reason = cancellation(pb::CancellationReason::from_public_name(reason).unwrap_or_default());
            if reason.is_empty() {
                "Cancelled".to_owned()
            } else {
                format!("Cancelled: {}", reason.to_lowercase())
            }
        }
        _ => match outcome {
            "delivered" => "Delivered",
            "cancelled" => "Cancelled",
            "reassigned" => "Given to another courier",
            "unassigned" => "Taken back to waiting",
            _ => "Ended",
        }
        .to_owned(),
    }
}

pub(crate) fn statement_status_named(name: &str) -> &'static str {
    match name {
        "open" => statement_status(internal::StatementStatus::Open),
        "paid" => statement_status(internal::StatementStatus::Paid),
        "void" => statement_status(internal::StatementStatus::Void),
        _ => statement_status(internal::StatementStatus::Unspecified),
    }
}

pub(crate) fn workspace_kind_named(name: &str) -> &'static str {
    match name {
        "business" => workspace_kind(internal::WorkspaceKind::Business),
        "fleet" => workspace_kind(internal::WorkspaceKind::Fleet),
        _ => workspace_kind(internal::WorkspaceKind::Unspecified),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No label is an API name, and none names the company.
    #[test]
    fn every_public_name_has_plain_words() {
        let mut shown: Vec<(&str, String)> = Vec::new();
        shown.extend(
            pb::DeliveryStatus::NAMES
                .iter()
                .map(|(v, n)| (*n, delivery_status(*v).to_owned())),
        );
        shown.extend(
            pb::CancellationReason::NAMES
                .iter()
                .map(|(v, n)| (*n, cancellation(*v).to_owned())),
        );
        shown.extend(
            pb::CancelReason::NAMES
                .iter()
                .map(|(v, n)| (*n, cancel_reason(*v).to_owned())),
        );
        shown.extend(
            pb::TestScenario::NAMES
                .iter()
                .map(|(v, n)| (*n, scenario(*v).to_owned())),
        );
        shown.extend(
            pb::EventType::NAMES
                .iter()
                .map(|(v, n)| (*n, event_type(*v).to_owned())),
        );
        shown.extend(
            pb::WebhookAttemptStatus::NAMES
                .iter()
                .map(|(v, n)| (*n, attempt_status(*v).to_owned())),
        );
        shown.extend(
            pb::WebhookDisabledReason::NAMES
                .iter()
                .map(|(v, n)| (*n, disabled_reason(*v).to_owned())),
        );
        shown.extend(
            pb::ArtifactKind::NAMES
                .iter()
                .map(|(v, n)| (*n, artifact(*v).to_owned())),
        );
        shown.extend(
            pb::NotificationTrigger::NAMES
                .iter()
                .map(|(v, n)| (*n, notification_trigger(*v).to_owned())),
        );
        shown.extend(
            pb::NotificationAudience::NAMES
                .iter()
                .map(|(v, n)| (*n, notification_audience(*v).to_owned())),
        );
        shown.extend(
            pb::NotificationChannel::NAMES
                .iter()
                .map(|(v, n)| (*n, notification_channel(*v).to_owned())),
        );
        shown.extend(
            pb::NotificationStatus::NAMES
                .iter()
                .map(|(v, n)| (*n, notification_status(*v).to_owned())),
        );
        for name in [
            "quotes:create",
            "deliveries:read",
            "deliveries:write",
            "webhooks:manage",
            "fleet_orders:create",
            "fleet_orders:read",
        ] {
            shown.push((name, permission(name).to_owned()));
        }
        for id in ["bicycle", "cargo_bike", "small_van", "large_van", "new_kind"] {
            shown.push((id, vehicle(id)));
        }
        for (name, words) in &shown {
            assert!(!words.is_empty(), "{name}: no words");
            assert!(words != name || !name.contains(['_', '.', ':']), "{name}: {words}");
            assert!(!words.contains('_') && !words.contains(':'), "{name}: {words}");
            assert!(!words.to_lowercase().contains("maxmove"), "{name}: {words}");
        }
        assert_eq!(delivery_status_named("courier_assigned"), "Courier assigned");
        assert_eq!(vehicle("new_kind"), "New kind");
    }
}
