//! The console's maps (dispatch, booking): SVG on the web Mercator
//! projection, drawn on the server, so that service areas and markers need
//! nothing from another site; with `COURIER_MAP_TILES_URL` a tile server's
//! street tiles are laid under them on the same projection.

use std::f64::consts::PI;

use courier::internal::v1 as ipb;

/// The map's width and height in its own units (screen pixels at full size).
pub(crate) const MAP_WIDTH: f64 = 1000.0;
pub(crate) const MAP_HEIGHT: f64 = 640.0;
/// A tile's side on the Mercator plane, in map units.
pub(crate) const TILE: f64 = 256.0;
/// The closest zoom the map fits to.
pub(crate) const MAX_ZOOM: u32 = 17;

/// A point of the map in its units.
#[derive(Clone, Copy)]
pub(crate) struct Xy {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// The web Mercator plane at one zoom: where the map's points fall.
pub(crate) struct Projection {
    pub(crate) zoom: u32,
    /// The map's top left corner on the plane.
    pub(crate) left: f64,
    pub(crate) top: f64,
}

impl Projection {
    fn plane(point: &ipb::MapPoint, zoom: u32) -> Xy {
        let size = TILE * f64::from(1u32 << zoom);
        let latitude = point.latitude.clamp(-85.05, 85.05).to_radians();
        Xy {
            x: (point.longitude + 180.0) / 360.0 * size,
            y: (1.0 - (latitude.tan() + 1.0 / latitude.cos()).ln() / PI) / 2.0 * size,
        }
    }

    /// The closest zoom at which all of `points` fit the map, centred.
    pub(crate) fn fitting(points: &[&ipb::MapPoint]) -> Projection {
        let bounds = |zoom| {
            points.iter().fold(None, |bounds: Option<(Xy, Xy)>, point| {
                let p = Projection::plane(point, zoom);
                Some(match bounds {
                    None => (p, p),
                    Some((low, high)) => (
                        Xy {
                            x: low.x.min(p.x),
                            y: low.y.min(p.y),
                        },
                        Xy {
                            x: high.x.max(p.x),
                            y: high.y.max(p.y),
                        },
                    ),
                })
            })
        };
        let fits = |zoom: u32| {
            bounds(zoom)
                .is_none_or(|(low, high)| high.x - low.x <= MAP_WIDTH * 0.9 && high.y - low.y <= MAP_HEIGHT * 0.9)
        };
        let zoom = (1..=MAX_ZOOM).rev().find(|&zoom| fits(zoom)).unwrap_or(1);
        let (centre_x, centre_y) = match bounds(zoom) {
            Some((low, high)) => ((low.x + high.x) / 2.0, (low.y + high.y) / 2.0),
            None => (TILE, TILE),
        };
        Projection {
            zoom,
            left: centre_x - MAP_WIDTH / 2.0,
            top: centre_y - MAP_HEIGHT / 2.0,
        }
    }

    pub(crate) fn at(&self, point: &ipb::MapPoint) -> Xy {
        let p = Projection::plane(point, self.zoom);
        Xy {
            x: p.x - self.left,
            y: p.y - self.top,
        }
    }

    /// The tiles of `template` (`{z}`, `{x}`, `{y}`) under the map.
    pub(crate) fn tiles(&self, template: &str) -> Vec<Tile> {
        let count = i64::from(1u32 << self.zoom);
        let first_x = (self.left / TILE).floor() as i64;
        let last_x = ((self.left + MAP_WIDTH) / TILE).floor() as i64;
        let first_y = ((self.top / TILE).floor() as i64).max(0);
        let last_y = (((self.top + MAP_HEIGHT) / TILE).floor() as i64).min(count - 1);
        let mut tiles = Vec::new();
        for ty in first_y..=last_y {
            for tx in first_x..=last_x {
                let href = template
                    .replace("{z}", &self.zoom.to_string())
                    .replace("{x}", &tx.rem_euclid(count).to_string())
                    .replace("{y}", &ty.to_string());
                tiles.push(Tile {
                    href,
                    x: format!("{:.1}", tx as f64 * TILE - self.left),
                    y: format!("{:.1}", ty as f64 * TILE - self.top),
                });
            }
        }
        tiles
    }
}

pub(crate) struct Tile {
    pub(crate) href: String,
    pub(crate) x: String,
    pub(crate) y: String,
}

/// A service area's outline, as the map draws it.
pub(crate) struct Area {
    pub(crate) name: String,
    pub(crate) points: String,
}

impl Area {
    pub(crate) fn of(area: &ipb::MapArea, projection: &Projection) -> Area {
        Area {
            name: area.name.clone(),
            points: area
                .outline
                .iter()
                .map(|p| {
                    let at = projection.at(p);
                    format!("{:.1},{:.1}", at.x, at.y)
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(latitude: f64, longitude: f64) -> ipb::MapPoint {
        ipb::MapPoint { latitude, longitude }
    }

    #[test]
    fn the_map_fits_its_points_and_tiles_cover_it() {
        let (west, east) = (point(52.52, 13.30), point(52.50, 13.50));
        let projection = Projection::fitting(&[&west, &east]);
        let (a, b) = (projection.at(&west), projection.at(&east));
        for p in [a, b] {
            assert!((0.0..=MAP_WIDTH).contains(&p.x) && (0.0..=MAP_HEIGHT).contains(&p.y));
        }
        assert!(
            b.x - a.x > MAP_WIDTH * 0.45,
            "as close as fits: zoom {}",
            projection.zoom
        );
        assert!(a.y < b.y, "north is up");
        let tiles = projection.tiles("https://t.example.com/{z}/{x}/{y}.png");
        assert!(tiles.len() >= 12 && tiles.len() <= 20, "{}", tiles.len());
        let first = &tiles[0].href;
        assert!(
            first.starts_with(&format!("https://t.example.com/{}/", projection.zoom)),
            "{first}"
        );
    }
}
