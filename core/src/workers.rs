//! Background work of the core (the billing cycle's worker is
//! `billing::cycle::run`). Every worker keeps its state in the database
//! and claims work there, so it survives restarts and runs on several
//! replicas at once; all stop when the shared cancellation token fires (the
//! webhook dispatcher claims nothing more and lets its sends in flight finish
//! and record their outcome).

use std::time::Duration;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::{Core, assignments, billing, day_partitions, events, idempotency, jobs, positions, simulator, webhooks};

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
/// role includes them, each counted in `courier_core_workers`.
pub fn spawn(core: &Core, stop: &CancellationToken, role: Role) -> JoinSet<()> {
    let mut workers = JoinSet::new();
    workers.spawn(crate::db::checkpoint_wal(core.db.clone(), stop.clone()));
    workers.spawn(crate::cache_feed::listen(core.clone(), stop.clone()));
    workers.spawn(jobs::tracking::run(core.clone(), stop.clone()));
    workers.spawn(forget_unwatched_feeds(core.clone(), stop.clone()));
    if !role.runs_workers() {
        return workers;
    }
    let mut start = |name: &'static str, worker: BoxFuture| {
        let core = core.clone();
        core.metrics.set_worker_running(name, true);
        workers.spawn(async move {
            worker.await;
            core.metrics.set_worker_running(name, false);
        });
    };
    start(
        "idempotency_purge",
        Box::pin(purge_idempotency_keys(core.clone(), stop.clone())),
    );
    start(
        "webhook_dispatcher",
        Box::pin(webhooks::dispatch::run(core.clone(), stop.clone())),
    );
    start("event_purge", Box::pin(purge_event_history(core.clone(), stop.clone())));
    start("simulator", Box::pin(simulator::run(core.clone(), stop.clone())));
    start(
        "billing_cycle",
        Box::pin(billing::cycle::run(core.clone(), stop.clone())),
    );
    start(
        "webhook_queue_sampler",
        Box::pin(sample_webhook_queue(core.clone(), stop.clone())),
    );
    start(
        "auto_dispatch",
        Box::pin(crate::auto_dispatch::run(core.clone(), stop.clone())),
    );
    start(
        "courier_history_purge",
        Box::pin(purge_courier_history(core.clone(), stop.clone())),
    );
    workers
}

type BoxFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Forgets this process's courier feed watchers that have gone.
async fn forget_unwatched_feeds(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        core.courier_signals.forget_unwatched();
    }
}

async fn sample_webhook_queue(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(SAMPLE_QUEUE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        match webhooks::queue::pending_count(&core.db).await {
            Ok(pending) => core.metrics.set_webhook_queue_depth(pending),
            Err(error) => tracing::warn!(%error, "webhook queue depth not sampled"),
        }
    }
}

async fn purge_idempotency_keys(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        match idempotency::purge_expired(&core.writer, core.clock.now_micros()).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired idempotency keys deleted"),
            Err(error) => tracing::warn!(%error, "idempotency key purge failed"),
        }
    }
}

/// Creates the history tables' partitions of the next days (PostgreSQL),
/// and deletes events, webhook attempts and queue rows past their 30-day
/// retention.
async fn purge_event_history(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = core.clock.now_micros();
        if let Err(error) = day_partitions::create_ahead(&core.writer, now).await {
            tracing::warn!(%error, "history partitions not created");
        }
        match webhooks::purge_expired(&core.writer, now).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired webhook attempts and queue rows deleted"),
            Err(error) => tracing::warn!(%error, "webhook history purge failed"),
        }
        match events::history::purge_expired(&core.writer, now).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired events deleted"),
            Err(error) => tracing::warn!(%error, "event purge failed"),
        }
    }
}

/// Deletes couriers' feed rows past 7 days and job trails past 30.
async fn purge_courier_history(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = core.clock.now_micros();
        match assignments::feed::purge(&core, now).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "old courier feed rows deleted"),
            Err(error) => tracing::warn!(%error, "courier feed purge failed"),
        }
        match positions::purge_trails(&core, now).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired job trail positions deleted"),
            Err(error) => tracing::warn!(%error, "trail purge failed"),
        }
    }
}
