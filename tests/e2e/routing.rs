//! Prices on real roads: the core configured with a routing server on
//! loopback that answers in OSRM's documented format (routes, `NoRoute`,
//! slow answers, 500s), on SQLite and PostgreSQL.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use courier_store::config::{CoreConfig, RoutingFallback};
use serde_json::{Value, json};

use crate::harness::{Backend, TestApp, wait_until};
use crate::quotes::{alexanderplatz, berlin_quote, kreuzberg};

/// How the fake router answers.
#[derive(Clone, Debug)]
enum Mode {
    Route { meters: f64, seconds: f64 },
    ServerError,
    Slow(Duration),
}

/// An OSRM stand-in: answers `/route/v1/{profile}/{coordinates}` and
/// records every request.
struct FakeRouter {
    url: String,
    mode: Mutex<Mode>,
    /// A longitude no route can reach (`NoRoute` for any leg ending there).
    unreachable_longitude: Mutex<Option<f64>>,
    requests: Mutex<Vec<(String, String)>>,
}

impl FakeRouter {
    async fn start() -> Arc<FakeRouter> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let router = Arc::new(FakeRouter {
            url: format!("http://{}", listener.local_addr().expect("addr")),
            mode: Mutex::new(Mode::Route {
                meters: 12_345.6,
                seconds: 1_500.0,
            }),
            unreachable_longitude: Mutex::new(None),
            requests: Mutex::default(),
        });
        let app = axum::Router::new()
            .route("/route/v1/{profile}/{coordinates}", axum::routing::get(answer))
            .with_state(router.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        router
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().expect("mode") = mode;
    }

    fn requests(&self) -> Vec<(String, String)> {
        self.requests.lock().expect("requests").clone()
    }
}

