//! Live dispatch: the couriers' backend (over the internal
//! `DispatchService`) and the couriers themselves (over the courier app's
//! `CourierAppService`, only on deliveries assigned to them) move live
//! deliveries through the state machine (`lifecycle`).
//!
//! Every move runs in one transaction: the delivery is read, the move is
//! checked against the state machine (docs/guide.md "Delivery states") and this
//! module's preconditions (proof before pick-up and handover), and
//! `lifecycle::advance` writes it with its events. An illegal move is
//! `409 conflict` (gRPC `FAILED_PRECONDITION`) and changes nothing. Test
//! deliveries belong to the simulator and are refused.

use sea_orm::ConnectionTrait;

use crate::{Core, CoreError, CoreResult, positions};
use courier::errors::ErrorCode;
use courier_identity::auth::Mode;
use courier_orders::assignments;
use courier_orders::deliveries::{self, Change, Courier, CourierLocation, Delivery};
use courier_orders::events::EventType;
use courier_orders::lifecycle::{self, CancellationReason, Status};
use courier_orders::notifications;
use courier_orders::proofs::{self, Checkpoint, ProofSubmission};
use courier_orders::returns;
use courier_store::db::WriteTransaction;

/// Open jobs per page when the caller does not say.
const DEFAULT_PAGE_SIZE: u64 = 20;
/// The most open jobs one call returns.
const MAX_PAGE_SIZE: i32 = 100;
/// The longest courier name, make, model, colour or plate.
const MAX_TEXT: usize = 200;
/// A dropoff ETA that moves by at least this much is announced again
/// ("a minute or more", docs/guide.md "Delivery states").
const ETA_MOVE_MICROS: i64 = 60 * 1_000_000;

/// Who moves a live delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover<'a> {
    /// The dispatch service: any live delivery.
    Dispatch,
    /// A courier: only the delivery they hold. One never theirs (or a test
    /// delivery) is `not_found`; one they held that ended or left their
    /// hands is `conflict`. A move they already made answers the delivery
    /// as it is, so an app may resend a move whose answer it lost.
    Courier(&'a str),
}

/// Live deliveries still `pending` (waiting for a courier), oldest first.
pub async fn open_jobs(core: &Core, page_size: i32) -> CoreResult<Vec<Delivery>> {
    let limit = match page_size {
        0 => DEFAULT_PAGE_SIZE,
        1..=MAX_PAGE_SIZE => page_size as u64,
        _ => return Err(CoreError::invalid("page_size", "page_size must be between 1 and 100.")),
    };
    deliveries::pending_live(&core.db, None, limit).await
}

/// A courier takes the job: `pending` → `courier_assigned`. Tracking opens
/// now and the courier-search timeout is called off.
pub async fn accept(core: &Core, delivery_id: &str, courier: Courier, pickup_eta: Option<i64>) -> CoreResult<Delivery> {
    check_courier(&courier)?;
    let courier = Courier {
        location: None,
        ..courier
    };
    let now = core.clock.now_micros();
    let change = Change::default()
        .courier(courier)
        .tracking_opens(now)
        .pickup_eta(pickup_eta)
        .next_step(None);
    move_to(
        core,
        Mover::Dispatch,
        delivery_id,
        Status::CourierAssigned,
        None,
        |_| Ok(change),
    )
    .await
}

/// The courier is at the pickup: `courier_assigned` → `at_pickup`.
pub async fn arrive_at_pickup(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    move_to(core, by, delivery_id, Status::AtPickup, None, |_| Ok(Change::default())).await
}

/// The courier has the goods: `at_pickup` → `picked_up`, once the pickup
/// proof the delivery asks for is in. The dropoff ETA is set here (see
/// [`dropoff_eta_at_pickup`]), so that the tracking page shows one from the
/// pickup on, not only once the courier's next position is in.
pub async fn pick_up(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    let now = core.clock.now_micros();
    move_to(core, by, delivery_id, Status::PickedUp, Some(Checkpoint::Pickup), |d| {
        Ok(new_dropoff_eta(dropoff_eta_at_pickup(d, now)))
    })
    .await
}

