//! Deliveries: create (idempotent), read and list (docs/guide.md "Deliveries"),
//! and the events recorded about them. Owns the `deliveries` table; status
//! moves, cancel included, go through `lifecycle`.

pub mod batch;
pub mod bulk;
pub mod cache;
mod change;
pub mod edit;
/// The table's rows. Only this module writes them (with a [`Change`]);
/// other modules read deliveries through its functions.
pub(crate) mod entity;
pub mod model;
pub mod queue;
mod redeliver;
pub mod returns;

pub use change::Change;
pub use edit::{Edit, Edited, WaypointEdit, edit};
pub use redeliver::{Redelivery, redeliver};

use std::collections::HashMap;
use std::sync::Arc;

use sea_orm::sea_query::{LockBehavior, LockType};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use crate::events::{self, EventType};
use crate::idempotency::{self, Idempotent, Scope};
use crate::notifications::Preferences;
use crate::quotes::{self, RouteInput, from_json, to_json};
use crate::statuses::{CancellationReason, Status};
use crate::validate::{self, ContactRule};
use crate::windows::{MINUTE, Windows};
use crate::{CoreError, CoreResult, Orders, billing, webhooks};
use courier::errors::ErrorCode;
use courier_identity::audit;
use courier_identity::auth::{Mode, Principal};
use courier_identity::text;
use courier_store::cache_feed;
use courier_store::db::WriteTransaction;
use courier_store::pagination::{self, Keyset, Page};
pub use model::{
    Batching, CancelReason, Courier, CourierLocation, CourierVehicle, Delivery, DropoffProof, PickupProof,
    ProofRequest, ProofRequirements, StoredRoute, TestScenario, UndeliverableAction,
};
use queue::Prepared;

/// A delivery to create.
#[derive(Clone, Debug)]
pub struct NewDelivery {
    pub quote_id: Option<String>,
    pub route: RouteInput,
    pub external_id: Option<String>,
    pub notes: Option<String>,
    pub proof: Option<ProofRequest>,
    pub test_scenario: Option<TestScenario>,
    pub batching: Batching,
    /// Recipient notifications over the workspace's settings.
    pub notifications: Preferences,
    pub undeliverable_action: UndeliverableAction,
    /// The tip, in minor units of the delivery's currency
    /// (docs/couriers.md "Tips").
    pub tip_cents: i64,
}

/// The idempotency scope's endpoint of a create, a batch's items included.
pub const CREATE_ENDPOINT: &str = "POST /v1/deliveries";

/// `POST /v1/deliveries`: validates and prices (or redeems the quote), then
/// stores the delivery with its `delivery.created` event, guarded by the
/// idempotency key, in a transaction shared with the creates that arrive
/// meanwhile ([`batch`]). `canonical` is the request in canonical form.
pub async fn create(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    canonical: &[u8],
    request_id: &str,
    new: NewDelivery,
) -> CoreResult<Idempotent> {
    let scope = Scope::new(principal, CREATE_ENDPOINT, idempotency_key)?;
    create_in(orders, principal, scope, canonical, request_id, new).await
}

/// Creates `new` under the idempotency `scope` of the endpoint that asked
/// for it (a create, or a redelivery).
async fn create_in(
    orders: &Orders,
    principal: &Principal,
    scope: Scope,
    canonical: &[u8],
    request_id: &str,
    new: NewDelivery,
) -> CoreResult<Idempotent> {
    let hash = idempotency::request_hash(canonical);
    let now = orders.clock.now_micros();
    // A retry is answered from the key's row when the claim finds it taken
    // (or, refused here, before the refusal is stored): no read of the key
    // before pricing, which has no side effect to repeat.
    let prepared = match prepare(orders, principal, new).await {
        Ok(prepared) => prepared,
        Err(error) => return idempotency::refuse(orders, &scope, &hash, request_id, now, error).await,
    };
    let live = principal.mode == Mode::Live;
    let created = batch::create(
        orders,
        queue::Create {
            scope,
            hash,
            request_id: request_id.to_owned(),
            now,
            prepared,
        },
    )
    .await?;
    if live && !created.replayed {
        // A live delivery waits for a courier: a dispatch round now.
        orders.dispatch_wake.notify_one();
    }
    Ok(created)
}

