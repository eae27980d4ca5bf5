//! Road distances and durations from an OSRM server (`COURIER_ROUTING_URL`):
//! `GET {url}/route/v1/{profile}/{lon},{lat};…?overview=false` with the
//! waypoints in driving order and the vehicle type's profile from the
//! catalogue (docs/routing.md).
//!
//! What a courier company needs around it:
//! - each call has a timeout and is tried once more when it fails (no
//!   answer, a 5xx, an unreadable answer);
//! - a circuit breaker: after [`BREAKER_THRESHOLD`] routes in a row failed,
//!   no call is made for `COURIER_ROUTING_BREAKER_COOLDOWN`; then one route
//!   tries again and closes it on success;
//! - a failed route answers `502 upstream_error`, or, when configured
//!   (`COURIER_ROUTING_FALLBACK=offline`), the offline estimate, logged and
//!   counted;
//! - a route OSRM cannot drive (`NoRoute`, a waypoint it cannot snap to a
//!   road) is `400 service_area_unavailable` naming the waypoint;
//! - answers are kept [`CACHE_TTL`] (longer than a quote is valid), so a
//!   quote and the create that follows it call the router once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use courier::errors::ErrorCode;
use serde::Deserialize;

use crate::catalog::VehicleType;
use crate::geo::GeoPoint;
use crate::routing::{
    Durations, DurationsFuture, OfflineRouter, RouteEstimate, RouteFuture, RoutePoint, RoutingProvider, with_handling,
};
use courier_store::config::{CoreConfig, RoutingFallback};
use courier_store::error::{CoreError, CoreResult};
use courier_store::metrics::{CoreMetrics, RoutingResult};

/// Routes in a row that failed before the breaker opens.
pub const BREAKER_THRESHOLD: u32 = 5;
/// How long a route is answered from memory.
pub const CACHE_TTL: Duration = Duration::from_secs(10 * 60);
/// Routes kept at most; a full cache starts over empty.
const CACHE_CAPACITY: usize = 10_000;

/// The road router; see the module documentation.
pub struct OsrmRouter {
    base_url: String,
    client: reqwest::Client,
    fallback: RoutingFallback,
    offline: OfflineRouter,
    breaker: Breaker,
    cache: Mutex<HashMap<RouteKey, (Instant, RouteEstimate)>>,
    metrics: CoreMetrics,
}

/// A route as cached: the profile and the exact coordinates in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RouteKey {
    profile: String,
    points: Vec<(u64, u64)>,
}

/// What one call to the router gave.
enum Answer {
    Route {
        meters: f64,
        seconds: f64,
    },
    /// OSRM's `NoRoute` or `NoSegment`: this route cannot be driven.
    Undrivable,
    /// No usable answer (timeout, network error, 5xx, unreadable body, or a
    /// refusal of the request itself).
    Failed(String),
}

#[derive(Deserialize)]
struct RouteResponse {
    code: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    routes: Vec<RouteSummary>,
}

/// OSRM's table service answer: `durations[source][destination]` in
/// seconds, `null` where no route.
#[derive(Deserialize)]
struct TableResponse {
    code: String,
    #[serde(default)]
    durations: Vec<Vec<Option<f64>>>,
}

#[derive(Deserialize)]
struct RouteSummary {
    distance: f64,
    duration: f64,
}

