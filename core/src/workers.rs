//! Background work of the core (the billing cycle's worker is
//! `billing::cycle::run`). Every worker keeps its state in the database
//! and claims work there, so it survives restarts and runs on several
//! replicas at once; all stop when the shared cancellation token fires (the
//! webhook dispatcher claims nothing more and lets its sends in flight finish
//! and record their outcome).

use std::time::Duration;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::{Core, assignments, billing, events, idempotency, jobs, positions, simulator, webhooks};

/// How often expired idempotency keys are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(600);
/// How often the webhook queue depth is read for the metrics.
const SAMPLE_QUEUE_EVERY: Duration = Duration::from_secs(5);

/// Starts the workers; await the set after cancelling `stop` to drain them.
pub fn spawn(core: &Core, stop: &CancellationToken) -> JoinSet<()> {
    let mut workers = JoinSet::new();
    workers.spawn(purge_idempotency_keys(core.clone(), stop.clone()));
    workers.spawn(webhooks::dispatch::run(core.clone(), stop.clone()));
    workers.spawn(purge_event_history(core.clone(), stop.clone()));
    workers.spawn(simulator::run(core.clone(), stop.clone()));
    workers.spawn(billing::cycle::run(core.clone(), stop.clone()));
    workers.spawn(sample_webhook_queue(core.clone(), stop.clone()));
    workers.spawn(crate::db::checkpoint_wal(core.db.clone(), stop.clone()));
    workers.spawn(crate::cache_feed::listen(core.clone(), stop.clone()));
    workers.spawn(jobs::tracking::run(core.clone(), stop.clone()));
    workers.spawn(crate::auto_dispatch::run(core.clone(), stop.clone()));
    workers.spawn(purge_courier_history(core.clone(), stop.clone()));
    workers
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

/// Deletes events, webhook attempts and queue rows past their 30-day
/// retention.
async fn purge_event_history(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = core.clock.now_micros();
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

/// Deletes couriers' feed rows past 7 days and job trails past 30, and
/// forgets this process's feed watchers that have gone.
async fn purge_courier_history(core: Core, stop: CancellationToken) {
    let mut tick = tokio::time::interval(PURGE_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = core.clock.now_micros();
        core.courier_signals.forget_unwatched();
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
