//! Group commit of delivery creates: the creates that arrive while one
//! transaction commits share the next one.
//!
//! A create is checked and priced in its own request, then queued here. One
//! task at a time per process drains the queue, up to [`MAX_BATCH`] creates
//! per transaction: one claim of all their idempotency keys (each stored
//! with its answer), one insert of the deliveries, one of their
//! `delivery.created` events and one of the events' webhook rows, and one
//! credit reservation per live workspace, however many creates. A lone
//! create is a batch of one and waits for nothing.
//!
//! On SQLite, which writes one transaction at a time, this turns a dozen
//! statements per create into a dozen per batch. On PostgreSQL it also
//! takes a workspace's credit row once per batch instead of once per create
//! (docs/scaling.md, "Creates"), and every statement's text is the same
//! whatever the batch size (`db::insert_rows`): multi-row statements of
//! every new size cost more to prepare than to run (batches of 30 to 60
//! creates spent 90 to 190 ms there before).
//!
//! A batch commits all or nothing. If any of its statements fails (a
//! duplicate `external_id`, a credit limit, a held key timing out), nothing
//! of it is kept and each of its creates runs alone in its own transaction
//! (`deliveries::insert` under `idempotency::run_prepared`), where the
//! failure becomes that create's own answer. A create whose key another
//! request claimed (one earlier in the same batch included) gets that
//! request's answer once the batch commits.

use std::collections::{BTreeMap, HashSet};

use tokio::sync::oneshot;

use super::queue::{Answer, Create, Queue, Waiting};
use super::{audit_create, entity, from_model, insert, record_events};
use crate::events::EventType;
use crate::idempotency::{self, AnsweredClaim, Idempotent};
use crate::{CoreError, CoreResult, Orders, billing};
use courier_identity::auth::Mode;

/// Creates per transaction at most: two full `POST /v1/deliveries/batch`
/// calls share one (the one writer's transactions are the batches' limit:
/// BENCHMARKS.md, "Creates in batches"), and the statements' parameters (a
/// delivery row has 32) stay well below SQLite's and PostgreSQL's limits.
const MAX_BATCH: usize = 256;

/// Stores `create` in the next batch and answers it once that committed.
pub(crate) async fn create(orders: &Orders, create: Create) -> Answer {
    let (answer, answered) = oneshot::channel();
    let start_draining = {
        let mut state = orders.create_queue.state();
        state.waiting.push(Waiting { create, answer });
        !std::mem::replace(&mut state.draining, true)
    };
    if start_draining {
        // A task of its own: a batch must finish even when the request that
        // started it goes away.
        tokio::spawn(drain(orders.clone()));
    }
    answered
        .await
        .map_err(|_| CoreError::Internal("the create batch ended without an answer".into()))?
}

/// Stores `creates` in the next batches, in their order, and answers each
/// once its batch committed (a batch of creates from one request: their
/// credit is reserved in this order).
pub(crate) async fn create_all(orders: &Orders, creates: Vec<Create>) -> Vec<Answer> {
    let mut answered = Vec::with_capacity(creates.len());
    let start_draining = {
        let mut state = orders.create_queue.state();
        for create in creates {
            let (answer, receiver) = oneshot::channel();
            state.waiting.push(Waiting { create, answer });
            answered.push(receiver);
        }
        !answered.is_empty() && !std::mem::replace(&mut state.draining, true)
    };
    if start_draining {
        tokio::spawn(drain(orders.clone()));
    }
    let mut answers = Vec::with_capacity(answered.len());
    for receiver in answered {
        answers.push(
            receiver
                .await
                .map_err(|_| CoreError::Internal("the create batch ended without an answer".into()))
                .and_then(|answer| answer),
        );
    }
    answers
}

/// Runs batches until the queue is empty.
async fn drain(orders: Orders) {
    // Should a batch panic, the next create starts a new drain; the
    // creates of the lost batch are answered with an error when their
    // senders drop.
    struct Draining<'a>(&'a Queue);
    impl Drop for Draining<'_> {
        fn drop(&mut self) {
            self.0.state().draining = false;
        }
    }
    let _draining = Draining(&orders.create_queue);
    loop {
        let batch: Vec<Waiting> = {
            let mut state = orders.create_queue.state();
            if state.waiting.is_empty() {
                state.draining = false;
                return;
            }
            let take = state.waiting.len().min(MAX_BATCH);
            state.waiting.drain(..take).collect()
        };
        run(&orders, batch).await;
    }
}