impl OsrmRouter {
    pub fn new(config: &CoreConfig, metrics: CoreMetrics) -> CoreResult<OsrmRouter> {
        let base_url = config.routing_url.trim().trim_end_matches('/').to_owned();
        url::Url::parse(&base_url)
            .map_err(|e| CoreError::Internal(format!("COURIER_ROUTING_URL '{base_url}' is not a URL: {e}")))?;
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.routing_timeout)
            .build()
            .map_err(|e| CoreError::Internal(format!("routing client: {e}")))?;
        Ok(OsrmRouter {
            base_url,
            client,
            fallback: config.routing_fallback,
            offline: OfflineRouter::default(),
            breaker: Breaker::new(config.routing_breaker_cooldown),
            cache: Mutex::default(),
            metrics,
        })
    }

    async fn estimate(&self, waypoints: &[RoutePoint], vehicle: &VehicleType) -> CoreResult<RouteEstimate> {
        let points: Vec<GeoPoint> = waypoints.iter().map(|w| w.point).collect();
        let key = RouteKey {
            profile: vehicle.routing_profile.clone(),
            points: points
                .iter()
                .map(|p| (p.latitude.to_bits(), p.longitude.to_bits()))
                .collect(),
        };
        if let Some(estimate) = self.cached(&key) {
            self.metrics.routing_cache(true);
            return Ok(estimate);
        }
        self.metrics.routing_cache(false);
        if !self.breaker.allows_call(Instant::now()) {
            self.metrics.routing_result(RoutingResult::BreakerOpen);
            return self.failed(&points, vehicle, "the circuit breaker is open");
        }
        let mut answer = self.call(&vehicle.routing_profile, &points).await;
        if matches!(answer, Answer::Failed(_)) {
            answer = self.call(&vehicle.routing_profile, &points).await;
        }
        match answer {
            Answer::Route { meters, seconds } => {
                self.breaker.succeeded();
                self.metrics.routing_result(RoutingResult::Ok);
                let estimate = RouteEstimate {
                    distance_km: meters / 1000.0,
                    duration_min: with_handling(seconds, points.len()),
                };
                self.remember(key, estimate);
                Ok(estimate)
            }
            Answer::Undrivable => {
                self.breaker.succeeded();
                self.metrics.routing_result(RoutingResult::NoRoute);
                Err(self.undrivable(waypoints, vehicle).await)
            }
            Answer::Failed(reason) => {
                if self.breaker.failed(Instant::now()) {
                    tracing::warn!(cooldown = ?self.breaker.cooldown, "routing circuit breaker opened");
                }
                self.metrics.routing_result(RoutingResult::Failed);
                self.failed(&points, vehicle, &reason)
            }
        }
    }

    /// One call of OSRM's route service.
    async fn call(&self, profile: &str, points: &[GeoPoint]) -> Answer {
        let coordinates: Vec<String> = points
            .iter()
            .map(|p| format!("{},{}", p.longitude, p.latitude))
            .collect();
        let url = format!(
            "{}/route/v1/{profile}/{}?overview=false",
            self.base_url,
            coordinates.join(";")
        );
        let started = Instant::now();
        let response = self.client.get(&url).send().await;
        self.metrics.routing_latency(started.elapsed());
        let response = match response {
            Ok(response) => response,
            Err(error) if error.is_timeout() => return Answer::Failed("the router did not answer in time".into()),
            Err(error) => return Answer::Failed(format!("the router could not be reached: {error}")),
        };
        let status = response.status();
        let body: Result<RouteResponse, _> = response.json().await;
        match body {
            Ok(body) if body.code == "Ok" => match body.routes.first() {
                Some(route) if route.distance.is_finite() && route.duration.is_finite() => Answer::Route {
                    meters: route.distance,
                    seconds: route.duration,
                },
                _ => Answer::Failed("the router answered Ok without a route".into()),
            },
            Ok(body) if body.code == "NoRoute" || body.code == "NoSegment" => Answer::Undrivable,
            Ok(body) => Answer::Failed(format!(
                "the router answered {status} {}: {}",
                body.code,
                body.message.unwrap_or_default()
            )),
            Err(_) => Answer::Failed(format!("the router answered {status} without a route response")),
        }
    }

    /// The refusal of a route that cannot be driven, naming the first
    /// waypoint that cannot be reached from the one before it (each leg is
    /// asked on its own to find it).
    async fn undrivable(&self, waypoints: &[RoutePoint], vehicle: &VehicleType) -> CoreError {
        let mut culprit = waypoints.last();
        for leg in waypoints.windows(2) {
            if let Answer::Undrivable = self.call(&vehicle.routing_profile, &[leg[0].point, leg[1].point]).await {
                culprit = Some(&leg[1]);
                break;
            }
        }
        let param = culprit.map_or("dropoff", |w| w.param.as_str());
        CoreError::at(
            ErrorCode::ServiceAreaUnavailable,
            param,
            format!(
                "No road route for a {} reaches {param} from the waypoint before it.",
                vehicle.name.to_lowercase()
            ),
        )
    }

    /// A route the router could not give: `upstream_error`, or the offline
    /// estimate when configured.
    fn failed(&self, points: &[GeoPoint], vehicle: &VehicleType, reason: &str) -> CoreResult<RouteEstimate> {
        match self.fallback {
            RoutingFallback::Error => {
                tracing::warn!(reason, "routing failed: upstream_error");
                Err(CoreError::new(
                    ErrorCode::UpstreamError,
                    "The routing service could not price the route; retry with backoff.",
                ))
            }
            RoutingFallback::Offline => {
                tracing::warn!(reason, "routing failed: priced with the offline estimate");
                self.metrics.routing_fallback();
                Ok(self.offline.estimate(points, &vehicle.id))
            }
        }
    }

    fn cached(&self, key: &RouteKey) -> Option<RouteEstimate> {
        let cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache
            .get(key)
            .filter(|(at, _)| at.elapsed() < CACHE_TTL)
            .map(|(_, estimate)| *estimate)
    }

    fn remember(&self, key: RouteKey, estimate: RouteEstimate) {
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key, (Instant::now(), estimate));
    }
}

