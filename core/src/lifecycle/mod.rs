//! The delivery state machine (contract section 3), used by every mover:
//! client cancel, the test-mode simulator, live dispatch and timeouts.
//!
//! A move is a compare-and-set inside the mover's transaction: the row is
//! updated only if its status is still the one the move starts from, so two
//! movers racing on one delivery never both win, and the loser changes
//! nothing.

use sea_orm::sea_query::{Expr, SimpleExpr};
use sea_orm::{ConnectionTrait, EntityTrait};

use crate::auth::Mode;
use crate::billing;
use crate::db::WriteTransaction;
use crate::deliveries::{self, Delivery, entity};
use crate::events::{self, EventType};
use crate::proofs::{self, Checkpoint};
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;

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
    pub fn as_str(self) -> &'static str {
        match self {
            CancellationReason::CancelledByYou => "cancelled_by_you",
            CancellationReason::NoCourierFound => "no_courier_found",
            CancellationReason::PickupNoShow => "pickup_no_show",
            CancellationReason::CancelledByMaxmove => "cancelled_by_maxmove",
        }
    }

    pub fn parse(text: &str) -> Option<CancellationReason> {
        [
            CancellationReason::CancelledByYou,
            CancellationReason::NoCourierFound,
            CancellationReason::PickupNoShow,
            CancellationReason::CancelledByMaxmove,
        ]
        .into_iter()
        .find(|r| r.as_str() == text)
    }

    /// The states this reason may cancel from (section 3).
    pub fn allowed_from(self, status: Status) -> bool {
        match self {
            CancellationReason::CancelledByYou => status.before_pickup(),
            CancellationReason::NoCourierFound => status == Status::Pending,
            CancellationReason::PickupNoShow => status == Status::AtPickup,
            CancellationReason::CancelledByMaxmove => !status.is_terminal(),
        }
    }
}

/// How long a live delivery may wait for a courier before it is cancelled
/// with `no_courier_found` (counted from creation, or from `scheduled_at`).
pub const COURIER_SEARCH_TIMEOUT_MICROS: i64 = 30 * 60 * 1_000_000;

/// When a new delivery is first acted on by a worker: a test delivery's
/// first simulator step (one step after creation, or one step before
/// `scheduled_at`), or a live delivery's courier-search timeout.
pub fn first_step_at(mode: Mode, created_at: i64, scheduled_at: Option<i64>, step: std::time::Duration) -> i64 {
    let step = i64::try_from(step.as_micros()).unwrap_or(i64::MAX);
    match (mode, scheduled_at) {
        (Mode::Test, None) => created_at.saturating_add(step),
        (Mode::Test, Some(at)) => at.saturating_sub(step).max(created_at.saturating_add(step)),
        (Mode::Live, at) => at.unwrap_or(created_at).saturating_add(COURIER_SEARCH_TIMEOUT_MICROS),
    }
}

/// Whether `from` → `to` is a legal move at all.
pub fn is_legal(from: Status, to: Status) -> bool {
    from.next() == Some(to) || (to == Status::Cancelled && !from.is_terminal())
}

/// Every legal move from `from`: the next status, and cancelling before the
/// end (what a dispatcher is offered).
pub fn legal_moves(from: Status) -> Vec<Status> {
    Status::ALL.into_iter().filter(|to| is_legal(from, *to)).collect()
}

/// `409 conflict` for an illegal move (of a delivery or a fleet order).
pub fn illegal(from: Status, to: Status) -> CoreError {
    CoreError::new(
        ErrorCode::Conflict,
        format!("Status {} cannot move to {}.", from.as_str(), to.as_str()),
    )
}

/// Moves delivery `id` from `from` to `to` in `tx`, applying `changes` to
/// the row, only if it is still `from`. Returns whether this call made the
/// move; the caller re-reads and decides on `false`.
pub async fn compare_and_set(
    core: &Core,
    tx: &WriteTransaction,
    id: &str,
    from: Status,
    to: Status,
    now: i64,
    mut changes: Vec<(entity::Column, SimpleExpr)>,
) -> CoreResult<bool> {
    if !is_legal(from, to) {
        return Err(illegal(from, to));
    }
    changes.push((entity::Column::Status, Expr::value(to.as_str())));
    changes.push((entity::Column::UpdatedAt, Expr::value(now)));
    deliveries::update(core, tx, id, Some(from), changes).await
}

/// The events a move to `to` emits (DECISIONS "Events per transition").
pub fn events_for(to: Status) -> &'static [EventType] {
    match to {
        Status::Pending => &[EventType::Created],
        Status::CourierAssigned => &[EventType::CourierAssigned],
        Status::AtPickup => &[EventType::CourierArrived],
        Status::PickedUp | Status::AtDropoff => &[EventType::StatusUpdated],
        Status::InTransit => &[EventType::StatusUpdated, EventType::EtaUpdated],
        Status::Delivered => &[EventType::Delivered],
        Status::Cancelled => &[EventType::Cancelled],
    }
}

