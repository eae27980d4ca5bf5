//! Webhook endpoints (docs/guide.md "Webhooks"): registration,
//! listing, changes, deletion, the sample event and replay. Owns the
//! `webhook_endpoints` table.
//!
//! Rules kept here:
//! - The URL is 12 to 2000 characters and a public HTTPS target
//!   (`invalid_webhook_url` otherwise); the host is resolved at registration
//!   and on every URL change, and checked again before every send.
//! - `events` lists at most 8 types, none twice; empty means every type.
//! - `description` is at most 500 characters; an empty one is no description.
//! - At most 10 endpoints per workspace and mode (`endpoint_limit_reached`),
//!   counted under a per-workspace lock so concurrent creates cannot pass it.
//! - Disabling an endpoint (by hand or because it keeps failing) fails the
//!   events queued for it at once, without retries; re-enabling clears the
//!   reason, and replay queues its failed events again.
//! - Everything is scoped to the caller's workspace and mode: another mode's
//!   endpoint is `not_found`.

use sea_orm::sea_query::{Func, Query};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect,
};
use std::collections::HashMap;

use super::attempts::{self, Attempt};
use super::entity::endpoint;
pub use super::entity::endpoint::{DisabledReason, Endpoint, EndpointStatus, from_model};
use super::target::{self, SystemResolver, TargetPolicy};
use super::{queue, send};
use crate::events::{self, EventType};
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_identity::auth::Principal;
use courier_store::ids;

/// Endpoints per workspace and mode (docs/guide.md "Limits").
pub const MAX_ENDPOINTS_PER_MODE: u64 = 10;
/// Entries of an endpoint's `events` (docs/guide.md "Limits").
pub const MAX_EVENTS: usize = courier::limits::WEBHOOK_EVENTS.max as usize;
/// Characters of a description (docs/guide.md "Limits").
pub const MAX_DESCRIPTION_CHARS: usize = courier::limits::WEBHOOK_DESCRIPTION.max;

/// Why queued events of a disabled endpoint failed.
const DISABLED_ERROR: &str = "The endpoint is disabled; the event was not sent.";

/// `POST /v1/webhooks`.
#[derive(Clone, Debug, Default)]
pub struct NewEndpoint {
    pub url: String,
    pub events: Vec<EventType>,
    pub description: Option<String>,
}

/// `PATCH /v1/webhooks/{id}`: `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct EndpointPatch {
    pub url: Option<String>,
    /// An empty list subscribes to every type.
    pub events: Option<Vec<EventType>>,
    /// An empty text removes the description.
    pub description: Option<String>,
    pub status: Option<EndpointStatus>,
}

/// A new endpoint and its signing secret, shown this once.
#[derive(Clone, Debug)]
pub struct Created {
    pub endpoint: Endpoint,
    pub secret: String,
}

/// The result of sending a sample event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub event_id: String,
    pub succeeded: bool,
    pub response_code: Option<u16>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

pub async fn create(orders: &Orders, principal: &Principal, new: NewEndpoint) -> CoreResult<Created> {
    let policy = policy(orders);
    target::check_url_syntax(&new.url, policy)?;
    check_events(&new.events)?;
    let description = check_description(new.description)?;
    check_target(&new.url, policy).await?;

    let now = orders.clock.now_micros();
    let secret = super::signature::new_secret();
    let tx = orders.begin().await?;
    lock_endpoint_list(&tx, principal).await?;
    let existing = endpoint::Entity::find()
        .filter(principal.scope(endpoint::Column::WorkspaceId, endpoint::Column::Mode))
        .count(&tx)
        .await?;
    if existing >= MAX_ENDPOINTS_PER_MODE {
        return Err(CoreError::new(
            ErrorCode::EndpointLimitReached,
            format!(
                "This workspace already has {MAX_ENDPOINTS_PER_MODE} webhook endpoints in {} mode; delete one first.",
                principal.mode.as_str()
            ),
        ));
    }
    let model = endpoint::ActiveModel {
        id: Set(ids::new_id("whe")),
        workspace_id: Set(principal.workspace.id.clone()),
        mode: Set(principal.mode.as_str().to_owned()),
        url: Set(new.url),
        events: Set(events_to_json(&new.events)?),
        description: Set(description),
        secret: Set(secret.clone()),
        status: Set(EndpointStatus::Active.as_str().to_owned()),
        disabled_reason: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&tx)
    .await?;
    principal
        .audit(orders, &tx, "webhook_endpoint.create", &model.id)
        .await?;
    tx.commit().await?;
    Ok(Created {
        endpoint: from_model(model)?,
        secret,
    })
}

