//! Creates and reads of deliveries in process ([`crate::testing`]).

use courier::errors::ErrorCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::*;
use crate::testing::{TestOrders, answered_id, caller, new_delivery, register_endpoint};
use crate::webhooks::entity::webhook_delivery;
use courier_identity::workspaces::BillingSettings;

async fn create_as(orders: &Orders, principal: &Principal, key: &str, canonical: &[u8]) -> CoreResult<Idempotent> {
    create(orders, principal, Some(key), canonical, "req_test", new_delivery()).await
}

/// How many deliveries `workspace_id` has stored, in either mode.
async fn stored(orders: &Orders, workspace_id: &str) -> usize {
    let stored = entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .all(&orders.db)
        .await
        .expect("deliveries");
    stored.len()
}

#[tokio::test]
async fn a_created_delivery_is_stored_with_its_event_queued_for_the_endpoints_subscribed() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let every_type = register_endpoint(&orders, &test, vec![]).await;
    let delivered_only = register_endpoint(&orders, &test, vec![EventType::Delivered]).await;
    let live_endpoint = register_endpoint(&orders, &caller(&workspace, Mode::Live), vec![]).await;

    let created = create_as(&orders, &test, "key-1", b"body").await.expect("created");
    assert!(!created.replayed);
    let answer = get(&orders, &test, &answered_id(&created)).await.expect("read back");
    assert_eq!(answer.status, Status::Pending);
    assert!(answer.amount_cents.is_some_and(|cents| cents > 0), "{answer:?}");

    let stored = get(&orders, &test, &answer.id).await.expect("read back");
    assert_eq!(
        (stored.workspace_id.as_str(), stored.mode, stored.status),
        (workspace.id.as_str(), Mode::Test, Status::Pending)
    );
    assert_eq!(stored.route.pickup.address, "Alexanderplatz 1, 10178 Berlin");
    assert_eq!(stored.amount_cents, answer.amount_cents);

    let recorded = events::entity::Entity::find()
        .filter(events::entity::Column::DeliveryId.eq(answer.id.as_str()))
        .all(&orders.db)
        .await
        .expect("events");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].r#type, EventType::Created.as_str());
    let queued: Vec<String> = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::EventId.eq(recorded[0].id.as_str()))
        .all(&orders.db)
        .await
        .expect("queue rows")
        .into_iter()
        .map(|row| row.webhook_id)
        .collect();
    assert_eq!(queued, [every_type], "not {delivered_only} nor {live_endpoint}");
}

#[tokio::test]
async fn a_retry_is_answered_as_the_first_create_and_a_changed_body_is_refused() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let first = create_as(&orders, &test, "key-1", b"body").await.expect("created");

    let retried = create_as(&orders, &test, "key-1", b"body").await.expect("replayed");
    assert!(retried.replayed);
    assert_eq!(retried.answer, first.answer, "the first answer, byte for byte");

    let changed = create_as(&orders, &test, "key-1", b"another body")
        .await
        .expect_err("refused");
    assert_eq!(changed.code(), ErrorCode::IdempotencyKeyReused);
    assert_eq!(stored(&orders, &workspace.id).await, 1, "one delivery for one key");
}

#[tokio::test]
async fn another_workspace_or_mode_does_not_find_the_delivery() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let id = answered_id(&create_as(&orders, &test, "key-1", b"body").await.expect("created"));

    let other = orders.workspace(None).await;
    for stranger in [caller(&other, Mode::Test), caller(&workspace, Mode::Live)] {
        let refused = get(&orders, &stranger, &id).await.expect_err("not theirs");
        assert_eq!(refused.code(), ErrorCode::NotFound);
    }
    assert_eq!(get(&orders, &test, &id).await.expect("the owner reads it").id, id);
}

#[tokio::test]
async fn a_live_delivery_takes_credit_and_one_past_the_limit_is_refused_without_a_trace() {
    let orders = TestOrders::open().await;
    let priced = orders.workspace(None).await;
    let priced = caller(&priced, Mode::Live);
    let created = create_as(&orders, &priced, "price", b"body").await.expect("priced");
    let price = get(&orders, &priced, &answered_id(&created))
        .await
        .expect("read back")
        .amount_cents
        .expect("amount");
    let billing = BillingSettings {
        invoice_billing_enabled: true,
        credit_limit_cents: price + price / 2,
        ..Default::default()
    };
    let workspace = orders.workspace(Some(billing)).await;
    let live = caller(&workspace, Mode::Live);

    create_as(&orders, &live, "key-1", b"body")
        .await
        .expect("within the limit");
    let open = courier_identity::workspaces::get(&orders.db, &workspace.id)
        .await
        .expect("workspace");
    assert_eq!(open.open_amount_cents, price);

    let refused = create_as(&orders, &live, "key-2", b"body")
        .await
        .expect_err("over the limit");
    assert_eq!(refused.code(), ErrorCode::InvoiceCreditLimitExceeded);
    let after = courier_identity::workspaces::get(&orders.db, &workspace.id)
        .await
        .expect("workspace");
    assert_eq!(after.open_amount_cents, price, "a refused create reserves nothing");
    assert_eq!(
        stored(&orders, &workspace.id).await,
        1,
        "a refused create stores no delivery"
    );
}

