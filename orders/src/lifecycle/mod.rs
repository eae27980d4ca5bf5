//! The delivery state machine (docs/guide.md "Delivery states"), used by every
//! mover: client cancel, the test-mode simulator, live dispatch and timeouts.
//!
//! A move is a compare-and-set inside the mover's transaction: the row is
//! updated only if its status is still the one the move starts from, so two
//! movers racing on one delivery never both win, and the loser changes
//! nothing.

use crate::deliveries::model::PIN_TRIES;
use crate::deliveries::{self, Change, Delivery};
use crate::events::EventType;
use crate::proofs::{self, Checkpoint};
use crate::{CoreError, CoreResult, Orders};
use crate::{assignments, billing, notifications, tips};
use courier::errors::ErrorCode;
use courier_identity::auth::{Mode, Principal};
use courier_store::db::WriteTransaction;

pub use crate::statuses::{CancellationReason, Status};

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

/// Moves delivery `id` from `from` to `to` in `tx`, applying `change` to
/// the row, only if it is still `from`. Returns whether this call made the
/// move; the caller re-reads and decides on `false`.
pub async fn compare_and_set(
    orders: &Orders,
    tx: &WriteTransaction,
    id: &str,
    from: Status,
    to: Status,
    now: i64,
    change: Change,
) -> CoreResult<bool> {
    if !is_legal(from, to) {
        return Err(illegal(from, to));
    }
    deliveries::update(orders, tx, id, Some(from), change.moved(to, now)).await
}

/// The events a move to `to` emits (docs/guide.md "Delivery states").
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

/// Records the events of a change of deliveries in `tx`, each `(delivery
/// as it now is, type, time)`, queues them for webhooks
/// (`deliveries::record_events`), and queues the recipient notifications
/// they fire (docs/notifications.md "Triggers").
pub async fn record_events(
    orders: &Orders,
    tx: &WriteTransaction,
    happened: &[(&Delivery, EventType, i64)],
) -> CoreResult<()> {
    deliveries::record_events(orders, tx, happened).await?;
    let fired: Vec<_> = happened
        .iter()
        .filter_map(|&(delivery, event_type, at)| {
            notifications::triggers::fired_by(delivery, event_type, at).map(|trigger| (delivery, trigger, at))
        })
        .collect();
    notifications::messages::enqueue(orders, tx, &fired).await
}

/// Moves `delivery` to `to` inside `tx` (the mover's transaction): the
/// compare-and-set on its current status with `change`, then its events,
/// each carrying the delivery as it now is. `None` when the status moved
/// meanwhile (nothing changed).
pub async fn advance(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    to: Status,
    change: Change,
    now: i64,
) -> CoreResult<Option<Delivery>> {
    if !compare_and_set(orders, tx, &delivery.id, delivery.status, to, now, change).await? {
        return Ok(None);
    }
    if let (Status::Cancelled, Mode::Live, Some(amount_cents)) = (to, delivery.mode, delivery.amount_cents) {
        billing::release_credit(tx, &delivery.workspace_id, amount_cents).await?;
    }
    let moved = deliveries::reload(tx, &delivery.id).await?;
    let courier_id = match delivery.mode {
        Mode::Live => assignments::job_moved(orders, tx, &moved.id, to, moved.cancellation_reason, now).await?,
        Mode::Test => None,
    };
    if to == Status::Delivered {
        billing::lines::record(tx, &moved).await?;
        tips::give(tx, &moved, courier_id.as_deref(), moved.tip_cents, now).await?;
    }
    let happened: Vec<_> = events_for(to)
        .iter()
        .enumerate()
        .map(|(offset, event_type)| (&moved, *event_type, now + offset as i64))
        .collect();
    record_events(orders, tx, &happened).await?;
    if notifications::triggers::fails(delivery.status, to) {
        notifications::messages::enqueue(orders, tx, &[(&moved, notifications::Trigger::Failed, now)]).await?;
    }
    Ok(Some(moved))
}

/// Reports `delivery` at risk in `tx` when a dropoff at `predicted` would
/// break its promise (docs/guide.md "Windows"): the predicted dropoff is
/// stored and `delivery.delayed` recorded, once per delivery, whoever finds
/// it first. The delivery as it now is when this call reported it.
pub async fn at_risk(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    predicted: i64,
    now: i64,
) -> CoreResult<Option<Delivery>> {
    if !delivery.would_be_late(predicted) {
        return Ok(None);
    }
    let change = Change::default().dropoff_eta(Some(predicted)).delayed(now).touched(now);
    if !deliveries::update(orders, tx, &delivery.id, Some(delivery.status), change).await? {
        return Ok(None);
    }
    let delayed = deliveries::reload(tx, &delivery.id).await?;
    record_events(orders, tx, &[(&delayed, EventType::Delayed, now)]).await?;
    orders.metrics.delivery_delayed(delivery.mode.as_str());
    Ok(Some(delayed))
}

