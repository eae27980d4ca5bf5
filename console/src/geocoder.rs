//! Finding a place by its address for the booking form (docs/console.md
//! "Booking"): one interface over a geocoding service's HTTP API, either
//! Nominatim's `/search` or Photon's `/api`, at `COURIER_GEOCODER_URL`.
//! The public API takes coordinates only (docs/guide.md "Places"); this is
//! the console's help in finding them, so it lives in the console. Without
//! a geocoder the form's map sets a point with a click.

use std::time::Duration;

use serde::Deserialize;

/// How long a search may take before the form says the service is away.
const TIMEOUT: Duration = Duration::from_secs(5);
/// Places offered for one address.
const CANDIDATES: usize = 5;

/// The geocoding service's API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum GeocoderApi {
    /// Nominatim's search (`https://nominatim.example.org/search`).
    #[default]
    Nominatim,
    /// Photon's search (`https://photon.example.org/api`).
    Photon,
}

/// The console's geocoder settings.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct GeocoderArgs {
    /// A geocoding service's search URL (Nominatim's `…/search` or Photon's
    /// `…/api`): the booking form finds places by address. Without it, a
    /// click on the form's map sets a point.
    #[arg(
        id = "geocoder_url",
        long = "geocoder-url",
        env = "COURIER_GEOCODER_URL",
        value_name = "URL"
    )]
    pub url: Option<String>,
    /// Which API `COURIER_GEOCODER_URL` speaks.
    #[arg(
        id = "geocoder_api",
        value_name = "API",
        long = "geocoder-api",
        env = "COURIER_GEOCODER_API",
        value_enum,
        default_value_t = GeocoderApi::Nominatim
    )]
    pub api: GeocoderApi,
}

/// `COURIER_GEOCODER_URL` is not an http(s) URL.
#[derive(Debug, thiserror::Error)]
#[error("COURIER_GEOCODER_URL must be an http(s) URL, such as https://nominatim.example.org/search; got {0:?}")]
pub struct GeocoderUrlError(String);

/// Why a search found nothing to offer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GeocodeError {
    #[error("the address search did not answer ({0})")]
    Unreachable(String),
    #[error("the address search answered {0}")]
    Refused(reqwest::StatusCode),
    #[error("the address search's answer could not be read ({0})")]
    Unreadable(String),
}

/// A place found for an address.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Place {
    /// How the service names it ("1, Alexanderplatz, Mitte, Berlin, …").
    pub(crate) label: String,
    pub(crate) latitude: f64,
    pub(crate) longitude: f64,
}

/// Where the places searched for probably are: the service areas' bounds
/// (west, south, east, north), preferred by the search, not enforced.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) west: f64,
    pub(crate) south: f64,
    pub(crate) east: f64,
    pub(crate) north: f64,
}

impl Bounds {
    /// The bounds of `points` (latitude, longitude); none without points.
    pub(crate) fn around(points: impl Iterator<Item = (f64, f64)>) -> Option<Bounds> {
        points.fold(None, |bounds, (latitude, longitude)| {
            let b = bounds.unwrap_or(Bounds {
                west: longitude,
                south: latitude,
                east: longitude,
                north: latitude,
            });
            Some(Bounds {
                west: b.west.min(longitude),
                south: b.south.min(latitude),
                east: b.east.max(longitude),
                north: b.north.max(latitude),
            })
        })
    }
}

/// A geocoding service.
#[derive(Clone, Debug)]
pub struct Geocoder {
    client: reqwest::Client,
    url: url::Url,
    api: GeocoderApi,
}

