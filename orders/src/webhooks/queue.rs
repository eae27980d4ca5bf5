//! The delivery queue: one `webhook_deliveries` row per event and endpoint.
//!
//! Rows are written in the transaction that records the event
//! ([`enqueue`]), so an event is queued exactly when its change commits. The
//! dispatcher claims due rows with a lease ([`claim`]): it moves
//! `next_attempt_at` to the lease's end and stamps a fresh `claim_token`, in
//! one statement (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has a single
//! writer). When it sends, it extends the lease to the send's deadline
//! ([`start`]). A row whose dispatcher dies becomes due again when the lease
//! ends, and only the token holder may start or record an attempt
//! ([`finish`]), so several core replicas never send one attempt twice.

use std::collections::BTreeMap;

use sea_orm::sea_query::{Expr, ExprTrait, LockBehavior, LockType, Order, Query, QueryStatementBuilder};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, DatabaseBackend, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, UpdateMany,
};

use super::attempts::{self, AttemptStatus};
use super::entity::endpoint::{self, EndpointStatus};
use super::entity::webhook_delivery;
use crate::events;
use crate::{CoreResult, Orders};
use courier_store::ids;

/// Where the delivery of one event to one endpoint stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryState {
    /// Waiting for its next attempt (or being attempted).
    Pending,
    Succeeded,
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Succeeded => "succeeded",
            DeliveryState::Failed => "failed",
        }
    }
}

/// Queues each of `events` for every active endpoint of its workspace and
/// mode that subscribes to its type: one read of the endpoints and one
/// insert of the rows, however many events. Call it in the transaction that
/// records the events; once it commits, this replica's dispatcher is woken
/// if it queued any row.
pub async fn enqueue(
    orders: &Orders,
    tx: &courier_store::db::WriteTransaction,
    recorded: events::Recorded,
) -> CoreResult<()> {
    let events = recorded.rows();
    if events.is_empty() {
        return Ok(());
    }
    let mut scopes: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e.workspace_id.as_str(), e.mode.as_str()))
        .collect();
    scopes.sort_unstable();
    scopes.dedup();
    let mut of_scopes = Condition::any();
    for (workspace_id, mode) in &scopes {
        of_scopes = of_scopes.add(
            Condition::all()
                .add(endpoint::Column::WorkspaceId.eq(*workspace_id))
                .add(endpoint::Column::Mode.eq(*mode)),
        );
    }
    let active = endpoint::Entity::find()
        .filter(of_scopes)
        .filter(endpoint::Column::Status.eq(EndpointStatus::Active.as_str()))
        .all(&**tx)
        .await?
        .into_iter()
        .map(endpoint::from_model)
        .collect::<CoreResult<Vec<_>>>()?;
    let mut rows = Vec::new();
    for event in events {
        let event_type = events::EventType::parse(&event.r#type).ok_or_else(|| {
            crate::CoreError::Internal(format!("event {} has unknown type {}", event.id, event.r#type))
        })?;
        let subscribers = active.iter().filter(|endpoint| {
            endpoint.workspace_id == event.workspace_id
                && endpoint.mode.as_str() == event.mode
                && endpoint.subscribes_to(event_type)
        });
        rows.extend(subscribers.map(|endpoint| webhook_delivery::ActiveModel {
            id: Set(ids::new_id("whd")),
            event_id: Set(event.id.clone()),
            webhook_id: Set(endpoint.id.clone()),
            state: Set(DeliveryState::Pending.as_str().to_owned()),
            attempts: Set(0),
            next_attempt_at: Set(event.created_at),
            claim_token: Set(None),
            created_at: Set(event.created_at),
            updated_at: Set(event.created_at),
            finished_at: Set(None),
        }));
    }
    if rows.is_empty() {
        return Ok(());
    }
    courier_store::db::insert_rows::<webhook_delivery::Entity>(&**tx, rows).await?;
    let wake = orders.webhook_wake.clone();
    tx.after_commit(move || wake.notify_one());
    Ok(())
}

