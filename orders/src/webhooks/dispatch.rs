//! The webhook dispatcher: a worker that sends queued events to their
//! endpoints, retries them on schedule and records every attempt.
//!
//! - Its state is the `webhook_deliveries` table ([`queue`]): it survives
//!   restarts, and several core replicas share the work through leases.
//! - Sends run concurrently, at most [`MAX_IN_FLIGHT`] per replica and
//!   [`MAX_IN_FLIGHT_PER_ENDPOINT`] per endpoint, each bounded by the 5-second
//!   receiver timeout: one slow or dead endpoint cannot hold back the others.
//! - It claims up to [`CLAIM_AHEAD_PER_ENDPOINT`] rows per endpoint ahead of
//!   a free slot, so that a finished send's slot is refilled at once from
//!   memory, and a claim is skipped until at least [`MIN_CLAIM`] places are
//!   free: claims come in large batches whose database work is spread over
//!   many events.
//! - Before a batch of sends leaves, one transaction extends their rows'
//!   leases to the send's own deadline ([`LEASE`]) and logs each attempt as
//!   `pending` (`queue::start`, `attempts::record_started`); rows that can
//!   leave at once are claimed and started in that same transaction, so an
//!   event leaves after one commit. The dispatcher's transactions do not
//!   wait for the disk on PostgreSQL (`db::begin_bookkeeping`): a database
//!   crash can at worst make a send happen again. A dispatcher
//!   that stops (a crash) holds its rows no longer than that: they are sent
//!   again within seconds, and the claim that takes them over ends the
//!   attempt it cut off as failed (`attempts::cut_off`).
//! - Each send hands its outcome back to the loop; a task of its own records
//!   every send finished by then in one transaction (one such transaction at
//!   a time) while the loop claims the next batch.
//! - It sleeps until the earliest due row (at most [`POLL`]), until a send
//!   finishes and frees a slot, or until a transaction of this process
//!   commits rows to send (`queue::enqueue`, `Orders::webhook_wake`).
//! - On shutdown it stops claiming, gives the rows claimed ahead back to the
//!   queue (due at once) and lets the sends in flight finish; a row it never
//!   got to otherwise is due again when its lease ends. A row claimed ahead
//!   that waits longer than its lease may be claimed by another replica:
//!   then only the newer claim sends it.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::time::Duration;

use rand::RngExt;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use tokio::task::{Id, JoinSet};
use tokio_util::sync::CancellationToken;

use super::attempts::{self, AttemptStatus};
use super::endpoints::{self, DisabledReason, EndpointStatus};
use super::entity::{endpoint, webhook_delivery};
use super::queue::{self, DeliveryState};
use super::retry::{self, Verdict};
use super::{send, target};
use crate::events;
use crate::{CoreResult, Orders};
use courier_store::ids;
use courier_store::metrics::AttemptResult;

/// Sends in flight per core replica.
pub const MAX_IN_FLIGHT: usize = 128;
/// Sends in flight per endpoint and replica.
pub const MAX_IN_FLIGHT_PER_ENDPOINT: usize = 32;
/// Rows claimed per endpoint and replica ahead of a free slot (at most
/// three rounds of sends: against a receiver that takes its full 5 s, the
/// last of them outwait their claim's lease, and are sent only if no other
/// replica claimed them meanwhile).
const CLAIM_AHEAD_PER_ENDPOINT: usize = 96;
/// Rows claimed ahead per replica, all endpoints together.
const MAX_CLAIMED_AHEAD: usize = 256;
/// The smallest claim for an endpoint that still holds rows: fewer free
/// places wait for more sends to finish.
const MIN_CLAIM: usize = 48;
/// Longest sleep between two looks at the queue.
const POLL: Duration = Duration::from_millis(200);
/// Time left after a send's deadline to record its outcome.
const RECORD_MARGIN: Duration = Duration::from_secs(1);
/// How long a claimed row belongs to its dispatcher, from its claim and again
/// from the start of its send: the send's own deadline (the host lookup, then
/// the receiver's 5 s) and a margin to record the outcome. Not scaled by
/// `COURIER_WEBHOOK_RETRY_SCALE`: a shorter lease would let another
/// dispatcher send the row again while its receiver still has time to
/// answer.
const LEASE: Duration =
    Duration::from_secs(target::LOOKUP_TIMEOUT.as_secs() + send::RECEIVER_TIMEOUT.as_secs() + RECORD_MARGIN.as_secs());