/// The caller's endpoints, oldest first.
pub async fn list(orders: &Orders, principal: &Principal) -> CoreResult<Vec<Endpoint>> {
    endpoint::Entity::find()
        .filter(principal.scope(endpoint::Column::WorkspaceId, endpoint::Column::Mode))
        .order_by_asc(endpoint::Column::CreatedAt)
        .order_by_asc(endpoint::Column::Id)
        .all(&orders.db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

pub async fn update(orders: &Orders, principal: &Principal, id: &str, patch: EndpointPatch) -> CoreResult<Endpoint> {
    let policy = policy(orders);
    if let Some(url) = &patch.url {
        target::check_url_syntax(url, policy)?;
    }
    if let Some(events) = &patch.events {
        check_events(events)?;
    }
    let description = patch.description.map(|d| check_description(Some(d))).transpose()?;
    let current = from_model(find_scoped(&orders.db, principal, id).await?)?;
    if let Some(url) = &patch.url {
        check_target(url, policy).await?;
    }

    let status_change = match (current.status, patch.status) {
        (EndpointStatus::Disabled, Some(EndpointStatus::Active)) => Some(EndpointStatus::Active),
        (EndpointStatus::Active, Some(EndpointStatus::Disabled)) => Some(EndpointStatus::Disabled),
        _ => None,
    };
    let changed = patch.url.as_ref().is_some_and(|url| *url != current.url)
        || patch.events.as_ref().is_some_and(|events| *events != current.events)
        || description.as_ref().is_some_and(|d| *d != current.description)
        || status_change.is_some();
    if !changed {
        return Ok(current);
    }

    let now = orders.clock.now_micros();
    let tx = orders.begin().await?;
    let mut row = endpoint::ActiveModel {
        id: Set(current.id.clone()),
        updated_at: Set(now),
        ..Default::default()
    };
    if let Some(url) = patch.url {
        row.url = Set(url);
    }
    if let Some(events) = &patch.events {
        row.events = Set(events_to_json(events)?);
    }
    if let Some(description) = description {
        row.description = Set(description);
    }
    match status_change {
        Some(EndpointStatus::Active) => {
            row.status = Set(EndpointStatus::Active.as_str().to_owned());
            row.disabled_reason = Set(None);
        }
        Some(EndpointStatus::Disabled) => {
            row.status = Set(EndpointStatus::Disabled.as_str().to_owned());
            row.disabled_reason = Set(Some(DisabledReason::Manual.as_str().to_owned()));
            queue::fail_pending(&tx, &current.id, now, DISABLED_ERROR).await?;
        }
        None => {}
    }
    let model = row.update(&tx).await?;
    principal
        .audit(orders, &tx, "webhook_endpoint.update", &model.id)
        .await?;
    tx.commit().await?;
    from_model(model)
}

/// Deletes the endpoint and its queue; its attempt log stays with the events
/// until their retention ends.
pub async fn delete(orders: &Orders, principal: &Principal, id: &str) -> CoreResult<String> {
    let current = find_scoped(&orders.db, principal, id).await?;
    let tx = orders.begin().await?;
    queue::delete_for_endpoint(&tx, &current.id).await?;
    endpoint::Entity::delete_by_id(current.id.clone()).exec(&tx).await?;
    principal
        .audit(orders, &tx, "webhook_endpoint.delete", &current.id)
        .await?;
    tx.commit().await?;
    Ok(current.id)
}

/// Sends one signed sample `delivery.status_updated` event (`data.test`
/// true) to the endpoint and answers how it went. Nothing is stored.
pub async fn test(orders: &Orders, principal: &Principal, id: &str) -> CoreResult<TestResult> {
    let row = find_scoped(&orders.db, principal, id).await?;
    ensure_active(&from_model(row.clone())?)?;
    let event_id = courier_store::ids::new_id("evt");
    let body = orders
        .wire
        .sample_webhook_body(&event_id, principal.mode, orders.clock.now_micros())?;
    let outcome = send::send(orders, &row.url, &row.secret, &event_id, body).await;
    Ok(TestResult {
        event_id,
        succeeded: outcome.verdict == super::retry::Verdict::Succeeded,
        response_code: outcome.response_code,
        latency_ms: outcome.latency_ms,
        error: outcome.error,
    })
}

/// Queues every failed event of the endpoint again, keeping their ids, with
/// the full number of attempts. Returns how many were queued.
pub async fn replay(orders: &Orders, principal: &Principal, id: &str) -> CoreResult<u64> {
    let endpoint = from_model(find_scoped(&orders.db, principal, id).await?)?;
    ensure_active(&endpoint)?;
    let tx = orders.begin().await?;
    let queued = queue::requeue_failed(&tx, &endpoint.id, orders.clock.now_micros()).await?;
    principal
        .audit(orders, &tx, "webhook_endpoint.replay", &endpoint.id)
        .await?;
    tx.commit().await?;
    Ok(queued)
}

/// What the endpoint's page shows of its deliveries.
pub struct Activity {
    /// The latest attempts, newest first: `(event id, event type, attempt)`.
    pub attempts: Vec<(String, EventType, Attempt)>,
    /// Events that ended failed since the last success.
    pub failing_streak: i64,
    /// Events still queued after a failed attempt.
    pub pending_retries: u64,
    /// The streak that disables the endpoint (0: never)...
    pub disable_after: u32,
    /// ...once its first failure is at least this old.
    pub disable_window: std::time::Duration,
}

/// The endpoint's latest `limit` attempts, its failing streak and its
/// retries still to come.
pub async fn activity(orders: &Orders, principal: &Principal, id: &str, limit: u64) -> CoreResult<Activity> {
    let endpoint = find_scoped(&orders.db, principal, id).await?;
    let latest = attempts::of_endpoint(&orders.db, &endpoint.id, limit).await?;
    let types: HashMap<String, String> = events::entity::Entity::find()
        .select_only()
        .columns([events::entity::Column::Id, events::entity::Column::Type])
        .filter(events::entity::Column::Id.is_in(latest.iter().map(|(event_id, _)| event_id.as_str())))
        .into_tuple::<(String, String)>()
        .all(&orders.db)
        .await?
        .into_iter()
        .collect();
    let attempts = latest
        .into_iter()
        .map(|(event_id, attempt)| {
            let event_type = types
                .get(&event_id)
                .and_then(|name| EventType::parse(name))
                .ok_or_else(|| CoreError::Internal(format!("attempt of event {event_id} has no known event type")))?;
            Ok((event_id, event_type, attempt))
        })
        .collect::<CoreResult<_>>()?;
    Ok(Activity {
        attempts,
        failing_streak: queue::failing_streak(&orders.db, &endpoint.id).await?.0,
        pending_retries: queue::pending_retries(&orders.db, &endpoint.id).await?,
        disable_after: orders.config.webhook_disable_after,
        disable_window: orders.config.webhook_disable_window,
    })
}

/// The endpoints among `ids` that exist, whoever owns them (for the
/// dispatcher).
pub async fn find_many<'a>(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = &'a str>,
) -> CoreResult<Vec<endpoint::Model>> {
    Ok(endpoint::Entity::find()
        .filter(endpoint::Column::Id.is_in(ids))
        .all(db)
        .await?)
}

/// Disables an active endpoint with `reason` and fails what is queued for it.
pub async fn disable(db: &impl ConnectionTrait, id: &str, reason: DisabledReason, now: i64) -> CoreResult<()> {
    let result = endpoint::Entity::update_many()
        .col_expr(
            endpoint::Column::Status,
            sea_orm::sea_query::Expr::value(EndpointStatus::Disabled.as_str()),
        )
        .col_expr(
            endpoint::Column::DisabledReason,
            sea_orm::sea_query::Expr::value(reason.as_str()),
        )
        .col_expr(endpoint::Column::UpdatedAt, sea_orm::sea_query::Expr::value(now))
        .filter(endpoint::Column::Id.eq(id))
        .filter(endpoint::Column::Status.eq(EndpointStatus::Active.as_str()))
        .exec(db)
        .await?;
    if result.rows_affected == 1 {
        queue::fail_pending(db, id, now, DISABLED_ERROR).await?;
    }
    Ok(())
}

/// The error of an event found queued for a disabled endpoint.
pub fn disabled_error() -> &'static str {
    DISABLED_ERROR
}

