//! The event history: the events API and its 30-day retention
//! (docs/guide.md "Events").
//!
//! Events are listed whether or not an endpoint received them, newest first,
//! scoped to the caller's workspace and key mode, with signed keyset page
//! tokens bound to the filters (the same scheme as the deliveries list), so
//! pages never repeat or skip an event while new ones are recorded. A page
//! reads its ids from the listing index and its events from the event
//! cache where it has them (`super::cache`; events never change). Sample
//! events of the endpoint test are never stored, hence never listed.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use sea_orm::{ColumnTrait, Condition, DatabaseConnection, DbBackend, EntityTrait, QueryFilter};

use super::{Event, EventType, entity, from_model};
use crate::{CoreError, CoreResult, Orders};
use courier_identity::auth::Principal;
use courier_store::day_partitions;
use courier_store::pagination::{self, Keyset, Page};

/// How long events are kept.
pub const RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// `GET /v1/events` filters; `created_after` is inclusive, `created_before`
/// exclusive (unix microseconds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub delivery_id: Option<String>,
    pub event_type: Option<EventType>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
}

/// The caller's events, newest first, in pages of `page_size`
/// ([`pagination::requested_page_size`]).
pub async fn list(
    orders: &Orders,
    principal: &Principal,
    filter: &EventFilter,
    page_size: Option<i32>,
    page_token: Option<&str>,
) -> CoreResult<Page<Arc<Event>>> {
    let scope = format!(
        "events|{}|{}|{:?}|{:?}|{:?}|{:?}",
        principal.workspace.id,
        principal.mode.as_str(),
        filter.delivery_id,
        filter.event_type.map(EventType::as_str),
        filter.created_after,
        filter.created_before
    );
    let mut condition = scoped(principal);
    if let Some(delivery_id) = &filter.delivery_id {
        condition = condition.add(entity::Column::DeliveryId.eq(delivery_id.as_str()));
    }
    if let Some(event_type) = filter.event_type {
        condition = condition.add(entity::Column::Type.eq(event_type.as_str()));
    }
    if let Some(after) = filter.created_after {
        condition = condition.add(entity::Column::CreatedAt.gte(after));
    }
    if let Some(before) = filter.created_before {
        condition = condition.add(entity::Column::CreatedAt.lt(before));
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
    let items = by_ids(orders, &ids).await?;
    Ok(Page { items, next_page_token })
}

/// The events of `ids`, in that order: from the event cache where it has
/// them, the rest in one read by primary key (kept for the next page). The
/// ids come from the caller's page, so they are the caller's events; the
/// read repeats no scope, which would let a generic plan scan the listing
/// index of the whole workspace instead (docs/scaling.md, "List pages").
async fn by_ids(orders: &Orders, ids: &[String]) -> CoreResult<Vec<Arc<Event>>> {
    let mut found: HashMap<String, Arc<Event>> = HashMap::with_capacity(ids.len());
    let mut missing = Vec::new();
    for id in ids {
        match orders.event_cache.get(id) {
            Some(event) => {
                found.insert(id.clone(), event);
            }
            None => missing.push(id.as_str()),
        }
    }
    if !missing.is_empty() {
        let models = entity::Entity::find()
            .filter(entity::Column::Id.is_in(missing))
            .all(&orders.db)
            .await?;
        for model in &models {
            let event = Arc::new(from_model(model)?);
            orders.event_cache.put(event.clone());
            found.insert(event.id.clone(), event);
        }
    }
    Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
}

/// The caller's event `id` (its webhook attempts: `webhooks::attempts::of_event`);
/// `not_found` for unknown ids and other workspaces' or modes' events.
pub async fn get(orders: &Orders, principal: &Principal, id: &str) -> CoreResult<Event> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .filter(scoped(principal))
        .one(&orders.db)
        .await?
        .ok_or_else(|| CoreError::not_found("event"))?;
    from_model(&model)
}

/// Deletes events older than [`RETENTION`]; returns how many rows were
/// deleted. On PostgreSQL whole days go ([`day_partitions::drop_before`]).
pub async fn purge_expired(db: &DatabaseConnection, now: i64) -> CoreResult<u64> {
    let cutoff = now - i64::try_from(RETENTION.as_micros()).unwrap_or(i64::MAX);
    if db.get_database_backend() == DbBackend::Postgres {
        return day_partitions::drop_before(db, &day_partitions::EVENTS, cutoff).await;
    }
    let result = entity::Entity::delete_many()
        .filter(entity::Column::CreatedAt.lt(cutoff))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// Every query of a caller's events goes through this scope.
pub(super) fn scoped(principal: &Principal) -> Condition {
    principal.scope(entity::Column::WorkspaceId, entity::Column::Mode)
}
