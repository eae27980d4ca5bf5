//! Group commit of delivery creates: the creates that arrive while one
//! transaction commits share the next one.
//!
//! A create is checked, priced, and its row, answer and event made in its
//! own request, then queued here. One task per process drains the queue
//! (two on PostgreSQL: [`groups_in_flight`]), up to [`MAX_BATCH`] creates
//! per transaction, a request's creates always in one: one claim of all
//! their idempotency keys (each stored with its answer), one insert of the
//! deliveries, one of their `delivery.created` events and one of the
//! events' webhook rows, and one credit reservation per live workspace,
//! however many creates. A lone create is a batch of one and waits for
//! nothing.
//!
//! On SQLite, which writes one transaction at a time, this turns a dozen
//! statements per create into a dozen per batch, and the drain only writes:
//! everything else was done by the requests, side by side. On PostgreSQL it
//! also takes a workspace's credit row once per batch instead of once per
//! create (docs/scaling.md, "Creates"), and every statement's text is the
//! same whatever the batch size (`db::insert_rows`): multi-row statements
//! of every new size cost more to prepare than to run (batches of 30 to 60
//! creates spent 90 to 190 ms there before).
//!
//! A batch commits all or nothing. If any of its statements fails (a
//! duplicate `external_id`, a credit limit, a held key timing out), nothing
//! of it is kept and each of its creates runs alone in its own transaction
//! (`deliveries::insert` under `idempotency::run_prepared`), where the
//! failure becomes that create's own answer. A create whose key another
//! request claimed (one earlier in the same batch included) gets that
//! request's answer once the batch commits.

use std::collections::{BTreeMap, HashSet, VecDeque};

use sea_orm::DbBackend;

use tokio::sync::oneshot;

use super::queue::{Answer, Create, Prepared, Queue, Waiting};
use super::{audit_create, entity, insert, store_events};
use crate::idempotency::{self, AnsweredClaim, Idempotent};
use crate::{CoreError, CoreResult, Orders, billing};
use courier_identity::auth::Mode;

/// Creates per transaction at most: two full `POST /v1/deliveries/batch`
/// calls share one (the one writer's transactions are the batches' limit:
/// BENCHMARKS.md, "Creates in batches"), and the statements' parameters (a
/// delivery row has 32) stay well below SQLite's and PostgreSQL's limits.
const MAX_BATCH: usize = 256;

/// Groups one process commits at once. SQLite writes one transaction at a
/// time. PostgreSQL commits two side by side, as it would two replicas':
/// one group's round trips and the server's work on them overlap the
/// other's (four did no better than two: BENCHMARKS.md, "Creates in
/// batches, second round").
fn groups_in_flight(orders: &Orders) -> usize {
    match orders.writer.get_database_backend() {
        DbBackend::Postgres => 2,
        _ => 1,
    }
}

/// Stores `create` in the next batch and answers it once that committed.
pub(crate) async fn create(orders: &Orders, create: Create) -> Answer {
    let answered = enqueue(orders, vec![create]).pop();
    match answered {
        Some(answered) => answer_of(answered).await,
        None => Err(CoreError::Internal("a create was not queued".into())),
    }
}

/// Stores `creates` in one batch, in their order, and answers each once it
/// committed (a batch of creates from one request: their credit is reserved
/// in this order).
pub(crate) async fn create_all(orders: &Orders, creates: Vec<Create>) -> Vec<Answer> {
    let mut answers = Vec::with_capacity(creates.len());
    for answered in enqueue(orders, creates) {
        answers.push(answer_of(answered).await);
    }
    answers
}

/// Queues one request's `creates` together and starts a drain when fewer
/// than [`groups_in_flight`] run.
fn enqueue(orders: &Orders, creates: Vec<Create>) -> Vec<oneshot::Receiver<Answer>> {
    let mut answered = Vec::with_capacity(creates.len());
    let request: Vec<Waiting> = creates
        .into_iter()
        .map(|create| {
            let (answer, receiver) = oneshot::channel();
            answered.push(receiver);
            Waiting { create, answer }
        })
        .collect();
    if request.is_empty() {
        return answered;
    }
    let start_draining = {
        let mut state = orders.create_queue.state();
        state.waiting.push_back(request);
        let start = state.draining < groups_in_flight(orders);
        if start {
            state.draining += 1;
        }
        start
    };
    if start_draining {
        // A task of its own: a batch must finish even when the request that
        // started it goes away.
        tokio::spawn(drain(orders.clone()));
    }
    answered
}

async fn answer_of(answered: oneshot::Receiver<Answer>) -> Answer {
    answered
        .await
        .map_err(|_| CoreError::Internal("the create batch ended without an answer".into()))?
}