async fn prepare(orders: &Orders, principal: &Principal, new: NewDelivery) -> CoreResult<Prepared> {
    let now = orders.clock.now();
    let route = new.route;
    route.validate(now, ContactRule::Required, ContactRule::Optional)?;
    if let Some(external_id) = &new.external_id {
        text::text_within("external_id", external_id, courier::limits::EXTERNAL_ID)?;
    }
    if let Some(notes) = &new.notes {
        text::text_within("notes", notes, courier::limits::NOTES)?;
    }
    let proof = new.proof.unwrap_or_default().requirements()?;
    validate::tip_cents(new.tip_cents)?;
    if new.test_scenario.is_some() && principal.mode == Mode::Live {
        return Err(CoreError::invalid(
            "test_scenario",
            "test_scenario is only accepted with test keys.",
        ));
    }
    if new.test_scenario == Some(TestScenario::Returned) && new.undeliverable_action == UndeliverableAction::Dispose {
        return Err(CoreError::invalid(
            "test_scenario",
            "test_scenario returned needs undeliverable_action return_to_pickup: a disposed delivery has no return.",
        ));
    }
    let (amount_cents, currency, breakdown, distance_km, duration_min, service_area_id) = match &new.quote_id {
        Some(quote_id) => {
            let quote = quotes::redeem(&orders.db, now.timestamp_micros(), principal, quote_id, &route.key()).await?;
            (
                quote.amount_cents,
                quote.currency,
                quote.breakdown,
                quote.distance_km,
                quote.duration_min,
                quote.service_area_id,
            )
        }
        None => {
            let priced = route.price(orders, now, principal.workspace.plan.discount_bps).await?;
            (
                priced.amount_cents,
                priced.currency,
                priced.breakdown,
                priced.distance_km,
                priced.duration_min,
                priced.service_area_id,
            )
        }
    };
    route
        .windows
        .check_reachable(route.earliest_pickup(now).timestamp_micros(), duration_min * MINUTE)?;
    let stored_route = StoredRoute {
        pickup: route.pickup,
        dropoff: route.dropoff,
        stops: route.stops,
        extras: route.extras,
        items: route.items,
    };
    let now_micros = now.timestamp_micros();
    let scheduled_at = route.scheduled_at.map(|t| t.timestamp_micros());
    let windows = route.windows;
    let [
        pickup_window_start,
        pickup_window_end,
        dropoff_window_start,
        dropoff_window_end,
    ] = windows.columns();
    let row = entity::Model {
        id: courier_store::ids::new_id("del"),
        workspace_id: principal.workspace.id.clone(),
        mode: principal.mode.as_str().to_owned(),
        status: Status::Pending.as_str().to_owned(),
        external_id: new.external_id,
        quote_id: new.quote_id,
        amount_cents: Some(amount_cents),
        currency: Some(currency),
        breakdown: Some(to_json(&breakdown)?),
        route: to_json(&stored_route)?,
        vehicle_type_id: route.vehicle_type_id,
        service_area_id,
        distance_km,
        duration_min,
        notes: new.notes,
        scheduled_at,
        proof_requirements: to_json(&proof)?,
        test_scenario: new.test_scenario.map(|s| s.as_str().to_owned()),
        tracking_token: courier_store::ids::ordered_random(32),
        tracking_available_at: None,
        courier: None,
        created_at: now_micros,
        updated_at: now_micros,
        cancelled_at: None,
        cancellation_reason: None,
        cancel_reason: None,
        delivered_at: None,
        picked_up_at: None,
        next_step_at: Some(first_step_at(
            principal.mode,
            now_micros,
            scheduled_at.or(pickup_window_start),
            orders.config.simulator_step,
        )),
        pickup_eta: None,
        dropoff_eta: None,
        pickup_window_start,
        pickup_window_end,
        dropoff_window_start,
        dropoff_window_end,
        promised_by: Some(
            windows.promised_dropoff(windows.plan(now_micros, scheduled_at, duration_min * MINUTE).dropoff_at),
        ),
        delayed_at: None,
        on_time: None,
        batching: new.batching.as_str().to_owned(),
        notifications: if new.notifications.is_empty() {
            None
        } else {
            Some(to_json(&new.notifications)?)
        },
        dropoff_pin: proof.dropoff.pin.then(courier_store::ids::pin),
        dropoff_pin_failures: 0,
        dropoff_pin_failed_submission: None,
        undeliverable_action: new.undeliverable_action.as_str().to_owned(),
        return_of: None,
        return_delivery_id: None,
        tip_cents: new.tip_cents,
    };
    let delivery = from_model(row.clone())?;
    Ok(Prepared {
        row,
        answer: orders.wire.delivery(&delivery),
        created: new_event(orders, &delivery, EventType::Created, Vec::new(), delivery.created_at),
        delivery,
        audited_as: principal.audited_as.clone(),
    })
}