/// Endpoints with pending rows due by `horizon`, each with its earliest due
/// time: what the dispatcher may claim now, and when to look again. One
/// index seek per endpoint (`webhook_id, state, next_attempt_at`), so a look
/// costs the same whatever the backlog; grouping the due rows instead read
/// every one of them on every look.
pub async fn due_endpoints(db: &impl ConnectionTrait, horizon: i64) -> CoreResult<Vec<(String, i64)>> {
    let (row, earliest, webhook) = ("pending_row", "next_attempt_at", "webhook_id");
    let earliest_pending = Query::select()
        .expr(Expr::col((row, webhook_delivery::Column::NextAttemptAt)).min())
        .from_as(webhook_delivery::Entity, row)
        .and_where(
            Expr::col((row, webhook_delivery::Column::WebhookId)).equals((endpoint::Entity, endpoint::Column::Id)),
        )
        .and_where(Expr::col((row, webhook_delivery::Column::State)).eq(DeliveryState::Pending.as_str()))
        .to_owned();
    let per_endpoint = Query::select()
        .expr_as(Expr::col((endpoint::Entity, endpoint::Column::Id)), webhook)
        .expr_as(
            Expr::SubQuery(None, Box::new(earliest_pending.into_sub_query_statement())),
            earliest,
        )
        .from(endpoint::Entity)
        .to_owned();
    let due = Query::select()
        .columns([webhook, earliest])
        .from_subquery(per_endpoint, "due")
        .and_where(Expr::col(earliest).lte(horizon))
        .to_owned();
    let rows = db.query_all(&due).await?;
    Ok(rows
        .iter()
        .map(|r| Ok((r.try_get::<String>("", webhook)?, r.try_get::<i64>("", earliest)?)))
        .collect::<Result<_, sea_orm::DbErr>>()?)
}

/// Claims up to `limit` rows of `webhook_id` due at `now`, oldest due first:
/// they get `token` and are due again only at `lease_end`. Returns how many
/// were claimed; [`claimed`] reads them.
pub async fn claim(
    db: &impl ConnectionTrait,
    webhook_id: &str,
    limit: u64,
    now: i64,
    lease_end: i64,
    token: &str,
) -> CoreResult<u64> {
    let mut due = Query::select();
    due.column(webhook_delivery::Column::Id)
        .from(webhook_delivery::Entity)
        .and_where(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .and_where(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .and_where(webhook_delivery::Column::NextAttemptAt.lte(now))
        .order_by(webhook_delivery::Column::NextAttemptAt, Order::Asc)
        .limit(limit);
    if db.get_database_backend() == DatabaseBackend::Postgres {
        due.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    }
    let result = webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(lease_end))
        .col_expr(webhook_delivery::Column::ClaimToken, Expr::value(token))
        .filter(webhook_delivery::Column::Id.in_subquery(due))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .filter(webhook_delivery::Column::NextAttemptAt.lte(now))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// Starts an attempt of each of `rows` (claimed) at `now`: its lease now
/// ends at `lease_end` and its attempts count this one. Returns the ids of
/// the rows still held with their claim's token: a row whose lease ended
/// while it waited and that was claimed again is not started.
pub async fn start<'a>(
    db: &impl ConnectionTrait,
    rows: impl IntoIterator<Item = &'a webhook_delivery::Model>,
    now: i64,
    lease_end: i64,
) -> CoreResult<Vec<String>> {
    let mut by_token: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in rows {
        if let Some(token) = row.claim_token.as_deref() {
            by_token.entry(token).or_default().push(row.id.as_str());
        }
    }
    let mut held = Vec::new();
    for (token, ids) in by_token {
        let result = webhook_delivery::Entity::update_many()
            .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(lease_end))
            .col_expr(
                webhook_delivery::Column::Attempts,
                Expr::col(webhook_delivery::Column::Attempts).add(1),
            )
            .col_expr(webhook_delivery::Column::UpdatedAt, Expr::value(now))
            .filter(webhook_delivery::Column::Id.is_in(ids.iter().copied()))
            .filter(webhook_delivery::Column::ClaimToken.eq(token))
            .exec(db)
            .await?;
        if usize::try_from(result.rows_affected).is_ok_and(|started| started == ids.len()) {
            held.extend(ids.into_iter().map(str::to_owned));
            continue;
        }
        // Some were claimed again meanwhile: the rows just started are the
        // ones with this token whose lease ends at `lease_end`.
        let started: Vec<String> = webhook_delivery::Entity::find()
            .select_only()
            .column(webhook_delivery::Column::Id)
            .filter(webhook_delivery::Column::Id.is_in(ids))
            .filter(webhook_delivery::Column::ClaimToken.eq(token))
            .filter(webhook_delivery::Column::NextAttemptAt.eq(lease_end))
            .into_tuple()
            .all(db)
            .await?;
        held.extend(started);
    }
    Ok(held)
}

