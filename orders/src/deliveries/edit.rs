//! Changes after booking (docs/guide.md "Change a delivery"): `PATCH
//! /v1/deliveries/{id}` sets the notes, the pickup's and dropoff's contact,
//! instructions, address and position, the dropoff window and the tip
//! (`tips`), each while the delivery's status allows it. A moved position prices the route
//! again; a new total must be accepted (`accept_amount_cents`), and a live
//! delivery's credit reservation follows it. Guarded by the idempotency key
//! like a create; checked against the `updated_at` the client last read
//! (`If-Match`) under the row's lock. Only members whose value really
//! changes are judged and written; a change that changes nothing writes
//! nothing and records no event.

use std::sync::{Arc, OnceLock};

use sea_orm::sea_query::LockType;
use sea_orm::{ConnectionTrait, DatabaseBackend, EntityTrait, QuerySelect};

use super::{Change, Delivery, StoredRoute, entity, find, from_model, record_update, reload, update};
use crate::assignments::{self, feed};
pub use crate::edits::WaypointEdit;
use crate::edits::{self, Member};
use crate::idempotency::{self, Idempotent, Scope};
use crate::quotes::RouteInput;
use crate::windows::{MINUTE, Window, Windows};
use crate::{CoreError, CoreResult, Orders, billing, tips, validate};
use courier::time::from_micros;
use courier_identity::auth::{Mode, Principal};
use courier_identity::text;
use courier_pricing::prices::PricedRoute;
use courier_store::db::WriteTransaction;

/// The idempotency scope's endpoint of a change.
pub const ENDPOINT: &str = "PATCH /v1/deliveries/{id}";

/// What a client asks to change; an unset member is kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edit {
    /// `Some(None)` removes the notes.
    pub notes: Option<Option<String>>,
    pub pickup: WaypointEdit,
    pub dropoff: WaypointEdit,
    /// `Some(None)` removes the dropoff window.
    pub dropoff_window: Option<Option<Window>>,
    /// The tip as it is to be (docs/couriers.md "Tips").
    pub tip_cents: Option<i64>,
    /// The `updated_at` the client made the change against (`If-Match`);
    /// `None` changes whatever the delivery is now.
    pub if_updated_at: Option<i64>,
    /// The total the client accepts, in cents: needed when the change
    /// moves the price, checked whenever sent.
    pub accept_amount_cents: Option<i64>,
}

impl Edit {
    fn is_empty(&self) -> bool {
        self.notes.is_none()
            && self.pickup.is_empty()
            && self.dropoff.is_empty()
            && self.dropoff_window.is_none()
            && self.tip_cents.is_none()
            && self.accept_amount_cents.is_none()
    }
}

/// A change's answer: the delivery as the transport wrote it, and the
/// members it changed (empty when it changed nothing, and on a replay,
/// whose change happened before).
#[derive(Clone, Debug, PartialEq)]
pub struct Edited {
    pub answer: Idempotent,
    pub changed_fields: Vec<String>,
}

impl Edited {
    /// Whether the change moves the courier's route or its promises: a
    /// place moved or the dropoff window changed.
    pub fn replans(&self) -> bool {
        self.changed_fields
            .iter()
            .any(|field| field == "dropoff_window" || field.ends_with(".latitude") || field.ends_with(".longitude"))
    }
}

/// `PATCH /v1/deliveries/{id}`: checks the members' own rules, then, in
/// the transaction that claims the idempotency key, the delivery's state
/// and `If-Match`, and writes the change with its `delivery.updated` event
/// (and, for a job a courier holds, a row on their feed). `canonical` is
/// the request in canonical form, without its `If-Match`.
pub async fn edit(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    canonical: &[u8],
    request_id: &str,
    id: &str,
    edit: Edit,
) -> CoreResult<Edited> {
    let scope = Scope::new(principal, ENDPOINT, idempotency_key)?;
    let now = orders.clock.now_micros();
    let changed_fields: Arc<OnceLock<Vec<String>>> = Arc::default();
    let (worker, principal_of_work, id_of_work, changed) =
        (orders.clone(), principal.clone(), id.to_owned(), changed_fields.clone());
    let answer = idempotency::run(
        orders,
        &scope,
        &idempotency::request_hash(canonical),
        request_id,
        now,
        prepare(orders, principal, id, edit, now),
        move |tx, prepared: Prepared| {
            Box::pin(async move {
                let (answer, fields) = apply(&worker, &principal_of_work, tx, &id_of_work, prepared).await?;
                // Set once: the work runs once per call.
                let _ = changed.set(fields);
                Ok(answer)
            })
        },
    )
    .await?;
    let changed_fields = if answer.replayed {
        Vec::new()
    } else {
        changed_fields.get().cloned().unwrap_or_default()
    };
    if !changed_fields.is_empty() {
        orders.changes.publish(id);
    }
    Ok(Edited { answer, changed_fields })
}