/// Writes the audit entry of `delivery`'s create on `tx` when `audited_as`
/// names an audited caller.
async fn audit_create(
    orders: &Orders,
    tx: &impl ConnectionTrait,
    audited_as: Option<&str>,
    delivery: &Delivery,
) -> CoreResult<()> {
    let Some(actor) = audited_as else {
        return Ok(());
    };
    let change = audit::Change {
        action: "delivery.create",
        workspace_id: Some(&delivery.workspace_id),
        target: &delivery.id,
        courier_id: None,
    };
    audit::record(orders, tx, actor, change).await
}

/// Stores one prepared delivery in `tx` with its `delivery.created` event
/// and, when live, its credit reservation; answers the delivery. A batch
/// that fails runs its creates through this one by one ([`batch`]), so that
/// each gets its own answer.
async fn insert(orders: &Orders, tx: &courier_store::db::WriteTransaction, prepared: Prepared) -> CoreResult<Vec<u8>> {
    let Prepared {
        row,
        delivery,
        answer,
        created,
        audited_as,
    } = prepared;
    entity::Entity::insert(entity::ActiveModel::from(row))
        .exec_without_returning(&**tx)
        .await
        .map_err(|error| match error.sql_err() {
            Some(sea_orm::SqlErr::UniqueConstraintViolation(message)) if message.contains("external_id") => {
                CoreError::at(
                    ErrorCode::DuplicateExternalId,
                    "external_id",
                    "external_id is already used by another delivery in this mode.",
                )
            }
            _ => error.into(),
        })?;
    store_events(orders, tx, vec![created]).await?;
    audit_create(orders, tx, audited_as.as_deref(), &delivery).await?;
    if let (Mode::Live, Some(amount_cents)) = (delivery.mode, delivery.amount_cents) {
        // Last, so that the workspace row stays locked only until the commit.
        billing::reserve_credit(tx, &delivery.workspace_id, amount_cents).await?;
    }
    Ok(answer)
}

/// The caller's delivery `id`: `not_found` for unknown ids and for other
/// workspaces' or modes' deliveries alike. Answered from the delivery cache
/// when it has the delivery ([`cache`]).
pub async fn get(orders: &Orders, principal: &Principal, id: &str) -> CoreResult<Arc<Delivery>> {
    let cache = &orders.delivery_cache;
    let delivery = match cache.get(id) {
        Some(delivery) => delivery,
        None => {
            let ticket = cache.ticket(id);
            let model = entity::Entity::find_by_id(id.to_owned())
                .filter(scoped(principal))
                .one(&orders.db)
                .await?
                .ok_or_else(|| CoreError::not_found("delivery"))?;
            let delivery = Arc::new(from_model(model)?);
            if let Some(ticket) = ticket {
                cache.put(ticket, delivery.clone());
            }
            delivery
        }
    };
    if delivery.workspace_id != principal.workspace.id || delivery.mode != principal.mode {
        return Err(CoreError::not_found("delivery"));
    }
    Ok(delivery)
}

