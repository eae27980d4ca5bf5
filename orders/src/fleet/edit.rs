//! A fleet order changed by the fleet's customer (docs/guide.md "Change a
//! fleet order"): `PATCH /v1/fleet/orders/{id}` sets the notes, the
//! reference, the customer, the pickup's and dropoff's contact,
//! instructions, address and position, and the dropoff window, each while
//! the order's status allows it, by the rules of a delivery's change
//! (`edits`); nothing is priced. Guarded by the idempotency key like a
//! create; checked against the `updated_at` the client last read
//! (`If-Match`). Only members whose value really changes are judged and
//! written; the driver holding the order is told what changed.

use sea_orm::sea_query::{Expr, LockType};
use sea_orm::{ColumnTrait, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, QuerySelect};

use super::{FleetOrder, OrderRoute, entity, from_model};
use crate::assignments::{self, feed};
use crate::edits::{self, Member, WaypointEdit};
use crate::idempotency::{self, Idempotent, Scope};
use crate::quotes::{RouteInput, to_json};
use crate::validate::{self, ContactInput};
use crate::windows::{Window, Windows};
use crate::{CoreError, CoreResult, Orders};
use courier::limits;
use courier_identity::auth::Principal;
use courier_identity::text;
use courier_store::db::WriteTransaction;

/// The idempotency scope's endpoint of a change.
pub const ENDPOINT: &str = "PATCH /v1/fleet/orders/{id}";

/// What the fleet's customer asks to change; an unset member is kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetOrderEdit {
    /// `Some(None)` removes the notes.
    pub notes: Option<Option<String>>,
    /// `Some(None)` removes the reference.
    pub reference: Option<Option<String>>,
    /// Replaces the customer whole.
    pub customer: Option<ContactInput>,
    pub pickup: WaypointEdit,
    pub dropoff: WaypointEdit,
    /// `Some(None)` removes the dropoff window.
    pub dropoff_window: Option<Option<Window>>,
    /// The `updated_at` the client made the change against (`If-Match`).
    pub if_updated_at: Option<i64>,
}

impl FleetOrderEdit {
    fn is_empty(&self) -> bool {
        self.notes.is_none()
            && self.reference.is_none()
            && self.customer.is_none()
            && self.pickup.is_empty()
            && self.dropoff.is_empty()
            && self.dropoff_window.is_none()
    }

    /// The members' own rules, before any read.
    fn check(&self, now: i64) -> CoreResult<()> {
        if self.is_empty() {
            return Err(CoreError::invalid(
                "body",
                "Send at least one member to change: notes, reference, customer, pickup, dropoff or dropoff_window.",
            ));
        }
        if let Some(Some(notes)) = &self.notes {
            text::text_within("notes", notes, limits::NOTES)?;
        }
        if let Some(Some(reference)) = &self.reference {
            text::text_within("reference", reference, limits::FLEET_REFERENCE)?;
        }
        if let Some(customer) = &self.customer {
            validate::contact("customer", customer)?;
        }
        edits::check_waypoint("pickup", &self.pickup)?;
        edits::check_waypoint("dropoff", &self.dropoff)?;
        if let Some(Some(window)) = self.dropoff_window {
            Windows {
                pickup: None,
                dropoff: Some(window),
            }
            .check(now, None)?;
        }
        Ok(())
    }

    /// `order`'s route and windows with this change applied.
    fn applied_to(&self, order: &FleetOrder) -> (OrderRoute, Windows) {
        let mut route = order.route.clone();
        self.pickup.applied_to(&mut route.pickup);
        self.dropoff.applied_to(&mut route.dropoff);
        let windows = Windows {
            pickup: order.windows.pickup,
            dropoff: self.dropoff_window.unwrap_or(order.windows.dropoff),
        };
        (route, windows)
    }
}

/// `PATCH /v1/fleet/orders/{id}` for the caller admitted with
/// [`super::admit`]: checks the members' own rules, then, in the
/// transaction that claims the idempotency key, the order's state and
/// `If-Match`, and writes the change. `canonical` is the request in
/// canonical form, without its `If-Match`.
pub async fn edit(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    (canonical, request_id): (&[u8], &str),
    id: &str,
    edit: FleetOrderEdit,
) -> CoreResult<Idempotent> {
    let scope = Scope::new(principal, ENDPOINT, idempotency_key)?;
    let now = orders.clock.now_micros();
    let (worker, workspace_id, id_of_work) = (orders.clone(), principal.workspace.id.clone(), id.to_owned());
    idempotency::run(
        orders,
        &scope,
        &idempotency::request_hash(canonical),
        request_id,
        now,
        prepare(orders, principal, id, edit, now),
        move |tx, edit: FleetOrderEdit| {
            Box::pin(async move { apply(&worker, tx, (&workspace_id, &id_of_work), edit).await })
        },
    )
    .await
}

