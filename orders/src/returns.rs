//! Returns (docs/guide.md "Returns"): a delivery whose handover fails and
//! whose goods go back (`undeliverable_action: return_to_pickup`, the
//! default) is cancelled as every failed handover is
//! (`cancelled_by_maxmove`) and, in the same transaction, its return is
//! booked: a new delivery from its dropoff back to its pickup, held at once
//! by the courier who has the goods. Both movers of a failed handover, live
//! dispatch and the test simulator, end it with [`failed_handover`] and
//! then call [`book`]. The status compare-and-set lets one mover win, so a
//! delivery gets one return on any number of replicas (and the unique
//! `return_of` would refuse a second).

use crate::deliveries::{Change, Delivery, TestScenario, UndeliverableAction, returns};
use crate::events::EventType;
use crate::lifecycle::{self, CancellationReason};
use crate::{CoreResult, Orders, assignments, pay};
use courier_identity::auth::Mode;
use courier_store::db::WriteTransaction;

/// Who the assignment of a return names as having made it.
const ASSIGNED_BY: &str = "return";

/// Whether a failed handover of `delivery` brings its goods back: a live
/// delivery unless booked `dispose`; a test delivery only in the scenario
/// `returned` (the other scenarios end as they always did).
pub fn follows_failure(delivery: &Delivery) -> bool {
    delivery.undeliverable_action == UndeliverableAction::ReturnToPickup
        && delivery.return_delivery_id.is_none()
        && match delivery.mode {
            Mode::Live => true,
            Mode::Test => delivery.test_scenario == Some(TestScenario::Returned),
        }
}

/// The change that ends `delivery`'s failed handover at `now`:
/// `cancelled_by_maxmove` and, when a return follows, the return's id, so
/// that `delivery.cancelled` already names it.
pub fn failed_handover(delivery: &Delivery, now: i64) -> Change {
    let change = Change::default().cancelled(CancellationReason::CancelledByMaxmove, now);
    if follows_failure(delivery) {
        change.return_delivery(returns::new_id())
    } else {
        change
    }
}

/// Books in `tx` the return that `failed` (as its failed handover left it)
/// links, if any: the return delivery with its `delivery.created` and
/// `delivery.courier_assigned` events just after the cancel's, and, when
/// a courier of ours held the goods, their assignment of it (their app
/// hears of it in this transaction).
pub async fn book(orders: &Orders, tx: &WriteTransaction, failed: &Delivery, now: i64) -> CoreResult<Option<Delivery>> {
    let Some(id) = &failed.return_delivery_id else {
        return Ok(None);
    };
    let after = now + lifecycle::events_for(lifecycle::Status::Cancelled).len() as i64;
    let booked = returns::insert(orders, tx, failed, id, after).await?;
    lifecycle::record_events(
        orders,
        tx,
        &[
            (&booked, EventType::Created, after),
            (&booked, EventType::CourierAssigned, after + 1),
        ],
    )
    .await?;
    let holder = assignments::of_job(&**tx, &failed.id)
        .await?
        .into_iter()
        .rev()
        .find(|held| held.ended_with_the_job());
    if let Some(holder) = holder {
        let held = assignments::assign(orders, tx, &booked.id, &holder.courier_id, ASSIGNED_BY, after).await?;
        let payee = pay::Payee {
            courier_id: &holder.courier_id,
            job_id: &booked.id,
        };
        let way_back = pay::JobFacts {
            distance_km: booked.distance_km,
            minutes: booked.duration_min,
            surcharges_cents: 0,
        };
        pay::fix_for_return(tx, payee, &holder.id, &held.id, way_back, after).await?;
        assignments::announce(orders, tx, &holder.courier_id, &booked.id, after);
    }
    let (changes, booked_id) = (orders.changes.clone(), booked.id.clone());
    tx.after_commit(move || changes.publish(&booked_id));
    Ok(Some(booked))
}