/// Changes delivery `id` in `tx` (only while its status is `while_status`,
/// when given) by `change`: the one way a stored delivery changes, so that
/// the delivery cache knows of every write ([`cache`]). Whether the row
/// changed.
pub async fn update(
    orders: &Orders,
    tx: &WriteTransaction,
    id: &str,
    while_status: Option<Status>,
    change: Change,
) -> CoreResult<bool> {
    tx.hold_until_end(orders.delivery_cache.writing(id));
    let announced = cache_feed::Change::Delivery {
        from: tx.origin(),
        id: id.to_owned(),
    };
    cache_feed::announce(tx, announced).await?;
    let mut update = entity::Entity::update_many().filter(entity::Column::Id.eq(id));
    if let Some(status) = while_status {
        update = update.filter(entity::Column::Status.eq(status.as_str()));
    }
    if let Some(guard) = change.guard() {
        update = update.filter(guard);
    }
    for (column, value) in change.into_columns()? {
        update = update.col_expr(column, value);
    }
    Ok(update.exec(tx).await?.rows_affected == 1)
}

/// Delivery `id` as stored now, read in `db` (a mover's transaction sees
/// its own writes).
pub async fn reload(db: &impl ConnectionTrait, id: &str) -> CoreResult<Delivery> {
    find(db, id)
        .await?
        .ok_or_else(|| CoreError::Internal(format!("delivery {id} vanished")))
}