impl OsrmRouter {
    /// OSRM's table service, once, for every source and destination; the
    /// offline estimate where it cannot answer (counted as a fallback).
    async fn table(&self, sources: &[GeoPoint], destinations: &[GeoPoint], vehicle: &VehicleType) -> Durations {
        let offline = || {
            self.metrics.routing_fallback();
            self.offline.driving_seconds(sources, destinations, &vehicle.id)
        };
        if sources.is_empty() || destinations.is_empty() {
            return Vec::new();
        }
        if !self.breaker.allows_call(Instant::now()) {
            self.metrics.routing_result(RoutingResult::BreakerOpen);
            return offline();
        }
        let coordinates: Vec<String> = sources
            .iter()
            .chain(destinations)
            .map(|p| format!("{},{}", p.longitude, p.latitude))
            .collect();
        let indexes = |range: std::ops::Range<usize>| range.map(|i| i.to_string()).collect::<Vec<_>>().join(";");
        let url = format!(
            "{}/table/v1/{}/{}?sources={}&destinations={}&annotations=duration",
            self.base_url,
            vehicle.routing_profile,
            coordinates.join(";"),
            indexes(0..sources.len()),
            indexes(sources.len()..sources.len() + destinations.len()),
        );
        let started = Instant::now();
        let answer = match self.client.get(&url).send().await {
            Ok(response) => response.json::<TableResponse>().await.ok(),
            Err(_) => None,
        };
        self.metrics.routing_latency(started.elapsed());
        match answer {
            Some(table)
                if table.code == "Ok"
                    && table.durations.len() == sources.len()
                    && table.durations.iter().all(|row| row.len() == destinations.len()) =>
            {
                self.breaker.succeeded();
                self.metrics.routing_result(RoutingResult::Ok);
                table.durations
            }
            _ => {
                if self.breaker.failed(Instant::now()) {
                    tracing::warn!(cooldown = ?self.breaker.cooldown, "routing circuit breaker opened");
                }
                self.metrics.routing_result(RoutingResult::Failed);
                tracing::warn!("the router's table failed: dispatch ranks by the offline estimate");
                offline()
            }
        }
    }
}

impl RoutingProvider for OsrmRouter {
    fn route<'a>(&'a self, waypoints: &'a [RoutePoint], vehicle: &'a VehicleType) -> RouteFuture<'a> {
        Box::pin(self.estimate(waypoints, vehicle))
    }

    fn durations<'a>(
        &'a self,
        sources: &'a [GeoPoint],
        destinations: &'a [GeoPoint],
        vehicle: &'a VehicleType,
    ) -> DurationsFuture<'a> {
        Box::pin(self.table(sources, destinations, vehicle))
    }
}

/// Counts the routes that failed in a row; open, it lets no call through
/// until its cooldown ends, then one.
struct Breaker {
    cooldown: Duration,
    state: Mutex<BreakerState>,
}

#[derive(Default)]
struct BreakerState {
    failures_in_a_row: u32,
    /// While set and in the future, calls are refused.
    open_until: Option<Instant>,
}

impl Breaker {
    fn new(cooldown: Duration) -> Breaker {
        Breaker {
            cooldown,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, BreakerState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether a call may go out at `now`. After the cooldown one call does
    /// (the breaker stays open for the others until it ends).
    fn allows_call(&self, now: Instant) -> bool {
        let mut state = self.state();
        match state.open_until {
            Some(until) if now < until => false,
            Some(_) => {
                state.open_until = Some(now + self.cooldown);
                true
            }
            None => true,
        }
    }

    fn succeeded(&self) {
        *self.state() = BreakerState::default();
    }

    /// Records a route that failed at `now`; whether the breaker opened.
    fn failed(&self, now: Instant) -> bool {
        let mut state = self.state();
        state.failures_in_a_row += 1;
        let was_open = state.open_until.is_some();
        if was_open || state.failures_in_a_row >= BREAKER_THRESHOLD {
            state.open_until = Some(now + self.cooldown);
        }
        !was_open && state.open_until.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_opens_after_failures_in_a_row_and_tries_again_after_its_cooldown() {
        let cooldown = Duration::from_secs(30);
        let breaker = Breaker::new(cooldown);
        let start = Instant::now();
        for _ in 1..BREAKER_THRESHOLD {
            assert!(!breaker.failed(start));
            assert!(breaker.allows_call(start));
        }
        assert!(breaker.failed(start), "the fifth failure opens it");
        assert!(!breaker.allows_call(start + cooldown / 2));
        let later = start + cooldown;
        assert!(breaker.allows_call(later), "one call after the cooldown");
        assert!(!breaker.allows_call(later), "only one");
        assert!(!breaker.failed(later), "it failed: open again, not newly");
        assert!(!breaker.allows_call(later + cooldown / 2));
        let again = later + cooldown;
        assert!(breaker.allows_call(again));
        breaker.succeeded();
        assert!(breaker.allows_call(again));
        assert!(breaker.allows_call(again), "closed");
    }

    #[test]
    fn a_success_resets_the_count() {
        let breaker = Breaker::new(Duration::from_secs(60));
        let now = Instant::now();
        for _ in 1..BREAKER_THRESHOLD {
            breaker.failed(now);
        }
        breaker.succeeded();
        assert!(!breaker.failed(now));
        assert!(breaker.allows_call(now));
    }
}