impl Geocoder {
    /// The geocoder of `args`; none where no URL is set.
    pub fn of(args: &GeocoderArgs) -> Result<Option<Geocoder>, GeocoderUrlError> {
        let Some(text) = args.url.as_deref().filter(|u| !u.trim().is_empty()) else {
            return Ok(None);
        };
        let refused = || GeocoderUrlError(text.to_owned());
        let url = url::Url::parse(text.trim()).map_err(|_| refused())?;
        if !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
            return Err(refused());
        }
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::limited(3))
            // Nominatim's usage policy asks every application to name itself.
            .user_agent(concat!("courier-console/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|_| refused())?;
        Ok(Some(Geocoder {
            client,
            url,
            api: args.api,
        }))
    }

    /// The places `query` names, best first, those within `near` preferred.
    pub(crate) async fn search(&self, query: &str, near: Option<Bounds>) -> Result<Vec<Place>, GeocodeError> {
        let limit = CANDIDATES.to_string();
        let mut url = self.url.clone();
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("q", query).append_pair("limit", &limit);
            match (self.api, near) {
                (GeocoderApi::Nominatim, near) => {
                    pairs.append_pair("format", "jsonv2");
                    if let Some(b) = near {
                        let viewbox = format!("{},{},{},{}", b.west, b.north, b.east, b.south);
                        pairs.append_pair("viewbox", &viewbox);
                    }
                }
                (GeocoderApi::Photon, Some(b)) => {
                    // Photon biases towards one point: the areas' centre.
                    pairs
                        .append_pair("lat", &((b.south + b.north) / 2.0).to_string())
                        .append_pair("lon", &((b.west + b.east) / 2.0).to_string());
                }
                (GeocoderApi::Photon, None) => {}
            }
        }
        let answer = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|e| GeocodeError::Unreachable(without_url(e)))?;
        if !answer.status().is_success() {
            return Err(GeocodeError::Refused(answer.status()));
        }
        let body = answer
            .bytes()
            .await
            .map_err(|e| GeocodeError::Unreachable(without_url(e)))?;
        let places = match self.api {
            GeocoderApi::Nominatim => nominatim_places(&body),
            GeocoderApi::Photon => photon_places(&body),
        }
        .map_err(|e| GeocodeError::Unreadable(e.to_string()))?;
        Ok(places.into_iter().take(CANDIDATES).collect())
    }
}

/// A transport error in words, without the URL (which may hold a key).
fn without_url(error: reqwest::Error) -> String {
    if error.is_timeout() {
        "it took too long".into()
    } else {
        error.without_url().to_string()
    }
}

/// Nominatim's `format=jsonv2` answer: an array of places, coordinates as
/// strings.
fn nominatim_places(body: &[u8]) -> Result<Vec<Place>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Found {
        lat: String,
        lon: String,
        display_name: String,
    }
    let found: Vec<Found> = serde_json::from_slice(body)?;
    Ok(found
        .into_iter()
        .filter_map(|f| {
            Some(Place {
                latitude: f.lat.parse().ok()?,
                longitude: f.lon.parse().ok()?,
                label: f.display_name,
            })
        })
        .collect())
}

