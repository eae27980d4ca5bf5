//! Route distance and duration behind one interface, so pricing does not
//! care where the estimate comes from.
//!
//! The default, [`OfflineRouter`], needs no network and no map data: it sums
//! great-circle legs, stretches them by a road factor to approximate the
//! street network, and derives the duration from an average city speed per
//! vehicle type plus handling time at each waypoint. It is deterministic,
//! which also makes quotes reproducible in tests.
//!
//! The road router, `osrm::OsrmRouter`, calls an OSRM server with the
//! waypoints in order and the vehicle type's profile, falling back to this
//! one; the configuration chooses between them (`courier_pricing::router_from_config`).

use std::future::Future;
use std::pin::Pin;

use crate::catalog::VehicleType;
use crate::geo::{GeoPoint, distance_km};
use courier_store::error::CoreResult;

/// A waypoint with the request field it came from, for error `param`s.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutePoint {
    /// `pickup`, `stops.N` or `dropoff`.
    pub param: String,
    pub point: GeoPoint,
}

/// Distance and driving time of a route through all waypoints in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouteEstimate {
    pub distance_km: f64,
    pub duration_min: i64,
}

/// The future a [`RoutingProvider`] returns: boxed so the trait stays
/// dyn-compatible and usable as `Arc<dyn RoutingProvider>`.
pub type RouteFuture<'a> = Pin<Box<dyn Future<Output = CoreResult<RouteEstimate>> + Send + 'a>>;

/// Driving seconds from each source to each destination (`None` where no
/// route), as [`RoutingProvider::durations`] answers.
pub type Durations = Vec<Vec<Option<f64>>>;

/// The future of [`RoutingProvider::durations`].
pub type DurationsFuture<'a> = Pin<Box<dyn Future<Output = Durations> + Send + 'a>>;

/// Estimates routes for a vehicle type.
pub trait RoutingProvider: Send + Sync {
    /// The route through `waypoints` (pickup, stops, dropoff, in driving
    /// order) for `vehicle`. A route that cannot be driven is a refusal
    /// naming the waypoint; a router that cannot answer is `upstream_error`.
    fn route<'a>(&'a self, waypoints: &'a [RoutePoint], vehicle: &'a VehicleType) -> RouteFuture<'a>;

    /// The driving time from each of `sources` to each of `destinations`
    /// for `vehicle`, in one ask where the router can (what a dispatch round
    /// ranks couriers by). Never fails: a pair without a route is `None`,
    /// and a router that cannot answer gives the offline estimate instead,
    /// since an approximate ranking still dispatches. By default, each pair
    /// is a route of its own.
    fn durations<'a>(
        &'a self,
        sources: &'a [GeoPoint],
        destinations: &'a [GeoPoint],
        vehicle: &'a VehicleType,
    ) -> DurationsFuture<'a> {
        Box::pin(async move {
            let mut rows = Vec::with_capacity(sources.len());
            for from in sources {
                let mut row = Vec::with_capacity(destinations.len());
                for to in destinations {
                    let leg = [
                        RoutePoint {
                            param: "from".into(),
                            point: *from,
                        },
                        RoutePoint {
                            param: "to".into(),
                            point: *to,
                        },
                    ];
                    let route = self.route(&leg, vehicle).await.ok();
                    row.push(route.map(|r| r.duration_min as f64 * 60.0));
                }
                rows.push(row);
            }
            rows
        })
    }
}

/// Road distance per great-circle distance in a typical European city.
pub const DEFAULT_ROAD_FACTOR: f64 = 1.3;
/// Minutes to park, find the door and hand over, at every waypoint after the
/// pickup (the courier is already on site when the route starts).
pub const DEFAULT_HANDLING_MIN_PER_STOP: i64 = 3;
/// Average city speed of a vehicle type the router has no speed for.
pub const DEFAULT_SPEED_KMH: f64 = 20.0;

/// The network-free default router; see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct OfflineRouter {
    road_factor: f64,
    handling_min_per_stop: i64,
    default_speed_kmh: f64,
    speeds_kmh: Vec<(String, f64)>,
}

impl Default for OfflineRouter {
    /// Factor 1.3, 3 minutes per stop, and average door-to-door city speeds
    /// for the built-in vehicle types (bicycle 15, cargo bike 13, car 25,
    /// vans 22 km/h); other vehicle types get 20 km/h.
    fn default() -> Self {
        OfflineRouter {
            road_factor: DEFAULT_ROAD_FACTOR,
            handling_min_per_stop: DEFAULT_HANDLING_MIN_PER_STOP,
            default_speed_kmh: DEFAULT_SPEED_KMH,
            speeds_kmh: [
                ("bicycle", 15.0),
                ("cargo_bike", 13.0),
                ("car", 25.0),
                ("small_van", 22.0),
                ("large_van", 22.0),
            ]
            .into_iter()
            .map(|(id, speed)| (id.to_owned(), speed))
            .collect(),
        }
    }
}

impl OfflineRouter {
    /// Sets the average speed of `vehicle_type_id` (ignored unless finite and
    /// positive).
    pub fn with_speed(mut self, vehicle_type_id: &str, speed_kmh: f64) -> Self {
        if speed_kmh.is_finite() && speed_kmh > 0.0 {
            self.speeds_kmh.retain(|(id, _)| id != vehicle_type_id);
            self.speeds_kmh.push((vehicle_type_id.to_owned(), speed_kmh));
        }
        self
    }

    /// The average speed used for `vehicle_type_id`.
    pub fn speed_kmh(&self, vehicle_type_id: &str) -> f64 {
        self.speeds_kmh
            .iter()
            .find(|(id, _)| id == vehicle_type_id)
            .map_or(self.default_speed_kmh, |(_, speed)| *speed)
    }