/// Moves `delivery` to `to` inside `tx` (the mover's transaction): the
/// compare-and-set on its current status with `changes`, then its events,
/// each carrying the delivery as it now is. `None` when the status moved
/// meanwhile (nothing changed).
pub async fn advance(
    core: &Core,
    tx: &WriteTransaction,
    delivery: &Delivery,
    to: Status,
    changes: Vec<(entity::Column, SimpleExpr)>,
    now: i64,
) -> CoreResult<Option<Delivery>> {
    if !compare_and_set(core, tx, &delivery.id, delivery.status, to, now, changes).await? {
        return Ok(None);
    }
    if let (Status::Cancelled, Mode::Live, Some(amount_cents)) = (to, delivery.mode, delivery.amount_cents) {
        billing::release_credit(tx, &delivery.workspace_id, amount_cents).await?;
    }
    let moved = reload(tx, &delivery.id).await?;
    if to == Status::Delivered {
        billing::lines::record(tx, &moved).await?;
    }
    let happened: Vec<_> = events_for(to)
        .iter()
        .enumerate()
        .map(|(offset, event_type)| (&moved, *event_type, now + offset as i64))
        .collect();
    record(tx, &core.config.public_base_url, &happened).await?;
    Ok(Some(moved))
}

/// Records events about deliveries as they are, each `(delivery, type,
/// time)`: the events of a move, `delivery.pod_submitted`, a moved ETA, or
/// the `delivery.created` of new deliveries.
pub async fn record(
    db: &impl ConnectionTrait,
    public_base_url: &str,
    happened: &[(&Delivery, EventType, i64)],
) -> CoreResult<()> {
    let events = happened
        .iter()
        .map(|&(delivery, event_type, at)| events::NewEvent {
            workspace_id: delivery.workspace_id.clone(),
            mode: delivery.mode,
            event_type,
            data: deliveries::event_data(&deliveries::to_proto(delivery, public_base_url)),
            at,
        })
        .collect();
    events::record(db, events).await
}

/// Records the courier's proof at a checkpoint of `delivery`, in `db` (the
/// mover's transaction): the pickup proof while `at_pickup`, the dropoff
/// proof while `at_dropoff` (anything else is `409 conflict`). The dropoff
/// proof is an event of its own, `delivery.pod_submitted`. Returns the
/// delivery as it now is.
pub async fn submit_proof(
    core: &Core,
    tx: &WriteTransaction,
    delivery: &Delivery,
    submission: proofs::ProofSubmission,
    now: i64,
) -> CoreResult<Delivery> {
    let checkpoint = submission.checkpoint;
    let expected = match checkpoint {
        Checkpoint::Pickup => Status::AtPickup,
        Checkpoint::Dropoff => Status::AtDropoff,
    };
    if delivery.status != expected {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!(
                "The {} proof is taken while the delivery is {}; it is {}.",
                checkpoint.as_str(),
                expected.as_str(),
                delivery.status.as_str()
            ),
        ));
    }
    proofs::submit(core, tx, delivery, submission, now).await?;
    if checkpoint == Checkpoint::Pickup {
        return Ok(delivery.clone());
    }
    let changes = vec![(entity::Column::UpdatedAt, Expr::value(now))];
    deliveries::update(core, tx, &delivery.id, None, changes).await?;
    let updated = reload(tx, &delivery.id).await?;
    record(
        tx,
        &core.config.public_base_url,
        &[(&updated, EventType::PodSubmitted, now)],
    )
    .await?;
    Ok(updated)
}

/// The delivery row as it is now.
pub async fn reload(db: &impl ConnectionTrait, id: &str) -> CoreResult<Delivery> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::Internal(format!("delivery {id} vanished")))?;
    deliveries::from_model(model)
}

/// The changes that cancel a delivery with `reason`.
pub fn cancellation(reason: CancellationReason, now: i64) -> Vec<(entity::Column, SimpleExpr)> {
    vec![
        (entity::Column::CancelledAt, Expr::value(now)),
        (entity::Column::CancellationReason, Expr::value(reason.as_str())),
        (entity::Column::NextStepAt, Expr::value(Option::<i64>::None)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_moves_and_cancels() {
        assert!(is_legal(Status::Pending, Status::CourierAssigned));
        assert!(!is_legal(Status::Pending, Status::AtPickup));
        assert!(is_legal(Status::InTransit, Status::Cancelled));
        assert!(!is_legal(Status::Delivered, Status::Cancelled));
        assert!(!is_legal(Status::Cancelled, Status::Pending));
        assert!(CancellationReason::CancelledByYou.allowed_from(Status::AtPickup));
        assert!(!CancellationReason::CancelledByYou.allowed_from(Status::PickedUp));
        assert!(CancellationReason::PickupNoShow.allowed_from(Status::AtPickup));
        assert!(!CancellationReason::NoCourierFound.allowed_from(Status::CourierAssigned));
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
    }
}