/// The dropoff ETA of `d` picked up at `now`: the courier is at the pickup,
/// so the route's own duration (pickup, stops, dropoff) from now. `None`
/// keeps a stored one still ahead (reported by the dispatch service, which
/// may know the traffic better).
fn dropoff_eta_at_pickup(d: &Delivery, now: i64) -> Option<i64> {
    if d.dropoff_eta.is_some_and(|eta| eta > now) {
        return None;
    }
    Some(now + d.duration_min.max(0) * 60_000_000)
}

/// On the way to the dropoff: `picked_up` → `in_transit`, with the ETA;
/// without one (no position to compute it from) the one set at the pickup
/// stays.
pub async fn start_transit(
    core: &Core,
    by: Mover<'_>,
    delivery_id: &str,
    dropoff_eta: Option<i64>,
) -> CoreResult<Delivery> {
    let change = new_dropoff_eta(dropoff_eta);
    move_to(core, by, delivery_id, Status::InTransit, None, |_| Ok(change)).await
}

/// A change to `eta` when there is one; none keeps the stored ETA.
fn new_dropoff_eta(eta: Option<i64>) -> Change {
    eta.map_or_else(Change::default, |eta| Change::default().dropoff_eta(Some(eta)))
}

/// The courier is at the dropoff: `in_transit` → `at_dropoff`.
pub async fn arrive_at_dropoff(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    move_to(
        core,
        by,
        delivery_id,
        Status::AtDropoff,
        None,
        |_| Ok(Change::default()),
    )
    .await
}

/// The goods are handed over: `at_dropoff` → `delivered`, once the dropoff
/// proof the delivery asks for is in.
pub async fn complete_handover(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    let now = core.clock.now_micros();
    move_to(
        core,
        by,
        delivery_id,
        Status::Delivered,
        Some(Checkpoint::Dropoff),
        |d| Ok(Change::default().delivered(d, now)),
    )
    .await
}

/// The handover at the dropoff failed: `at_dropoff` → `cancelled` with
/// `cancelled_by_maxmove` and, in the same transaction, the return that
/// brings the goods back to the pickup, held by the same courier, unless
/// the delivery was booked to be disposed of (`courier_orders::returns`).
pub async fn fail_handover(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    let now = core.clock.now_micros();
    let reason = CancellationReason::CancelledByMaxmove;
    let failed = move_then(
        core,
        by,
        delivery_id,
        Status::Cancelled,
        None,
        |d| {
            cancellable(d, Status::AtDropoff, reason)?;
            Ok(returns::failed_handover(d, now))
        },
        async |tx, failed| returns::book(core, tx, failed, now).await.map(drop),
    )
    .await?;
    cancelled_by(by, failed, reason)
}

/// Nobody handed the goods over: `at_pickup` → `cancelled` with
/// `pickup_no_show`.
pub async fn report_pickup_no_show(core: &Core, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    cancel(
        core,
        by,
        delivery_id,
        Status::AtPickup,
        CancellationReason::PickupNoShow,
    )
    .await
}

/// Records the courier's proof at a checkpoint (see
/// `lifecycle::submit_proof`).
pub async fn submit_proof(
    core: &Core,
    by: Mover<'_>,
    delivery_id: &str,
    submission: ProofSubmission,
) -> CoreResult<Delivery> {
    let tx = core.begin().await?;
    let delivery = delivery_for(&tx, by, delivery_id).await?;
    if let Mover::Courier(courier_id) = by {
        // A submission of theirs sent again (its answer lost) answers as it
        // did the first time, whether or not the job is still theirs (it
        // may have ended since, or gone to another courier): looked up
        // before the hold, which only new submissions need.
        if resent_by(&tx, &delivery, courier_id, &submission).await? {
            return Ok(delivery);
        }
        held_by(&tx, &delivery, courier_id).await?;
    }
    let now = core.clock.now_micros();
    let submitted = lifecycle::submit_proof(core, &tx, &delivery, submission, now).await?;
    // A wrong PIN's count is kept (committed) before it is refused.
    tx.commit().await?;
    core.changes.publish(&delivery.id);
    submitted.recorded()
}

