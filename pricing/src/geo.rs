//! Plane and sphere geometry for quoting: which service area a waypoint lies
//! in, and how far apart two waypoints are.
//!
//! Service areas are city-sized, so containment is decided on the
//! longitude/latitude plane (ray casting), which is exact enough at that scale
//! and needs no projection. Polygons must not cross the antimeridian; no
//! shipped or plausible courier area does. Distances are great-circle
//! (haversine) on a spherical Earth, the basis of the offline router's road
//! estimate.

use serde::{Deserialize, Serialize};

/// Mean Earth radius in kilometres (IUGG), used by [`distance_km`].
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// A WGS 84 position in decimal degrees.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoPoint {
    pub latitude: f64,
    pub longitude: f64,
}

impl GeoPoint {
    pub const fn new(latitude: f64, longitude: f64) -> Self {
        GeoPoint { latitude, longitude }
    }

    /// Whether both coordinates are finite and within −90..=90 (latitude)
    /// and −180..=180 (longitude).
    pub fn is_valid(&self) -> bool {
        self.latitude.is_finite()
            && self.longitude.is_finite()
            && (-90.0..=90.0).contains(&self.latitude)
            && (-180.0..=180.0).contains(&self.longitude)
    }
}

/// Great-circle distance between `a` and `b` in kilometres (haversine).
pub fn distance_km(a: GeoPoint, b: GeoPoint) -> f64 {
    let lat_a = a.latitude.to_radians();
    let lat_b = b.latitude.to_radians();
    let half_dlat = (b.latitude - a.latitude).to_radians() / 2.0;
    let half_dlon = (b.longitude - a.longitude).to_radians() / 2.0;
    let h = half_dlat.sin().powi(2) + lat_a.cos() * lat_b.cos() * half_dlon.sin().powi(2);
    // Rounding can push `h` a hair outside [0, 1] for (near-)antipodal points.
    2.0 * EARTH_RADIUS_KM * h.clamp(0.0, 1.0).sqrt().asin()
}

/// A simple polygon (one outer ring, no holes) on the longitude/latitude
/// plane.
///
/// In catalogue JSON a polygon is written as GeoJSON writes a ring: an array
/// of `[longitude, latitude]` pairs (longitude first). Closing the ring by
/// repeating the first vertex is allowed but not needed. Vertices must be
/// valid coordinates and there must be at least three distinct ones; a
/// catalogue with anything else is refused when it is loaded.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Vec<[f64; 2]>")]
pub struct Polygon {
    vertices: Vec<GeoPoint>,
}

impl Polygon {
    /// A polygon from its vertices in order (either orientation). A repeated
    /// closing vertex is dropped.
    pub fn new(mut vertices: Vec<GeoPoint>) -> Result<Self, String> {
        if let Some(index) = vertices.iter().position(|v| !v.is_valid()) {
            return Err(format!("vertex {index} is not a valid [longitude, latitude] pair"));
        }
        if vertices.len() > 1 && vertices.first() == vertices.last() {
            vertices.pop();
        }
        let mut distinct: Vec<GeoPoint> = Vec::with_capacity(vertices.len());
        for vertex in &vertices {
            if !distinct.contains(vertex) {
                distinct.push(*vertex);
            }
        }
        if distinct.len() < 3 {
            return Err(format!(
                "a polygon needs at least 3 distinct vertices, got {}",
                distinct.len()
            ));
        }
        Ok(Polygon { vertices })
    }

    /// The vertices in order, without a closing repeat.
    pub fn vertices(&self) -> &[GeoPoint] {
        &self.vertices
    }

    /// Whether `point` lies inside the polygon (even-odd rule, ray casting
    /// towards increasing longitude). Points exactly on an edge may land on
    /// either side; service area borders are never that precise anyway.
    pub fn contains(&self, point: GeoPoint) -> bool {
        if !point.is_valid() {
            return false;
        }
        let (x, y) = (point.longitude, point.latitude);
        let mut inside = false;
        let Some(&last) = self.vertices.last() else {
            return false;
        };
        let mut previous = last;
        for &current in &self.vertices {
            let (xi, yi) = (current.longitude, current.latitude);
            let (xj, yj) = (previous.longitude, previous.latitude);
            // The edge straddles the horizontal line through the point (one
            // end strictly above, the other on or below), so `yj - yi` is
            // never zero here.
            if (yi > y) != (yj > y) {
                let crossing_x = xi + (y - yi) * (xj - xi) / (yj - yi);
                if x < crossing_x {
                    inside = !inside;
                }
            }
            previous = current;
        }
        inside
    }
}