fn policy(orders: &Orders) -> TargetPolicy {
    TargetPolicy {
        allow_insecure: orders.config.webhook_allow_insecure,
    }
}

/// Resolves the URL's host now: a name that points into a private network is
/// refused at registration, not only when the first event is sent.
async fn check_target(url: &str, policy: TargetPolicy) -> CoreResult<()> {
    let parsed = target::check_url_syntax(url, policy)?;
    target::resolve_target(&parsed, policy, &SystemResolver).await?;
    Ok(())
}

fn check_events(events: &[EventType]) -> CoreResult<()> {
    if events.len() > MAX_EVENTS {
        return Err(CoreError::invalid(
            "events",
            format!(
                "events may list at most {MAX_EVENTS} event types (got {}); leave it empty for every type.",
                events.len()
            ),
        ));
    }
    for (index, event_type) in events.iter().enumerate() {
        if events[..index].contains(event_type) {
            return Err(CoreError::invalid(
                format!("events.{index}"),
                format!("{} is listed more than once.", event_type.as_str()),
            ));
        }
    }
    Ok(())
}

/// The stored description: at most 500 characters, empty meaning none.
fn check_description(description: Option<String>) -> CoreResult<Option<String>> {
    match description {
        Some(text) if text.chars().count() > MAX_DESCRIPTION_CHARS => Err(CoreError::invalid(
            "description",
            format!("description must be at most {MAX_DESCRIPTION_CHARS} characters."),
        )),
        Some(text) if text.is_empty() => Ok(None),
        other => Ok(other),
    }
}