/// One batch: committed together, or, if that fails, one by one.
async fn run(orders: &Orders, batch: Vec<Waiting>) {
    let now = orders.clock.now_micros();
    let committed = {
        let creates: Vec<&Create> = batch.iter().map(|w| &w.create).collect();
        commit(orders, &creates, now).await
    };
    match committed {
        Ok(created) => {
            for (waiting, created) in batch.into_iter().zip(created) {
                let Waiting { create, answer } = waiting;
                let answer_now = match created {
                    Some(answer) => orders.faults.after_commit().map(|()| {
                        orders.changes.publish(&create.prepared.row.id);
                        Idempotent {
                            answer,
                            replayed: false,
                        }
                    }),
                    None => idempotency::answered_elsewhere(orders, &create.scope, &create.hash, now).await,
                };
                // The request may have gone: its answer is then unread.
                let _ = answer.send(answer_now);
            }
        }
        Err(error) => {
            tracing::debug!(%error, creates = batch.len(), "create batch not committed; creating one by one");
            for Waiting { create, answer } in batch {
                let _ = answer.send(alone(orders, create).await);
            }
        }
    }
}

/// One create in a transaction of its own.
async fn alone(orders: &Orders, create: Create) -> Answer {
    let core_for_work = orders.clone();
    let id = create.prepared.row.id.clone();
    let created = idempotency::run_prepared(
        orders,
        &create.scope,
        &create.hash,
        &create.request_id,
        create.now,
        create.prepared,
        move |tx, prepared| Box::pin(async move { insert(&core_for_work, tx, prepared).await }),
    )
    .await?;
    if !created.replayed {
        orders.changes.publish(&id);
    }
    Ok(created)
}

/// Stores every create of the batch whose key it claims, in one
/// transaction; answers, per create, the delivery it created (`None`: its
/// key is another request's).
async fn commit(orders: &Orders, creates: &[&Create], now: i64) -> CoreResult<Vec<Option<Vec<u8>>>> {
    let deliveries = creates
        .iter()
        .map(|c| from_model(c.prepared.row.clone()))
        .collect::<CoreResult<Vec<_>>>()?;
    let answers: Vec<Vec<u8>> = deliveries.iter().map(|d| orders.wire.delivery(d)).collect();
    // A key twice in one batch: the first create claims it.
    let mut keys = HashSet::new();
    let first_of_key: Vec<bool> = creates
        .iter()
        .map(|c| keys.insert((&c.scope.workspace_id, c.scope.mode, c.scope.endpoint, &c.scope.key)))
        .collect();
    let claims: Vec<AnsweredClaim> = creates
        .iter()
        .zip(&answers)
        .zip(&first_of_key)
        .filter(|(_, first)| **first)
        .map(|((c, answer), _)| AnsweredClaim {
            scope: &c.scope,
            hash: &c.hash,
            request_id: &c.request_id,
            answer: answer.clone(),
        })
        .collect();

    let tx = orders.begin().await?;
    let mut claimed_of_claims = idempotency::claim_answered(&*tx, &claims, now).await?.into_iter();
    let claimed: Vec<bool> = first_of_key
        .iter()
        .map(|first| *first && claimed_of_claims.next().unwrap_or(false))
        .collect();
    let stored: Vec<usize> = (0..creates.len()).filter(|&i| claimed[i]).collect();
    if !stored.is_empty() {
        let rows = stored
            .iter()
            .map(|&i| entity::ActiveModel::from(creates[i].prepared.row.clone()))
            .collect();
        courier_store::db::insert_rows::<entity::Entity>(&*tx, rows).await?;
        let created: Vec<_> = stored
            .iter()
            .map(|&i| (&deliveries[i], EventType::Created, deliveries[i].created_at))
            .collect();
        record_events(orders, &tx, &created).await?;
        for &i in &stored {
            audit_create(orders, &*tx, creates[i].prepared.audited_as.as_deref(), &deliveries[i]).await?;
        }
        // Last, so that the workspace rows stay locked only until the commit.
        let mut reserved: BTreeMap<&str, i64> = BTreeMap::new();
        for delivery in stored.iter().map(|&i| &deliveries[i]) {
            if let (Mode::Live, Some(amount_cents)) = (delivery.mode, delivery.amount_cents) {
                *reserved.entry(delivery.workspace_id.as_str()).or_default() += amount_cents;
            }
        }
        for (workspace_id, amount_cents) in reserved {
            billing::reserve_credit(&*tx, workspace_id, amount_cents).await?;
        }
    }
    tx.commit().await?;
    Ok(answers
        .into_iter()
        .zip(claimed)
        .map(|(answer, claimed)| claimed.then_some(answer))
        .collect())
}