/// Photon's answer: GeoJSON features, `[longitude, latitude]`, the name in
/// parts.
fn photon_places(body: &[u8]) -> Result<Vec<Place>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Collection {
        features: Vec<Feature>,
    }
    #[derive(Deserialize)]
    struct Feature {
        geometry: Geometry,
        #[serde(default)]
        properties: Properties,
    }
    #[derive(Deserialize)]
    struct Geometry {
        coordinates: Vec<f64>,
    }
    #[derive(Default, Deserialize)]
    struct Properties {
        name: Option<String>,
        street: Option<String>,
        housenumber: Option<String>,
        postcode: Option<String>,
        city: Option<String>,
        country: Option<String>,
    }
    let collection: Collection = serde_json::from_slice(body)?;
    Ok(collection
        .features
        .into_iter()
        .filter_map(|f| {
            let (&longitude, &latitude) = (f.geometry.coordinates.first()?, f.geometry.coordinates.get(1)?);
            let p = f.properties;
            let street = match (p.street, p.housenumber) {
                (Some(street), Some(number)) => Some(format!("{street} {number}")),
                (street, _) => street,
            };
            let town = match (p.postcode, p.city) {
                (Some(code), Some(city)) => Some(format!("{code} {city}")),
                (code, city) => city.or(code),
            };
            let mut parts: Vec<String> = Vec::new();
            for part in [p.name, street, town, p.country].into_iter().flatten() {
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
            Some(Place {
                label: parts.join(", "),
                latitude,
                longitude,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::extract::RawQuery;
    use axum::http::HeaderMap;
    use axum::routing::get;
    use std::sync::{Arc, Mutex};

    /// A service on loopback answering `body` at `path`, keeping what it
    /// was asked (query, user agent).
    async fn peer(path: &'static str, body: &'static str) -> (String, Arc<Mutex<Vec<(String, String)>>>) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        let router = Router::new().route(
            path,
            get(move |RawQuery(query): RawQuery, headers: HeaderMap| {
                let log = log.clone();
                async move {
                    let agent = headers
                        .get("user-agent")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    log.lock().expect("log").push((query.unwrap_or_default(), agent));
                    ([("content-type", "application/json")], body)
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}{path}", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, router).await });
        (url, asked)
    }

    fn geocoder(url: &str, api: GeocoderApi) -> Geocoder {
        Geocoder::of(&GeocoderArgs {
            url: Some(url.to_owned()),
            api,
        })
        .expect("a URL")
        .expect("a geocoder")
    }

    const BERLIN: Bounds = Bounds {
        west: 13.0,
        south: 52.3,
        east: 13.8,
        north: 52.7,
    };

    #[tokio::test]
    async fn nominatim_is_asked_as_it_documents_and_read() {
        let (url, asked) = peer(
            "/search",
            r#"[{"place_id":1,"lat":"52.5219","lon":"13.4132","display_name":"1, Alexanderplatz, Mitte, Berlin, 10178, Deutschland","type":"house"},
                {"place_id":2,"lat":"x","lon":"13.4","display_name":"broken"}]"#,
        )
        .await;
        let places = geocoder(&url, GeocoderApi::Nominatim)
            .search("Alexanderplatz 1, Berlin", Some(BERLIN))
            .await
            .expect("places");
        assert_eq!(
            places,
            vec![Place {
                label: "1, Alexanderplatz, Mitte, Berlin, 10178, Deutschland".into(),
                latitude: 52.5219,
                longitude: 13.4132
            }]
        );
        let (query, agent) = asked.lock().expect("log")[0].clone();
        assert_eq!(
            query,
            "q=Alexanderplatz+1%2C+Berlin&limit=5&format=jsonv2&viewbox=13%2C52.7%2C13.8%2C52.3"
        );
        assert!(agent.starts_with("courier-console/"), "{agent}");
    }

    #[tokio::test]
    async fn photon_is_asked_as_it_documents_and_read() {
        let (url, asked) = peer(
            "/api",
            r#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[13.419,52.501]},
                "properties":{"street":"Oranienstraße","housenumber":"25","postcode":"10999","city":"Berlin","country":"Deutschland"}}]}"#,
        )
        .await;
        let places = geocoder(&url, GeocoderApi::Photon)
            .search("Oranienstraße 25", Some(BERLIN))
            .await
            .expect("places");
        assert_eq!(
            places,
            vec![Place {
                label: "Oranienstraße 25, 10999 Berlin, Deutschland".into(),
                latitude: 52.501,
                longitude: 13.419
            }]
        );
        assert_eq!(
            asked.lock().expect("log")[0].0,
            "q=Oranienstra%C3%9Fe+25&limit=5&lat=52.5&lon=13.4"
        );
    }

    #[tokio::test]
    async fn a_service_away_or_talking_nonsense_is_said() {
        let (url, _) = peer("/search", "<html>busy</html>").await;
        let error = geocoder(&url, GeocoderApi::Nominatim)
            .search("x", None)
            .await
            .expect_err("unreadable");
        assert!(matches!(error, GeocodeError::Unreadable(_)), "{error}");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let closed = format!("http://{}/search", listener.local_addr().expect("addr"));
        drop(listener);
        let error = geocoder(&closed, GeocoderApi::Nominatim)
            .search("x", None)
            .await
            .expect_err("unreachable");
        assert!(matches!(error, GeocodeError::Unreachable(_)), "{error}");
    }

    #[test]
    fn only_http_urls_are_taken() {
        for bad in ["ftp://x.example/search", "not a url", "/search"] {
            let args = GeocoderArgs {
                url: Some(bad.into()),
                api: GeocoderApi::Nominatim,
            };
            assert!(Geocoder::of(&args).is_err(), "{bad}");
        }
        assert!(Geocoder::of(&GeocoderArgs::default()).expect("none").is_none());
    }
}
