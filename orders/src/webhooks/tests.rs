//! The webhook queue and dispatcher in process ([`crate::testing`]): events
//! are queued by creating deliveries, as in production.

use std::time::Duration;

use courier::errors::ErrorCode;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use tokio_util::sync::CancellationToken;

use super::attempts::{self, AttemptStatus};
use super::endpoints::{self, DisabledReason, EndpointPatch, EndpointStatus};
use super::entity::{endpoint, webhook_delivery};
use super::queue::{self, DeliveryState};
use crate::testing::{TestOrders, caller, create_delivery, register_endpoint, wait_until};
use crate::{Orders, events};
use courier_identity::auth::{Mode, Principal};

/// Creates a test delivery of `principal`, which queues its
/// `delivery.created` event for the endpoints subscribed; its event's id.
async fn queue_event(orders: &Orders, principal: &Principal) -> String {
    let created = create_delivery(orders, principal).await.expect("delivery created");
    events::entity::Entity::find()
        .filter(events::entity::Column::DeliveryId.eq(created.id.as_str()))
        .one(&orders.db)
        .await
        .expect("event read")
        .expect("its event")
        .id
}

async fn rows_of(orders: &Orders, webhook_id: &str) -> Vec<webhook_delivery::Model> {
    webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .order_by_asc(webhook_delivery::Column::CreatedAt)
        .all(&orders.db)
        .await
        .expect("queue rows")
}

/// A core with a test-mode caller and its endpoint for every event type.
async fn with_endpoint() -> (TestOrders, Principal, String) {
    let orders = TestOrders::open().await;
    let test = caller(&orders.workspace(None).await, Mode::Test);
    let webhook_id = register_endpoint(&orders, &test, vec![]).await;
    (orders, test, webhook_id)
}

#[tokio::test]
async fn a_claim_takes_due_rows_oldest_first_and_none_twice_until_its_lease_ends() {
    let (orders, test, webhook_id) = with_endpoint().await;
    for _ in 0..3 {
        queue_event(&orders, &test).await;
    }
    let queued = rows_of(&orders, &webhook_id).await;
    assert_eq!(queued.len(), 3);

    let now = orders.clock.now_micros();
    let lease_end = now + 60_000_000;
    assert_eq!(
        queue::claim(&orders.writer, &webhook_id, 2, now, lease_end, "clm_a")
            .await
            .expect("claim"),
        2
    );
    assert_eq!(
        queue::claim(&orders.writer, &webhook_id, 5, now, lease_end, "clm_b")
            .await
            .expect("claim"),
        1
    );
    assert_eq!(
        queue::claim(&orders.writer, &webhook_id, 5, now, lease_end, "clm_c")
            .await
            .expect("claim"),
        0
    );
    let first = queue::claimed(&orders.db, "clm_a").await.expect("claimed");
    let ids = |rows: &[webhook_delivery::Model]| rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&first), ids(&queued[..2]), "oldest first");

    // An attempt's outcome ends its lease: due again when the retry is.
    let retry_at = lease_end + 120_000_000;
    let finished = queue::finish(
        &orders.writer,
        &first[0],
        DeliveryState::Pending,
        1,
        Some(retry_at),
        now,
    )
    .await
    .expect("finish");
    assert!(finished);

    // Past the lease, the rows whose dispatcher never answered are due
    // again; the one waiting for its retry is not.
    let later = lease_end + 1;
    let taken = queue::claim(&orders.writer, &webhook_id, 5, later, later + 60_000_000, "clm_d")
        .await
        .expect("claim");
    assert_eq!(taken, 2);
    // The first dispatcher's late answer changes nothing: its lease is lost.
    let late = queue::finish(&orders.writer, &first[1], DeliveryState::Succeeded, 1, None, later)
        .await
        .expect("finish");
    assert!(!late);
    let rows = rows_of(&orders, &webhook_id).await;
    assert_eq!(rows[0].next_attempt_at, retry_at);
    assert_eq!((rows[0].attempts, rows[0].claim_token.as_deref()), (1, None));
    assert_eq!((rows[1].state.as_str(), rows[1].attempts), ("pending", 0));
    assert_eq!(rows[1].claim_token.as_deref(), Some("clm_d"));
}

#[tokio::test]
async fn a_first_attempt_under_way_is_not_a_pending_retry() {
    let (orders, test, webhook_id) = with_endpoint().await;
    queue_event(&orders, &test).await;
    let now = orders.clock.now_micros();
    let lease_end = now + 60_000_000;
    queue::claim(&orders.writer, &webhook_id, 1, now, lease_end, "clm_a")
        .await
        .expect("claim");
    let claimed = queue::claimed(&orders.db, "clm_a").await.expect("claimed");
    queue::start(&orders.writer, &claimed, now, lease_end)
        .await
        .expect("start");
    let retries = async || queue::pending_retries(&orders.db, &webhook_id).await.expect("count");
    assert_eq!(retries().await, 0, "the first attempt has not failed yet");

    // It failed: the event waits for its retry, also while that is under way.
    let started = rows_of(&orders, &webhook_id).await;
    let retry_at = lease_end + 1;
    assert!(
        queue::finish(
            &orders.writer,
            &started[0],
            DeliveryState::Pending,
            1,
            Some(retry_at),
            now
        )
        .await
        .expect("finish")
    );
    assert_eq!(retries().await, 1);
    queue::claim(&orders.writer, &webhook_id, 1, retry_at, retry_at + 60_000_000, "clm_b")
        .await
        .expect("claim");
    let claimed = queue::claimed(&orders.db, "clm_b").await.expect("claimed");
    queue::start(&orders.writer, &claimed, retry_at, retry_at + 60_000_000)
        .await
        .expect("start");
    assert_eq!(retries().await, 1);
}