/// Runs until `stop` fires, then waits for the sends in flight.
pub async fn run(orders: Orders, stop: CancellationToken) {
    let mut dispatcher = Dispatcher::default();
    let mut recorder = Recorder::default();
    // Rows queued in this process are looked at once committed, not at the
    // next poll (other replicas' rows wait for it).
    let queued = orders.webhook_wake.clone();
    loop {
        if stop.is_cancelled() {
            break;
        }
        let wait = match dispatcher.dispatch_due(&orders, &stop).await {
            Ok(wait) => wait,
            Err(error) => {
                tracing::warn!(%error, "webhook dispatch failed");
                POLL
            }
        };
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(wait) => {}
            // One look covers every commit meanwhile (a `Notify` keeps one
            // wake while the loop is busy).
            () = queued.notified(), if dispatcher.in_flight.len() < MAX_IN_FLIGHT => {}
            Some(done) = dispatcher.in_flight.join_next_with_id(), if !dispatcher.in_flight.is_empty() => {
                // Take every send finished by now: one transaction records
                // them and one look at the queue refills their slots.
                let mut sent = dispatcher.finished(done).into_iter().collect::<Vec<_>>();
                while let Some(done) = dispatcher.in_flight.try_join_next_with_id() {
                    sent.extend(dispatcher.finished(done));
                }
                recorder.add(&orders, sent);
            }
            () = recorder.recorded(), if recorder.is_recording() => recorder.start(&orders),
        }
    }
    dispatcher.release_ready(&orders).await;
    while let Some(done) = dispatcher.in_flight.join_next_with_id().await {
        recorder.add(&orders, dispatcher.finished(done).into_iter().collect());
    }
    recorder.flush(&orders).await;
}

/// Records finished sends in a task of its own, so that the loop claims the
/// next batch while the last one is recorded. One record transaction at a
/// time: sends that finish meanwhile wait and go into the next one.
#[derive(Default)]
struct Recorder {
    recording: Option<tokio::task::JoinHandle<()>>,
    waiting: Vec<Sent>,
}

impl Recorder {
    fn add(&mut self, orders: &Orders, sent: Vec<Sent>) {
        self.waiting.extend(sent);
        self.start(orders);
    }

    /// Starts recording what waits, unless a record transaction runs.
    fn start(&mut self, orders: &Orders) {
        if self.recording.is_none() && !self.waiting.is_empty() {
            let (orders, sent) = (orders.clone(), std::mem::take(&mut self.waiting));
            self.recording = Some(tokio::spawn(async move { record_logged(&orders, sent).await }));
        }
    }

    fn is_recording(&self) -> bool {
        self.recording.is_some()
    }

    /// Waits for the record transaction in flight to end.
    async fn recorded(&mut self) {
        if let Some(recording) = self.recording.as_mut() {
            if let Err(error) = recording.await {
                tracing::error!(%error, "webhook record task failed");
            }
            self.recording = None;
        }
    }

    /// Records everything that waits, and waits for it.
    async fn flush(&mut self, orders: &Orders) {
        loop {
            self.recorded().await;
            if self.waiting.is_empty() {
                return;
            }
            self.start(orders);
        }
    }
}

#[derive(Default)]
struct Dispatcher {
    /// Each send ends with its outcome to record.
    in_flight: JoinSet<Sent>,
    /// Endpoint of each send in flight.
    tasks: HashMap<Id, String>,
    /// Sends in flight per endpoint.
    per_endpoint: HashMap<String, usize>,
    /// Rows claimed ahead of a free slot, per endpoint, oldest first.
    ready: HashMap<String, VecDeque<Claim>>,
}