/// Delivery `id` in `db` for a mover that has not read it yet; `None` when
/// there is none.
pub async fn find(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<Delivery>> {
    entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// The deliveries of `ids` that exist, in one read.
pub async fn find_many(db: &impl ConnectionTrait, ids: &[String]) -> CoreResult<Vec<Delivery>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    entity::Entity::find()
        .filter(courier_store::db::one_of(db.get_database_backend(), "id", ids))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// Where a delivery stands, without its route and the rest: for work that
/// reads many at a time and needs no more ([`standings`]).
pub struct Standing {
    pub id: String,
    pub status: Status,
    /// When it was delivered or cancelled.
    pub ended_at: Option<i64>,
    pub service_area_id: String,
}

/// Where each of `ids` that exists stands, in one read of five columns.
pub async fn standings(db: &impl ConnectionTrait, ids: &[String]) -> CoreResult<Vec<Standing>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    use entity::Column as C;
    #[derive(sea_orm::FromQueryResult)]
    struct Row {
        id: String,
        status: String,
        delivered_at: Option<i64>,
        cancelled_at: Option<i64>,
        service_area_id: String,
    }
    let rows = entity::Entity::find()
        .select_only()
        .columns([C::Id, C::Status, C::DeliveredAt, C::CancelledAt, C::ServiceAreaId])
        .filter(courier_store::db::one_of(db.get_database_backend(), "id", ids))
        .into_model::<Row>()
        .all(db)
        .await?;
    rows.into_iter()
        .map(|row| {
            let status = Status::parse(&row.status)
                .ok_or_else(|| CoreError::Internal(format!("delivery {} has a corrupt status", row.id)))?;
            Ok(Standing {
                id: row.id,
                status,
                ended_at: row.delivered_at.or(row.cancelled_at),
                service_area_id: row.service_area_id,
            })
        })
        .collect()
}

/// The delivery whose public tracking token is `token`, if any.
pub async fn by_tracking_token(db: &impl ConnectionTrait, token: &str) -> CoreResult<Option<Delivery>> {
    entity::Entity::find()
        .filter(entity::Column::TrackingToken.eq(token))
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// The time zone a workspace's times are shown in (the console's pages):
/// that of the service area of its latest live delivery, else of its latest
/// test delivery, else of the catalogue's first area. The area's zone is
/// the one the tracking page shows (`Catalog::time_zone`). Read from the
/// listing index, newest first: one row per mode at most.
pub async fn time_zone_of_workspace(orders: &Orders, workspace_id: &str) -> CoreResult<chrono_tz::Tz> {
    for mode in [Mode::Live, Mode::Test] {
        let latest: Option<String> = entity::Entity::find()
            .select_only()
            .column(entity::Column::ServiceAreaId)
            .filter(entity::Column::WorkspaceId.eq(workspace_id))
            .filter(entity::Column::Mode.eq(mode.as_str()))
            .order_by_desc(entity::Column::CreatedAt)
            .order_by_desc(entity::Column::Id)
            .limit(1)
            .into_tuple()
            .one(&orders.db)
            .await?;
        if let Some(area) = latest {
            return Ok(orders.catalog.time_zone(&area));
        }
    }
    Ok(orders.catalog.home_time_zone())
}

/// Up to `limit` live deliveries still `pending` (waiting for a courier),
/// oldest first, of service area `area` (any when `None`), from the index
/// of exactly those (`deliveries_waiting`, whose condition the query
/// repeats in literals for the planner to match).
pub async fn pending_live(db: &impl ConnectionTrait, area: Option<&str>, limit: u64) -> CoreResult<Vec<Delivery>> {
    const WAITING: &str = "\"deliveries\".\"mode\" = 'live' AND \"deliveries\".\"status\" = 'pending'";
    debug_assert_eq!((Mode::Live.as_str(), Status::Pending.as_str()), ("live", "pending"));
    let mut query = entity::Entity::find().filter(sea_orm::sea_query::Expr::cust(WAITING));
    if let Some(area) = area {
        query = query.filter(entity::Column::ServiceAreaId.eq(area));
    }
    query
        .order_by_asc(entity::Column::CreatedAt)
        .order_by_asc(entity::Column::Id)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// Claims the delivery whose scheduled step is the most overdue at `now`
/// for `tx`: locked against other replicas on PostgreSQL (`FOR UPDATE SKIP
/// LOCKED`; SQLite has a single writer). With the time it was due.
pub async fn claim_due_step(tx: &WriteTransaction, now: i64) -> CoreResult<Option<(Delivery, i64)>> {
    let mut query = entity::Entity::find()
        .filter(entity::Column::NextStepAt.lte(now))
        .filter(entity::Column::Status.is_not_in([Status::Delivered.as_str(), Status::Cancelled.as_str()]))
        .order_by_asc(entity::Column::NextStepAt)
        .limit(1);
    if tx.get_database_backend() == DatabaseBackend::Postgres {
        query = query.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    }
    let Some(model) = query.one(tx).await? else {
        return Ok(None);
    };
    let due = model.next_step_at.unwrap_or(now);
    Ok(Some((from_model(model)?, due)))
}

/// Filters of the delivery list.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub status: Option<Status>,
    pub external_id: Option<String>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub promise: Option<PromiseFilter>,
}

/// Deliveries by their promised dropoff (docs/guide.md "Windows").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromiseFilter {
    /// Not ended, and reported at risk or already past the promise: the
    /// ones a dispatcher looks at first.
    AtRisk,
    /// The promise broken: delivered after it, or not ended and past it.
    Late,
}

impl PromiseFilter {
    fn condition(self, now: i64) -> Condition {
        use entity::Column as C;
        let ended = [Status::Delivered.as_str(), Status::Cancelled.as_str()];
        let open_and_past = Condition::all()
            .add(C::Status.is_not_in(ended))
            .add(C::PromisedBy.lt(now));
        match self {
            PromiseFilter::AtRisk => Condition::any().add(open_and_past).add(
                Condition::all()
                    .add(C::Status.is_not_in(ended))
                    .add(C::DelayedAt.is_not_null()),
            ),
            PromiseFilter::Late => Condition::any().add(open_and_past).add(
                Condition::all()
                    .add(C::Status.eq(Status::Delivered.as_str()))
                    .add(C::OnTime.eq(false)),
            ),
        }
    }
}

pub async fn list(
    orders: &Orders,
    principal: &Principal,
    filter: &ListFilter,
    page_size: Option<i32>,
    page_token: Option<&str>,
) -> CoreResult<Page<Arc<Delivery>>> {
    let scope = format!(
        "deliveries|{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}",
        principal.workspace.id,
        principal.mode.as_str(),
        filter.status.map(Status::as_str),
        filter.external_id,
        filter.created_after,
        filter.created_before,
        filter.promise,
    );
    let mut condition = scoped(principal);
    if let Some(status) = filter.status {
        condition = condition.add(entity::Column::Status.eq(status.as_str()));
    }
    if let Some(external_id) = &filter.external_id {
        condition = condition.add(entity::Column::ExternalId.eq(external_id.as_str()));
    }
    if let Some(after) = filter.created_after {
        condition = condition.add(entity::Column::CreatedAt.gte(after));
    }
    if let Some(before) = filter.created_before {
        condition = condition.add(entity::Column::CreatedAt.lt(before));
    }
    if let Some(promise) = filter.promise {
        condition = condition.add(promise.condition(orders.clock.now_micros()));
    }
    let (ids, next_page_token) = Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first: true,
    }
    .page_ids(
        &orders.pages,
        &scope,
        condition,
        pagination::requested_page_size(page_size)?,
        page_token,
    )
    .await?;
    let items = by_ids(orders, principal, &ids).await?;
    Ok(Page { items, next_page_token })
}