/// One position reported by the courier app.
#[derive(Clone, Debug)]
pub struct LocationReport {
    pub delivery_id: String,
    pub latitude: f64,
    pub longitude: f64,
    pub recorded_at: Option<i64>,
    pub dropoff_eta: Option<i64>,
}

/// Stores the courier's position on a delivery that has a courier and has
/// not ended (taken at most 24 hours ago and at most 5 minutes ahead, else
/// `invalid_request` naming `recorded_at`); a dropoff ETA that moved by a
/// minute or more is stored and announced with `delivery.eta_updated`, and
/// one after the promised dropoff reports the delivery at risk.
pub async fn report_location(core: &Core, report: LocationReport) -> CoreResult<()> {
    if !(-90.0..=90.0).contains(&report.latitude) {
        return Err(CoreError::invalid("latitude", "latitude must be between -90 and 90."));
    }
    if !(-180.0..=180.0).contains(&report.longitude) {
        return Err(CoreError::invalid(
            "longitude",
            "longitude must be between -180 and 180.",
        ));
    }
    let now = core.clock.now_micros();
    if let Some(recorded_at) = report.recorded_at {
        if recorded_at > now + positions::MAX_AHEAD_MICROS {
            return Err(CoreError::invalid(
                "recorded_at",
                "recorded_at is more than 5 minutes in the future.",
            ));
        }
        if recorded_at < now - positions::MAX_AGE_MICROS {
            return Err(CoreError::invalid(
                "recorded_at",
                "recorded_at is more than 24 hours in the past.",
            ));
        }
    }
    let tx = core.begin().await?;
    let delivery = live_delivery(&tx, &report.delivery_id).await?;
    let Some(mut courier) = delivery.courier.clone().filter(|_| !delivery.status.is_terminal()) else {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!("A {} delivery takes no courier locations.", delivery.status.as_str()),
        ));
    };
    courier.location = Some(CourierLocation {
        latitude: report.latitude,
        longitude: report.longitude,
        recorded_at: Some(report.recorded_at.unwrap_or(now)),
    });
    let new_eta = report.dropoff_eta.filter(|eta| eta_moved(delivery.dropoff_eta, *eta));
    // Within 300 m of the dropoff the recipient hears it is arriving, even
    // when the ETA did not move (once: the outbox keeps one per trigger).
    let near = delivery.status == Status::InTransit
        && courier
            .location
            .as_ref()
            .is_some_and(|l| notifications::triggers::is_near(&delivery, l));
    let mut change = Change::default().courier(courier);
    if let Some(eta) = new_eta {
        change = change.dropoff_eta(Some(eta)).touched(now);
    }
    if !deliveries::update(core, &tx, &delivery.id, Some(delivery.status), change).await? {
        return Err(moved_meanwhile(&delivery.id));
    }
    let late = report.dropoff_eta.filter(|at| delivery.would_be_late(*at));
    if new_eta.is_some() || late.is_some() || near {
        let updated = deliveries::reload(&tx, &delivery.id).await?;
        if new_eta.is_some() {
            lifecycle::record_events(core, &tx, &[(&updated, EventType::EtaUpdated, now)]).await?;
        } else if near {
            notifications::messages::enqueue(core, &tx, &[(&updated, notifications::Trigger::Arriving, now)]).await?;
        }
        if let Some(at) = late {
            lifecycle::at_risk(core, &tx, &updated, at, now).await?;
        }
    }
    tx.commit().await?;
    core.changes.publish(&delivery.id);
    Ok(())
}

