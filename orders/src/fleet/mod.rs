//! Fleet orders (docs/guide.md "Fleet orders"): orders of a fleet's own
//! customers, taken in through `POST /v1/fleet/orders` (idempotent, live keys
//! of fleet workspaces whose plan has order intake) and put on the fleet's
//! dispatch board, where its dispatchers move them through the state machine
//! (`lifecycle`; docs/guide.md "Delivery states") over the internal
//! `DispatchService`.
//!
//! Owns the `fleet_orders` table. One row is both the public fleet order
//! (`flo_…`) and its board order (`ord_…`), so the public `status` and
//! `updated_at` are always the board's.

pub mod edit;
pub mod entity;
pub mod model;
pub mod moves;

use chrono::{NaiveDate, NaiveTime};
use chrono_tz::Tz;
use courier::limits;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter};

use crate::assignments;
use crate::idempotency::{self, Idempotent, Scope};
use crate::lifecycle::{self, Status};
use crate::quotes::{RouteInput, from_json, to_json};
use crate::validate::{self, ContactInput, ContactRule};
use crate::windows::Windows;
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_identity::auth::{Mode, Principal};
use courier_identity::text;
use courier_identity::workspaces::{self, WorkspaceKind};
use courier_pricing::items;
use courier_store::db;
use courier_store::db::WriteTransaction;
use courier_store::pagination::{self, Keyset, Page};
pub use model::{FleetOrder, OrderRoute};

/// The endpoint part of the idempotency scope.
const CREATE_ENDPOINT: &str = "POST /v1/fleet/orders";
/// Fleet orders are live only: test keys are refused before anything else.
const MODE: Mode = Mode::Live;

/// The checks of every fleet endpoint, in the order docs/guide.md
/// "Fleet orders" gives: a fleet workspace's key (`fleet_key_required`), a live
/// key (`live_key_required`), a plan with order intake
/// (`fleet_orders_not_available`); the key's permission
/// (`permission_denied`) is checked after these (`courier_core::caller::api`).
pub fn admit(principal: &Principal) -> CoreResult<()> {
    if principal.workspace.kind != WorkspaceKind::Fleet {
        return Err(CoreError::new(
            ErrorCode::FleetKeyRequired,
            "Fleet orders need a key of a fleet workspace.",
        ));
    }
    if principal.mode != MODE {
        return Err(CoreError::new(
            ErrorCode::LiveKeyRequired,
            "Fleet orders need a live key; test keys can neither create nor read them.",
        ));
    }
    if !principal.workspace.plan.fleet_order_intake {
        return Err(CoreError::new(
            ErrorCode::FleetOrdersNotAvailable,
            "The fleet's plan does not include order intake.",
        ));
    }
    Ok(())
}

/// A fleet order to create. `route` carries no extras and no `scheduled_at`
/// (fleet orders have neither; their windows say when).
#[derive(Clone, Debug)]
pub struct NewFleetOrder {
    pub customer: ContactInput,
    pub route: RouteInput,
    pub reference: Option<String>,
    pub requested_pickup_date: Option<String>,
    pub requested_pickup_time: Option<String>,
    pub customer_timezone: Option<String>,
    pub notes: Option<String>,
}

/// `POST /v1/fleet/orders`: validates the order and stores it on the
/// fleet's board, guarded by the idempotency key exactly like deliveries.
/// `canonical` is the request in canonical form. The caller was admitted
/// with [`admit`].
pub async fn create(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    canonical: &[u8],
    request_id: &str,
    new: NewFleetOrder,
) -> CoreResult<Idempotent> {
    let scope = Scope::new(principal, CREATE_ENDPOINT, idempotency_key)?;
    let now = orders.clock.now_micros();
    let checked = prepare(orders, principal, new, now);
    let wire = orders.wire.clone();
    idempotency::run(
        orders,
        &scope,
        &idempotency::request_hash(canonical),
        request_id,
        now,
        checked,
        move |tx, row: entity::ActiveModel| {
            Box::pin(async move {
                let model = row.insert(tx).await?;
                Ok(wire.fleet_order(&from_model(model)?))
            })
        },
    )
    .await
}