impl Dispatcher {
    /// Starts what is claimed already, then claims what is due and there is
    /// room for and starts it, until `stop` fires; returns how long to sleep
    /// before looking again.
    async fn dispatch_due(&mut self, orders: &Orders, stop: &CancellationToken) -> CoreResult<Duration> {
        self.start_ready(orders).await;
        let now = orders.clock.now_micros();
        let due = queue::due_endpoints(&orders.db, now + micros(POLL)).await?;
        let mut wait = POLL;
        let mut room = (MAX_IN_FLIGHT + MAX_CLAIMED_AHEAD).saturating_sub(self.in_flight.len() + self.ready_count());
        let mut wanted = Vec::new();
        for (webhook_id, next_attempt_at) in due {
            let held = self.per_endpoint.get(&webhook_id).copied().unwrap_or(0)
                + self.ready.get(&webhook_id).map_or(0, VecDeque::len);
            let free = (MAX_IN_FLIGHT_PER_ENDPOINT + CLAIM_AHEAD_PER_ENDPOINT)
                .saturating_sub(held)
                .min(room);
            if free == 0 || (held > 0 && free < MIN_CLAIM) {
                // Woken when one of its sends finishes.
                continue;
            }
            if next_attempt_at > now {
                wait = wait.min(Duration::from_micros(u64::try_from(next_attempt_at - now).unwrap_or(0)));
                continue;
            }
            room = room.saturating_sub(free);
            wanted.push((webhook_id, free));
        }
        if !wanted.is_empty() && !stop.is_cancelled() {
            self.claim_and_start(orders, wanted, now).await?;
        }
        Ok(wait.max(Duration::from_millis(1)))
    }

    /// Claims up to `free` due rows of each endpoint of `wanted` and starts
    /// those there are slots for, in one transaction: an event queued while
    /// nothing waits leaves after one commit, not three (claim, cut-off,
    /// start). The rest waits in `ready`. When the transaction fails,
    /// nothing of it happened: the rows are still due.
    async fn claim_and_start(&mut self, orders: &Orders, wanted: Vec<(String, usize)>, now: i64) -> CoreResult<()> {
        let token = ids::new_id("clm");
        let lease_end = now + micros(LEASE);
        let tx = orders.begin_bookkeeping().await?;
        let mut claimed = 0;
        for (webhook_id, free) in wanted {
            claimed += queue::claim(&tx, &webhook_id, free as u64, now, lease_end, &token).await?;
        }
        if claimed == 0 {
            return Ok(());
        }
        attempts::cut_off(&tx, &token).await?;
        for claim in load_claims(&tx, &token).await? {
            let ready = self.ready.entry(claim.row.webhook_id.clone()).or_default();
            // Claimed here before, and again once that lease ended while
            // it waited: the new claim replaces the old.
            ready.retain(|held| held.row.id != claim.row.id);
            ready.push_back(claim);
        }
        let batch = self.take_startable();
        let begun = match begin_attempts_in(&tx, orders.clock.now_micros(), batch).await {
            Ok(attempts) => tx.commit().await.map(|()| attempts),
            Err(error) => Err(error),
        };
        match begun {
            Ok(attempts) => {
                self.launch(orders, attempts);
                Ok(())
            }
            Err(error) => {
                // Rolled back: this claim holds nothing.
                for claims in self.ready.values_mut() {
                    claims.retain(|c| c.row.claim_token.as_deref() != Some(token.as_str()));
                }
                self.ready.retain(|_, claims| !claims.is_empty());
                Err(error)
            }
        }
    }

    /// The claimed rows there are slots for now, this replica's and their
    /// endpoints', taken out of `ready`.
    fn take_startable(&mut self) -> Vec<Claim> {
        let mut room = MAX_IN_FLIGHT.saturating_sub(self.in_flight.len());
        let mut batch = Vec::new();
        for (webhook_id, claims) in &mut self.ready {
            let busy = self.per_endpoint.get(webhook_id).copied().unwrap_or(0);
            let take = MAX_IN_FLIGHT_PER_ENDPOINT
                .saturating_sub(busy)
                .min(room)
                .min(claims.len());
            batch.extend(claims.drain(..take));
            room -= take;
        }
        self.ready.retain(|_, claims| !claims.is_empty());
        batch
    }