/// A change checked, and its route priced before the transaction when it
/// moves a waypoint (pricing may ask a routing service; the write lock is
/// not held meanwhile).
struct Prepared {
    edit: Edit,
    priced: Option<(StoredRoute, PricedRoute)>,
}

async fn prepare(orders: &Orders, principal: &Principal, id: &str, edit: Edit, now: i64) -> CoreResult<Prepared> {
    check(&edit, now)?;
    let mut priced = None;
    let moves = edit.pickup.moves() || edit.dropoff.moves();
    let delivery = if moves { find(&orders.db, id).await? } else { None };
    // Another caller's delivery is refused (not found) under the lock.
    if let Some(delivery) = delivery.filter(|d| d.workspace_id == principal.workspace.id && d.mode == principal.mode) {
        let route = edited_route(&delivery, &edit);
        if moved(&delivery.route, &route) {
            let price = price(orders, principal, &delivery, &route).await?;
            priced = Some((route, price));
        }
    }
    Ok(Prepared { edit, priced })
}

/// The members' own rules, before any read: one member at least, texts,
/// contacts, positions, the window's length and horizon at `now`.
fn check(edit: &Edit, now: i64) -> CoreResult<()> {
    if edit.is_empty() {
        return Err(CoreError::invalid(
            "body",
            "Send at least one member to change: notes, pickup, dropoff, dropoff_window or tip_cents (or accept_amount_cents to check the total).",
        ));
    }
    if let Some(Some(notes)) = &edit.notes {
        text::text_within("notes", notes, courier::limits::NOTES)?;
    }
    edits::check_waypoint("pickup", &edit.pickup)?;
    edits::check_waypoint("dropoff", &edit.dropoff)?;
    if let Some(tip_cents) = edit.tip_cents {
        validate::tip_cents(tip_cents)?;
    }
    if edit.accept_amount_cents.is_some_and(|cents| cents < 0) {
        return Err(CoreError::invalid(
            "accept_amount_cents",
            "accept_amount_cents is a total in cents, 0 or more.",
        ));
    }
    if let Some(window) = edit.dropoff_window {
        Windows {
            pickup: None,
            dropoff: window,
        }
        .check(now, None)?;
    }
    Ok(())
}

/// The members the change to `route` (and `edit`'s own) really changes on
/// `delivery`, as dot paths, in the order the Delivery shows them, each
/// with its rule.
fn changes(delivery: &Delivery, edit: &Edit, route: &StoredRoute) -> Vec<(String, Member)> {
    let mut changed = Vec::new();
    if let Some(notes) = &edit.notes
        && *notes != delivery.notes
    {
        changed.push(("notes".to_owned(), Member::Details));
    }
    changed.extend(edits::waypoint_changes(
        "pickup",
        (&delivery.route.pickup, &route.pickup),
        Member::PickupPlace,
    ));
    changed.extend(edits::waypoint_changes(
        "dropoff",
        (&delivery.route.dropoff, &route.dropoff),
        Member::DropoffPlace,
    ));
    if let Some(window) = edit.dropoff_window
        && window != delivery.windows.dropoff
    {
        changed.push(("dropoff_window".to_owned(), Member::DropoffWindow));
    }
    changed
}

/// `delivery`'s route with `edit`'s waypoint changes applied.
fn edited_route(delivery: &Delivery, edit: &Edit) -> StoredRoute {
    let mut route = delivery.route.clone();
    edit.pickup.applied_to(&mut route.pickup);
    edit.dropoff.applied_to(&mut route.dropoff);
    route
}

/// Whether `route` puts the pickup or the dropoff somewhere else than
/// `was`.
fn moved(was: &StoredRoute, route: &StoredRoute) -> bool {
    was.pickup.point() != route.pickup.point() || was.dropoff.point() != route.dropoff.point()
}

/// `route` priced as `delivery` was at its booking: its vehicle, extras,
/// items, schedule and windows, at the time it was booked, with the
/// workspace's discount.
async fn price(
    orders: &Orders,
    principal: &Principal,
    delivery: &Delivery,
    route: &StoredRoute,
) -> CoreResult<PricedRoute> {
    let input = RouteInput {
        pickup: route.pickup.clone(),
        dropoff: route.dropoff.clone(),
        stops: route.stops.clone(),
        vehicle_type_id: delivery.vehicle_type_id.clone(),
        extras: route.extras.clone(),
        items: route.items.clone(),
        scheduled_at: delivery.scheduled_at.map(from_micros),
        windows: delivery.windows,
    };
    input
        .price(
            orders,
            from_micros(delivery.created_at),
            principal.workspace.plan.discount_bps,
        )
        .await
}

