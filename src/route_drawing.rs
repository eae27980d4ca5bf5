//! The geometry of a route drawing: a delivery's points (pickup, stops,
//! dropoff) and the courier's position, on a flat projection fitted to a
//! box. The public tracking page and the console draw the same picture from
//! it, each in its own markup.

/// Points of one drawing, in the box's coordinates (x right, y down).
#[derive(Clone, Debug, PartialEq)]
pub struct Projected {
    /// The route in driving order: pickup, stops, dropoff.
    pub route: Vec<(f64, f64)>,
    pub courier: Option<(f64, f64)>,
}

impl Projected {
    /// The route as an SVG `points` attribute.
    pub fn polyline(&self) -> String {
        let points: Vec<String> = self.route.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        points.join(" ")
    }
}

/// Projects `route` (latitude, longitude in driving order) and the courier's
/// position into a `width` × `height` box with `margin` on every side,
/// keeping distances true in both directions at the route's latitude.
pub fn project(route: &[(f64, f64)], courier: Option<(f64, f64)>, width: f64, height: f64, margin: f64) -> Projected {
    let mut all = route.to_vec();
    all.extend(courier);
    if all.is_empty() {
        return Projected {
            route: Vec::new(),
            courier: None,
        };
    }
    let mean_lat = all.iter().map(|p| p.0).sum::<f64>() / all.len() as f64;
    let x_scale = mean_lat.to_radians().cos().max(0.1);
    let flat = |(lat, lng): (f64, f64)| (lng * x_scale, -lat);
    let flats: Vec<(f64, f64)> = all.iter().copied().map(flat).collect();
    let min_x = flats.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let max_x = flats.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let min_y = flats.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let max_y = flats.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let (span_x, span_y) = (max_x - min_x, max_y - min_y);
    // A route of one point (or a line) must not scale to infinity.
    let scale = ((width - 2.0 * margin) / span_x.max(1e-4)).min((height - 2.0 * margin) / span_y.max(1e-4));
    // Centred in the box, whatever the route's shape.
    let (offset_x, offset_y) = ((width - span_x * scale) / 2.0, (height - span_y * scale) / 2.0);
    let place = |point: (f64, f64)| {
        let (x, y) = flat(point);
        ((x - min_x) * scale + offset_x, (y - min_y) * scale + offset_y)
    };
    Projected {
        route: route.iter().copied().map(place).collect(),
        courier: courier.map(place),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_the_box_and_keeps_north_up() {
        let drawing = project(
            &[(52.50, 13.40), (52.52, 13.42)],
            Some((52.51, 13.41)),
            320.0,
            220.0,
            26.0,
        );
        for (x, y) in drawing.route.iter().chain(drawing.courier.iter()) {
            assert!(
                (26.0 - 1e-9..=294.0 + 1e-9).contains(x) && (26.0 - 1e-9..=194.0 + 1e-9).contains(y),
                "{x},{y}"
            );
        }
        let (south, north) = (drawing.route[0], drawing.route[1]);
        assert!(north.1 < south.1, "north is up");
        let courier = drawing.courier.expect("courier");
        assert!(courier.0 > south.0 && courier.0 < north.0);
    }

    #[test]
    fn a_single_point_is_centred() {
        let drawing = project(&[(52.5, 13.4)], None, 100.0, 100.0, 10.0);
        let (x, y) = drawing.route[0];
        assert!((x - 50.0).abs() < 1e-6 && (y - 50.0).abs() < 1e-6, "{x},{y}");
    }
}
