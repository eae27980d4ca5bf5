//! The live event stream (`StreamEvents`, docs/guide.md "Event stream"):
//! the caller's events oldest first from a cursor, then each new one as it
//! is recorded.
//!
//! The stream's order is the events' position (creation time, then id), the
//! same order a client resumes in with the last event it received, so a
//! reconnect neither repeats nor skips an event. An event is sent once it is
//! [`SETTLE`] old: a change's transaction takes its time before it commits,
//! so an event still in flight when a later one is read would otherwise be
//! passed over. New events are read when this process's change feed
//! (`Orders::changes`) announces a change, and every [`POLL`] for those other
//! replicas recorded.

use std::sync::Arc;
use std::time::Duration;

use courier::errors::ErrorCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::Event;
use super::history;
use super::{EventType, entity};
use crate::{CoreError, CoreResult, Orders};
use courier_identity::auth::Principal;
use courier_store::pagination::Keyset;

/// How old an event is before it is sent: longer than a change's
/// transaction takes to commit once its time is taken.
pub const SETTLE: Duration = Duration::from_secs(1);
/// How often the stream reads without an announcement, for the events of
/// other replicas.
pub const POLL: Duration = Duration::from_secs(1);
/// Events read at once while catching up.
const BATCH: u64 = 100;

/// What a stream sends: the caller's events, narrowed by these.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamFilter {
    pub delivery_id: Option<String>,
    pub event_type: Option<EventType>,
}

/// One message of the stream: an event, or the error that ends it.
pub type StreamItem = CoreResult<Arc<Event>>;

/// Follows the caller's events: those after event `after` (the caller's,
/// else `invalid_request` on `param`) still kept, or without it those
/// recorded from now on, then every new one, until the receiver is dropped.
pub async fn follow(
    orders: &Orders,
    principal: &Principal,
    filter: StreamFilter,
    after: Option<&str>,
    param: &str,
) -> CoreResult<mpsc::Receiver<StreamItem>> {
    let mut position = match after {
        Some(id) => {
            let event = history::get(orders, principal, id)
                .await
                .map_err(|error| match error.code() {
                    ErrorCode::NotFound => CoreError::invalid(
                        param,
                        format!("{param} is not a kept event of this key's workspace and mode."),
                    ),
                    _ => error,
                })?;
            (event.created_at, event.id)
        }
        // Before every id at this time: an event recorded now is sent.
        None => (orders.clock.now_micros(), String::new()),
    };
    let (sender, receiver) = mpsc::channel(BATCH as usize);
    let mut changes = orders.changes.subscribe();
    let orders = orders.clone();
    let principal = principal.clone();
    tokio::spawn(async move {
        // An announced change is read once its events have settled.
        let mut settled: Option<Instant> = None;
        let mut poll = tokio::time::interval(POLL);
        loop {
            let read = match next(&orders, &principal, &filter, &position).await {
                Ok(events) => events,
                Err(error) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
            };
            let caught_up = (read.len() as u64) < BATCH;
            for event in read {
                position = (event.created_at, event.id.clone());
                if sender.send(Ok(event)).await.is_err() {
                    return;
                }
            }
            if !caught_up {
                continue;
            }
            loop {
                let settle = async {
                    match settled {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = sender.closed() => return,
                    () = orders.stopping.cancelled() => return,
                    _ = poll.tick() => break,
                    () = settle => break,
                    change = changes.recv() => match change {
                        Ok(_) | Err(RecvError::Lagged(_)) => {
                            settled.get_or_insert_with(|| Instant::now() + SETTLE);
                        }
                        Err(RecvError::Closed) => return,
                    },
                }
            }
            settled = settled.filter(|at| *at > Instant::now());
        }
    });
    Ok(receiver)
}

/// The settled events past `position`, oldest first, at most [`BATCH`].
async fn next(
    orders: &Orders,
    principal: &Principal,
    filter: &StreamFilter,
    position: &(i64, String),
) -> CoreResult<Vec<Arc<Event>>> {
    let settled_before = orders.clock.now_micros() - i64::try_from(SETTLE.as_micros()).unwrap_or(i64::MAX);
    let keyset = Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first: false,
    };
    let mut condition = history::scoped(principal)
        .add(keyset.past(position.0, &position.1))
        .add(entity::Column::CreatedAt.lte(settled_before));
    if let Some(delivery_id) = &filter.delivery_id {
        condition = condition.add(entity::Column::DeliveryId.eq(delivery_id.as_str()));
    }
    if let Some(event_type) = filter.event_type {
        condition = condition.add(entity::Column::Type.eq(event_type.as_str()));
    }
    let models = entity::Entity::find()
        .filter(condition)
        .order_by_asc(entity::Column::CreatedAt)
        .order_by_asc(entity::Column::Id)
        .limit(BATCH)
        .all(&orders.db)
        .await?;
    models
        .iter()
        .map(|model| {
            let event = Arc::new(super::from_model(model)?);
            orders.event_cache.put(event.clone());
            Ok(event)
        })
        .collect()
}