/// Refuses a change whose total (`total`, after the change) differs from
/// the one accepted, or, when none is, from the total before.
fn check_price(edit: &Edit, before: Option<i64>, total: Option<i64>) -> CoreResult<()> {
    let accepted = edit.accept_amount_cents.or(before);
    if accepted == total {
        return Ok(());
    }
    let amount_cents = total.unwrap_or_default();
    let message = match edit.accept_amount_cents {
        Some(accepted) => format!(
            "The delivery's total after this change is {amount_cents} cents, not the {accepted} in accept_amount_cents; send the change again with accept_amount_cents: {amount_cents}."
        ),
        None => format!(
            "This change moves the delivery's total to {amount_cents} cents; send it again with accept_amount_cents: {amount_cents} to accept it."
        ),
    };
    Err(CoreError::PriceChanged { message, amount_cents })
}

/// The change in `tx`: the delivery's answer as the transport writes it,
/// and the members changed.
async fn apply(
    orders: &Orders,
    principal: &Principal,
    tx: &WriteTransaction,
    id: &str,
    prepared: Prepared,
) -> CoreResult<(Vec<u8>, Vec<String>)> {
    let Prepared { edit, priced } = prepared;
    let delivery = find_for_update(tx, id)
        .await?
        .filter(|d| d.workspace_id == principal.workspace.id && d.mode == principal.mode)
        .ok_or_else(|| CoreError::not_found("delivery"))?;
    edits::unchanged_since(edit.if_updated_at, delivery.updated_at, "delivery")?;
    let now = orders.clock.now_micros();
    let route = edited_route(&delivery, &edit);
    let changed = changes(&delivery, &edit, &route);
    edits::check_editable(&changed, delivery.status, "delivery")?;
    let tip_cents = edit.tip_cents.filter(|cents| *cents != delivery.tip_cents);
    if let Some(tip_cents) = tip_cents {
        tips::check_change(&delivery, tip_cents, now)?;
    }
    let priced = match priced {
        _ if !moved(&delivery.route, &route) => None,
        Some((priced_route, price)) if !moved(&priced_route, &route) => Some(price),
        // Another change moved the route since it was priced: rare enough
        // to price it again under the lock.
        _ => Some(self::price(orders, principal, &delivery, &route).await?),
    };
    let total = priced.as_ref().map(|p| p.amount_cents).or(delivery.amount_cents);
    check_price(&edit, delivery.amount_cents, total)?;
    if changed.is_empty() && tip_cents.is_none() {
        return Ok((orders.wire.delivery(&delivery), Vec::new()));
    }
    let mut change = changed_columns(&delivery, &edit, &changed, route, priced, now)?;
    if let Some(tip_cents) = tip_cents {
        change = change.tip(tip_cents);
    }
    if !update(orders, tx, id, Some(delivery.status), change).await? {
        // The row is locked (PostgreSQL) or the writer is this transaction
        // (SQLite): its status cannot have moved since it was read.
        return Err(CoreError::Internal(format!("delivery {id} moved under its lock")));
    }
    let updated = reload(tx, id).await?;
    let mut fields: Vec<String> = changed.into_iter().map(|(path, _)| path).collect();
    if updated.amount_cents != delivery.amount_cents {
        fields.push("amount_cents".to_owned());
    }
    if tip_cents.is_some() {
        fields.push("tip_cents".to_owned());
    }
    record_update(orders, tx, &updated, &fields, now).await?;
    tips::raised(orders, tx, &updated, delivery.tip_cents, now).await?;
    principal.audit(orders, &**tx, "delivery.update", id).await?;
    if let Some(held) = assignments::open_for_job(tx, id).await? {
        let entry = feed::Entry::Edited {
            job_id: id.to_owned(),
            changed_fields: fields.clone(),
        };
        feed::append(orders, tx, &held.courier_id, entry, now);
    }
    if let (Mode::Live, Some(before), Some(after)) = (delivery.mode, delivery.amount_cents, updated.amount_cents) {
        // The credit reserved at booking follows the price (docs/billing.md);
        // last, so that the workspace row stays locked only until the commit.
        match after - before {
            more if more > 0 => billing::reserve_credit(tx, &delivery.workspace_id, more).await?,
            less if less < 0 => billing::release_credit(tx, &delivery.workspace_id, -less).await?,
            _ => {}
        }
    }
    Ok((orders.wire.delivery(&updated), fields))
}