/// The change checked; a new dropoff window or a moved place of an order
/// not yet picked up is checked against the route's driving time, as at
/// its creation (the routing service is asked before the write lock).
async fn prepare(
    orders: &Orders,
    principal: &Principal,
    id: &str,
    edit: FleetOrderEdit,
    now: i64,
) -> CoreResult<FleetOrderEdit> {
    edit.check(now)?;
    let moves = edit.pickup.moves() || edit.dropoff.moves();
    if !moves && !matches!(edit.dropoff_window, Some(Some(_))) {
        return Ok(edit);
    }
    // An unknown or another workspace's order is refused (not found) under
    // the lock.
    let Some(order) = super::find(&orders.db, principal, id).await? else {
        return Ok(edit);
    };
    let (route, windows) = edit.applied_to(&order);
    if order.status.before_pickup() && windows.dropoff.is_some() {
        let route = RouteInput {
            pickup: route.pickup,
            dropoff: route.dropoff,
            stops: route.stops,
            vehicle_type_id: order.vehicle_type_id.clone(),
            extras: Vec::new(),
            items: route.items,
            scheduled_at: None,
            windows,
        };
        let earliest = route
            .earliest_pickup(courier::time::from_micros(now))
            .timestamp_micros();
        windows.check_reachable(earliest, route.duration(orders).await?)?;
    }
    Ok(edit)
}

async fn apply(
    orders: &Orders,
    tx: &WriteTransaction,
    (workspace_id, id): (&str, &str),
    edit: FleetOrderEdit,
) -> CoreResult<Vec<u8>> {
    let order = find_for_update(tx, id)
        .await?
        .filter(|o| o.workspace_id == workspace_id)
        .ok_or_else(|| CoreError::not_found("fleet order"))?;
    edits::unchanged_since(edit.if_updated_at, order.updated_at, "fleet order")?;
    let (route, windows) = edit.applied_to(&order);
    let changed = changes(&order, &edit, (&route, windows));
    edits::check_editable(&changed, order.status, "fleet order")?;
    if changed.is_empty() {
        return Ok(orders.wire.fleet_order(&order));
    }
    let now = orders.clock.now_micros();
    let mut update = entity::Entity::update_many().col_expr(entity::Column::UpdatedAt, Expr::value(now));
    if route != order.route {
        update = update.col_expr(entity::Column::Route, Expr::value(to_json(&route)?));
    }
    if windows.dropoff != order.windows.dropoff {
        let [_, _, start, end] = windows.columns();
        update = update
            .col_expr(entity::Column::DropoffWindowStart, Expr::value(start))
            .col_expr(entity::Column::DropoffWindowEnd, Expr::value(end));
    }
    if let Some(notes) = &edit.notes {
        update = update.col_expr(entity::Column::Notes, Expr::value(notes.clone()));
    }
    if let Some(reference) = &edit.reference {
        update = update.col_expr(entity::Column::Reference, Expr::value(reference.clone()));
    }
    if let Some(customer) = &edit.customer {
        update = update.col_expr(entity::Column::Customer, Expr::value(to_json(customer)?));
    }
    let written = update
        .filter(entity::Column::Id.eq(id))
        .filter(entity::Column::Status.eq(order.status.as_str()))
        .exec(&**tx)
        .await?;
    if written.rows_affected != 1 {
        // The row is locked (PostgreSQL) or the writer is this transaction
        // (SQLite): its status cannot have moved since it was read.
        return Err(CoreError::Internal(format!("fleet order {id} moved under its lock")));
    }
    let updated = super::board_order(&**tx, &order.order_id).await?;
    if let Some(held) = assignments::open_for_job(&**tx, &order.order_id).await? {
        let entry = feed::Entry::Edited {
            job_id: order.order_id.clone(),
            changed_fields: changed.into_iter().map(|(path, _)| path).collect(),
        };
        feed::append(orders, tx, &held.courier_id, entry, now);
    }
    Ok(orders.wire.fleet_order(&updated))
}

/// The members `edit` really changes on `order` (its route and windows
/// once changed being `route`, `windows`), as dot paths, each with its rule.
fn changes(
    order: &FleetOrder,
    edit: &FleetOrderEdit,
    (route, windows): (&OrderRoute, Windows),
) -> Vec<(String, Member)> {
    let mut changed = Vec::new();
    if edit.notes.as_ref().is_some_and(|notes| *notes != order.notes) {
        changed.push(("notes".to_owned(), Member::Details));
    }
    if edit
        .reference
        .as_ref()
        .is_some_and(|reference| *reference != order.reference)
    {
        changed.push(("reference".to_owned(), Member::Details));
    }
    if edit
        .customer
        .as_ref()
        .is_some_and(|customer| *customer != order.customer)
    {
        changed.push(("customer".to_owned(), Member::Details));
    }
    changed.extend(edits::waypoint_changes(
        "pickup",
        (&order.route.pickup, &route.pickup),
        Member::PickupPlace,
    ));
    changed.extend(edits::waypoint_changes(
        "dropoff",
        (&order.route.dropoff, &route.dropoff),
        Member::DropoffPlace,
    ));
    if windows.dropoff != order.windows.dropoff {
        changed.push(("dropoff_window".to_owned(), Member::DropoffWindow));
    }
    changed
}

/// Fleet order `id` read in `tx` for a change: its row locked until the
/// commit on PostgreSQL (SQLite has one writer, this transaction).
async fn find_for_update(tx: &WriteTransaction, id: &str) -> CoreResult<Option<FleetOrder>> {
    let mut query = entity::Entity::find_by_id(id.to_owned());
    if tx.get_database_backend() == DatabaseBackend::Postgres {
        query = query.lock(LockType::Update);
    }
    query.one(&**tx).await?.map(from_model).transpose()
}