/// Stores the ETAs computed from the position of `delivery`'s courier
/// (`None` keeps one): a dropoff ETA that moved by a minute or more while
/// in transit is announced with `delivery.eta_updated`; a pickup ETA is
/// stored quietly (tracking shows it). A dropoff they predict after the
/// promised one reports the delivery at risk (`lifecycle::at_risk`).
pub async fn update_etas(
    core: &Core,
    delivery: &Delivery,
    pickup_eta: Option<i64>,
    dropoff_eta: Option<i64>,
) -> CoreResult<()> {
    let now = core.clock.now_micros();
    let dropoff_moved = dropoff_eta.filter(|eta| eta_moved(delivery.dropoff_eta, *eta));
    let pickup_moved = pickup_eta.filter(|eta| eta_moved(delivery.pickup_eta, *eta));
    let late = delivery
        .predicted_dropoff(pickup_eta, dropoff_eta)
        .filter(|at| delivery.would_be_late(*at));
    if dropoff_moved.is_none() && pickup_moved.is_none() && late.is_none() {
        return Ok(());
    }
    let tx = core.begin().await?;
    let mut current = delivery.clone();
    if dropoff_moved.is_some() || pickup_moved.is_some() {
        let mut change = Change::default();
        if let Some(eta) = pickup_moved {
            change = change.pickup_eta(Some(eta));
        }
        if let Some(eta) = dropoff_moved {
            change = change.dropoff_eta(Some(eta)).touched(now);
        }
        if !deliveries::update(core, &tx, &delivery.id, Some(delivery.status), change).await? {
            // Moved meanwhile: the next position computes them again.
            return Ok(());
        }
        current = deliveries::reload(&tx, &delivery.id).await?;
        if dropoff_moved.is_some() && delivery.status == Status::InTransit {
            lifecycle::record_events(core, &tx, &[(&current, EventType::EtaUpdated, now)]).await?;
        }
    }
    if let Some(at) = late {
        lifecycle::at_risk(core, &tx, &current, at, now).await?;
    }
    tx.commit().await?;
    core.changes.publish(&delivery.id);
    Ok(())
}

/// Whether `eta` differs from the `stored` one by a minute or more.
fn eta_moved(stored: Option<i64>, eta: i64) -> bool {
    stored.is_none_or(|stored| (eta - stored).abs() >= ETA_MOVE_MICROS)
}

async fn cancel(
    core: &Core,
    by: Mover<'_>,
    delivery_id: &str,
    from: Status,
    reason: CancellationReason,
) -> CoreResult<Delivery> {
    let now = core.clock.now_micros();
    let moved = move_to(core, by, delivery_id, Status::Cancelled, None, |d| {
        cancellable(d, from, reason)?;
        Ok(Change::default().cancelled(reason, now))
    })
    .await?;
    cancelled_by(by, moved, reason)
}

/// `conflict` unless `delivery` is in `from`, the one status `reason`
/// ends.
fn cancellable(delivery: &Delivery, from: Status, reason: CancellationReason) -> CoreResult<()> {
    if delivery.status == from {
        return Ok(());
    }
    Err(CoreError::new(
        ErrorCode::Conflict,
        format!(
            "{} applies to an {} delivery; this one is {}.",
            reason.as_str(),
            from.as_str(),
            delivery.status.as_str()
        ),
    ))
}

/// A cancellation's answer: a courier's, answered as resent, is theirs
/// only if the delivery was cancelled for this `reason`; cancelled
/// otherwise (by the client, or by another move), it had ended before
/// this one.
fn cancelled_by(by: Mover<'_>, moved: Delivery, reason: CancellationReason) -> CoreResult<Delivery> {
    if let Mover::Courier(_) = by
        && moved.cancellation_reason != Some(reason)
    {
        let why = moved.cancellation_reason.map_or("", CancellationReason::as_str);
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!("Job {} has ended (cancelled:{why}); it takes no more moves.", moved.id),
        ));
    }
    Ok(moved)
}