/// Checks every field (docs/guide.md "Fleet orders", "Limits", "Windows")
/// and builds the row.
async fn prepare(
    orders: &Orders,
    principal: &Principal,
    new: NewFleetOrder,
    now: i64,
) -> CoreResult<entity::ActiveModel> {
    validate::contact("customer", &new.customer)?;
    let route = new.route;
    route.validate(
        courier::time::from_micros(now),
        ContactRule::Optional,
        ContactRule::Optional,
    )?;
    let vehicle = orders.catalog.requested_vehicle_type(&route.vehicle_type_id)?;
    if let Some(list) = &route.items {
        items::validate_items(list)?;
        items::check_fit(vehicle, list)?;
    }
    if let Some(reference) = &new.reference {
        text::text_within("reference", reference, limits::FLEET_REFERENCE)?;
    }
    if let Some(date) = &new.requested_pickup_date {
        pickup_date(date)?;
    }
    if let Some(time) = &new.requested_pickup_time {
        pickup_time(time)?;
    }
    if let Some(zone) = &new.customer_timezone {
        time_zone(zone)?;
    }
    if let Some(notes) = &new.notes {
        text::text_within("notes", notes, limits::NOTES)?;
    }
    let windows = route.windows;
    if windows.dropoff.is_some() {
        let earliest = route
            .earliest_pickup(courier::time::from_micros(now))
            .timestamp_micros();
        windows.check_reachable(earliest, route.duration(orders).await?)?;
    }
    let [
        pickup_window_start,
        pickup_window_end,
        dropoff_window_start,
        dropoff_window_end,
    ] = windows.columns();
    let stored_route = OrderRoute {
        pickup: route.pickup,
        dropoff: route.dropoff,
        stops: route.stops,
        items: route.items,
    };
    Ok(entity::ActiveModel {
        id: Set(courier_store::ids::new_id("flo")),
        order_id: Set(courier_store::ids::new_id("ord")),
        workspace_id: Set(principal.workspace.id.clone()),
        mode: Set(principal.mode.as_str().to_owned()),
        status: Set(Status::Pending.as_str().to_owned()),
        reference: Set(new.reference),
        customer: Set(to_json(&new.customer)?),
        route: Set(to_json(&stored_route)?),
        vehicle_type_id: Set(route.vehicle_type_id),
        requested_pickup_date: Set(new.requested_pickup_date),
        requested_pickup_time: Set(new.requested_pickup_time),
        customer_timezone: Set(new.customer_timezone),
        notes: Set(new.notes),
        pickup_window_start: Set(pickup_window_start),
        pickup_window_end: Set(pickup_window_end),
        dropoff_window_start: Set(dropoff_window_start),
        dropoff_window_end: Set(dropoff_window_end),
        created_at: Set(now),
        updated_at: Set(now),
    })
}

/// Whether `text` has exactly the shape of `pattern`, where `9` stands for
/// any ASCII digit and every other character for itself.
fn has_shape(text: &str, pattern: &str) -> bool {
    text.len() == pattern.len()
        && text.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'9' => c.is_ascii_digit(),
            _ => c == p,
        })
}

/// `YYYY-MM-DD`, and a day the calendar has.
fn pickup_date(date: &str) -> CoreResult<()> {
    if !has_shape(date, "9999-99-99") || NaiveDate::parse_from_str(date, "%Y-%m-%d").is_err() {
        return Err(CoreError::invalid(
            "requested_pickup_date",
            "requested_pickup_date must be a calendar date as YYYY-MM-DD.",
        ));
    }
    Ok(())
}

/// `HH:MM` on a 24-hour clock.
fn pickup_time(time: &str) -> CoreResult<()> {
    if !has_shape(time, "99:99") || NaiveTime::parse_from_str(time, "%H:%M").is_err() {
        return Err(CoreError::invalid(
            "requested_pickup_time",
            "requested_pickup_time must be a time of day as HH:MM (00:00 to 23:59).",
        ));
    }
    Ok(())
}

/// A zone name of the IANA time zone database, at most 64 characters.
fn time_zone(zone: &str) -> CoreResult<()> {
    text::text_within("customer_timezone", zone, limits::TIME_ZONE)?;
    if zone.parse::<Tz>().is_err() {
        return Err(CoreError::invalid(
            "customer_timezone",
            "customer_timezone must be an IANA time zone name, e.g. Europe/Berlin.",
        ));
    }
    Ok(())
}

/// The caller's fleet order `id`: `not_found` for unknown ids and for other
/// workspaces' orders alike.
pub async fn get(db: &impl ConnectionTrait, principal: &Principal, id: &str) -> CoreResult<FleetOrder> {
    find(db, principal, id)
        .await?
        .ok_or_else(|| CoreError::not_found("fleet order"))
}