/// The rows claimed with `token`.
pub async fn claimed(db: &impl ConnectionTrait, token: &str) -> CoreResult<Vec<webhook_delivery::Model>> {
    Ok(webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::ClaimToken.eq(token))
        .order_by_asc(webhook_delivery::Column::CreatedAt)
        .all(db)
        .await?)
}

/// Records where a claimed row stands after an attempt: `attempts` made so
/// far, and the due time of the next one when still pending. Releases the
/// lease. `false` when the lease was lost (another dispatcher took the row
/// over, or the endpoint was disabled meanwhile): nothing changed.
pub async fn finish(
    db: &impl ConnectionTrait,
    row: &webhook_delivery::Model,
    state: DeliveryState,
    attempts: i32,
    next_attempt_at: Option<i64>,
    now: i64,
) -> CoreResult<bool> {
    let Some(token) = row.claim_token.as_deref() else {
        return Ok(false);
    };
    let result = released(state, next_attempt_at, now)
        .col_expr(webhook_delivery::Column::Attempts, Expr::value(attempts))
        .filter(webhook_delivery::Column::Id.eq(row.id.as_str()))
        .filter(webhook_delivery::Column::ClaimToken.eq(token))
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}

/// [`finish`] for rows whose attempt succeeded (counted by [`start`]).
pub async fn finish_succeeded<'a>(
    db: &impl ConnectionTrait,
    rows: impl IntoIterator<Item = &'a webhook_delivery::Model>,
    now: i64,
) -> CoreResult<()> {
    end_leases(db, rows, || released(DeliveryState::Succeeded, None, now)).await
}

/// Ends the lease of claimed rows that were never attempted: pending and
/// due at `now` again, their attempts unchanged.
pub async fn release<'a>(
    db: &impl ConnectionTrait,
    rows: impl IntoIterator<Item = &'a webhook_delivery::Model>,
    now: i64,
) -> CoreResult<()> {
    end_leases(db, rows, || released(DeliveryState::Pending, Some(now), now)).await
}

/// Applies `update` to claimed rows, one statement per claim token; rows
/// whose lease was lost meanwhile are left as they are.
async fn end_leases<'a>(
    db: &impl ConnectionTrait,
    rows: impl IntoIterator<Item = &'a webhook_delivery::Model>,
    update: impl Fn() -> UpdateMany<webhook_delivery::Entity>,
) -> CoreResult<()> {
    let mut by_token: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in rows {
        if let Some(token) = row.claim_token.as_deref() {
            by_token.entry(token).or_default().push(row.id.as_str());
        }
    }
    for (token, ids) in by_token {
        update()
            .filter(webhook_delivery::Column::Id.is_in(ids))
            .filter(webhook_delivery::Column::ClaimToken.eq(token))
            .exec(db)
            .await?;
    }
    Ok(())
}

/// The update that ends an attempt's lease: the row's new `state`, due
/// again at `next_attempt_at` while pending, finished at `now` otherwise.
fn released(state: DeliveryState, next_attempt_at: Option<i64>, now: i64) -> UpdateMany<webhook_delivery::Entity> {
    let finished_at = (state != DeliveryState::Pending).then_some(now);
    webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::State, Expr::value(state.as_str()))
        .col_expr(
            webhook_delivery::Column::NextAttemptAt,
            Expr::value(next_attempt_at.unwrap_or(now)),
        )
        .col_expr(
            webhook_delivery::Column::ClaimToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_delivery::Column::UpdatedAt, Expr::value(now))
        .col_expr(webhook_delivery::Column::FinishedAt, Expr::value(finished_at))
}

/// Removes a row whose endpoint or event no longer exists.
pub async fn forget(db: &impl ConnectionTrait, id: &str) -> CoreResult<()> {
    webhook_delivery::Entity::delete_by_id(id.to_owned()).exec(db).await?;
    Ok(())
}

