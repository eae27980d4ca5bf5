//! `POST /v1/deliveries/{id}/redeliver` (docs/guide.md "Deliver again"): a
//! cancelled delivery (a returned one among them) booked again as a new
//! one, with the original's places, goods, vehicle, proof, notes and
//! undeliverable action, priced afresh, under its own idempotency scope.

use chrono::{DateTime, Utc};

use super::{NewDelivery, ProofRequest, TestScenario, create_in, get};
use crate::idempotency::{self, Idempotent, Scope};
use crate::quotes::RouteInput;
use crate::statuses::Status;
use crate::windows::Windows;
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_identity::auth::Principal;

const ENDPOINT: &str = "POST /v1/deliveries/{id}/redeliver";

/// What a redelivery sets itself. Times are never copied: the original's
/// have passed, and a promise the recipient was given for it is not one
/// for the new attempt; without them the new delivery is immediate.
/// `external_id` and `test_scenario` belong to one delivery and are not
/// copied either.
#[derive(Clone, Debug, Default)]
pub struct Redelivery {
    pub scheduled_at: Option<DateTime<Utc>>,
    pub windows: Windows,
    pub external_id: Option<String>,
    pub test_scenario: Option<TestScenario>,
}

/// Books cancelled delivery `id` again as a new delivery (the create's
/// rules, answer and events), guarded by the `Idempotency-Key` in this
/// endpoint's own scope. `canonical` is the request in canonical form,
/// the original's id included.
pub async fn redeliver(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    canonical: &[u8],
    request_id: &str,
    id: &str,
    redelivery: Redelivery,
) -> CoreResult<Idempotent> {
    let scope = Scope::new(principal, ENDPOINT, idempotency_key)?;
    let new = match again(orders, principal, id, redelivery).await {
        Ok(new) => new,
        Err(error) => {
            let hash = idempotency::request_hash(canonical);
            let now = orders.clock.now_micros();
            return idempotency::refuse(orders, &scope, &hash, request_id, now, error).await;
        }
    };
    create_in(orders, principal, scope, canonical, request_id, new).await
}

/// The new delivery that books `id` again: `not_found` as a read, and
/// `not_redeliverable` unless it was cancelled, or when it is a return (its
/// original is the one to deliver again).
async fn again(orders: &Orders, principal: &Principal, id: &str, redelivery: Redelivery) -> CoreResult<NewDelivery> {
    let original = get(orders, principal, id).await?;
    if original.status != Status::Cancelled {
        return Err(CoreError::new(
            ErrorCode::NotRedeliverable,
            format!(
                "Delivery {id} is {}: only a cancelled delivery can be delivered again.",
                original.status.as_str()
            ),
        ));
    }
    if let Some(of) = &original.return_of {
        return Err(CoreError::new(
            ErrorCode::NotRedeliverable,
            format!("Delivery {id} is the return of {of}: deliver {of} again instead."),
        ));
    }
    let route = &original.route;
    Ok(NewDelivery {
        quote_id: None,
        route: RouteInput {
            pickup: route.pickup.clone(),
            dropoff: route.dropoff.clone(),
            stops: route.stops.clone(),
            vehicle_type_id: original.vehicle_type_id.clone(),
            extras: route.extras.clone(),
            items: route.items.clone(),
            scheduled_at: redelivery.scheduled_at,
            windows: redelivery.windows,
        },
        external_id: redelivery.external_id,
        notes: original.notes.clone(),
        proof: Some(ProofRequest::from(&original.proof)),
        test_scenario: redelivery.test_scenario,
        batching: original.batching,
        notifications: original.notifications,
        undeliverable_action: original.undeliverable_action,
        tip_cents: original.tip_cents,
    })
}