/// The caller's fleet order `id`, if there is one.
async fn find(db: &impl ConnectionTrait, principal: &Principal, id: &str) -> CoreResult<Option<FleetOrder>> {
    entity::Entity::find_by_id(id.to_owned())
        .filter(principal.scope(entity::Column::WorkspaceId, entity::Column::Mode))
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// One page of the dispatch board of fleet workspace `workspace_id`, oldest
/// first, optionally only orders in `status`. Page tokens are the signed
/// keyset cursors of `pagination`, bound to the workspace and the filter.
pub async fn board(
    orders: &Orders,
    workspace_id: &str,
    status: Option<Status>,
    newest_first: bool,
    page_size: i32,
    page_token: Option<&str>,
) -> CoreResult<Page<FleetOrder>> {
    if workspace_id.is_empty() {
        return Err(CoreError::invalid("workspace_id", "workspace_id is required."));
    }
    let workspace = workspaces::get(&orders.db, workspace_id).await?;
    if workspace.kind != WorkspaceKind::Fleet {
        return Err(CoreError::not_found("fleet workspace"));
    }
    let scope = format!("board|{workspace_id}|{:?}|{newest_first}", status.map(Status::as_str));
    let mut condition = board_scope(workspace_id);
    if let Some(status) = status {
        condition = condition.add(entity::Column::Status.eq(status.as_str()));
    }
    let (models, next_page_token) = Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first,
    }
    .page(
        &orders.pages,
        &scope,
        condition,
        pagination::page_size(page_size)?,
        page_token,
    )
    .await?;
    let items = models.into_iter().map(from_model).collect::<CoreResult<Vec<_>>>()?;
    Ok(Page { items, next_page_token })
}

/// Board order `order_id` (`ord_…`) of any fleet, for its dispatchers.
pub async fn board_order(db: &impl ConnectionTrait, order_id: &str) -> CoreResult<FleetOrder> {
    let model = entity::Entity::find()
        .filter(entity::Column::OrderId.eq(order_id))
        .filter(entity::Column::Mode.eq(MODE.as_str()))
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("board order"))?;
    from_model(model)
}

/// The board orders of `order_ids` (`ord_…`, any fleet) that exist, in
/// one read.
pub async fn board_orders(db: &impl ConnectionTrait, order_ids: &[String]) -> CoreResult<Vec<FleetOrder>> {
    if order_ids.is_empty() {
        return Ok(Vec::new());
    }
    entity::Entity::find()
        .filter(db::one_of(db.get_database_backend(), "order_id", order_ids))
        .filter(entity::Column::Mode.eq(MODE.as_str()))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// The caller `granted` the move moves board order `order_id` of
/// `workspace_id` to `to`: legal only where the state
/// machine allows it (`lifecycle::is_legal`; docs/guide.md "Delivery states"),
/// else `409 conflict` and nothing changes. The move is a compare-and-set on
/// the status it starts from, so of two dispatchers racing on one order only
/// one wins; the order's history (`moves`) and, for an audited caller, the
/// audit log get the move in the same transaction.
pub async fn move_order(
    orders: &Orders,
    granted: &Granted<act::MoveBoardOrders>,
    order_id: &str,
    to: Status,
) -> CoreResult<FleetOrder> {
    let order = board_order(&orders.db, order_id).await?;
    granted.covers(&order.workspace_id)?;
    let tx = orders.begin().await?;
    let moved = move_in(orders, &tx, &order, to, granted.actor()).await?;
    let change = audit::Change {
        action: "board_order.move",
        workspace_id: Some(&order.workspace_id),
        target: &order.order_id,
        courier_id: None,
    };
    granted.record(orders, &*tx, change).await?;
    tx.commit().await?;
    Ok(moved)
}

/// Moves `order` (as read) to `to` in `tx` for `actor` (as the order's
/// history names them), as [`move_order`] does; the courier holding it
/// hears of it.
pub async fn move_in(
    orders: &Orders,
    tx: &WriteTransaction,
    order: &FleetOrder,
    to: Status,
    actor: &str,
) -> CoreResult<FleetOrder> {
    if !lifecycle::is_legal(order.status, to) {
        return Err(lifecycle::illegal(order.status, to));
    }
    let now = orders.clock.now_micros();
    let order_id = order.order_id.as_str();
    let moved = entity::Entity::update_many()
        .col_expr(entity::Column::Status, Expr::value(to.as_str()))
        .col_expr(entity::Column::UpdatedAt, Expr::value(now))
        .filter(entity::Column::Id.eq(order.id.as_str()))
        .filter(entity::Column::Status.eq(order.status.as_str()))
        .exec(&**tx)
        .await?;
    if moved.rows_affected != 1 {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!("Order {order_id} changed meanwhile; read it again and retry."),
        ));
    }
    moves::record(&**tx, &order.id, (order.status, to), actor, now).await?;
    assignments::job_moved(orders, tx, order_id, to, None, now).await?;
    board_order(&**tx, order_id).await
}

