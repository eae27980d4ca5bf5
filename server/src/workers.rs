//! Background work of the core (the billing cycle's worker is
//! `billing::cycle::run`, the simulator's `simulator::run`, …), each on the
//! one loop of `courier_store::runner` but for the webhook dispatcher and the cache
//! announcements listener, whose loops wait on more than a clock. Every
//! worker keeps its state in the database and claims work there, so it
//! survives restarts and runs on several replicas at once; all stop when
//! the shared cancellation token fires (the webhook dispatcher claims
//! nothing more and lets its sends in flight finish and record their
//! outcome).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use courier_core::{Core, CoreResult, auto_dispatch, jobs, positions};
use courier_orders::{assignments, billing, events, idempotency, notifications, simulator, webhooks};
use courier_store::metrics::CoreMetrics;
use courier_store::runner::{Done, Runner, log_step};
use courier_store::{cache_feed, day_partitions, db};

/// How often expired idempotency keys are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(600);
/// How often the webhook queue depth is read for the metrics.
const SAMPLE_QUEUE_EVERY: Duration = Duration::from_secs(5);

/// What a serving process runs (`courier-core serve --role`): the gRPC API,
/// the background workers, or both. Any number of replicas of each run at
/// once on one PostgreSQL database (docs/scaling.md "Roles").
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// The gRPC API only: no worker.
    Api,
    /// The workers only (the gRPC server stays up for health and metrics).
    Workers,
    /// Both (one process serving everything, as on SQLite).
    #[default]
    All,
}

impl Role {
    /// Whether this role runs the background workers.
    pub fn runs_workers(self) -> bool {
        matches!(self, Role::Workers | Role::All)
    }
}

/// Starts this process's tasks for `role`; await the set after cancelling
/// `stop` to drain them. Every role keeps what serves requests of this
/// process (the cache announcements listener, the positions it buffered,
/// its feed watchers, SQLite's checkpoints); the workers run only where the
/// role includes them, each counted in `courier_core_workers`. Each task
/// logs in a span `worker` that names it.
pub fn spawn(core: &Core, stop: &CancellationToken, role: Role) -> JoinSet<()> {
    let mut tasks = Tasks {
        set: JoinSet::new(),
        metrics: core.metrics.clone(),
    };
    tasks.start("wal_checkpoints", db::checkpoint_wal(core.db.clone(), stop.clone()));
    tasks.start(
        "cache_announcements",
        cache_feed::listen(
            core.writer.clone(),
            core.cache_feed.clone(),
            core.metrics.clone(),
            core.clone(),
            stop.clone(),
        ),
    );
    tasks.start("position_writer", jobs::tracking::run(core.clone(), stop.clone()));
    tasks.start(
        "feed_watchers",
        every(PURGE_EVERY, core.clone(), stop.clone(), forget_unwatched_feeds),
    );
    if role.runs_workers() {
        tasks.count(
            "idempotency_purge",
            every(PURGE_EVERY, core.clone(), stop.clone(), purge_idempotency_keys),
        );
        tasks.count(
            "webhook_dispatcher",
            webhooks::dispatch::run(core.orders.clone(), stop.clone()),
        );
        tasks.count(
            "event_purge",
            every(PURGE_EVERY, core.clone(), stop.clone(), purge_event_history),
        );
        tasks.count("simulator", simulator::run(core.orders.clone(), stop.clone()));
        tasks.count("billing_cycle", billing::cycle::run(core.orders.clone(), stop.clone()));
        tasks.count(
            "report_rollup",
            courier_orders::reports::rollup::run(core.orders.clone(), stop.clone()),
        );
        tasks.count(
            "courier_statements",
            courier_orders::pay::statements::run(core.orders.clone(), stop.clone()),
        );
        tasks.count(
            "webhook_queue_sampler",
            every(SAMPLE_QUEUE_EVERY, core.clone(), stop.clone(), sample_webhook_queue),
        );
        tasks.count("auto_dispatch", auto_dispatch::run(core.clone(), stop.clone()));
        tasks.count(
            "notification_sender",
            notifications::sender::run(core.orders.clone(), stop.clone()),
        );
        tasks.count(
            "notification_outbox_sampler",
            every(
                SAMPLE_QUEUE_EVERY,
                core.clone(),
                stop.clone(),
                sample_notification_outbox,
            ),
        );
        tasks.count(
            "courier_history_purge",
            every(PURGE_EVERY, core.clone(), stop.clone(), purge_courier_history),
        );
    }
    tasks.set
}