/// Moves live delivery `delivery_id` to `to` in one transaction. The move
/// must be legal from its current status; with `proof`, that checkpoint's
/// proof must be in when the delivery asks for one. `change` sees the
/// delivery as read and returns what else changes (or a refusal).
async fn move_to(
    core: &Core,
    by: Mover<'_>,
    delivery_id: &str,
    to: Status,
    proof: Option<Checkpoint>,
    change: impl FnOnce(&Delivery) -> CoreResult<Change>,
) -> CoreResult<Delivery> {
    move_then(core, by, delivery_id, to, proof, change, async |_, _| Ok(())).await
}

/// [`move_to`], and `then` in the same transaction with the delivery as
/// moved, when this call moved it (not for a courier's resent move).
async fn move_then(
    core: &Core,
    by: Mover<'_>,
    delivery_id: &str,
    to: Status,
    proof: Option<Checkpoint>,
    change: impl FnOnce(&Delivery) -> CoreResult<Change>,
    then: impl AsyncFnOnce(&WriteTransaction, &Delivery) -> CoreResult<()>,
) -> CoreResult<Delivery> {
    let tx = core.begin().await?;
    let delivery = delivery_for(&tx, by, delivery_id).await?;
    if let Mover::Courier(courier_id) = by {
        match held_by(&tx, &delivery, courier_id).await {
            Ok(()) if delivery.status == to => return Ok(delivery),
            Ok(()) => {}
            Err(refused) if delivery.status == to && ended_by_their_move(&tx, &delivery, courier_id).await? => {
                drop(refused);
                return Ok(delivery);
            }
            Err(refused) => return Err(refused),
        }
    }
    if !lifecycle::is_legal(delivery.status, to) {
        return Err(lifecycle::illegal(delivery.status, to));
    }
    if let Some(checkpoint) = proof
        && proofs::required(&proofs::in_force(&*tx, &delivery).await?, checkpoint)
        && !proofs::is_submitted(&tx, &delivery.id, checkpoint).await?
    {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!(
                "The delivery asks for {} proof; submit it before moving to {}.",
                checkpoint.as_str(),
                to.as_str()
            ),
        ));
    }
    let change = change(&delivery)?;
    let now = core.clock.now_micros();
    let moved = lifecycle::advance(core, &tx, &delivery, to, change, now)
        .await?
        .ok_or_else(|| moved_meanwhile(&delivery.id))?;
    then(&tx, &moved).await?;
    tx.commit().await?;
    core.changes.publish(&moved.id);
    Ok(moved)
}

/// A live delivery by id, for dispatch (any workspace); test deliveries are
/// the simulator's.
async fn live_delivery(db: &impl ConnectionTrait, delivery_id: &str) -> CoreResult<Delivery> {
    let delivery = deliveries::find(db, delivery_id)
        .await?
        .ok_or_else(|| CoreError::not_found("delivery"))?;
    if delivery.mode == Mode::Test {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            "Test deliveries are moved by the courier simulator, not by dispatch.",
        ));
    }
    Ok(delivery)
}

/// The live delivery `by` moves: for dispatch, any (a test delivery is
/// `conflict`, the simulator's); for a courier, an unknown or test
/// delivery is a job never theirs, `not_found`.
async fn delivery_for(db: &impl ConnectionTrait, by: Mover<'_>, delivery_id: &str) -> CoreResult<Delivery> {
    match by {
        Mover::Dispatch => live_delivery(db, delivery_id).await,
        Mover::Courier(_) => deliveries::find(db, delivery_id)
            .await?
            .filter(|delivery| delivery.mode == Mode::Live)
            .ok_or_else(|| CoreError::not_found("job")),
    }
}

/// Whether courier `courier_id` holds `delivery` now. To a courier,
/// another's job does not exist (`not_found`); one they held that has
/// ended or left their hands is theirs to read but not to move
/// (`conflict`, saying which).
async fn held_by(tx: &WriteTransaction, delivery: &Delivery, courier_id: &str) -> CoreResult<()> {
    match assignments::open_for_job(&**tx, &delivery.id).await? {
        Some(open) if open.courier_id == courier_id => Ok(()),
        _ => match assignments::latest_of(&**tx, &delivery.id, courier_id).await? {
            Some(held) => Err(held.ended_refusal()),
            None => Err(CoreError::not_found("job")),
        },
    }
}

