//! `POST /v1/deliveries/batch` (docs/guide.md "Create in bulk"): up to 100
//! creates in one call, each under its own idempotency key (the create's
//! scope), checked and priced one after the other, then queued for the
//! group commit (`batch`) together in their order, so that a batch of 100 shares a few
//! transactions and the credit checks run item after item: once the
//! credit runs out, the items after fail with it as their own answer.
//! One item's refusal never stops another's.

use super::{CREATE_ENDPOINT, NewDelivery, batch, prepare, queue};
use crate::idempotency::{self, Idempotent, Scope};
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_identity::auth::{Mode, Principal};

/// One delivery of a batch.
#[derive(Debug)]
pub struct Item {
    pub idempotency_key: String,
    /// The item's request in canonical form (compared between requests that
    /// share its key).
    pub canonical: Vec<u8>,
    /// The item as read, or why its transport could not read it.
    pub delivery: CoreResult<NewDelivery>,
}

/// Creates each of `items` as `deliveries::create` would, in order; answers
/// each item's create or refusal, a refusal's `param` within its item.
pub async fn create_many(
    orders: &Orders,
    principal: &Principal,
    request_id: &str,
    items: Vec<Item>,
) -> CoreResult<Vec<CoreResult<Idempotent>>> {
    check_count(items.len())?;
    let now = orders.clock.now_micros();
    let mut answers: Vec<Option<CoreResult<Idempotent>>> = Vec::with_capacity(items.len());
    let mut creates = Vec::new();
    for item in items {
        match check(orders, principal, request_id, now, item).await {
            Screened::Answered(answer) => answers.push(Some(answer)),
            Screened::Ready(create) => {
                answers.push(None);
                creates.push(*create);
            }
        }
    }
    let mut created = batch::create_all(orders, creates).await.into_iter();
    let answers: Vec<CoreResult<Idempotent>> = answers
        .into_iter()
        .map(|answer| {
            answer.unwrap_or_else(|| {
                created
                    .next()
                    .unwrap_or_else(|| Err(CoreError::Internal("a batch item went unanswered".into())))
            })
        })
        .collect();
    if principal.mode == Mode::Live && answers.iter().any(|a| a.as_ref().is_ok_and(|a| !a.replayed)) {
        // Live deliveries wait for couriers: a dispatch round now.
        orders.dispatch_wake.notify_one();
    }
    Ok(answers)
}

/// What a valid item of a dry run would cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub amount_cents: i64,
    pub currency: String,
    pub distance_km: f64,
    pub duration_min: i64,
}

/// Checks and prices each of `items` as `create_many` would, and stores
/// nothing: no delivery, no key used, no billing check (a dry run, as the
/// console's and the command line's CSV import make before booking).
pub async fn check_many(
    orders: &Orders,
    principal: &Principal,
    items: Vec<Item>,
) -> CoreResult<Vec<CoreResult<Checked>>> {
    check_count(items.len())?;
    let mut answers = Vec::with_capacity(items.len());
    for item in items {
        let checked = async {
            item_scope(principal, &item.idempotency_key)?;
            let prepared = prepare(orders, principal, item.delivery?).await?;
            Ok(Checked {
                amount_cents: prepared.row.amount_cents.unwrap_or_default(),
                currency: prepared.row.currency.unwrap_or_default(),
                distance_km: prepared.row.distance_km,
                duration_min: prepared.row.duration_min,
            })
        };
        answers.push(checked.await);
    }
    Ok(answers)
}

fn check_count(count: usize) -> CoreResult<()> {
    let limit = courier::limits::BATCH_DELIVERIES;
    if !(limit.min..=limit.max).contains(&(count as i64)) {
        return Err(CoreError::invalid(
            "deliveries",
            format!(
                "A batch has {} to {} deliveries; this one has {count}.",
                limit.min, limit.max
            ),
        ));
    }
    Ok(())
}

/// An item after its own checks: answered already (refused, or its key's
/// earlier refusal replayed), or ready to be stored.
enum Screened {
    Answered(CoreResult<Idempotent>),
    Ready(Box<queue::Create>),
}

async fn check(orders: &Orders, principal: &Principal, request_id: &str, now: i64, item: Item) -> Screened {
    let scope = match item_scope(principal, &item.idempotency_key) {
        Ok(scope) => scope,
        Err(error) => return Screened::Answered(Err(error)),
    };
    let new = match item.delivery {
        Ok(new) => new,
        Err(error) => return Screened::Answered(Err(error)),
    };
    let hash = idempotency::request_hash(&item.canonical);
    match prepare(orders, principal, new).await {
        Ok(prepared) => Screened::Ready(Box::new(queue::Create {
            scope,
            hash,
            request_id: request_id.to_owned(),
            now,
            prepared,
        })),
        Err(error) => Screened::Answered(idempotency::refuse(orders, &scope, &hash, request_id, now, error).await),
    }
}

/// The create's idempotency scope of an item's key, refused at
/// `idempotency_key` when there is none or it is too long.
fn item_scope(principal: &Principal, key: &str) -> CoreResult<Scope> {
    Scope::new(principal, CREATE_ENDPOINT, Some(key)).map_err(|error| {
        let code = error.code();
        let message = match code {
            ErrorCode::MissingIdempotencyKey => "Each delivery of a batch needs its own idempotency_key.".to_owned(),
            _ => format!(
                "idempotency_key is at most {} characters.",
                courier::limits::IDEMPOTENCY_KEY.max
            ),
        };
        CoreError::at(code, "idempotency_key", message)
    })
}