/// Returns `delivery` from `courier_assigned` to `pending` in `tx`: the one
/// backward move, made only when a dispatcher takes the job back from its
/// courier before the pickup (`jobs::unassign`; docs/couriers.md
/// "Unassigning"). The public `courier` and pickup ETA are cleared, the
/// courier-search timeout runs again from the delivery's start, and
/// `delivery.status_updated` carries the delivery as it now is. The caller
/// has ended the courier's assignment. `None` when the status moved
/// meanwhile (nothing changed).
pub async fn return_to_waiting(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    now: i64,
) -> CoreResult<Option<Delivery>> {
    if delivery.status != Status::CourierAssigned {
        return Err(illegal(delivery.status, Status::Pending));
    }
    let search_ends = deliveries::first_step_at(
        delivery.mode,
        delivery.created_at,
        delivery.pickup_from(),
        orders.config.simulator_step,
    );
    let change = Change::default()
        .no_courier()
        .pickup_eta(None)
        .next_step(Some(search_ends.max(now)))
        .moved(Status::Pending, now);
    if !deliveries::update(orders, tx, &delivery.id, Some(Status::CourierAssigned), change).await? {
        return Ok(None);
    }
    let moved = deliveries::reload(tx, &delivery.id).await?;
    record_events(orders, tx, &[(&moved, EventType::StatusUpdated, now)]).await?;
    Ok(Some(moved))
}

/// A proof submission's outcome: recorded, or refused for a wrong dropoff
/// PIN whose count was written in the mover's transaction, which the
/// mover commits before it answers the refusal (the count must stay).
#[derive(Debug)]
#[must_use]
pub enum Submitted {
    Recorded(Box<Delivery>),
    WrongPin(CoreError),
}

impl Submitted {
    /// The delivery as recorded, or the wrong PIN's refusal (for a mover
    /// that enters the right PIN, like the simulator).
    pub fn recorded(self) -> CoreResult<Delivery> {
        match self {
            Submitted::Recorded(delivery) => Ok(*delivery),
            Submitted::WrongPin(refusal) => Err(refusal),
        }
    }
}

/// Records the courier's proof at a checkpoint of `delivery`, in `db` (the
/// mover's transaction): the pickup proof while `at_pickup`, the dropoff
/// proof while `at_dropoff` (anything else is `409 conflict`), with the
/// dropoff PIN when the delivery has one (docs/guide.md "Proof of
/// delivery"). The dropoff proof is an event of its own,
/// `delivery.pod_submitted`.
pub async fn submit_proof(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    submission: proofs::ProofSubmission,
    now: i64,
) -> CoreResult<Submitted> {
    let checkpoint = submission.checkpoint;
    if let Some(submission_id) = &submission.submission_id
        && proofs::submitted_as(&**tx, &delivery.id, submission_id).await?
    {
        // The same submission sent again (an app that lost the answer).
        return Ok(Submitted::Recorded(Box::new(delivery.clone())));
    }
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
    if checkpoint == Checkpoint::Dropoff
        && let Some(refusal) = wrong_pin(orders, tx, delivery, &submission).await?
    {
        return Ok(Submitted::WrongPin(refusal));
    }
    proofs::submit(orders, tx, delivery, submission, now).await?;
    if checkpoint == Checkpoint::Pickup {
        return Ok(Submitted::Recorded(Box::new(delivery.clone())));
    }
    deliveries::update(orders, tx, &delivery.id, None, Change::default().touched(now)).await?;
    let updated = deliveries::reload(tx, &delivery.id).await?;
    record_events(orders, tx, &[(&updated, EventType::PodSubmitted, now)]).await?;
    Ok(Submitted::Recorded(Box::new(updated)))
}