/// The write of the `changed` members of `edit` on `delivery` at `now`,
/// with the edited `route` and its new price. A new dropoff window, or a
/// route of another duration, moves the promise as a create would have set
/// it; before pickup, the dropoff window must still be reachable.
fn changed_columns(
    delivery: &Delivery,
    edit: &Edit,
    changed: &[(String, Member)],
    route: StoredRoute,
    priced: Option<PricedRoute>,
    now: i64,
) -> CoreResult<Change> {
    let is_changed = |path: &str| changed.iter().any(|(p, _)| p == path);
    let mut change = Change::default().touched(now);
    if is_changed("notes") {
        change = change.notes(edit.notes.clone().flatten());
    }
    if route != delivery.route {
        change = change.route(route);
    }
    let new_window = edit.dropoff_window.filter(|_| is_changed("dropoff_window"));
    let duration_min = priced.as_ref().map_or(delivery.duration_min, |p| p.duration_min);
    if new_window.is_some() || duration_min != delivery.duration_min {
        let windows = Windows {
            pickup: delivery.windows.pickup,
            dropoff: new_window.unwrap_or(delivery.windows.dropoff),
        };
        let duration = duration_min * MINUTE;
        if delivery.status.before_pickup() {
            windows.check_reachable(delivery.pickup_from().map_or(now, |at| at.max(now)), duration)?;
        }
        let plan = windows.plan(delivery.created_at, delivery.scheduled_at, duration);
        change = change.promised_by(windows.promised_dropoff(plan.dropoff_at));
        if let Some(window) = new_window {
            change = change.dropoff_window(window);
        }
    }
    if let Some(priced) = priced {
        change = change.priced(priced);
    }
    Ok(change)
}

/// Delivery `id` read in `tx` for a change: its row locked until the
/// commit on PostgreSQL (SQLite has one writer, this transaction).
async fn find_for_update(tx: &WriteTransaction, id: &str) -> CoreResult<Option<Delivery>> {
    if tx.get_database_backend() != DatabaseBackend::Postgres {
        return find(tx, id).await;
    }
    entity::Entity::find_by_id(id.to_owned())
        .lock(LockType::Update)
        .one(tx)
        .await?
        .map(from_model)
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::ContactInput;

    #[test]
    fn a_new_total_must_be_accepted() {
        let accepting = |cents| Edit {
            accept_amount_cents: cents,
            ..Edit::default()
        };
        check_price(&accepting(None), Some(900), Some(900)).expect("the same total needs no acceptance");
        check_price(&accepting(Some(1200)), Some(900), Some(1200)).expect("the new total accepted");
        check_price(&accepting(Some(900)), Some(900), Some(900)).expect("the total as it is, checked");
        for (accepted, total) in [(None, 1200), (Some(900), 1200), (Some(1300), 1200), (Some(800), 900)] {
            match check_price(&accepting(accepted), Some(900), Some(total)) {
                Err(CoreError::PriceChanged { amount_cents, .. }) => assert_eq!(amount_cents, total),
                other => panic!("{accepted:?} for {total}: {other:?}"),
            }
        }
    }

    #[test]
    fn an_edit_names_one_member_at_least_and_checks_each() {
        let now = 1_800_000_000_000_000;
        let param = |edit: &Edit| match check(edit, now) {
            Err(CoreError::Rejected { param, .. }) => param,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert_eq!(param(&Edit::default()).as_deref(), Some("body"));
        let only_if_match = Edit {
            if_updated_at: Some(now),
            ..Edit::default()
        };
        assert_eq!(param(&only_if_match).as_deref(), Some("body"));
        let short_window = Edit {
            dropoff_window: Some(Some(Window {
                start: now + 60 * MINUTE,
                end: now + 65 * MINUTE,
            })),
            ..Edit::default()
        };
        assert_eq!(param(&short_window).as_deref(), Some("dropoff_window.end"));
        let bad_phone = Edit {
            dropoff: WaypointEdit {
                contact: Some(ContactInput {
                    name: "Rui".into(),
                    phone: "call me".into(),
                    email: None,
                }),
                ..WaypointEdit::default()
            },
            ..Edit::default()
        };
        assert_eq!(param(&bad_phone).as_deref(), Some("dropoff.contact.phone"));
        let cleared = Edit {
            notes: Some(None),
            dropoff_window: Some(None),
            ..Edit::default()
        };
        check(&cleared, now).expect("removals need no checks");
    }
}