    /// Starts claimed rows while their endpoint and this replica have free
    /// slots: one transaction for the batch ([`begin_attempts_in`]), then the
    /// sends. When that transaction fails, the batch's rows are due again
    /// when their leases end.
    async fn start_ready(&mut self, orders: &Orders) {
        let batch = self.take_startable();
        if batch.is_empty() {
            return;
        }
        let count = batch.len();
        let begun = async {
            let tx = orders.begin_bookkeeping().await?;
            let attempts = begin_attempts_in(&tx, orders.clock.now_micros(), batch).await?;
            tx.commit().await?;
            CoreResult::Ok(attempts)
        };
        match begun.await {
            Ok(attempts) => self.launch(orders, attempts),
            Err(error) => {
                tracing::warn!(%error, count, "webhook attempts not started; due again when their leases end");
            }
        }
    }

    /// Sends the attempts begun.
    fn launch(&mut self, orders: &Orders, attempts: Vec<Attempting>) {
        for attempt in attempts {
            let webhook_id = attempt.row.webhook_id.clone();
            *self.per_endpoint.entry(webhook_id.clone()).or_default() += 1;
            let handle = self.in_flight.spawn(send_attempt(orders.clone(), attempt));
            self.tasks.insert(handle.id(), webhook_id);
        }
    }

    fn ready_count(&self) -> usize {
        self.ready.values().map(VecDeque::len).sum()
    }

    /// Gives the rows claimed ahead back to the queue, due at once: on
    /// shutdown, so that the next dispatcher need not wait for their lease.
    async fn release_ready(&mut self, orders: &Orders) {
        let rows: Vec<webhook_delivery::Model> = self
            .ready
            .drain()
            .flat_map(|(_, claims)| claims)
            .map(|c| c.row)
            .collect();
        if rows.is_empty() {
            return;
        }
        if let Err(error) = queue::release(&orders.writer, &rows, orders.clock.now_micros()).await {
            tracing::warn!(%error, count = rows.len(), "claimed webhook rows not released; due again when their lease ends");
        }
    }

    /// Frees the slot of a finished send; its outcome to record (none when
    /// its task failed: the row is due again when its lease ends).
    fn finished(&mut self, done: Result<(Id, Sent), tokio::task::JoinError>) -> Option<Sent> {
        let (id, sent) = match done {
            Ok((id, sent)) => (id, Some(sent)),
            Err(error) => {
                tracing::error!(%error, "webhook send task failed");
                (error.id(), None)
            }
        };
        if let Some(webhook_id) = self.tasks.remove(&id)
            && let Some(count) = self.per_endpoint.get_mut(&webhook_id)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.per_endpoint.remove(&webhook_id);
            }
        }
        sent
    }
}

/// A claimed row with the event and endpoint its attempt needs; `None` when
/// they no longer exist.
struct Claim {
    row: webhook_delivery::Model,
    event: Option<events::entity::Model>,
    endpoint: Option<endpoint::Model>,
}

/// The rows claimed with `token`, with their events and endpoints read in
/// one query each for the whole batch rather than two per attempt.
async fn load_claims(db: &impl ConnectionTrait, token: &str) -> CoreResult<Vec<Claim>> {
    let rows = queue::claimed(db, token).await?;
    let event_ids: BTreeSet<&str> = rows.iter().map(|row| row.event_id.as_str()).collect();
    let events: HashMap<String, events::entity::Model> = events::entity::Entity::find()
        .filter(events::entity::Column::Id.is_in(event_ids))
        .all(db)
        .await?
        .into_iter()
        .map(|event| (event.id.clone(), event))
        .collect();
    let webhook_ids: BTreeSet<&str> = rows.iter().map(|row| row.webhook_id.as_str()).collect();
    let endpoints: HashMap<String, endpoint::Model> = endpoints::find_many(db, webhook_ids)
        .await?
        .into_iter()
        .map(|endpoint| (endpoint.id.clone(), endpoint))
        .collect();
    Ok(rows
        .into_iter()
        .map(|row| Claim {
            event: events.get(&row.event_id).cloned(),
            endpoint: endpoints.get(&row.webhook_id).cloned(),
            row,
        })
        .collect())
}