/// Judges the dropoff PIN `submission` entered for `delivery`: `None` when
/// it may hand over (no PIN asked, or the right one); a blocked handover or
/// a missing PIN is refused before anything is written; a wrong one is
/// counted in `tx` and answered as the refusal to give once that count is
/// committed. The submission whose wrong PIN counted last, sent again with
/// that PIN (an app that lost the answer), is answered as it was, not
/// counted twice.
async fn wrong_pin(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    submission: &proofs::ProofSubmission,
) -> CoreResult<Option<CoreError>> {
    let entered = submission.pin.as_deref();
    let Some(pin) = &delivery.dropoff_pin else {
        return match entered {
            Some(_) => Err(CoreError::invalid("pin", "This delivery asks for no dropoff PIN.")),
            None => Ok(None),
        };
    };
    // The same wrong PIN in the same submission: the phone's outbox sending
    // again. (The same form may be sent with another PIN typed: that counts.)
    let attempt = entered
        .zip(submission.submission_id.as_deref())
        .map(|(entered, id)| format!("{id}:{}", entered.trim()));
    if attempt.is_some() && attempt == delivery.dropoff_pin_failed_submission {
        return Ok(Some(pin_incorrect(delivery.dropoff_pin_failures)));
    }
    if delivery.handover_blocked() {
        return Err(CoreError::new(
            ErrorCode::HandoverBlocked,
            format!(
                "{PIN_TRIES} wrong PINs were entered for delivery {}: the handover waits for a dispatcher.",
                delivery.id
            ),
        ));
    }
    let Some(entered) = entered else {
        return Err(CoreError::invalid(
            "pin",
            "Enter the 4-digit PIN the recipient tells you.",
        ));
    };
    if entered.trim() == pin {
        return Ok(None);
    }
    let failures = delivery.dropoff_pin_failures + 1;
    let change = Change::default().pin_failures(delivery.dropoff_pin_failures, failures, attempt);
    if !deliveries::update(orders, tx, &delivery.id, Some(Status::AtDropoff), change).await? {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            "Another PIN for this delivery was entered at the same time; enter it again.",
        ));
    }
    Ok(Some(pin_incorrect(failures)))
}

/// The refusal of a wrong PIN, the `failures`th.
fn pin_incorrect(failures: u32) -> CoreError {
    let left = PIN_TRIES.saturating_sub(failures);
    let message = if left == 0 {
        format!("Wrong PIN. That was the {PIN_TRIES}th: the handover waits for a dispatcher.")
    } else {
        format!("Wrong PIN: {left} {} left.", if left == 1 { "try" } else { "tries" })
    };
    CoreError::at(ErrorCode::PinIncorrect, "pin", message)
}

/// `POST /v1/deliveries/{id}/cancel`: before pickup the delivery is cancelled
/// (`cancelled_by_you`, the reason stored); after pickup `not_cancellable`;
/// once ended `conflict`. A concurrent status move either lands first (and is
/// then judged) or loses the compare-and-set.
pub async fn cancel(
    orders: &Orders,
    principal: &Principal,
    id: &str,
    reason: Option<deliveries::CancelReason>,
) -> CoreResult<Delivery> {
    let reason = reason.unwrap_or(deliveries::CancelReason::Other);
    loop {
        let delivery = deliveries::get(orders, principal, id).await?;
        if delivery.status.is_terminal() {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                format!("The delivery is already {}.", delivery.status.as_str()),
            ));
        }
        if !delivery.status.before_pickup() {
            return Err(CoreError::new(
                ErrorCode::NotCancellable,
                "The courier has already picked up the goods; the delivery can no longer be cancelled.",
            ));
        }
        let change = Change::default().client_reason(reason);
        let reason = CancellationReason::CancelledByYou;
        if let Some(cancelled) = end_cancelled(orders, principal, &delivery, reason, change).await? {
            return Ok(cancelled);
        }
        // The status moved meanwhile: judge the delivery as it is now.
    }
}

/// Cancels `delivery` with `reason` if it is still in the status it was read
/// in, writing `delivery.cancelled` (and the audit entry of the client
/// `principal` when its changes are audited) in the same transaction. `None`
/// when the status moved meanwhile.
async fn end_cancelled(
    orders: &Orders,
    principal: &Principal,
    delivery: &Delivery,
    reason: CancellationReason,
    change: Change,
) -> CoreResult<Option<Delivery>> {
    if !reason.allowed_from(delivery.status) {
        return Err(illegal(delivery.status, Status::Cancelled));
    }
    let now = orders.clock.now_micros();
    let tx = orders.begin().await?;
    let change = change.cancelled(reason, now);
    let cancelled = advance(orders, &tx, delivery, Status::Cancelled, change, now).await?;
    if cancelled.is_some() {
        principal.audit(orders, &*tx, "delivery.cancel", &delivery.id).await?;
    }
    tx.commit().await?;
    if cancelled.is_some() {
        orders.changes.publish(&delivery.id);
    }
    Ok(cancelled)
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