#[tokio::test]
async fn a_change_records_what_changed_and_a_stale_if_match_is_not_kept_under_the_key() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let created = create_as(&orders, &test, "key-1", b"body").await.expect("created");
    let id = answered_id(&created);
    let booked = get(&orders, &test, &id).await.expect("read");
    let notes = |text: &str| Edit {
        notes: Some(Some(text.to_owned())),
        ..Edit::default()
    };

    let first = edit(&orders, &test, Some("change-1"), b"one", "req_1", &id, notes("One."))
        .await
        .expect("changed");
    assert_eq!(first.changed_fields, ["notes"]);
    let changed = get(&orders, &test, &id).await.expect("read");
    assert_eq!(changed.notes.as_deref(), Some("One."));
    assert!(changed.updated_at > booked.updated_at);

    let stale = Edit {
        if_updated_at: Some(booked.updated_at),
        ..notes("Two.")
    };
    let refused = edit(&orders, &test, Some("change-2"), b"two", "req_2", &id, stale)
        .await
        .expect_err("stale");
    assert_eq!(refused.code(), ErrorCode::PreconditionFailed);
    let current = Edit {
        if_updated_at: Some(changed.updated_at),
        ..notes("Two.")
    };
    let retried = edit(&orders, &test, Some("change-2"), b"two", "req_3", &id, current)
        .await
        .expect("the refusal was not kept under the key");
    assert!(!retried.answer.replayed);
    assert_eq!(retried.changed_fields, ["notes"]);

    let same = edit(&orders, &test, Some("change-3"), b"three", "req_4", &id, notes("Two."))
        .await
        .expect("a change of nothing");
    assert!(same.changed_fields.is_empty());
    let unchanged = get(&orders, &test, &id).await.expect("read");
    let recorded = events::entity::Entity::find()
        .filter(events::entity::Column::DeliveryId.eq(id.as_str()))
        .filter(events::entity::Column::Type.eq(EventType::Updated.as_str()))
        .all(&orders.db)
        .await
        .expect("events");
    assert_eq!(recorded.len(), 2, "no event for a change of nothing");
    assert!(recorded.iter().all(|e| e.changed_fields.as_deref() == Some("notes")));
    let last = recorded.iter().map(|e| e.created_at).max();
    assert_eq!(last, Some(unchanged.updated_at), "a change of nothing keeps updated_at");

    let other = caller(&workspace, Mode::Live);
    let hidden = edit(&orders, &other, Some("change-4"), b"four", "req_5", &id, notes("Mine."))
        .await
        .expect_err("another mode");
    assert_eq!(hidden.code(), ErrorCode::NotFound);
}

/// A batch's items under `keys`, each the same delivery asked with `body`.
fn batch_items(keys: &[&str], body: &[u8]) -> Vec<bulk::Item> {
    keys.iter()
        .map(|key| bulk::Item {
            idempotency_key: (*key).to_owned(),
            canonical: body.to_vec(),
            delivery: Ok(new_delivery()),
        })
        .collect()
}

#[tokio::test]
async fn a_batch_replays_its_keys_and_takes_over_keys_past_their_retention() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let ids = |answers: Vec<CoreResult<Idempotent>>| -> Vec<(String, bool)> {
        answers
            .into_iter()
            .map(|a| a.map(|a| (answered_id(&a), a.replayed)).expect("created"))
            .collect()
    };

    let first = ids(
        bulk::create_many(&orders, &test, "req_1", batch_items(&["a", "b"], b"one"))
            .await
            .expect("batch"),
    );
    assert!(first.iter().all(|(_, replayed)| !replayed), "{first:?}");

    // Within the retention the keys answer what they stored, "c" is new.
    let again = ids(
        bulk::create_many(&orders, &test, "req_2", batch_items(&["a", "b", "c"], b"one"))
            .await
            .expect("batch"),
    );
    assert_eq!(again[..2], [(first[0].0.clone(), true), (first[1].0.clone(), true)]);
    assert!(!again[2].1);

    // Past it, a key is free again: a new delivery under it, with another body.
    orders.clock.advance(std::time::Duration::from_micros(
        idempotency::RETENTION_MICROS as u64 + 1_000_000,
    ));
    let later = ids(
        bulk::create_many(&orders, &test, "req_3", batch_items(&["a", "c"], b"two"))
            .await
            .expect("batch"),
    );
    assert!(later.iter().all(|(_, replayed)| !replayed), "{later:?}");
    assert_ne!(later[0].0, first[0].0);
    assert_ne!(later[1].0, again[2].0);
    assert_eq!(stored(&orders, &workspace.id).await, 5);
}