/// Fails every pending row of `webhook_id` (the endpoint was just disabled),
/// recording why as a failed attempt of each. Rows in flight lose their lease:
/// their outcome is recorded as an attempt but changes nothing; an attempt
/// a stopped sender left pending ends as cut off.
pub async fn fail_pending(db: &impl ConnectionTrait, webhook_id: &str, now: i64, error: &str) -> CoreResult<u64> {
    attempts::cut_off_of_endpoint(db, webhook_id).await?;
    let pending = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .all(db)
        .await?;
    for row in &pending {
        attempts::record_unsent(db, &row.event_id, webhook_id, now, AttemptStatus::Failed, error).await?;
    }
    let result = webhook_delivery::Entity::update_many()
        .col_expr(
            webhook_delivery::Column::State,
            Expr::value(DeliveryState::Failed.as_str()),
        )
        .col_expr(
            webhook_delivery::Column::ClaimToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_delivery::Column::UpdatedAt, Expr::value(now))
        .col_expr(webhook_delivery::Column::FinishedAt, Expr::value(now))
        .filter(webhook_delivery::Column::Id.is_in(pending.iter().map(|row| row.id.as_str())))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// Queues every failed row of `webhook_id` again with a fresh budget of
/// attempts, due at `now`. Returns how many.
pub async fn requeue_failed(db: &impl ConnectionTrait, webhook_id: &str, now: i64) -> CoreResult<u64> {
    let result = webhook_delivery::Entity::update_many()
        .col_expr(
            webhook_delivery::Column::State,
            Expr::value(DeliveryState::Pending.as_str()),
        )
        .col_expr(webhook_delivery::Column::Attempts, Expr::value(0))
        .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(now))
        .col_expr(
            webhook_delivery::Column::ClaimToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_delivery::Column::UpdatedAt, Expr::value(now))
        .col_expr(webhook_delivery::Column::FinishedAt, Expr::value(Option::<i64>::None))
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Failed.as_str()))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// The endpoint's current failing streak: how many of its events ended
/// failed since its last success, and when the first of them ended.
pub async fn failing_streak(db: &impl ConnectionTrait, webhook_id: &str) -> CoreResult<(i64, Option<i64>)> {
    let last_success: Option<Option<i64>> = webhook_delivery::Entity::find()
        .select_only()
        .column_as(webhook_delivery::Column::FinishedAt.max(), "finished_at")
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Succeeded.as_str()))
        .into_tuple()
        .one(db)
        .await?;
    let mut failures = webhook_delivery::Entity::find()
        .select_only()
        .column_as(webhook_delivery::Column::Id.count(), "failures")
        .column_as(webhook_delivery::Column::FinishedAt.min(), "first_failure")
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Failed.as_str()));
    if let Some(after) = last_success.flatten() {
        failures = failures.filter(webhook_delivery::Column::FinishedAt.gt(after));
    }
    let streak: Option<(i64, Option<i64>)> = failures.into_tuple().one(db).await?;
    Ok(streak.unwrap_or((0, None)))
}

/// How many events of the endpoint are still queued after at least one
/// failed attempt: the retries still to come. [`start`] counts an attempt
/// before its request leaves, so a first attempt still under way (its
/// lease held) has failed nothing yet and is not one of them.
pub async fn pending_retries(db: &impl ConnectionTrait, webhook_id: &str) -> CoreResult<u64> {
    let failed_once = Condition::any().add(webhook_delivery::Column::Attempts.gt(1)).add(
        Condition::all()
            .add(webhook_delivery::Column::Attempts.eq(1))
            .add(webhook_delivery::Column::ClaimToken.is_null()),
    );
    Ok(webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .filter(failed_once)
        .count(db)
        .await?)
}

/// Deletes the rows of a deleted endpoint; an attempt a stopped sender left
/// pending ends as cut off.
pub async fn delete_for_endpoint(db: &impl ConnectionTrait, webhook_id: &str) -> CoreResult<()> {
    attempts::cut_off_of_endpoint(db, webhook_id).await?;
    webhook_delivery::Entity::delete_many()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .exec(db)
        .await?;
    Ok(())
}

/// Deletes rows of events queued before `cutoff`.
pub async fn purge_before(db: &impl ConnectionTrait, cutoff: i64) -> CoreResult<u64> {
    let result = webhook_delivery::Entity::delete_many()
        .filter(webhook_delivery::Column::CreatedAt.lt(cutoff))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

/// How many rows wait for an attempt (the queue depth).
pub async fn pending_count(db: &impl ConnectionTrait) -> CoreResult<u64> {
    Ok(webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::State.eq(DeliveryState::Pending.as_str()))
        .count(db)
        .await?)
}