/// Returns `order` from `courier_assigned` to `pending` in `tx` for `actor`
/// (a dispatcher taking it back from its driver, `jobs::unassign`): the
/// one backward move of a board order, in its history like any other. The
/// caller has ended the driver's assignment.
pub async fn return_to_waiting(
    orders: &Orders,
    tx: &WriteTransaction,
    order: &FleetOrder,
    actor: &str,
) -> CoreResult<FleetOrder> {
    if order.status != Status::CourierAssigned {
        return Err(lifecycle::illegal(order.status, Status::Pending));
    }
    let now = orders.clock.now_micros();
    let moved = entity::Entity::update_many()
        .col_expr(entity::Column::Status, Expr::value(Status::Pending.as_str()))
        .col_expr(entity::Column::UpdatedAt, Expr::value(now))
        .filter(entity::Column::Id.eq(order.id.as_str()))
        .filter(entity::Column::Status.eq(order.status.as_str()))
        .exec(&**tx)
        .await?;
    if moved.rows_affected != 1 {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!("Order {} changed meanwhile; read it again and retry.", order.order_id),
        ));
    }
    moves::record(&**tx, &order.id, (order.status, Status::Pending), actor, now).await?;
    board_order(&**tx, &order.order_id).await
}

/// The pending orders of fleet `workspace_id`'s board, oldest first, at
/// most `limit` (for automatic dispatch and planned days).
pub async fn pending_orders(db: &impl ConnectionTrait, workspace_id: &str, limit: u64) -> CoreResult<Vec<FleetOrder>> {
    use sea_orm::{QueryOrder, QuerySelect};
    entity::Entity::find()
        .filter(board_scope(workspace_id))
        .filter(entity::Column::Status.eq(Status::Pending.as_str()))
        .order_by_asc(entity::Column::CreatedAt)
        .order_by_asc(entity::Column::Id)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// Every board query of a fleet goes through this scope.
fn board_scope(workspace_id: &str) -> Condition {
    Condition::all()
        .add(entity::Column::WorkspaceId.eq(workspace_id))
        .add(entity::Column::Mode.eq(MODE.as_str()))
}

fn from_model(model: entity::Model) -> CoreResult<FleetOrder> {
    let corrupt = |what: &str| CoreError::Internal(format!("fleet order {} has a corrupt {what}", model.id));
    let status = Status::parse(&model.status).ok_or_else(|| corrupt("status"))?;
    let windows = Windows::from_columns(
        (model.pickup_window_start, model.pickup_window_end),
        (model.dropoff_window_start, model.dropoff_window_end),
    )
    .ok_or_else(|| corrupt("window"))?;
    Ok(FleetOrder {
        status,
        windows,
        customer: from_json(&model.customer)?,
        route: from_json(&model.route)?,
        id: model.id,
        order_id: model.order_id,
        workspace_id: model.workspace_id,
        reference: model.reference,
        vehicle_type_id: model.vehicle_type_id,
        requested_pickup_date: model.requested_pickup_date,
        requested_pickup_time: model.requested_pickup_time,
        customer_timezone: model.customer_timezone,
        notes: model.notes,
        created_at: model.created_at,
        updated_at: model.updated_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_time_and_zone_patterns() {
        assert!(pickup_date("2026-02-28").is_ok());
        assert!(pickup_date("2028-02-29").is_ok());
        for bad in [
            "2026-02-30",
            "2026-2-28",
            "26-02-28",
            "2026/02/28",
            "2026-02-28T",
            " 2026-02-28",
        ] {
            assert!(pickup_date(bad).is_err(), "{bad}");
        }
        assert!(pickup_time("00:00").is_ok());
        assert!(pickup_time("23:59").is_ok());
        for bad in ["24:00", "12:60", "9:30", "09:30:00", "0930", "ab:cd"] {
            assert!(pickup_time(bad).is_err(), "{bad}");
        }
        assert!(time_zone("Europe/Berlin").is_ok());
        assert!(time_zone("America/Argentina/Buenos_Aires").is_ok());
        for bad in ["", "Europe/Atlantis", "europe/berlin", "CET+1", &"A".repeat(65)] {
            assert!(time_zone(bad).is_err(), "{bad}");
        }
    }
}