/// The caller's deliveries of `ids`, in that order: from the delivery cache
/// where it has them, the rest in one read by primary key (kept for the
/// next reader). A page's ids come from the listing index; its rows,
/// mostly, from memory. The read leaves the scope to the check after it: in
/// the query, a generic plan could take the listing index for it and read
/// the whole workspace to find twenty rows (docs/scaling.md, "List pages").
async fn by_ids(orders: &Orders, principal: &Principal, ids: &[String]) -> CoreResult<Vec<Arc<Delivery>>> {
    let cache = &orders.delivery_cache;
    let mut found: HashMap<String, Arc<Delivery>> = HashMap::with_capacity(ids.len());
    let mut missing = Vec::new();
    for id in ids {
        match cache.get(id) {
            Some(delivery) => {
                found.insert(id.clone(), delivery);
            }
            None => missing.push((id.clone(), cache.ticket(id))),
        }
    }
    if !missing.is_empty() {
        let models = entity::Entity::find()
            .filter(entity::Column::Id.is_in(missing.iter().map(|(id, _)| id.as_str())))
            .all(&orders.db)
            .await?;
        let mut tickets: HashMap<String, Option<cache::Ticket>> = missing.into_iter().collect();
        for model in models {
            let delivery = Arc::new(from_model(model)?);
            if let Some(Some(ticket)) = tickets.remove(&delivery.id) {
                cache.put(ticket, delivery.clone());
            }
            found.insert(delivery.id.clone(), delivery);
        }
    }
    Ok(ids
        .iter()
        .filter_map(|id| found.remove(id))
        .filter(|d| d.workspace_id == principal.workspace.id && d.mode == principal.mode)
        .collect())
}

/// Records events about deliveries as they are, each `(delivery, type,
/// time)`: the events of a move, `delivery.pod_submitted`, a moved ETA, or
/// the `delivery.created` of new deliveries; and queues them for webhooks,
/// in `tx`, the transaction of the change.
pub async fn record_events(
    orders: &Orders,
    tx: &courier_store::db::WriteTransaction,
    happened: &[(&Delivery, EventType, i64)],
) -> CoreResult<()> {
    let events = happened
        .iter()
        .map(|&(delivery, event_type, at)| new_event(orders, delivery, event_type, Vec::new(), at))
        .collect();
    store_events(orders, tx, events).await
}

/// Records `events` and queues them for webhooks, in `tx`.
async fn store_events(
    orders: &Orders,
    tx: &courier_store::db::WriteTransaction,
    events: Vec<events::NewEvent>,
) -> CoreResult<()> {
    let recorded = events::record(&**tx, events).await?;
    webhooks::enqueue(orders, tx, recorded).await
}

/// Records `delivery.updated` about `delivery` as the client's change of
/// the `changed` members left it at `at`, and queues it for webhooks, in
/// `tx`. It fires no notification.
pub async fn record_update(
    orders: &Orders,
    tx: &WriteTransaction,
    delivery: &Delivery,
    changed: &[String],
    at: i64,
) -> CoreResult<()> {
    let event = new_event(orders, delivery, EventType::Updated, changed.to_vec(), at);
    store_events(orders, tx, vec![event]).await
}

fn new_event(
    orders: &Orders,
    delivery: &Delivery,
    event_type: EventType,
    changed_fields: Vec<String>,
    at: i64,
) -> events::NewEvent {
    events::NewEvent {
        workspace_id: delivery.workspace_id.clone(),
        mode: delivery.mode,
        event_type,
        delivery_id: delivery.id.clone(),
        data: orders.wire.event_snapshot(delivery),
        changed_fields,
        at,
    }
}