fn ensure_active(endpoint: &Endpoint) -> CoreResult<()> {
    if endpoint.status == EndpointStatus::Disabled {
        return Err(CoreError::new(
            ErrorCode::EndpointDisabled,
            "The webhook endpoint is disabled; set its status to active first.",
        ));
    }
    Ok(())
}

fn events_to_json(events: &[EventType]) -> CoreResult<String> {
    let names: Vec<&str> = events.iter().map(|t| t.as_str()).collect();
    serde_json::to_string(&names).map_err(|e| CoreError::Internal(format!("events list: {e}")))
}

async fn find_scoped(db: &impl ConnectionTrait, principal: &Principal, id: &str) -> CoreResult<endpoint::Model> {
    endpoint::Entity::find_by_id(id.to_owned())
        .filter(principal.scope(endpoint::Column::WorkspaceId, endpoint::Column::Mode))
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("webhook endpoint"))
}

/// Serialises endpoint creates of one workspace and mode on PostgreSQL (a
/// transaction-scoped advisory lock), so the count check holds under
/// concurrency. SQLite runs one writer at a time already.
async fn lock_endpoint_list(db: &impl ConnectionTrait, principal: &Principal) -> CoreResult<()> {
    if db.get_database_backend() != DatabaseBackend::Postgres {
        return Ok(());
    }
    let key = format!(
        "webhook_endpoints|{}|{}",
        principal.workspace.id,
        principal.mode.as_str()
    );
    let lock = Query::select()
        .expr(Func::cust("pg_advisory_xact_lock").arg(Func::cust("hashtext").arg(key)))
        .to_owned();
    db.query_one(&lock).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier_identity::auth::Mode;

    fn param(result: CoreResult<()>) -> Option<String> {
        match result {
            Err(CoreError::Rejected { param, .. }) => param,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn events_limits() {
        check_events(&[]).expect("empty means all");
        check_events(&EventType::ALL[..8]).expect("eight distinct types");
        let too_many: Vec<EventType> = EventType::ALL.iter().copied().chain([EventType::Created]).collect();
        assert_eq!(param(check_events(&too_many)).as_deref(), Some("events"));
        let twice = [EventType::Created, EventType::Delivered, EventType::Created];
        assert_eq!(param(check_events(&twice)).as_deref(), Some("events.2"));
    }

    #[test]
    fn description_limits() {
        assert_eq!(check_description(None).ok(), Some(None));
        assert_eq!(check_description(Some(String::new())).ok(), Some(None));
        let longest = "é".repeat(500);
        assert_eq!(check_description(Some(longest.clone())).ok(), Some(Some(longest)));
        assert!(check_description(Some("a".repeat(501))).is_err());
    }

    #[test]
    fn subscriptions() {
        let mut endpoint = Endpoint {
            id: "whe_1".into(),
            workspace_id: "wks_1".into(),
            mode: Mode::Test,
            url: "https://example.com/hook".into(),
            events: Vec::new(),
            description: None,
            status: EndpointStatus::Active,
            disabled_reason: None,
            created_at: 0,
            updated_at: 0,
        };
        assert!(EventType::ALL.iter().all(|t| endpoint.subscribes_to(*t)));
        endpoint.events = vec![EventType::Cancelled];
        assert!(endpoint.subscribes_to(EventType::Cancelled));
        assert!(!endpoint.subscribes_to(EventType::Created));
    }
}