/// A claimed row whose attempt is under way: its request is logged as
/// started (`attempt_id`) and its lease runs to the send's deadline.
struct Attempting {
    row: webhook_delivery::Model,
    event: events::entity::Model,
    url: String,
    secret: String,
    attempt_id: String,
    /// When its attempt was logged as started: with its id, the attempt's key.
    started_at: i64,
}

/// A claimed row that ends without a request: failed with its error logged
/// as an attempt, or with none when the attempt that used up its budget was
/// cut off (already logged so).
struct Unsent {
    row: webhook_delivery::Model,
    error: Option<String>,
}

/// Starts the attempts of `claims` in `tx`: rows whose event or
/// endpoint is gone are forgotten, rows of a disabled endpoint or without
/// attempts left end failed, and every other row still held gets its lease
/// to the send's deadline and its attempt logged as `pending`. Returns the
/// attempts to make.
async fn begin_attempts_in(
    tx: &courier_store::db::WriteTransaction,
    now: i64,
    claims: Vec<Claim>,
) -> CoreResult<Vec<Attempting>> {
    let mut forgotten = Vec::new();
    let mut unsent = Vec::new();
    let mut attempting = Vec::new();
    for claim in claims {
        let row = claim.row;
        let (Some(endpoint), Some(event)) = (claim.endpoint, claim.event) else {
            forgotten.push(row);
            continue;
        };
        let secret = endpoint.secret.clone();
        let endpoint = match endpoints::from_model(endpoint) {
            Ok(endpoint) => endpoint,
            Err(error) => {
                tracing::error!(%error, webhook_id = %row.webhook_id, "webhook endpoint unreadable; its row waits for its lease");
                continue;
            }
        };
        if endpoint.status == EndpointStatus::Disabled {
            // Queued before the endpoint was disabled: fails without a request.
            unsent.push(Unsent {
                row,
                error: Some(endpoints::disabled_error().to_owned()),
            });
        } else if row.attempts >= retry::MAX_ATTEMPTS {
            // The last attempt was cut off (its sender stopped).
            unsent.push(Unsent { row, error: None });
        } else {
            attempting.push(Attempting {
                row,
                event,
                url: endpoint.url,
                secret,
                attempt_id: ids::new_id("wha"),
                started_at: now,
            });
        }
    }
    for row in &forgotten {
        queue::forget(tx, &row.id).await?;
    }
    for Unsent { row, error } in &unsent {
        let owned = queue::finish(tx, row, DeliveryState::Failed, row.attempts, None, now).await?;
        if let (true, Some(error)) = (owned, error) {
            attempts::record_unsent(tx, &row.event_id, &row.webhook_id, now, AttemptStatus::Failed, error).await?;
        }
    }
    let lease_end = now + micros(LEASE);
    let held: HashSet<String> = queue::start(tx, attempting.iter().map(|a| &a.row), now, lease_end)
        .await?
        .into_iter()
        .collect();
    attempting.retain(|a| held.contains(&a.row.id));
    let started = attempting.iter().map(|a| (a.attempt_id.as_str(), &a.row));
    attempts::record_started(tx, started, now).await?;
    Ok(attempting)
}

/// A send made, and where its row stands after it: for [`record`].
struct Sent {
    row: webhook_delivery::Model,
    attempt_id: String,
    started_at: i64,
    state: DeliveryState,
    status: AttemptStatus,
    /// Attempts made so far, this one included.
    made: i32,
    next_attempt_at: Option<i64>,
    outcome: send::Outcome,
}