/// How long a live delivery may wait for a courier before it is cancelled
/// with `no_courier_found` (counted from creation, or from when its pickup
/// may start: `scheduled_at` or the pickup window's start).
pub const COURIER_SEARCH_TIMEOUT_MICROS: i64 = 30 * 60 * 1_000_000;

/// When a new delivery is first acted on by a worker: a test delivery's
/// first simulator step (one step after creation, or one step before its
/// pickup may start, `pickup_from`), or a live delivery's courier-search
/// timeout.
pub fn first_step_at(mode: Mode, created_at: i64, pickup_from: Option<i64>, step: std::time::Duration) -> i64 {
    let step = i64::try_from(step.as_micros()).unwrap_or(i64::MAX);
    match (mode, pickup_from) {
        (Mode::Test, None) => created_at.saturating_add(step),
        (Mode::Test, Some(at)) => at.saturating_sub(step).max(created_at.saturating_add(step)),
        (Mode::Live, at) => at.unwrap_or(created_at).saturating_add(COURIER_SEARCH_TIMEOUT_MICROS),
    }
}

/// Every query of a caller's deliveries goes through this scope.
fn scoped(principal: &Principal) -> Condition {
    principal.scope(entity::Column::WorkspaceId, entity::Column::Mode)
}

fn from_model(model: entity::Model) -> CoreResult<Delivery> {
    let corrupt = |what: &str| CoreError::Internal(format!("delivery {} has a corrupt {what}", model.id));
    let windows = Windows::from_columns(
        (model.pickup_window_start, model.pickup_window_end),
        (model.dropoff_window_start, model.dropoff_window_end),
    )
    .ok_or_else(|| corrupt("window"))?;
    Ok(Delivery {
        batching: Batching::parse(&model.batching).ok_or_else(|| corrupt("batching"))?,
        notifications: model
            .notifications
            .as_deref()
            .map(from_json)
            .transpose()?
            .unwrap_or_default(),
        mode: Mode::parse(&model.mode).ok_or_else(|| corrupt("mode"))?,
        status: Status::parse(&model.status).ok_or_else(|| corrupt("status"))?,
        breakdown: model.breakdown.as_deref().map(from_json).transpose()?,
        route: from_json(&model.route)?,
        proof: from_json(&model.proof_requirements)?,
        test_scenario: match model.test_scenario.as_deref() {
            None => None,
            Some(text) => Some(TestScenario::parse(text).ok_or_else(|| corrupt("test_scenario"))?),
        },
        courier: model.courier.as_deref().map(from_json).transpose()?,
        cancellation_reason: match model.cancellation_reason.as_deref() {
            None => None,
            Some(text) => Some(CancellationReason::parse(text).ok_or_else(|| corrupt("cancellation_reason"))?),
        },
        undeliverable_action: UndeliverableAction::parse(&model.undeliverable_action)
            .ok_or_else(|| corrupt("undeliverable_action"))?,
        id: model.id,
        workspace_id: model.workspace_id,
        external_id: model.external_id,
        quote_id: model.quote_id,
        amount_cents: model.amount_cents,
        currency: model.currency,
        vehicle_type_id: model.vehicle_type_id,
        service_area_id: model.service_area_id,
        distance_km: model.distance_km,
        duration_min: model.duration_min,
        notes: model.notes,
        scheduled_at: model.scheduled_at,
        tracking_token: model.tracking_token,
        tracking_available_at: model.tracking_available_at,
        created_at: model.created_at,
        updated_at: model.updated_at,
        cancelled_at: model.cancelled_at,
        cancel_reason: model.cancel_reason,
        delivered_at: model.delivered_at,
        next_step_at: model.next_step_at,
        pickup_eta: model.pickup_eta,
        dropoff_eta: model.dropoff_eta,
        windows,
        promised_by: model.promised_by,
        delayed_at: model.delayed_at,
        on_time: model.on_time,
        dropoff_pin: model.dropoff_pin,
        dropoff_pin_failures: model.dropoff_pin_failures.max(0) as u32,
        dropoff_pin_failed_submission: model.dropoff_pin_failed_submission,
        return_of: model.return_of,
        return_delivery_id: model.return_delivery_id,
        tip_cents: model.tip_cents,
    })
}

#[cfg(test)]
mod tests;