/// This process's tasks, each in its span.
struct Tasks {
    set: JoinSet<()>,
    metrics: Arc<CoreMetrics>,
}

impl Tasks {
    fn start(&mut self, name: &'static str, task: impl Future<Output = ()> + Send + 'static) {
        self.set
            .spawn(task.instrument(tracing::info_span!("worker", worker = name)));
    }

    /// Starts a worker of the `workers` role, shown running in
    /// `courier_core_workers` until it ends.
    fn count(&mut self, name: &'static str, task: impl Future<Output = ()> + Send + 'static) {
        let metrics = self.metrics.clone();
        metrics.set_worker_running(name, true);
        self.start(name, async move {
            task.await;
            metrics.set_worker_running(name, false);
        });
    }
}

/// `work` every `period` until `stop`, on a clone of `core` each time.
async fn every<F, Fut>(period: Duration, core: Core, stop: CancellationToken, work: F)
where
    F: Fn(Core) -> Fut + Send,
    Fut: Future<Output = CoreResult<Done>> + Send,
{
    Runner::every(period).run(&stop, move || work(core.clone())).await
}

/// Forgets this process's courier feed watchers that have gone.
async fn forget_unwatched_feeds(core: Core) -> CoreResult<Done> {
    core.courier_signals.forget_unwatched();
    Ok(Done::Idle)
}

async fn sample_webhook_queue(core: Core) -> CoreResult<Done> {
    let pending = webhooks::queue::pending_count(&core.db).await?;
    core.metrics.set_webhook_queue_depth(pending);
    Ok(Done::Idle)
}

async fn sample_notification_outbox(core: Core) -> CoreResult<Done> {
    notifications::sender::sample_outbox(&core).await?;
    Ok(Done::Idle)
}

async fn purge_idempotency_keys(core: Core) -> CoreResult<Done> {
    let purged = idempotency::purge_expired(&core.writer, core.clock.now_micros()).await;
    log_step(
        purged,
        "expired idempotency keys deleted",
        "idempotency key purge failed",
    );
    Ok(Done::Idle)
}

/// Creates the history tables' partitions of the next days (PostgreSQL),
/// and deletes events, webhook attempts and queue rows past their 30-day
/// retention; each step whatever the others did.
async fn purge_event_history(core: Core) -> CoreResult<Done> {
    let now = core.clock.now_micros();
    let created = day_partitions::create_ahead(&core.writer, now).await;
    log_step(created, "history partitions created", "history partitions not created");
    let purged = webhooks::purge_expired(&core.writer, now).await;
    log_step(
        purged,
        "expired webhook attempts and queue rows deleted",
        "webhook history purge failed",
    );
    let purged = events::history::purge_expired(&core.writer, now).await;
    log_step(purged, "expired events deleted", "event purge failed");
    Ok(Done::Idle)
}

/// Deletes couriers' feed rows past 7 days and job trails past 30, each
/// whatever the other did.
async fn purge_courier_history(core: Core) -> CoreResult<Done> {
    let now = core.clock.now_micros();
    let purged = assignments::feed::purge(&core, now).await;
    log_step(purged, "old courier feed rows deleted", "courier feed purge failed");
    let purged = positions::purge_trails(&core, now).await;
    log_step(purged, "expired job trail positions deleted", "trail purge failed");
    Ok(Done::Idle)
}