/// Makes one started attempt: the request, judged.
async fn send_attempt(orders: Orders, attempt: Attempting) -> Sent {
    let Attempting {
        row,
        event,
        url,
        secret,
        attempt_id,
        started_at,
    } = attempt;
    let outcome = match render(&orders, &event) {
        Ok(body) => send::send(&orders, &url, &secret, &event.id, body).await,
        Err(error) => {
            tracing::error!(%error, event_id = %event.id, "webhook body could not be rendered");
            let message = "Internal error: the event could not be rendered.".to_owned();
            send::Outcome::unsent(orders.clock.now_micros(), Verdict::Permanent, message)
        }
    };
    let made = row.attempts + 1;
    let now = orders.clock.now_micros();
    let (state, status, next_attempt_at) = match outcome.verdict {
        Verdict::Succeeded => (DeliveryState::Succeeded, AttemptStatus::Succeeded, None),
        Verdict::Permanent => (DeliveryState::Failed, AttemptStatus::Failed, None),
        Verdict::Retryable => {
            let jitter = rand::rng().random_range(-1.0..=1.0);
            match retry::next_delay(made, orders.config.webhook_retry_scale, jitter, outcome.retry_after) {
                Some(delay) => (DeliveryState::Pending, AttemptStatus::Failed, Some(now + micros(delay))),
                None => (DeliveryState::Failed, AttemptStatus::Failed, None),
            }
        }
    };
    orders.metrics.webhook_attempt(match state {
        DeliveryState::Succeeded => AttemptResult::Succeeded,
        DeliveryState::Pending => AttemptResult::Retrying,
        DeliveryState::Failed => AttemptResult::Failed,
    });
    Sent {
        row,
        attempt_id,
        started_at,
        state,
        status,
        made,
        next_attempt_at,
        outcome,
    }
}

/// [`record`], logging a failure: the rows keep their lease and are sent
/// again when it ends.
async fn record_logged(orders: &Orders, sent: Vec<Sent>) {
    let count = sent.len();
    if let Err(error) = record(orders, sent).await {
        tracing::warn!(%error, count, "webhook attempts not recorded");
    }
}

/// Records finished sends in one transaction: their attempts, where their
/// rows stand (only rows whose lease is still theirs), and the failing-streak
/// rule for rows that ended failed.
async fn record(orders: &Orders, sent: Vec<Sent>) -> CoreResult<()> {
    if sent.is_empty() {
        return Ok(());
    }
    let now = orders.clock.now_micros();
    let tx = orders.begin_bookkeeping().await?;
    let ended = sent
        .iter()
        .map(|s| (s.attempt_id.as_str(), s.started_at, &s.row, s.status, &s.outcome));
    attempts::record_ended(&tx, ended).await?;
    let (succeeded, others): (Vec<&Sent>, Vec<&Sent>) = sent.iter().partition(|s| s.state == DeliveryState::Succeeded);
    queue::finish_succeeded(&tx, succeeded.iter().map(|s| &s.row), now).await?;
    for s in others {
        let owned = queue::finish(&tx, &s.row, s.state, s.made, s.next_attempt_at, now).await?;
        if owned && s.state == DeliveryState::Failed {
            disable_if_failing(orders, &tx, &s.row.webhook_id, now).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The body of a stored event, as the transport writes it (`Wire`).
fn render(orders: &Orders, event: &events::entity::Model) -> CoreResult<Vec<u8>> {
    orders.wire.webhook_body(&events::from_model(event)?)
}

/// An endpoint whose last `webhook_disable_after` events all ended failed, the
/// first of them at least `webhook_disable_window` ago, is disabled with reason
/// `failing` (docs/guide.md "Webhooks"). A threshold of 0 turns the rule off.
async fn disable_if_failing(
    orders: &Orders,
    db: &impl sea_orm::ConnectionTrait,
    webhook_id: &str,
    now: i64,
) -> CoreResult<()> {
    let threshold = i64::from(orders.config.webhook_disable_after);
    if threshold == 0 {
        return Ok(());
    }
    let (failures, first_failure) = queue::failing_streak(db, webhook_id).await?;
    let long_enough = first_failure.is_some_and(|first| now - first >= micros(orders.config.webhook_disable_window));
    if failures >= threshold && long_enough {
        tracing::info!(webhook_id, failures, "webhook endpoint disabled: failing");
        endpoints::disable(db, webhook_id, DisabledReason::Failing, now).await?;
    }
    Ok(())
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}
