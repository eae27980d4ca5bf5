//! A stand-in for a Nominatim server on loopback, answering `/search` as
//! Nominatim documents it (`format=jsonv2`: an array of places with `lat`,
//! `lon` as strings and `display_name`; 403 to a client that does not name
//! itself), for a few Berlin addresses. The console of every test app
//! finds places through it (`COURIER_GEOCODER_URL`).

use axum::Router;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

/// A place as found: latitude, longitude, `display_name`.
type Found = (f64, f64, &'static str);

/// What a search word finds.
const PLACES: &[(&str, &[Found])] = &[
    (
        "alexanderplatz",
        &[
            (52.5219, 13.4132, "1, Alexanderplatz, Mitte, Berlin, 10178, Deutschland"),
            (
                52.5215,
                13.4110,
                "Alexanderplatz, Bahnhof, Mitte, Berlin, 10178, Deutschland",
            ),
        ],
    ),
    (
        "oranienstraße",
        &[(
            52.5010,
            13.4190,
            "25, Oranienstraße, Kreuzberg, Berlin, 10999, Deutschland",
        )],
    ),
];

#[derive(serde::Deserialize)]
struct Search {
    q: String,
    format: Option<String>,
}

async fn search(Query(search): Query<Search>, headers: HeaderMap) -> Response {
    if !headers.contains_key("user-agent") {
        return (StatusCode::FORBIDDEN, "Access blocked: name your application").into_response();
    }
    if search.format.as_deref() != Some("jsonv2") {
        return (StatusCode::BAD_REQUEST, "this stand-in speaks format=jsonv2 only").into_response();
    }
    let query = search.q.to_lowercase();
    let found: Vec<_> = PLACES
        .iter()
        .filter(|(word, _)| query.contains(word))
        .flat_map(|(_, places)| places.iter())
        .enumerate()
        .map(|(i, (lat, lon, name))| {
            json!({ "place_id": i + 1, "lat": lat.to_string(), "lon": lon.to_string(), "display_name": name, "category": "place" })
        })
        .collect();
    axum::Json(found).into_response()
}

/// Serves the stand-in on a free loopback port; its search URL.
pub async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/search", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, Router::new().route("/search", get(search))).await });
    url
}