    /// The estimate, computed synchronously: road distance is the sum of the
    /// great-circle legs times the road factor; duration is driving time at
    /// the vehicle's speed plus handling time per waypoint after the first,
    /// rounded up to whole minutes and at least 1.
    pub fn estimate(&self, waypoints: &[GeoPoint], vehicle_type_id: &str) -> RouteEstimate {
        let great_circle_km: f64 = waypoints.windows(2).map(|leg| distance_km(leg[0], leg[1])).sum();
        let distance_km = great_circle_km * self.road_factor;
        let driving_min = distance_km / self.speed_kmh(vehicle_type_id) * 60.0;
        let stops = waypoints.len().saturating_sub(1) as f64;
        let total_min = driving_min + stops * self.handling_min_per_stop as f64;
        // Saturating float-to-int conversion; real routes are far below.
        let duration_min = (total_min.ceil() as i64).max(1);
        RouteEstimate {
            distance_km,
            duration_min,
        }
    }
}

impl OfflineRouter {
    /// Driving seconds from each of `sources` to each of `destinations`: the
    /// estimate's driving time, without handling.
    pub fn driving_seconds(&self, sources: &[GeoPoint], destinations: &[GeoPoint], vehicle_type_id: &str) -> Durations {
        let speed_kmh = self.speed_kmh(vehicle_type_id);
        sources
            .iter()
            .map(|from| {
                destinations
                    .iter()
                    .map(|to| Some(distance_km(*from, *to) * self.road_factor / speed_kmh * 3600.0))
                    .collect()
            })
            .collect()
    }
}

impl RoutingProvider for OfflineRouter {
    fn route<'a>(&'a self, waypoints: &'a [RoutePoint], vehicle: &'a VehicleType) -> RouteFuture<'a> {
        let points: Vec<GeoPoint> = waypoints.iter().map(|w| w.point).collect();
        let estimate = self.estimate(&points, &vehicle.id);
        Box::pin(async move { Ok(estimate) })
    }

    fn durations<'a>(
        &'a self,
        sources: &'a [GeoPoint],
        destinations: &'a [GeoPoint],
        vehicle: &'a VehicleType,
    ) -> DurationsFuture<'a> {
        let durations = self.driving_seconds(sources, destinations, &vehicle.id);
        Box::pin(async move { durations })
    }
}

/// Minutes to add to a router's driving time for handling at every
/// waypoint after the pickup, as the offline estimate does.
pub fn with_handling(driving_seconds: f64, waypoints: usize) -> i64 {
    let stops = waypoints.saturating_sub(1) as f64;
    let total_min = driving_seconds / 60.0 + stops * DEFAULT_HANDLING_MIN_PER_STOP as f64;
    (total_min.ceil() as i64).max(1)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(future)
    }

    #[test]
    fn usable_as_shared_trait_object() {
        let router: Arc<dyn RoutingProvider> = Arc::new(OfflineRouter::default());
        let points = [GeoPoint::new(52.52, 13.40), GeoPoint::new(52.50, 13.45)];
        let waypoints: Vec<RoutePoint> = points
            .iter()
            .map(|point| RoutePoint {
                param: "pickup".into(),
                point: *point,
            })
            .collect();
        let catalog = crate::catalog::Catalog::load(None).expect("catalogue");
        let car = catalog.vehicle_type("car").expect("car");
        let estimate = block_on(router.route(&waypoints, car)).expect("route");
        assert_eq!(estimate, OfflineRouter::default().estimate(&points, "car"));
    }

    #[test]
    fn distance_is_great_circle_times_road_factor() {
        let router = OfflineRouter::default();
        let a = GeoPoint::new(52.52, 13.40);
        let b = GeoPoint::new(52.50, 13.45);
        let c = GeoPoint::new(52.48, 13.35);
        let estimate = router.estimate(&[a, b, c], "bicycle");
        let expected = (distance_km(a, b) + distance_km(b, c)) * 1.3;
        assert!((estimate.distance_km - expected).abs() < 1e-9);
    }

    #[test]
    fn duration_uses_vehicle_speed_and_handling_time() {
        let router = OfflineRouter::default();
        // 9.99 km due north, so 12.987 km of road.
        let a = GeoPoint::new(52.0, 13.0);
        let b = GeoPoint::new(52.0 + (9.99 / crate::geo::EARTH_RADIUS_KM).to_degrees(), 13.0);
        let cargo_bike = router.estimate(&[a, b], "cargo_bike"); // 59.94 min + 3
        assert!((cargo_bike.distance_km - 12.987).abs() < 1e-6);
        assert_eq!(cargo_bike.duration_min, 63);
        let car = router.estimate(&[a, b], "car"); // 31.17 min + 3
        assert_eq!(car.duration_min, 35);
        let unknown = router.estimate(&[a, b], "hovercraft"); // 38.96 min + 3
        assert_eq!(unknown.duration_min, 42);
        let faster = router.clone().with_speed("hovercraft", 78.0); // 9.99 min + 3
        assert_eq!(faster.estimate(&[a, b], "hovercraft").duration_min, 13);
        let with_stop = router.estimate(&[a, b, a], "cargo_bike"); // 119.88 + 6
        assert_eq!(with_stop.duration_min, 126);
    }

    #[test]
    fn degenerate_routes_take_a_minute() {
        let router = OfflineRouter::default();
        let a = GeoPoint::new(52.52, 13.40);
        assert_eq!(
            router.estimate(&[a], "car"),
            RouteEstimate {
                distance_km: 0.0,
                duration_min: 1
            }
        );
        assert_eq!(router.estimate(&[], "car").duration_min, 1);
        // Same place twice: only handling time.
        assert_eq!(router.estimate(&[a, a], "car").duration_min, 3);
    }
}
