//! The domain's enums as the protobuf API numbers them. The domain names
//! its values itself (`Status::as_str`); the tests below hold those names
//! to the API's name table (`courier::names`), so the two cannot differ.

use courier::v1 as pb;
use courier_orders::events::EventType;
use courier_orders::notifications::{Audience, Channel, MessageStatus, Trigger};
use courier_orders::statuses::{CancellationReason, Status};

/// A domain value as its protobuf enum.
pub trait ToProto: Copy {
    type Proto;

    fn to_proto(self) -> Self::Proto;
}

impl ToProto for Status {
    type Proto = pb::DeliveryStatus;

    fn to_proto(self) -> pb::DeliveryStatus {
        match self {
            Status::Pending => pb::DeliveryStatus::Pending,
            Status::CourierAssigned => pb::DeliveryStatus::CourierAssigned,
            Status::AtPickup => pb::DeliveryStatus::AtPickup,
            Status::PickedUp => pb::DeliveryStatus::PickedUp,
            Status::InTransit => pb::DeliveryStatus::InTransit,
            Status::AtDropoff => pb::DeliveryStatus::AtDropoff,
            Status::Delivered => pb::DeliveryStatus::Delivered,
            Status::Cancelled => pb::DeliveryStatus::Cancelled,
        }
    }
}

impl ToProto for CancellationReason {
    type Proto = pb::CancellationReason;

    fn to_proto(self) -> pb::CancellationReason {
        match self {
            CancellationReason::CancelledByYou => pb::CancellationReason::CancelledByYou,
            CancellationReason::NoCourierFound => pb::CancellationReason::NoCourierFound,
            CancellationReason::PickupNoShow => pb::CancellationReason::PickupNoShow,
            CancellationReason::CancelledByMaxmove => pb::CancellationReason::CancelledByMaxmove,
        }
    }
}

impl ToProto for EventType {
    type Proto = pb::EventType;

    fn to_proto(self) -> pb::EventType {
        match self {
            EventType::Created => pb::EventType::DeliveryCreated,
            EventType::StatusUpdated => pb::EventType::DeliveryStatusUpdated,
            EventType::CourierAssigned => pb::EventType::DeliveryCourierAssigned,
            EventType::CourierArrived => pb::EventType::DeliveryCourierArrived,
            EventType::EtaUpdated => pb::EventType::DeliveryEtaUpdated,
            EventType::PodSubmitted => pb::EventType::DeliveryPodSubmitted,
            EventType::Delivered => pb::EventType::DeliveryDelivered,
            EventType::Cancelled => pb::EventType::DeliveryCancelled,
            EventType::Delayed => pb::EventType::DeliveryDelayed,
            EventType::Updated => pb::EventType::DeliveryUpdated,
        }
    }
}

impl ToProto for Trigger {
    type Proto = pb::NotificationTrigger;

    fn to_proto(self) -> pb::NotificationTrigger {
        match self {
            Trigger::CourierAssigned => pb::NotificationTrigger::CourierAssigned,
            Trigger::PickedUp => pb::NotificationTrigger::PickedUp,
            Trigger::Arriving => pb::NotificationTrigger::Arriving,
            Trigger::Delivered => pb::NotificationTrigger::Delivered,
            Trigger::Delayed => pb::NotificationTrigger::Delayed,
            Trigger::Failed => pb::NotificationTrigger::Failed,
        }
    }
}

impl ToProto for Channel {
    type Proto = pb::NotificationChannel;

    fn to_proto(self) -> pb::NotificationChannel {
        match self {
            Channel::Sms => pb::NotificationChannel::Sms,
            Channel::Email => pb::NotificationChannel::Email,
        }
    }
}

impl ToProto for Audience {
    type Proto = pb::NotificationAudience;

    fn to_proto(self) -> pb::NotificationAudience {
        match self {
            Audience::Recipient => pb::NotificationAudience::Recipient,
            Audience::Sender => pb::NotificationAudience::Sender,
        }
    }
}

impl ToProto for MessageStatus {
    type Proto = pb::NotificationStatus;

    fn to_proto(self) -> pb::NotificationStatus {
        match self {
            MessageStatus::Queued => pb::NotificationStatus::Queued,
            MessageStatus::Held => pb::NotificationStatus::Held,
            MessageStatus::Sent => pb::NotificationStatus::Sent,
            MessageStatus::Delivered => pb::NotificationStatus::Delivered,
            MessageStatus::Failed => pb::NotificationStatus::Failed,
            MessageStatus::Dropped => pb::NotificationStatus::Dropped,
            MessageStatus::OptedOut => pb::NotificationStatus::OptedOut,
        }
    }
}

/// A protobuf enum as the domain value of the same name; `None` for
/// unspecified or unknown numbers.
pub fn from_proto<D: ToProto + 'static>(all: &[D], number: i32) -> Option<D>
where
    D::Proto: Into<i32>,
{
    all.iter().copied().find(|value| value.to_proto().into() == number)
}

#[cfg(test)]
mod tests {
    use courier::names::PublicName;

    use super::*;

    /// Every value the API shows has a domain value of the same name, and
    /// back.
    fn same_names<D, P>(domain: &[D], name: impl Fn(D) -> &'static str)
    where
        D: ToProto<Proto = P> + std::fmt::Debug,
        P: PublicName + std::fmt::Debug,
    {
        for &value in domain {
            assert_eq!(Some(name(value)), value.to_proto().public_name(), "{value:?}");
        }
        assert_eq!(domain.len(), P::NAMES.len(), "every public value has a domain value");
    }

    #[test]
    fn the_domain_names_its_values_as_the_api_does() {
        same_names(&Status::ALL, Status::as_str);
        same_names(&CancellationReason::ALL, CancellationReason::as_str);
        same_names(&EventType::ALL, EventType::as_str);
        same_names(&Trigger::ALL, Trigger::as_str);
        same_names(&Channel::ALL, Channel::as_str);
        same_names(&Audience::ALL, Audience::as_str);
        same_names(&MessageStatus::ALL, MessageStatus::as_str);
    }
}