async fn answer(
    State(router): State<Arc<FakeRouter>>,
    Path((profile, coordinates)): Path<(String, String)>,
) -> Response {
    router
        .requests
        .lock()
        .expect("requests")
        .push((profile, coordinates.clone()));
    let unreachable = *router.unreachable_longitude.lock().expect("unreachable");
    let longitudes: Vec<f64> = coordinates
        .split(';')
        .filter_map(|pair| pair.split(',').next()?.parse().ok())
        .collect();
    if unreachable.is_some_and(|lon| longitudes.iter().skip(1).any(|l| *l == lon)) {
        let body = json!({ "code": "NoRoute", "message": "Impossible route between points" });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    let mode = router.mode.lock().expect("mode").clone();
    match mode {
        Mode::Route { meters, seconds } => {
            let waypoint =
                |lon: &f64| json!({ "hint": "", "distance": 1.2, "name": "Straße", "location": [lon, 52.5] });
            let body = json!({
                "code": "Ok",
                "routes": [{ "distance": meters, "duration": seconds, "weight": seconds, "weight_name": "routability", "legs": [] }],
                "waypoints": longitudes.iter().map(waypoint).collect::<Vec<_>>(),
            });
            axum::Json(body).into_response()
        }
        Mode::ServerError => (StatusCode::INTERNAL_SERVER_ERROR, "upstream exploded").into_response(),
        Mode::Slow(delay) => {
            tokio::time::sleep(delay).await;
            axum::Json(json!({ "code": "Ok", "routes": [{ "distance": 1.0, "duration": 1.0 }] })).into_response()
        }
    }
}

/// Declares each test on SQLite and PostgreSQL with a fake router the core
/// is configured to use (`routing_test! { name, |config| …, |app, router| … }`).
macro_rules! routing_test {
    ($name:ident, $configure:expr, |$app:ident, $router:ident| $body:block) => {
        mod $name {
            use super::*;

            async fn run($app: TestApp, $router: Arc<FakeRouter>) $body

            async fn start(backend: Backend) -> Option<(TestApp, Arc<FakeRouter>)> {
                let router = FakeRouter::start().await;
                let url = router.url.clone();
                let configure: fn(&mut CoreConfig) = $configure;
                let app = TestApp::spawn_with(backend, move |config| {
                    config.routing_url = url;
                    configure(config);
                })
                .await?;
                Some((app, router))
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                crate::harness::limited(async {
                    let (app, router) = start(Backend::Sqlite).await.expect("sqlite app");
                    run(app, router).await;
                })
                .await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                crate::harness::limited(async {
                    if let Some((app, router)) = start(Backend::Postgres).await {
                        run(app, router).await;
                    }
                })
                .await;
            }
        }
    };
}

fn assert_price_identity(quote: &Value) {
    let breakdown = &quote["breakdown"];
    let extras: i64 = breakdown["extras"]
        .as_array()
        .expect("extras")
        .iter()
        .map(|e| e["amount_cents"].as_i64().expect("amount"))
        .sum();
    let cents = |field: &str| breakdown[field].as_i64().expect(field);
    assert_eq!(
        quote["amount_cents"].as_i64(),
        Some(cents("route_cents") + extras - cents("discount_cents") + cents("service_fee_cents")),
        "{quote:#}"
    );
}

/// The routing series of the metrics page, as `name{labels} value` lines.
async fn routing_metrics(app: &TestApp) -> String {
    app.metrics_text(&app.metrics_url)
        .await
        .lines()
        .filter(|line| line.starts_with("courier_routing_"))
        .collect::<Vec<_>>()
        .join("\n")
}

routing_test! { quotes_price_the_road_and_a_create_reuses_the_route, |_| {}, |app, router| {
    let mut body = berlin_quote();
    body["vehicle_type_id"] = json!("cargo_bike");
    let quote = app.post("/v1/quotes", &app.test_key, &body).await;
    assert_eq!(quote.status, 201, "{:#}", quote.body);
    // 12,345.6 m and 1,500 s of riding plus 3 minutes at the dropoff.
    assert_eq!(quote.body["distance_km"], json!(12.35));
    assert_eq!(quote.body["duration_min"], json!(28));
    assert_price_identity(&quote.body);
    let requests = router.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].0, "cycling", "the cargo bike's profile");
    assert_eq!(requests[0].1, "13.4132,52.5219;13.419,52.501", "longitude,latitude in driving order");

    // The create with the quote prices the same route: no second call.
    let mut delivery = crate::deliveries::berlin_delivery();
    delivery["vehicle_type_id"] = json!("cargo_bike");
    delivery["quote_id"] = quote.body["id"].clone();
    let created = app.create_delivery(&app.test_key, &delivery).await;
    assert_eq!(created["amount_cents"], quote.body["amount_cents"]);
    assert_eq!(router.requests().len(), 1, "{:?}", router.requests());
    // Without the quote the route is priced again, from the cache.
    delivery.as_object_mut().expect("object").remove("quote_id");
    let again = app.create_delivery(&app.test_key, &delivery).await;
    assert_eq!(again["amount_cents"], quote.body["amount_cents"]);
    assert_eq!(router.requests().len(), 1, "{:?}", router.requests());
    let metrics = routing_metrics(&app).await;
    assert!(metrics.contains("courier_routing_cache_lookups_total{result=\"hit\"} 1"), "{metrics}");

    // A car takes the driving profile.
    body["vehicle_type_id"] = json!("car");
    assert_eq!(app.post("/v1/quotes", &app.test_key, &body).await.status, 201);
    assert_eq!(router.requests().last().map(|r| r.0.clone()), Some("driving".into()));
}}

routing_test! { a_route_that_cannot_be_driven_names_its_waypoint, |_| {}, |app, router| {
    let stop = json!({ "address": "Museumsinsel, 10178 Berlin", "latitude": 52.5169, "longitude": 13.4019 });
    *router.unreachable_longitude.lock().expect("unreachable") = Some(13.4019);
    let mut body = berlin_quote();
    body["stops"] = json!([stop]);
    let answer = app.post("/v1/quotes", &app.test_key, &body).await;
    answer.assert_error(400, "service_area_unavailable", Some("stops.0"));
    *router.unreachable_longitude.lock().expect("unreachable") = Some(13.419);
    let answer = app.post("/v1/quotes", &app.test_key, &body).await;
    answer.assert_error(400, "service_area_unavailable", Some("dropoff"));
    // Not the router's failure: no retry, and the breaker counts nothing.
    let metrics = routing_metrics(&app).await;
    assert!(metrics.contains("courier_routing_routes_total{result=\"no_route\"} 2"), "{metrics}");
}}