#[tokio::test]
async fn disabling_an_endpoint_fails_its_queue_and_replay_queues_it_again() {
    let (orders, test, webhook_id) = with_endpoint().await;
    let event_id = queue_event(&orders, &test).await;
    assert_eq!(queue::pending_count(&orders.db).await.expect("count"), 1);

    let disable = EndpointPatch {
        status: Some(EndpointStatus::Disabled),
        ..Default::default()
    };
    let disabled = endpoints::update(&orders, &test, &webhook_id, disable)
        .await
        .expect("disabled");
    assert_eq!(disabled.disabled_reason, Some(DisabledReason::Manual));
    assert_eq!(queue::pending_count(&orders.db).await.expect("count"), 0);
    let failed = rows_of(&orders, &webhook_id).await;
    assert_eq!(failed[0].state, DeliveryState::Failed.as_str());
    let logged = attempts::of_event(&orders.db, &event_id).await.expect("attempts");
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].status, AttemptStatus::Failed);
    assert!(
        logged[0].error.as_deref().is_some_and(|e| e.contains("disabled")),
        "{logged:?}"
    );

    // A disabled endpoint replays nothing; once active again, its failed
    // events are queued with a fresh budget of attempts.
    let refused = endpoints::replay(&orders, &test, &webhook_id)
        .await
        .expect_err("disabled");
    assert_eq!(refused.code(), ErrorCode::EndpointDisabled);
    let enable = EndpointPatch {
        status: Some(EndpointStatus::Active),
        ..Default::default()
    };
    endpoints::update(&orders, &test, &webhook_id, enable)
        .await
        .expect("enabled");
    assert_eq!(
        endpoints::replay(&orders, &test, &webhook_id).await.expect("replayed"),
        1
    );
    let requeued = rows_of(&orders, &webhook_id).await;
    assert_eq!((requeued[0].state.as_str(), requeued[0].attempts), ("pending", 0));
    assert_eq!(requeued[0].finished_at, None);
}

/// Runs the dispatcher until `done` answers `Ok`, then stops it as a
/// shutdown does.
async fn dispatch_until<T>(orders: &Orders, what: &str, done: impl AsyncFnMut() -> Result<T, String>) -> T {
    let stop = CancellationToken::new();
    let dispatcher = tokio::spawn(super::dispatch::run(orders.clone(), stop.clone()));
    let outcome = wait_until(what, Duration::from_secs(10), done).await;
    stop.cancel();
    dispatcher.await.expect("the dispatcher stops");
    outcome
}

#[tokio::test]
async fn the_dispatcher_fails_a_refused_target_without_sending_and_disables_a_failing_endpoint() {
    // Failing once is enough to be disabled here.
    let orders = TestOrders::open_with(|config| {
        config.webhook_allow_insecure = false;
        config.webhook_disable_after = 1;
        config.webhook_disable_window = Duration::ZERO;
    })
    .await;
    let test = caller(&orders.workspace(None).await, Mode::Test);
    // Stored when its target was allowed; checked again before each send.
    let now = orders.clock.now_micros();
    let webhook_id = endpoint::ActiveModel {
        id: Set(courier_store::ids::new_id("whe")),
        workspace_id: Set(test.workspace.id.clone()),
        mode: Set(Mode::Test.as_str().into()),
        url: Set("https://10.1.2.3/hooks".into()),
        events: Set("[]".into()),
        description: Set(None),
        secret: Set("whsec_test".into()),
        status: Set(EndpointStatus::Active.as_str().into()),
        disabled_reason: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&orders.writer)
    .await
    .expect("endpoint")
    .id;
    let event_id = queue_event(&orders, &test).await;

    let row = dispatch_until(&orders, "the send to end", async || {
        let row = rows_of(&orders, &webhook_id).await.remove(0);
        if row.state == DeliveryState::Pending.as_str() {
            Err(format!("{row:?}"))
        } else {
            Ok(row)
        }
    })
    .await;
    assert_eq!((row.state.as_str(), row.attempts), ("failed", 1), "no retry: {row:?}");
    let logged = attempts::of_event(&orders.db, &event_id).await.expect("attempts");
    assert_eq!(logged.len(), 1);
    assert_eq!(
        (logged[0].response_code, logged[0].latency_ms),
        (None, None),
        "no request made"
    );
    assert!(
        logged[0].error.as_deref().is_some_and(|e| e.contains("public address")),
        "{logged:?}"
    );
    let endpoint = endpoints::list(&orders, &test).await.expect("endpoints").remove(0);
    assert_eq!(
        (endpoint.status, endpoint.disabled_reason),
        (EndpointStatus::Disabled, Some(DisabledReason::Failing))
    );
}

#[tokio::test]
async fn the_dispatcher_drops_a_send_whose_event_is_gone() {
    let (orders, test, webhook_id) = with_endpoint().await;
    let event_id = queue_event(&orders, &test).await;
    // The event's retention passes before its send comes up.
    let later = orders.clock.now_micros() + 31 * 86_400_000_000;
    assert_eq!(
        events::history::purge_expired(&orders.writer, later)
            .await
            .expect("purge"),
        1
    );

    dispatch_until(&orders, "the row to go", async || {
        let rows = rows_of(&orders, &webhook_id).await;
        if rows.is_empty() {
            Ok(())
        } else {
            Err(format!("{rows:?}"))
        }
    })
    .await;
    assert!(
        attempts::of_event(&orders.db, &event_id)
            .await
            .expect("attempts")
            .is_empty()
    );
}