/// Whether `submission` was recorded for `delivery` while courier
/// `courier_id` held it: the same submission id, and a hold of theirs.
async fn resent_by(
    tx: &WriteTransaction,
    delivery: &Delivery,
    courier_id: &str,
    submission: &ProofSubmission,
) -> CoreResult<bool> {
    let Some(submission_id) = &submission.submission_id else {
        return Ok(false);
    };
    Ok(proofs::submitted_as(&**tx, &delivery.id, submission_id).await?
        && assignments::latest_of(&**tx, &delivery.id, courier_id).await?.is_some())
}

/// Whether `delivery` ended (delivered or cancelled) by a move of courier
/// `courier_id`, whose hold ended with it: a resent last move.
async fn ended_by_their_move(tx: &WriteTransaction, delivery: &Delivery, courier_id: &str) -> CoreResult<bool> {
    let latest = assignments::latest_of(&**tx, &delivery.id, courier_id).await?;
    Ok(delivery.status.is_terminal() && latest.is_some_and(|a| a.ended_with_the_job()))
}

fn moved_meanwhile(id: &str) -> CoreError {
    CoreError::new(
        ErrorCode::Conflict,
        format!("Delivery {id} changed meanwhile; read it again and retry."),
    )
}

/// The courier as dispatch hands it over: a name, texts of sane length, a
/// rating from 0 to 5.
fn check_courier(courier: &Courier) -> CoreResult<()> {
    match courier.name.as_deref().map(str::trim) {
        None | Some("") => return Err(CoreError::invalid("courier.name", "The courier's name is required.")),
        Some(_) => {}
    }
    if courier.rating.is_some_and(|r| !(0.0..=5.0).contains(&r)) {
        return Err(CoreError::invalid("courier.rating", "rating must be between 0 and 5."));
    }
    let vehicle = courier.vehicle.as_ref();
    let texts = [
        ("courier.name", courier.name.as_deref()),
        ("courier.photo_url", courier.photo_url.as_deref()),
        ("courier.vehicle.make", vehicle.and_then(|v| v.make.as_deref())),
        ("courier.vehicle.model", vehicle.and_then(|v| v.model.as_deref())),
        ("courier.vehicle.color", vehicle.and_then(|v| v.color.as_deref())),
        (
            "courier.vehicle.license_plate",
            vehicle.and_then(|v| v.license_plate.as_deref()),
        ),
        (
            "courier.vehicle.photo_url",
            vehicle.and_then(|v| v.photo_url.as_deref()),
        ),
    ];
    for (param, text) in texts {
        if text.is_some_and(|t| t.chars().count() > MAX_TEXT && !param.ends_with("photo_url")) {
            return Err(CoreError::invalid(
                param,
                format!("{param} is longer than {MAX_TEXT} characters."),
            ));
        }
        if param.ends_with("photo_url") && text.is_some_and(|t| !t.starts_with("https://") || t.len() > 2048) {
            return Err(CoreError::invalid(
                param,
                format!("{param} must be an https URL of at most 2048 characters."),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pickup_sets_the_dropoff_eta_by_the_route_unless_one_is_ahead() {
        let minute = 60_000_000;
        let mut d = courier_orders::testing::sample_delivery();
        d.duration_min = 12;
        assert_eq!(dropoff_eta_at_pickup(&d, 1_000), Some(1_000 + 12 * minute));
        // One already past is replaced; one still ahead is kept.
        d.dropoff_eta = Some(500);
        assert_eq!(dropoff_eta_at_pickup(&d, 1_000), Some(1_000 + 12 * minute));
        d.dropoff_eta = Some(1_000 + 20 * minute);
        assert_eq!(dropoff_eta_at_pickup(&d, 1_000), None);
    }
}

#[cfg(test)]
mod statement_tests;