routing_test! { a_failing_router_is_an_upstream_error_after_one_retry, |_| {}, |app, router| {
    router.set(Mode::ServerError);
    let answer = app.post("/v1/quotes", &app.test_key, &berlin_quote()).await;
    answer.assert_error(502, "upstream_error", None);
    assert_eq!(router.requests().len(), 2, "one call and one retry");
    // Nothing was cached: the router answers again once it recovers.
    router.set(Mode::Route { meters: 5_000.0, seconds: 600.0 });
    let quote = app.post("/v1/quotes", &app.test_key, &berlin_quote()).await;
    assert_eq!((quote.status, quote.body["distance_km"].clone()), (201, json!(5.0)), "{:#}", quote.body);
}}

routing_test! { a_slow_router_times_out, |config| config.routing_timeout = Duration::from_millis(200), |app, router| {
    router.set(Mode::Slow(Duration::from_secs(5)));
    let started = std::time::Instant::now();
    let answer = app.post("/v1/quotes", &app.test_key, &berlin_quote()).await;
    answer.assert_error(502, "upstream_error", None);
    assert!(started.elapsed() < Duration::from_secs(3), "two timeouts of 200 ms, not the router's 5 s");
}}

routing_test! { the_offline_fallback_prices_when_the_router_fails, |config| config.routing_fallback = RoutingFallback::Offline, |app, router| {
    router.set(Mode::ServerError);
    let quote = app.post("/v1/quotes", &app.test_key, &berlin_quote()).await;
    assert_eq!(quote.status, 201, "{:#}", quote.body);
    assert_price_identity(&quote.body);
    // The offline estimate: the great-circle distance times 1.3.
    let distance = quote.body["distance_km"].as_f64().expect("distance");
    assert!((3.0..4.0).contains(&distance), "{distance}");
    let metrics = routing_metrics(&app).await;
    assert!(metrics.contains("courier_routing_fallbacks_total 1"), "{metrics}");
    assert!(metrics.contains("courier_routing_routes_total{result=\"failed\"} 1"), "{metrics}");
}}

routing_test! { the_breaker_opens_on_a_failing_router_and_closes_when_it_recovers, |config| config.routing_breaker_cooldown = Duration::from_millis(300), |app, router| {
    router.set(Mode::ServerError);
    for _ in 0..courier_pricing::osrm::BREAKER_THRESHOLD {
        app.post("/v1/quotes", &app.test_key, &berlin_quote()).await.assert_error(502, "upstream_error", None);
    }
    let calls = router.requests().len();
    assert_eq!(calls, 2 * courier_pricing::osrm::BREAKER_THRESHOLD as usize);
    // Open: refused at once, without a call.
    app.post("/v1/quotes", &app.test_key, &berlin_quote()).await.assert_error(502, "upstream_error", None);
    assert_eq!(router.requests().len(), calls, "no call while open");
    assert!(routing_metrics(&app).await.contains("courier_routing_routes_total{result=\"breaker_open\"} 1"));

    // The router recovers; after the cooldown one quote goes through and
    // closes the breaker.
    router.set(Mode::Route { meters: 4_000.0, seconds: 480.0 });
    wait_until("the breaker to close", Duration::from_secs(10), async || {
        let quote = app.post("/v1/quotes", &app.test_key, &berlin_quote()).await;
        if quote.status == 201 {
            return Ok(());
        }
        quote.assert_error(502, "upstream_error", None);
        Err(quote.body)
    })
    .await;
    let mut body = berlin_quote();
    body["dropoff"] = kreuzberg();
    body["pickup"] = alexanderplatz();
    body["vehicle_type_id"] = json!("small_van");
    assert_eq!(app.post("/v1/quotes", &app.test_key, &body).await.status, 201, "closed");
}}
