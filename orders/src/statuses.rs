//! The statuses of deliveries and fleet orders and why a delivery was cancelled
//! (docs/guide.md "Delivery states"): plain types every module may use. The
//! rules of moving between them are `lifecycle`'s.

/// Delivery and fleet order status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Pending,
    CourierAssigned,
    AtPickup,
    PickedUp,
    InTransit,
    AtDropoff,
    Delivered,
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Pending,
        Status::CourierAssigned,
        Status::AtPickup,
        Status::PickedUp,
        Status::InTransit,
        Status::AtDropoff,
        Status::Delivered,
        Status::Cancelled,
    ];

    /// As the API and the database name it (`picked_up`); the server's
    /// tests hold it to the API's name table (`courier::names`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::CourierAssigned => "courier_assigned",
            Status::AtPickup => "at_pickup",
            Status::PickedUp => "picked_up",
            Status::InTransit => "in_transit",
            Status::AtDropoff => "at_dropoff",
            Status::Delivered => "delivered",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == text)
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Delivered | Status::Cancelled)
    }

    /// Whether the courier has not yet picked up the goods.
    pub fn before_pickup(self) -> bool {
        matches!(self, Status::Pending | Status::CourierAssigned | Status::AtPickup)
    }

    /// The status a forward move leads to, if any.
    pub fn next(self) -> Option<Status> {
        match self {
            Status::Pending => Some(Status::CourierAssigned),
            Status::CourierAssigned => Some(Status::AtPickup),
            Status::AtPickup => Some(Status::PickedUp),
            Status::PickedUp => Some(Status::InTransit),
            Status::InTransit => Some(Status::AtDropoff),
            Status::AtDropoff => Some(Status::Delivered),
            Status::Delivered | Status::Cancelled => None,
        }
    }
}

/// Why a delivery was cancelled (public `cancellation_reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancellationReason {
    CancelledByYou,
    NoCourierFound,
    PickupNoShow,
    CancelledByMaxmove,
}

impl CancellationReason {
    pub const ALL: [CancellationReason; 4] = [
        CancellationReason::CancelledByYou,
        CancellationReason::NoCourierFound,
        CancellationReason::PickupNoShow,
        CancellationReason::CancelledByMaxmove,
    ];

    /// As the API and the database name it (`no_courier_found`).
    pub fn as_str(self) -> &'static str {
        match self {
            CancellationReason::CancelledByYou => "cancelled_by_you",
            CancellationReason::NoCourierFound => "no_courier_found",
            CancellationReason::PickupNoShow => "pickup_no_show",
            CancellationReason::CancelledByMaxmove => "cancelled_by_maxmove",
        }
    }

    pub fn parse(text: &str) -> Option<CancellationReason> {
        CancellationReason::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The states this reason may cancel from (docs/guide.md "Delivery states").
    pub fn allowed_from(self, status: Status) -> bool {
        match self {
            CancellationReason::CancelledByYou => status.before_pickup(),
            CancellationReason::NoCourierFound => status == Status::Pending,
            CancellationReason::PickupNoShow => status == Status::AtPickup,
            CancellationReason::CancelledByMaxmove => !status.is_terminal(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_has_its_public_name() {
        for status in Status::ALL {
            assert_eq!(Status::parse(status.as_str()), Some(status), "{status:?}");
        }
        for reason in CancellationReason::ALL {
            assert_eq!(CancellationReason::parse(reason.as_str()), Some(reason), "{reason:?}");
        }
        assert_eq!(Status::PickedUp.as_str(), "picked_up");
        assert_eq!(CancellationReason::CancelledByMaxmove.as_str(), "cancelled_by_maxmove");
    }
}
