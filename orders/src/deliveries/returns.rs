//! The row of a return (docs/guide.md "Returns"): the delivery that brings
//! back the goods of one whose handover failed, from its dropoff to its
//! pickup. Booked by `crate::returns`, which gives it to the courier.

use sea_orm::ActiveModelTrait;

use super::{Delivery, ProofRequirements, StoredRoute, UndeliverableAction, entity, first_step_at, from_model};
use crate::notifications::Preferences;
use crate::quotes::to_json;
use crate::statuses::Status;
use crate::windows::{MINUTE, Windows};
use crate::{CoreError, CoreResult, Orders, billing};
use courier::errors::ErrorCode;
use courier_identity::auth::Mode;
use courier_pricing::prices::Breakdown;
use courier_store::db::WriteTransaction;

/// A return costs this share of the original's route price (without its
/// extras, discount and fees), in per cent.
pub const PRICE_PERCENT: i64 = 60;

/// A new delivery id for a return, chosen before it is booked so that the
/// failed handover's own change can link it.
pub fn new_id() -> String {
    courier_store::ids::new_id("del")
}

/// What a return of a delivery whose route price was `route_cents` costs:
/// [`PRICE_PERCENT`] of it, rounded half up, as its only line.
pub fn price(route_cents: i64) -> Breakdown {
    Breakdown {
        route_cents: (route_cents * PRICE_PERCENT + 50).div_euclid(100),
        extras: Vec::new(),
        surcharges: Vec::new(),
        discount_cents: 0,
        service_fee_cents: 0,
    }
}

/// Stores in `tx` the return `id` of `original`, whose handover failed at
/// `now`: from its dropoff straight back to its pickup (contacts and
/// instructions with their places, the items it carries), already
/// `courier_assigned` to the courier who holds the goods, tracked from now
/// and, when live, its price held against the workspace's credit. A return
/// is never returned again (`dispose`). Its events are the caller's.
pub async fn insert(
    orders: &Orders,
    tx: &WriteTransaction,
    original: &Delivery,
    id: &str,
    now: i64,
) -> CoreResult<Delivery> {
    let breakdown = original.breakdown.as_ref().map(|b| price(b.route_cents));
    let amount_cents = breakdown.as_ref().map(Breakdown::total_cents);
    let route = StoredRoute {
        pickup: original.route.dropoff.clone(),
        dropoff: original.route.pickup.clone(),
        stops: Vec::new(),
        extras: Vec::new(),
        items: original.route.items.clone(),
    };
    let duration = original.duration_min * MINUTE;
    let windows = Windows::default();
    let row = entity::Model {
        id: id.to_owned(),
        workspace_id: original.workspace_id.clone(),
        mode: original.mode.as_str().to_owned(),
        status: Status::CourierAssigned.as_str().to_owned(),
        external_id: None,
        quote_id: None,
        amount_cents,
        currency: original.currency.clone(),
        breakdown: breakdown.as_ref().map(to_json).transpose()?,
        route: to_json(&route)?,
        vehicle_type_id: original.vehicle_type_id.clone(),
        service_area_id: original.service_area_id.clone(),
        distance_km: original.distance_km,
        duration_min: original.duration_min,
        notes: Some(format!(
            "Return of {}: the handover at the dropoff failed.",
            original.id
        )),
        scheduled_at: None,
        // A photo at each end: the recipient's checks (age, PIN) are not
        // the sender's.
        proof_requirements: to_json(&ProofRequirements::default())?,
        test_scenario: None,
        tracking_token: courier_store::ids::ordered_random(32),
        tracking_available_at: Some(now),
        courier: original.courier.as_ref().map(to_json).transpose()?,
        created_at: now,
        updated_at: now,
        cancelled_at: None,
        cancellation_reason: None,
        cancel_reason: None,
        delivered_at: None,
        picked_up_at: None,
        // A test return goes on with the simulator; a live one is the
        // courier's, with no search to time out.
        next_step_at: (original.mode == Mode::Test)
            .then(|| first_step_at(Mode::Test, now, None, orders.config.simulator_step)),
        pickup_eta: Some(now),
        dropoff_eta: Some(now + duration),
        pickup_window_start: None,
        pickup_window_end: None,
        dropoff_window_start: None,
        dropoff_window_end: None,
        promised_by: Some(windows.promised_dropoff(windows.plan(now, Some(now), duration).dropoff_at)),
        delayed_at: None,
        on_time: None,
        batching: original.batching.as_str().to_owned(),
        // The recipient heard of the failure from the original; the
        // business follows the return through its webhooks.
        notifications: Some(to_json(&Preferences {
            recipient: Some(false),
            sender: Some(false),
            language: original.notifications.language,
        })?),
        dropoff_pin: None,
        dropoff_pin_failures: 0,
        dropoff_pin_failed_submission: None,
        undeliverable_action: UndeliverableAction::Dispose.as_str().to_owned(),
        return_of: Some(original.id.clone()),
        return_delivery_id: None,
        tip_cents: 0,
    };
    let model = entity::ActiveModel::from(row)
        .insert(&**tx)
        .await
        .map_err(|error| match error.sql_err() {
            Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => CoreError::new(
                ErrorCode::Conflict,
                format!("Delivery {} already has its return; read it again.", original.id),
            ),
            _ => error.into(),
        })?;
    let booked = from_model(model)?;
    if let (Mode::Live, Some(amount_cents)) = (booked.mode, booked.amount_cents) {
        // The goods come back whatever the credit left: held, never refused.
        billing::reserve_credit(tx, &booked.workspace_id, amount_cents).await?;
    }
    Ok(booked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_costs_sixty_per_cent_of_the_route_rounded_half_up() {
        assert_eq!(price(1_000).route_cents, 600);
        assert_eq!(price(1_001).route_cents, 601);
        assert_eq!(price(1_004).route_cents, 602);
        assert_eq!(price(999).total_cents(), 599);
        assert_eq!(price(0).total_cents(), 0);
    }
}
