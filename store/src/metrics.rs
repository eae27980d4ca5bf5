//! The core's Prometheus metrics: gRPC calls, webhook attempts and queue
//! depth, simulator lag, road routing, and the key and delivery caches
//! (the database pools' gauges are `db::PoolGauges`). Handles are cheap clones of shared series; the
//! binary registers them on the operations listener.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    /// `/package.Service/Method`.
    method: String,
    /// gRPC status code name (`Ok`, `InvalidArgument`, …).
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AttemptLabels {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NotificationLabels {
    channel: &'static str,
    trigger: &'static str,
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ChannelLabels {
    channel: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ModeLabels {
    mode: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PartitionLabels {
    partition: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkerLabels {
    worker: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    cache: &'static str,
    result: &'static str,
}

/// The hit and miss counters of one cache, made once so that a lookup only
/// increments an atomic.
#[derive(Clone, Debug, Default)]
pub struct CacheCounters {
    hits: Counter,
    misses: Counter,
}

impl CacheCounters {
    pub fn lookup(&self, hit: bool) {
        if hit { &self.hits } else { &self.misses }.inc();
    }
}

/// The counters of one kind of shared read (`shared_reads`): requests, and
/// the reads that served them.
#[derive(Clone, Debug, Default)]
pub struct SharedReadCounters {
    requests: Counter,
    reads: Counter,
}

impl SharedReadCounters {
    pub fn requested(&self) {
        self.requests.inc();
    }

    pub fn read(&self) {
        self.reads.inc();
    }
}

/// How a route asked of the road router ended, as counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingResult {
    Ok,
    /// The route cannot be driven (a `400`).
    NoRoute,
    /// No usable answer after the retry.
    Failed,
    /// Not asked: the circuit breaker is open.
    BreakerOpen,
}

/// What the core counts and measures.
#[derive(Clone)]
pub struct CoreMetrics {
    grpc_requests: Family<CallLabels, Counter>,
    grpc_duration: Family<CallLabels, Histogram, fn() -> Histogram>,
    webhook_attempts: Family<AttemptLabels, Counter>,
    webhook_queue_depth: Gauge,
    simulator_lag: Histogram,
    routing_routes: Family<ResultLabels, Counter>,
    routing_latency: Histogram,
    routing_cache: Family<ResultLabels, Counter>,
    routing_fallbacks: Counter,
    cache_lookups: Family<CacheLabels, Counter>,
    cache_invalidation_lag: Histogram,
    cache_feed_connected: Gauge,
    list_page_reads: SharedReadCounters,
    dispatch_map_reads: SharedReadCounters,
    positions_accepted: Counter,
    positions_refused: Counter,
    position_writes: Counter,
    dispatch_rounds: Histogram,
    partition_rounds: Family<PartitionLabels, Histogram>,
    partition_rounds_running: Family<PartitionLabels, Gauge>,
    partition_rounds_locked_out: Family<PartitionLabels, Counter>,
    dispatch_waiting: Gauge,
    dispatch_free_couriers: Gauge,
    dispatch_time_to_offer: Histogram,
    dispatch_time_to_accept: Histogram,
    dispatch_offers: Family<ResultLabels, Counter>,
    deliveries_delayed: Family<ModeLabels, Counter>,
    notifications: Family<NotificationLabels, Counter>,
    notification_outbox_depth: Gauge,
    notification_provider_latency: Family<ChannelLabels, Histogram, fn() -> Histogram>,
    workers: Family<WorkerLabels, Gauge>,
}

impl Default for CoreMetrics {
    fn default() -> Self {
        CoreMetrics {
            grpc_requests: Family::default(),
            grpc_duration: Family::new_with_constructor(courier::ops::latency_histogram),
            webhook_attempts: Family::default(),
            webhook_queue_depth: Gauge::default(),
            simulator_lag: courier::ops::latency_histogram(),
            routing_routes: Family::default(),
            routing_latency: courier::ops::latency_histogram(),
            routing_cache: Family::default(),
            routing_fallbacks: Counter::default(),
            cache_lookups: Family::default(),
            cache_invalidation_lag: courier::ops::latency_histogram(),
            cache_feed_connected: Gauge::default(),
            list_page_reads: SharedReadCounters::default(),
            dispatch_map_reads: SharedReadCounters::default(),
            positions_accepted: Counter::default(),
            positions_refused: Counter::default(),
            position_writes: Counter::default(),
            dispatch_rounds: courier::ops::latency_histogram(),
            partition_rounds: Family::new_with_constructor(courier::ops::latency_histogram),
            partition_rounds_running: Family::default(),
            partition_rounds_locked_out: Family::default(),
            dispatch_waiting: Gauge::default(),
            dispatch_free_couriers: Gauge::default(),
            dispatch_time_to_offer: courier::ops::latency_histogram(),
            dispatch_time_to_accept: courier::ops::latency_histogram(),
            dispatch_offers: Family::default(),
            deliveries_delayed: Family::default(),
            notifications: Family::default(),
            notification_outbox_depth: Gauge::default(),
            notification_provider_latency: Family::new_with_constructor(courier::ops::latency_histogram),
            workers: Family::default(),
        }
    }
}

/// How a webhook attempt ended, as counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    Succeeded,
    /// Failed, another attempt is scheduled.
    Retrying,
    /// Failed for good.
    Failed,
}

impl CoreMetrics {
    /// Adds every series to `registry`.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "courier_core_workers",
            "Background workers running in this process (1 each), by worker; none on a replica serving the API alone",
            self.workers.clone(),
        );
        registry.register(
            "courier_core_grpc_requests",
            "gRPC calls answered by the core, by method and status code",
            self.grpc_requests.clone(),
        );
        registry.register(
            "courier_core_grpc_request_duration_seconds",
            "Time to the answer's headers of gRPC calls, by method and status code",
            self.grpc_duration.clone(),
        );
        registry.register(
            "courier_webhook_attempts",
            "Webhook delivery attempts, by result",
            self.webhook_attempts.clone(),
        );
        registry.register(
            "courier_webhook_queue_depth",
            "Webhook sends waiting (pending queue rows), sampled from the database",
            self.webhook_queue_depth.clone(),
        );
        registry.register(
            "courier_notifications",
            "Recipient notifications that left the outbox, by channel (sms, email), trigger and result (sent, test_inbox, retrying, failed, dropped, opted_out, held)",
            self.notifications.clone(),
        );
        registry.register(
            "courier_notification_outbox_depth",
            "Notifications waiting to be sent (queued or held by quiet hours), sampled from the database",
            self.notification_outbox_depth.clone(),
        );
        registry.register(
            "courier_notification_provider_duration_seconds",
            "Time of each call to an SMS or email provider, by channel",
            self.notification_provider_latency.clone(),
        );
        registry.register(
            "courier_simulator_lag_seconds",
            "How late due simulator steps were taken up",
            self.simulator_lag.clone(),
        );
        registry.register(
            "courier_routing_routes",
            "Routes asked of the road router, by result (ok, no_route, failed, breaker_open)",
            self.routing_routes.clone(),
        );
        registry.register(
            "courier_routing_request_duration_seconds",
            "Time of each call to the road router",
            self.routing_latency.clone(),
        );
        registry.register(
            "courier_routing_cache_lookups",
            "Route lookups in the road router's cache, by result (hit, miss)",
            self.routing_cache.clone(),
        );
        registry.register(
            "courier_routing_fallbacks",
            "Routes priced with the offline estimate because the road router failed",
            self.routing_fallbacks.clone(),
        );
        registry.register(
            "courier_cache_lookups",
            "Lookups in the key and delivery caches, by cache (keys, deliveries) and result (hit, miss)",
            self.cache_lookups.clone(),
        );
        registry.register(
            "courier_cache_invalidation_lag_seconds",
            "From a change's announcement to its eviction on this replica (PostgreSQL)",
            self.cache_invalidation_lag.clone(),
        );
        registry.register(
            "courier_cache_feed_connected",
            "1 while this replica listens for cache announcements (PostgreSQL); its caches are bypassed at 0",
            self.cache_feed_connected.clone(),
        );
        registry.register(
            "courier_core_list_page_requests",
            "List pages asked for (deliveries, events, boards)",
            self.list_page_reads.requests.clone(),
        );
        registry.register(
            "courier_core_list_page_reads",
            "Database reads of list pages' positions; identical pages in flight share one",
            self.list_page_reads.reads.clone(),
        );
        registry.register(
            "courier_core_dispatch_map_requests",
            "Dispatch map reads asked for (a watcher's first map, or its map after a change)",
            self.dispatch_map_reads.requests.clone(),
        );
        registry.register(
            "courier_core_dispatch_map_reads",
            "Database reads of dispatch maps; watchers of one map asking at once share one",
            self.dispatch_map_reads.reads.clone(),
        );
        registry.register(
            "courier_core_positions_accepted",
            "Courier positions accepted from the apps",
            self.positions_accepted.clone(),
        );
        registry.register(
            "courier_core_positions_refused",
            "Courier positions refused (out of range, too far in the future)",
            self.positions_refused.clone(),
        );
        registry.register(
            "courier_dispatch_round_duration_seconds",
            "Rounds of automatic dispatch and how long each took",
            self.dispatch_rounds.clone(),
        );
        registry.register(
            "courier_dispatch_partition_round_duration_seconds",
            "Rounds of one dispatch partition (platform:<service area> or fleet:<workspace>) this replica ran, and how long each took",
            self.partition_rounds.clone(),
        );
        registry.register(
            "courier_dispatch_partition_rounds_running",
            "1 while this replica runs a round of the partition",
            self.partition_rounds_running.clone(),
        );
        registry.register(
            "courier_dispatch_partition_rounds_locked_out",
            "Rounds of the partition this replica skipped because another replica's held its lock",
            self.partition_rounds_locked_out.clone(),
        );
        registry.register(
            "courier_dispatch_waiting_deliveries",
            "Live deliveries waiting for a courier (no open offer) at the last round",
            self.dispatch_waiting.clone(),
        );
        registry.register(
            "courier_dispatch_free_couriers",
            "Online couriers free for an offer at the last round that had deliveries waiting",
            self.dispatch_free_couriers.clone(),
        );
        registry.register(
            "courier_dispatch_time_to_offer_seconds",
            "From a delivery's creation to an offer of it",
            self.dispatch_time_to_offer.clone(),
        );
        registry.register(
            "courier_dispatch_time_to_accept_seconds",
            "From a delivery's creation to the acceptance of its offer",
            self.dispatch_time_to_accept.clone(),
        );
        registry.register(
            "courier_dispatch_offers",
            "Offers of automatic dispatch, by result (offered, accepted, declined, expired, withdrawn)",
            self.dispatch_offers.clone(),
        );
        registry.register(
            "courier_deliveries_delayed",
            "Deliveries reported at risk of breaking their promised dropoff (delivery.delayed), by mode",
            self.deliveries_delayed.clone(),
        );
        registry.register(
            "courier_core_position_writes",
            "Database transactions that wrote courier positions (each a batch of reports)",
            self.position_writes.clone(),
        );
    }

    /// Positions accepted and refused from one report.
    pub fn positions(&self, accepted: u64, refused: u64) {
        self.positions_accepted.inc_by(accepted);
        self.positions_refused.inc_by(refused);
    }

    /// One round of automatic dispatch; the free couriers are counted only
    /// where jobs waited.
    /// A round that took `took`: the jobs it found waiting (`None`: no
    /// courier was free, so it read none, and the gauge keeps the last
    /// count) and the free couriers.
    pub fn dispatch_round(&self, took: Duration, waiting: Option<usize>, free_couriers: usize) {
        self.dispatch_rounds.observe(took.as_secs_f64());
        if let Some(waiting) = waiting {
            self.dispatch_waiting.set(waiting as i64);
        }
        self.dispatch_free_couriers.set(free_couriers as i64);
    }

    /// A round of dispatch partition `partition` begins: running until the
    /// answer is dropped, then counted with its duration.
    pub fn partition_round(&self, partition: String) -> PartitionRound {
        let labels = PartitionLabels { partition };
        self.partition_rounds_running.get_or_create(&labels).set(1);
        PartitionRound {
            rounds: self.partition_rounds.clone(),
            running: self.partition_rounds_running.clone(),
            locked_out_rounds: self.partition_rounds_locked_out.clone(),
            labels,
            started: std::time::Instant::now(),
            locked_out: false,
        }
    }

    /// An offer made `since_created_micros` after its delivery's creation.
    pub fn dispatch_offered(&self, since_created_micros: i64) {
        self.dispatch_time_to_offer
            .observe(since_created_micros.max(0) as f64 / 1e6);
        self.dispatch_offer_ended("offered");
    }

    /// An offer accepted `since_created_micros` after the delivery's creation.
    pub fn dispatch_accepted(&self, since_created_micros: i64) {
        self.dispatch_time_to_accept
            .observe(since_created_micros.max(0) as f64 / 1e6);
        self.dispatch_offer_ended("accepted");
    }

    /// An offer made or ended: `offered`, `accepted`, `declined`, `expired`, `withdrawn`.
    pub fn dispatch_offer_ended(&self, result: &'static str) {
        self.dispatch_offers.get_or_create(&ResultLabels { result }).inc();
    }

    /// One transaction that wrote a batch of positions.
    pub fn position_write(&self) {
        self.position_writes.inc();
    }

    /// The counters of the list pages' position reads.
    pub fn list_page_reads(&self) -> SharedReadCounters {
        self.list_page_reads.clone()
    }

    pub fn dispatch_map_reads(&self) -> SharedReadCounters {
        self.dispatch_map_reads.clone()
    }

    /// The counters of cache `cache` (`keys` or `deliveries`).
    pub fn cache_counters(&self, cache: &'static str) -> CacheCounters {
        let counter = |result| self.cache_lookups.get_or_create(&CacheLabels { cache, result }).clone();
        CacheCounters {
            hits: counter("hit"),
            misses: counter("miss"),
        }
    }

    pub fn observe_cache_invalidation_lag(&self, lag: Duration) {
        self.cache_invalidation_lag.observe(lag.as_secs_f64());
    }

    /// Worker `name` runs (`true`) or has ended.
    pub fn set_worker_running(&self, name: &'static str, running: bool) {
        self.workers
            .get_or_create(&WorkerLabels { worker: name })
            .set(i64::from(running));
    }

    pub fn set_cache_feed_connected(&self, connected: bool) {
        self.cache_feed_connected.set(i64::from(connected));
    }

    pub fn grpc_call(&self, method: &str, code: &str, elapsed: Duration) {
        let labels = CallLabels {
            method: method.to_owned(),
            code: code.to_owned(),
        };
        self.grpc_requests.get_or_create(&labels).inc();
        self.grpc_duration.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    pub fn webhook_attempt(&self, result: AttemptResult) {
        let result = match result {
            AttemptResult::Succeeded => "succeeded",
            AttemptResult::Retrying => "retrying",
            AttemptResult::Failed => "failed",
        };
        self.webhook_attempts.get_or_create(&AttemptLabels { result }).inc();
    }

    pub fn set_webhook_queue_depth(&self, pending: u64) {
        self.webhook_queue_depth.set(i64::try_from(pending).unwrap_or(i64::MAX));
    }

    pub fn routing_result(&self, result: RoutingResult) {
        let result = match result {
            RoutingResult::Ok => "ok",
            RoutingResult::NoRoute => "no_route",
            RoutingResult::Failed => "failed",
            RoutingResult::BreakerOpen => "breaker_open",
        };
        self.routing_routes.get_or_create(&ResultLabels { result }).inc();
    }

    pub fn routing_latency(&self, elapsed: Duration) {
        self.routing_latency.observe(elapsed.as_secs_f64());
    }

    pub fn routing_cache(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" };
        self.routing_cache.get_or_create(&ResultLabels { result }).inc();
    }

    pub fn routing_fallback(&self) {
        self.routing_fallbacks.inc();
    }

    /// A delivery of `mode` reported at risk (`delivery.delayed`).
    pub fn delivery_delayed(&self, mode: &'static str) {
        self.deliveries_delayed.get_or_create(&ModeLabels { mode }).inc();
    }

    /// A notification of `channel` and `trigger` left the outbox with `result`.
    pub fn notification(&self, channel: &'static str, trigger: &'static str, result: &'static str) {
        self.notifications
            .get_or_create(&NotificationLabels {
                channel,
                trigger,
                result,
            })
            .inc();
    }

    pub fn set_notification_outbox_depth(&self, waiting: u64) {
        self.notification_outbox_depth
            .set(i64::try_from(waiting).unwrap_or(i64::MAX));
    }

    /// One call to the `channel` provider took `took`.
    pub fn notification_provider_call(&self, channel: &'static str, took: Duration) {
        self.notification_provider_latency
            .get_or_create(&ChannelLabels { channel })
            .observe(took.as_secs_f64());
    }

    /// A simulator step taken `late_micros` after it was due.
    pub fn simulator_step(&self, late_micros: i64) {
        self.simulator_lag.observe(late_micros.max(0) as f64 / 1e6);
    }
}

/// A round of one dispatch partition under way ([`CoreMetrics::partition_round`]).
pub struct PartitionRound {
    rounds: Family<PartitionLabels, Histogram>,
    running: Family<PartitionLabels, Gauge>,
    locked_out_rounds: Family<PartitionLabels, Counter>,
    labels: PartitionLabels,
    started: std::time::Instant,
    locked_out: bool,
}

impl PartitionRound {
    /// Another replica's round held the partition's lock: counted as
    /// locked out, not as a round.
    pub fn locked_out(mut self) {
        self.locked_out = true;
    }
}

impl Drop for PartitionRound {
    fn drop(&mut self) {
        self.running.get_or_create(&self.labels).set(0);
        if self.locked_out {
            self.locked_out_rounds.get_or_create(&self.labels).inc();
        } else {
            self.rounds
                .get_or_create(&self.labels)
                .observe(self.started.elapsed().as_secs_f64());
        }
    }
}