/// Runs batches until the queue is empty.
async fn drain(orders: Orders) {
    // Should a batch panic, the drain is counted out and the next create
    // starts a new one; the creates of the lost batch are answered with an
    // error when their senders drop.
    struct Draining<'a> {
        queue: &'a Queue,
        counted_out: bool,
    }
    impl Drop for Draining<'_> {
        fn drop(&mut self) {
            if !self.counted_out {
                self.queue.state().draining -= 1;
            }
        }
    }
    let mut draining = Draining {
        queue: &orders.create_queue,
        counted_out: false,
    };
    loop {
        let batch: Vec<Waiting> = {
            let mut state = orders.create_queue.state();
            if state.waiting.is_empty() {
                // Under the lock that queues: a create queued after this
                // sees one drain fewer and starts its own.
                state.draining -= 1;
                draining.counted_out = true;
                return;
            }
            take_group(&mut state.waiting)
        };
        run(&orders, batch).await;
    }
}

/// The next group: whole requests in arrival order, up to [`MAX_BATCH`]
/// creates (a larger request alone).
fn take_group<T>(waiting: &mut VecDeque<Vec<T>>) -> Vec<T> {
    let mut group = waiting.pop_front().unwrap_or_default();
    while let Some(next) = waiting.front()
        && group.len() + next.len() <= MAX_BATCH
    {
        group.extend(waiting.pop_front().into_iter().flatten());
    }
    group
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
    // A key twice in one batch: the first create claims it.
    let mut keys = HashSet::new();
    let first_of_key: Vec<bool> = creates
        .iter()
        .map(|c| keys.insert((&c.scope.workspace_id, c.scope.mode, c.scope.endpoint, &c.scope.key)))
        .collect();
    let claims: Vec<AnsweredClaim> = creates
        .iter()
        .zip(&first_of_key)
        .filter(|(_, first)| **first)
        .map(|(c, _)| AnsweredClaim {
            scope: &c.scope,
            hash: &c.hash,
            request_id: &c.request_id,
            answer: &c.prepared.answer,
        })
        .collect();

    let tx = orders.begin().await?;
    let mut claimed_of_claims = idempotency::claim_answered(&*tx, &claims, now).await?.into_iter();
    let claimed: Vec<bool> = first_of_key
        .iter()
        .map(|first| *first && claimed_of_claims.next().unwrap_or(false))
        .collect();
    let stored: Vec<&Prepared> = creates
        .iter()
        .zip(&claimed)
        .filter(|(_, claimed)| **claimed)
        .map(|(c, _)| &c.prepared)
        .collect();
    if !stored.is_empty() {
        let rows = stored
            .iter()
            .map(|p| entity::ActiveModel::from(p.row.clone()))
            .collect();
        courier_store::db::insert_rows::<entity::Entity>(&*tx, rows).await?;
        store_events(orders, &tx, stored.iter().map(|p| p.created.clone()).collect()).await?;
        for p in &stored {
            audit_create(orders, &*tx, p.audited_as.as_deref(), &p.delivery).await?;
        }
        // Last, so that the workspace rows stay locked only until the commit.
        let mut reserved: BTreeMap<&str, i64> = BTreeMap::new();
        for delivery in stored.iter().map(|p| &p.delivery) {
            if let (Mode::Live, Some(amount_cents)) = (delivery.mode, delivery.amount_cents) {
                *reserved.entry(delivery.workspace_id.as_str()).or_default() += amount_cents;
            }
        }
        for (workspace_id, amount_cents) in reserved {
            billing::reserve_credit(&*tx, workspace_id, amount_cents).await?;
        }
    }
    tx.commit().await?;
    Ok(creates
        .iter()
        .zip(claimed)
        .map(|(c, claimed)| claimed.then(|| c.prepared.answer.clone()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests of `sizes` creates, each create numbered by its request.
    fn requests(sizes: &[usize]) -> VecDeque<Vec<usize>> {
        sizes
            .iter()
            .enumerate()
            .map(|(request, &size)| vec![request; size])
            .collect()
    }

    fn sizes_of(group: &[usize]) -> Vec<usize> {
        let mut sizes: Vec<usize> = Vec::new();
        for (i, request) in group.iter().enumerate() {
            if i == 0 || group[i - 1] != *request {
                sizes.push(0);
            }
            *sizes.last_mut().expect("a request") += 1;
        }
        sizes
    }

    #[test]
    fn a_group_takes_whole_requests_in_order_up_to_its_size() {
        let mut waiting = requests(&[1, 100, 100, 100, 1]);
        assert_eq!(sizes_of(&take_group(&mut waiting)), [1, 100, 100]);
        // The fourth request would pass MAX_BATCH: it starts the next group,
        // whole, and the lone create after it joins.
        assert_eq!(sizes_of(&take_group(&mut waiting)), [100, 1]);
        assert!(waiting.is_empty());
        assert!(take_group(&mut waiting).is_empty());
    }

    #[test]
    fn a_request_larger_than_a_group_is_a_group_of_its_own() {
        let mut waiting = requests(&[MAX_BATCH + 1, 1]);
        assert_eq!(take_group(&mut waiting).len(), MAX_BATCH + 1);
        assert_eq!(take_group(&mut waiting), [1]);
    }
}