impl TryFrom<Vec<[f64; 2]>> for Polygon {
    type Error = String;

    fn try_from(pairs: Vec<[f64; 2]>) -> Result<Self, Self::Error> {
        Polygon::new(
            pairs
                .into_iter()
                .map(|[longitude, latitude]| GeoPoint::new(latitude, longitude))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Polygon {
        Polygon::new(vec![
            GeoPoint::new(0.0, 0.0),
            GeoPoint::new(0.0, 10.0),
            GeoPoint::new(10.0, 10.0),
            GeoPoint::new(10.0, 0.0),
        ])
        .expect("valid square")
    }

    #[test]
    fn haversine_matches_known_distances() {
        let berlin = GeoPoint::new(52.5200, 13.4050);
        let paris = GeoPoint::new(48.8566, 2.3522);
        let d = distance_km(berlin, paris);
        assert!((d - 878.0).abs() < 3.0, "Berlin–Paris is about 878 km, got {d}");
        assert_eq!(distance_km(berlin, berlin), 0.0);
        // One degree of latitude is about 111.2 km everywhere.
        let d = distance_km(GeoPoint::new(10.0, 20.0), GeoPoint::new(11.0, 20.0));
        assert!((d - 111.19).abs() < 0.05, "got {d}");
        // Symmetric.
        assert_eq!(distance_km(berlin, paris), distance_km(paris, berlin));
    }

    #[test]
    fn haversine_survives_antipodes() {
        let d = distance_km(GeoPoint::new(0.0, 0.0), GeoPoint::new(0.0, 180.0));
        assert!((d - std::f64::consts::PI * EARTH_RADIUS_KM).abs() < 1e-6);
    }

    #[test]
    fn ray_casting_inside_outside() {
        let square = square();
        assert!(square.contains(GeoPoint::new(5.0, 5.0)));
        assert!(square.contains(GeoPoint::new(0.1, 9.9)));
        assert!(!square.contains(GeoPoint::new(-0.1, 5.0)));
        assert!(!square.contains(GeoPoint::new(5.0, 10.1)));
        assert!(!square.contains(GeoPoint::new(50.0, 50.0)));
        // A ray through a vertex counts once, not twice.
        assert!(!square.contains(GeoPoint::new(10.0, -5.0)));
        assert!(!square.contains(GeoPoint::new(f64::NAN, 5.0)));
    }

    #[test]
    fn concave_polygon() {
        // A "U" open to the north: the notch is outside.
        let u = Polygon::new(vec![
            GeoPoint::new(0.0, 0.0),
            GeoPoint::new(0.0, 3.0),
            GeoPoint::new(3.0, 3.0),
            GeoPoint::new(3.0, 2.0),
            GeoPoint::new(1.0, 2.0),
            GeoPoint::new(1.0, 1.0),
            GeoPoint::new(3.0, 1.0),
            GeoPoint::new(3.0, 0.0),
        ])
        .expect("valid U");
        assert!(u.contains(GeoPoint::new(0.5, 1.5)));
        assert!(u.contains(GeoPoint::new(2.0, 0.5)));
        assert!(u.contains(GeoPoint::new(2.0, 2.5)));
        assert!(!u.contains(GeoPoint::new(2.0, 1.5)));
    }

    #[test]
    fn json_is_longitude_first_and_may_be_closed() {
        let polygon: Polygon =
            serde_json::from_str("[[13.0, 52.0], [14.0, 52.0], [14.0, 53.0], [13.0, 52.0]]").expect("valid ring");
        assert_eq!(polygon.vertices().len(), 3);
        assert_eq!(polygon.vertices()[1], GeoPoint::new(52.0, 14.0));
        assert!(polygon.contains(GeoPoint::new(52.2, 13.9)));
    }

    #[test]
    fn degenerate_or_invalid_polygons_are_refused() {
        assert!(serde_json::from_str::<Polygon>("[[13.0, 52.0], [14.0, 52.0]]").is_err());
        assert!(serde_json::from_str::<Polygon>("[[13.0, 52.0], [14.0, 52.0], [13.0, 52.0]]").is_err());
        assert!(serde_json::from_str::<Polygon>("[[13.0, 52.0], [14.0, 52.0], [200.0, 53.0]]").is_err());
        assert!(serde_json::from_str::<Polygon>("[[13.0, 52.0], [14.0, 52.0], [14.0, 95.0]]").is_err());
    }
}
