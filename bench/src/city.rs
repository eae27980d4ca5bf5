//! A day in a city (`--only city`, BENCHMARKS.md): couriers in cars
//! follow the routes the core plans for them over `CourierAppService`
//! (drive to the next stop, spend the handling time there, make the moves,
//! take every offer after a short think time, also while carrying), while
//! shops book deliveries over `/v1` at a steady rate. Run twice with the
//! same seed and load: couriers carrying several jobs (the catalogue's
//! `max_jobs`), then one job each. Reports deliveries per courier-hour,
//! the promises kept, booking → delivery, distance per delivery and
//! create → offer.
//!
//! Time runs `--city-time-scale` times as fast as the wall clock, on both
//! sides: the core's clock is paced (`COURIER_CLOCK_RATE`, so promises,
//! windows, offers and `COURIER_BATCH_MAX_DELAY` keep their city lengths),
//! the couriers move that much faster than a car in town and spend the
//! handling time at each stop compressed alike. Figures in minutes and
//! kilometres are the city's; create → offer is wall-clock time, as the
//! service spent it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::v1 as pb;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::dispatch::{
    CENTRE, Courier, HALF_LATITUDE, HALF_LONGITUDE, Motion, Phone, Random, count_deliveries, hand_over, metres,
    pick_up, reach_dropoff, report_at, sign_up_couriers, sorted_ms, start_apps,
};
use crate::service::{Backend, BenchResult, Service};

/// What the couriers drive (the catalogue's `max_jobs`: 5).
const VEHICLE: &str = "car";
/// A car's average door-to-door speed as the core's offline router counts
/// it (25 km/h on roads 1.3 times the straight line), in metres per second
/// of straight line.
const SPEED_MPS: f64 = 25.0 / 3.6 / ROAD_FACTOR;
const ROAD_FACTOR: f64 = 1.3;
/// At every stop (parking, the walk, the handover), as the core plans it.
const HANDLING: Duration = Duration::from_secs(180);
/// How long a courier has to answer an offer (city time).
const OFFER_TIMEOUT: Duration = Duration::from_secs(120);
/// Every this many bookings carries windows (a quarter of the load).
const WINDOWED_EVERY: u64 = 4;
/// Shops that book: each delivery is picked up at one and goes to a place
/// within a trip of it (at 50 bookings a second, a shop books once a
/// wall-clock second).
const SHOPS: usize = 50;
/// How often each courier's app reports its position (wall clock: every
/// 24 city seconds at the time scale 24).
const REPORT_EVERY: Duration = Duration::from_secs(1);
/// How long a courier looks at an offer before accepting it (wall clock).
const THINK: Duration = Duration::from_millis(200);
/// After the last booking, how long the couriers go on delivering at most
/// (36 city minutes at the time scale 24: past the last bookings'
/// promises).
const DRAIN: Duration = Duration::from_secs(90);

/// City minutes in a wall-clock span, time running `scale` times as fast.
fn city_minutes(wall: Duration, scale: f64) -> f64 {
    wall.as_secs_f64() * scale / 60.0
}

/// The core's paced clock: `scale` times the system's from `origin`
/// (unix seconds), as `COURIER_CLOCK_RATE` and `COURIER_CLOCK_ORIGIN` set it.
#[derive(Clone)]
struct CityClock {
    origin: i64,
    scale: f64,
    paced: courier_store::clock::Clock,
}

impl CityClock {
    fn starting_now(scale: f64) -> CityClock {
        let origin = chrono::Utc::now().timestamp();
        CityClock {
            origin,
            scale,
            paced: courier_store::clock::Clock::paced(origin, scale),
        }
    }

    /// A span of city time on the wall clock.
    fn compressed(&self, city: Duration) -> Duration {
        city.div_f64(self.scale)
    }

    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.paced.now()
    }

    fn timestamp(&self) -> prost_types::Timestamp {
        let now = self.now();
        prost_types::Timestamp {
            seconds: now.timestamp(),
            nanos: now.timestamp_subsec_nanos() as i32,
        }
    }

    /// `minutes` of city time from now, as the API writes times.
    fn in_minutes(&self, minutes: i64) -> String {
        courier::time::format_rfc3339(self.now() + chrono::Duration::minutes(minutes))
    }
}

/// What the city run is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub couriers: usize,
    pub creates_per_second: f64,
    /// How long deliveries are booked (wall clock).
    pub run: Duration,
    /// How many times faster than the city the run goes.
    pub time_scale: f64,
    /// Leave each run's database and logs behind.
    pub keep: bool,
}

/// Couriers carrying several jobs, or one each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrying {
    Several,
    One,
}

/// What one city run measured.
#[derive(Debug, Default)]
pub struct Figures {
    pub booked: usize,
    pub create_errors: u64,
    /// Handed over in the last two thirds of the booking time (the first
    /// fills the couriers' routes): the steady state.
    pub delivered_steady: usize,
    pub delivered: usize,
    /// Of the booked, delivered by their promise (the core's `on_time`).
    pub on_time: usize,
    /// Bookings with windows.
    pub windowed: usize,
    pub per_courier_hour: f64,
    /// Per hour a courier held at least one job.
    pub per_busy_hour: f64,
    pub booking_to_delivery_min: f64,
    pub km_per_delivery: f64,
    pub offer_p50_ms: f64,
    pub offer_p99_ms: f64,
    pub never_offered: usize,
    /// Jobs held, on average over the time couriers held any, and at most.
    pub mean_held: f64,
    pub most_held: usize,
    pub move_errors: u64,
    pub apps_failed: usize,
    pub first_app_error: Option<String>,
    /// Of the bookings late by the bench's own reading of their promise
    /// (the create's dropoff window's end, else its `dropoff_eta` plus 10
    /// minutes): never delivered, already planned past it when the courier
    /// accepted, and planned in time but delivered after it.
    pub late_undelivered: usize,
    pub late_as_planned: usize,
    pub late_slipped: usize,
    /// Over the deliveries: how much later than planned at the accept they
    /// were handed over, in minutes (mean and 95th percentile).
    pub slip_mean_min: f64,
    pub slip_p95_min: f64,
    /// Stops with handling time (parking, the walk) per delivery: 2 when
    /// every pickup and dropoff is a stop of its own.
    pub stops_per_delivery: f64,
    /// Wall time of the moves at a stop and the route read after them
    /// (p50, p99): what the core's answers add to every stop.
    pub stop_moves_p50_ms: f64,
    pub stop_moves_p99_ms: f64,
    /// The core's dispatch rounds (its metrics at the end): how many, their
    /// mean, and the bucket bound under which 99 % of them ended.
    pub rounds: f64,
    pub round_mean_ms: f64,
    pub round_p99_ms: f64,
}

impl Figures {
    pub fn on_time_rate(&self) -> f64 {
        if self.booked == 0 {
            return 0.0;
        }
        self.on_time as f64 / self.booked as f64
    }
}

#[derive(Default)]
struct Town {
    motions: Vec<Motion>,
    /// Metres each courier covered.
    covered: Vec<f64>,
    /// How long each courier held at least one job, and the integral of
    /// the jobs held over that time (job-seconds).
    busy: Vec<Duration>,
    held_seconds: f64,
    most_held: usize,
    /// Each booking's create, when it was sent.
    booked: HashMap<String, Instant>,
    offered: HashMap<String, Instant>,
    delivered: HashMap<String, Instant>,
    /// City times in microseconds: each booking's promise, its dropoff as
    /// planned by the route when its offer was accepted, and its handover.
    promised: HashMap<String, i64>,
    planned: HashMap<String, i64>,
    handed_over: HashMap<String, i64>,
    /// Stops at which a courier spent the handling time.
    stops: usize,
    /// How long each stop's moves and route read took.
    stop_moves: Vec<Duration>,
}

struct Shared {
    town: Mutex<Town>,
    clock: CityClock,
    move_errors: AtomicU64,
}

impl Shared {
    fn town(&self) -> MutexGuard<'_, Town> {
        self.town.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets courier `c` moving to `to` from where they are, counting the
    /// ground covered on the way they were going; answers how long it takes.
    fn head_for(&self, c: usize, to: (f64, f64)) -> Duration {
        let now = Instant::now();
        let mut town = self.town();
        let motion = town.motions[c];
        let here = motion.at(now);
        town.covered[c] += metres(motion.from, here);
        let takes = Duration::from_secs_f64(metres(here, to) / (SPEED_MPS * self.clock.scale));
        town.motions[c] = Motion {
            from: here,
            to,
            start: now,
            takes,
        };
        takes
    }
}

/// A created delivery's promise as the guide states it: its dropoff
/// window's end, else the `dropoff_eta` answered at creation plus 10
/// minutes.
fn promise_of(delivery: &Value) -> Option<i64> {
    let at = |text: &Value| {
        chrono::DateTime::parse_from_rfc3339(text.as_str()?)
            .ok()
            .map(|at| at.timestamp_micros())
    };
    at(&delivery["dropoff_window"]["end"]).or_else(|| at(&delivery["dropoff_eta"]).map(|eta| eta + 10 * 60 * 1_000_000))
}

fn point(waypoint: Option<&pb::Waypoint>) -> (f64, f64) {
    waypoint.map_or((0.0, 0.0), |w| (w.latitude, w.longitude))
}

/// The moves at `stop`, as a courier makes them on arrival.
async fn serve_stop(courier: &Courier, stop: &apb::RouteStop) -> Result<(), tonic::Status> {
    match stop.kind() {
        apb::StopKind::Pickup => pick_up(courier, &stop.job_id).await,
        _ => {
            reach_dropoff(courier, &stop.job_id).await?;
            hand_over(courier, &stop.job_id).await
        }
    }
}

/// Follows the route in `route` until `stop`: to the next stop (a new
/// route on the way turns the courier), the handling there (once for
/// stops one after another at one place, as the core plans), the moves.
async fn follow(
    shared: &Shared,
    courier: &Courier,
    route: &watch::Sender<Vec<apb::RouteStop>>,
    reports: &mpsc::Sender<apb::ReportLocationsRequest>,
    stop: &CancellationToken,
) -> Result<(), tonic::Status> {
    let c = courier.index;
    let mut changes = route.subscribe();
    let mut last_place: Option<(f64, f64)> = None;
    let mut held_since: Option<(Instant, usize)> = None;
    // Stops done: a route sent before one was done may still list it.
    let mut done: HashSet<(String, i32)> = HashSet::new();
    loop {
        let stops: Vec<apb::RouteStop> = changes
            .borrow_and_update()
            .iter()
            .filter(|stop| !done.contains(&(stop.job_id.clone(), stop.kind)))
            .cloned()
            .collect();
        // Time holding jobs, weighted by how many.
        let held: HashSet<&str> = stops.iter().map(|s| s.job_id.as_str()).collect();
        let now = Instant::now();
        if let Some((since, count)) = held_since.take() {
            let mut town = shared.town();
            town.busy[c] += now - since;
            town.held_seconds += (now - since).as_secs_f64() * count as f64;
        }
        if !held.is_empty() {
            held_since = Some((now, held.len()));
            let mut town = shared.town();
            town.most_held = town.most_held.max(held.len());
        }
        let Some(next) = stops.first() else {
            tokio::select! {
                _ = stop.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    continue;
                }
            }
        };
        let place = point(next.place.as_ref());
        let takes = shared.head_for(c, place);
        tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            _ = changes.changed() => continue,
            _ = tokio::time::sleep(takes) => {}
        }
        let _ = reports.send(report_at(place, shared.clock.timestamp())).await;
        if last_place.is_none_or(|last| metres(last, place) > 1.0) {
            shared.town().stops += 1;
            tokio::select! {
                _ = stop.cancelled() => return Ok(()),
                _ = tokio::time::sleep(shared.clock.compressed(HANDLING)) => {}
            }
        }
        last_place = Some(place);
        let moving = Instant::now();
        // A move refused ends the app: the route it follows is wrong.
        if let Err(refused) = serve_stop(courier, next).await {
            shared.move_errors.fetch_add(1, Ordering::Relaxed);
            return Err(refused);
        }
        done.insert((next.job_id.clone(), next.kind));
        if next.kind() == apb::StopKind::Dropoff {
            let mut town = shared.town();
            town.delivered.insert(next.job_id.clone(), Instant::now());
            town.handed_over
                .insert(next.job_id.clone(), shared.clock.now().timestamp_micros());
        }
        // The route after the move (the stream sends it too).
        let mut client = courier.client.clone();
        let fresh = client
            .get_route(courier.request(apb::GetRouteRequest {}))
            .await?
            .into_inner()
            .route
            .unwrap_or_default()
            .stops;
        shared.town().stop_moves.push(moving.elapsed());
        route.send_replace(fresh);
    }
}

/// One courier's app until `stop`: positions, the assignment stream, the
/// offers it accepts and the route it follows.
async fn app(
    shared: Arc<Shared>,
    courier: Courier,
    ready: oneshot::Sender<()>,
    stop: CancellationToken,
) -> BenchResult<()> {
    let phone = {
        let (shared, c) = (shared.clone(), courier.index);
        Phone::open(&courier, REPORT_EVERY, stop.clone(), move || {
            report_at(shared.town().motions[c].at(Instant::now()), shared.clock.timestamp())
        })
    };
    let mut client = courier.client.clone();
    let mut stream = client
        .watch_assignments(courier.request(apb::WatchAssignmentsRequest::default()))
        .await?
        .into_inner();
    let route = watch::Sender::new(Vec::new());
    let mut ready = Some(ready);
    let mut taken = HashSet::new();
    let listen = async {
        loop {
            let Some(message) = stream.message().await? else {
                return Ok::<_, tonic::Status>(());
            };
            if let Some(ready) = ready.take() {
                let _ = ready.send(());
            }
            let offer = match message.update {
                Some(Update::Snapshot(snapshot)) => {
                    route.send_replace(snapshot.route.unwrap_or_default().stops);
                    snapshot.offer
                }
                Some(Update::Route(now)) => {
                    route.send_replace(now.stops);
                    None
                }
                Some(Update::Offer(offer)) => Some(offer),
                _ => None,
            };
            let Some(offer) = offer else { continue };
            let Some(job) = offer.job.as_ref() else { continue };
            if !taken.insert(offer.id.clone()) {
                continue;
            }
            shared.town().offered.entry(job.id.clone()).or_insert_with(Instant::now);
            tokio::time::sleep(THINK).await;
            // Refused when it was withdrawn meanwhile: the next round's.
            if client
                .accept_offer(courier.request(apb::AcceptOfferRequest {
                    offer_id: offer.id.clone(),
                }))
                .await
                .is_ok()
            {
                let now = client
                    .get_route(courier.request(apb::GetRouteRequest {}))
                    .await?
                    .into_inner()
                    .route
                    .unwrap_or_default();
                let planned = now
                    .stops
                    .iter()
                    .find(|stop| stop.job_id == job.id && stop.kind() == apb::StopKind::Dropoff)
                    .and_then(|stop| stop.eta.as_ref());
                if let Some(eta) = planned {
                    let at = eta.seconds * 1_000_000 + i64::from(eta.nanos) / 1_000;
                    shared.town().planned.insert(job.id.clone(), at);
                }
                route.send_replace(now.stops);
            }
        }
    };
    let outcome = tokio::select! {
        _ = stop.cancelled() => Ok(()),
        listened = listen => listened,
        followed = follow(&shared, &courier, &route, &phone.reports, &stop) => followed,
    };
    phone.close().await?;
    Ok(outcome?)
}

/// How the city is divided into service areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Areas {
    /// The built-in Berlin area around it all.
    One,
    /// Four quadrants around the centre, each an area of its own.
    Four,
}

/// The core's catalogue: the built-in one, with one job per vehicle for
/// `Carrying::One`, and the city in `areas`; written into `dir`.
fn catalogue(dir: &std::path::Path, carrying: Carrying, areas: Areas) -> BenchResult<String> {
    let mut catalogue: Value = serde_json::from_str(courier_pricing::catalog::DEFAULT_CATALOG_JSON)?;
    if carrying == Carrying::One {
        for vehicle in catalogue["vehicle_types"].as_array_mut().into_iter().flatten() {
            vehicle["max_jobs"] = 1.into();
        }
    }
    if areas == Areas::Four {
        let berlin = catalogue["service_areas"][0].clone();
        let (south, north) = (CENTRE.0 - HALF_LATITUDE - 0.01, CENTRE.0 + HALF_LATITUDE + 0.01);
        let (west, east) = (CENTRE.1 - HALF_LONGITUDE - 0.01, CENTRE.1 + HALF_LONGITUDE + 0.01);
        let quadrants = [
            ("north-west", (CENTRE.0, north), (west, CENTRE.1)),
            ("north-east", (CENTRE.0, north), (CENTRE.1, east)),
            ("south-west", (south, CENTRE.0), (west, CENTRE.1)),
            ("south-east", (south, CENTRE.0), (CENTRE.1, east)),
        ];
        let areas: Vec<Value> = quadrants
            .into_iter()
            .map(|(name, (low, high), (left, right))| {
                let mut area = berlin.clone();
                // Area ids are slugs (the catalogue's rule).
                area["id"] = format!("berlin_{}", name.replace('-', "_")).into();
                area["name"] = format!("Berlin {name}").into();
                area["polygon"] = json!([[left, low], [right, low], [right, high], [left, high]]);
                area
            })
            .collect();
        catalogue["service_areas"] = areas.into();
    }
    let path = dir.join(format!("catalog-{carrying:?}-{areas:?}.json"));
    std::fs::write(&path, serde_json::to_vec(&catalogue)?)?;
    Ok(path.to_string_lossy().into_owned())
}

/// The core's settings for the city: `catalogue`, and its clock paced as `clock`.
fn core_env(catalogue: &str, clock: &CityClock) -> Vec<(&'static str, String)> {
    vec![
        ("COURIER_CATALOG_FILE", catalogue.to_owned()),
        ("COURIER_CLOCK_RATE", clock.scale.to_string()),
        ("COURIER_CLOCK_ORIGIN", clock.origin.to_string()),
        ("COURIER_OFFER_TIMEOUT", format!("{}s", OFFER_TIMEOUT.as_secs())),
    ]
}

fn as_pairs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(name, value)| (*name, value.as_str())).collect()
}

/// Both runs on `backend`: several jobs per courier, then one.
pub async fn measure(
    bin_dir: &std::path::Path,
    backend: Backend,
    postgres_url: &str,
    settings: Settings,
) -> BenchResult<[Figures; 2]> {
    let mut figures = Vec::with_capacity(2);
    for carrying in [Carrying::Several, Carrying::One] {
        let catalogue = catalogue(&std::env::temp_dir(), carrying, Areas::One)?;
        let clock = CityClock::starting_now(settings.time_scale);
        let mut env = core_env(&catalogue, &clock);
        let metrics = crate::service::free_addr()?;
        env.push(("COURIER_METRICS_ADDR", metrics.clone()));
        let label = match carrying {
            Carrying::Several => "city_several",
            Carrying::One => "city_one",
        };
        let service = Service::start_with(bin_dir, backend, postgres_url, label, &as_pairs(&env)).await?;
        let measured = async {
            let couriers =
                sign_up_couriers(bin_dir, &service, &[&service.grpc_url], settings.couriers, VEHICLE).await?;
            let mut figures = run(&service, clock, couriers, settings).await?;
            let client = reqwest::Client::builder().no_proxy().build()?;
            let page = metrics_page(&client, &metrics)
                .await
                .ok_or("the core's metrics did not answer")?;
            (figures.rounds, figures.round_mean_ms, figures.round_p99_ms) = round_durations(&page);
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(figures)
        }
        .await;
        if settings.keep {
            service.stop_keeping().await;
        } else {
            service.stop().await;
        }
        figures.push(measured?);
    }
    let [several, one]: [Figures; 2] = figures.try_into().map_err(|_| "two runs expected")?;
    Ok([several, one])
}

/// One run on `service`, its clock paced as `clock`, with `couriers` online.
async fn run(service: &Service, clock: CityClock, couriers: Vec<Courier>, settings: Settings) -> BenchResult<Figures> {
    let scale = clock.scale;
    let courier_count = couriers.len();
    let mut places = Random(7);
    let shared = Arc::new(Shared {
        town: Mutex::new(Town {
            // Where the couriers went online, as they reported it.
            motions: (0..couriers.len()).map(|_| Motion::still(places.place())).collect(),
            covered: vec![0.0; couriers.len()],
            busy: vec![Duration::ZERO; couriers.len()],
            ..Town::default()
        }),
        clock,
        move_errors: AtomicU64::new(0),
    });
    let stop = CancellationToken::new();
    let mut apps = start_apps(couriers, &stop, |courier, ready, stop| {
        app(shared.clone(), courier, ready, stop)
    })
    .await?;

    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .build()?;
    let mut random = Random(41);
    let shops: Vec<(f64, f64)> = (0..SHOPS).map(|_| random.place()).collect();
    let create_errors = Arc::new(AtomicU64::new(0));
    let mut creates = JoinSet::new();
    let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / settings.creates_per_second));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let started = Instant::now();
    let mut booking = 0u64;
    while started.elapsed() < settings.run {
        booking += 1;
        every.tick().await;
        let pickup = shops[(random.next() * SHOPS as f64) as usize % SHOPS];
        let dropoff = random.near(pickup);
        let mut body = json!({
            "pickup": crate::place("Shop, Berlin", pickup.0, pickup.1, "Ana Sender"),
            "dropoff": crate::place("Home, Berlin", dropoff.0, dropoff.1, "Rui Receiver"),
            "vehicle_type_id": "cargo_bike",
        });
        if booking.is_multiple_of(WINDOWED_EVERY) {
            // A shop's promise: picked up within half an hour (the window
            // open now), delivered between 15 and 75 minutes from now.
            body["pickup_window"] = json!({ "start": shared.clock.in_minutes(0), "end": shared.clock.in_minutes(30) });
            body["dropoff_window"] =
                json!({ "start": shared.clock.in_minutes(15), "end": shared.clock.in_minutes(75) });
        }
        let request = client
            .post(format!("{}/v1/deliveries", service.base_url))
            .header("x-api-key", &service.live_key)
            .header("idempotency-key", format!("city-{booking}"))
            .json(&body);
        let (shared, errors) = (shared.clone(), create_errors.clone());
        creates.spawn(async move {
            let sent = Instant::now();
            let answer = match request.send().await {
                Ok(answer) if answer.status().is_success() => answer.json::<Value>().await.ok(),
                _ => None,
            };
            match answer.as_ref().and_then(|a| Some((a["id"].as_str()?, a))) {
                Some((id, delivery)) => {
                    let mut town = shared.town();
                    town.booked.insert(id.to_owned(), sent);
                    if let Some(promise) = promise_of(delivery) {
                        town.promised.insert(id.to_owned(), promise);
                    }
                }
                None => {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while creates.join_next().await.is_some() {}
    let booking_ended = Instant::now();
    let steady_from = started + (booking_ended - started) / 3;
    // The couriers deliver what they hold and what still waits.
    let deadline = booking_ended + DRAIN;
    while Instant::now() < deadline {
        {
            let town = shared.town();
            if town.delivered.len() >= town.booked.len() {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    stop.cancel();
    let (mut apps_failed, mut first_app_error) = (0, None);
    while let Some(app) = apps.join_next().await {
        if let Err(error) = app? {
            apps_failed += 1;
            first_app_error.get_or_insert_with(|| error.to_string());
        }
    }

    // The promises kept, as the core judged them.
    let on_time = count_deliveries(&client, service, "status=delivered").await?
        - count_deliveries(&client, service, "status=delivered&promise=late").await?;

    let town = shared.town();
    let mut figures = Figures {
        on_time,
        windowed: (booking / WINDOWED_EVERY) as usize,
        booked: town.booked.len(),
        create_errors: create_errors.load(Ordering::Relaxed),
        delivered: town.delivered.len(),
        move_errors: shared.move_errors.load(Ordering::Relaxed),
        apps_failed,
        first_app_error,
        most_held: town.most_held,
        ..Figures::default()
    };
    let (mut to_offer, mut to_delivery) = (Vec::new(), Vec::new());
    for (id, &sent) in &town.booked {
        match town.offered.get(id) {
            Some(at) => to_offer.push(at.saturating_duration_since(sent)),
            None => figures.never_offered += 1,
        }
        if let Some(&at) = town.delivered.get(id) {
            to_delivery.push(at.saturating_duration_since(sent));
            if at > steady_from && at <= booking_ended {
                figures.delivered_steady += 1;
            }
        }
    }
    (figures.offer_p50_ms, figures.offer_p99_ms) = sorted_ms(to_offer);
    (figures.stop_moves_p50_ms, figures.stop_moves_p99_ms) = sorted_ms(town.stop_moves.clone());
    let mut slips = Vec::new();
    for (id, promise) in &town.promised {
        let Some(&at) = town.handed_over.get(id) else {
            figures.late_undelivered += 1;
            continue;
        };
        let planned = town.planned.get(id).copied();
        if let Some(planned) = planned {
            slips.push((at - planned) as f64 / 60e6);
        }
        if at > *promise {
            let handed = |arrival: i64| arrival + HANDLING.as_micros() as i64;
            if planned.is_some_and(|planned| handed(planned) > *promise) {
                figures.late_as_planned += 1;
            } else {
                figures.late_slipped += 1;
            }
        }
    }
    slips.sort_by(f64::total_cmp);
    if !slips.is_empty() {
        figures.slip_mean_min = slips.iter().sum::<f64>() / slips.len() as f64;
        figures.slip_p95_min = slips[(slips.len() * 95 / 100).min(slips.len() - 1)];
    }
    figures.stops_per_delivery = town.stops as f64 / figures.delivered.max(1) as f64;
    figures.booking_to_delivery_min = if to_delivery.is_empty() {
        0.0
    } else {
        to_delivery.iter().map(|d| city_minutes(*d, scale)).sum::<f64>() / to_delivery.len() as f64
    };
    let steady_hours = city_minutes(booking_ended - steady_from, scale) / 60.0;
    figures.per_courier_hour = figures.delivered_steady as f64 / (courier_count as f64 * steady_hours);
    let busy: Duration = town.busy.iter().sum();
    let busy_hours = city_minutes(busy, scale) / 60.0;
    if busy_hours > 0.0 {
        figures.per_busy_hour = figures.delivered as f64 / busy_hours;
        figures.mean_held = town.held_seconds / busy.as_secs_f64();
    }
    let covered_km: f64 = town.covered.iter().sum::<f64>() * ROAD_FACTOR / 1000.0;
    figures.km_per_delivery = covered_km / figures.delivered.max(1) as f64;
    Ok(figures)
}

/// Prints both runs as BENCHMARKS.md records them.
pub fn print(backend: Backend, settings: &Settings, [several, one]: &[Figures; 2]) {
    println!(
        "\nA day in a city on {}: {} couriers in cars, {} bookings/s from {SHOPS} shops for {} s (time {}× compressed: {:.0} city minutes), then up to {} s to deliver:",
        backend.name(),
        settings.couriers,
        settings.creates_per_second,
        settings.run.as_secs(),
        settings.time_scale,
        city_minutes(settings.run, settings.time_scale),
        DRAIN.as_secs()
    );
    println!(
        "| Couriers carry | Booked (with windows) | Delivered | On time | Per courier-hour | Per busy hour | Booking → delivery | km per delivery | Create → offer p50 / p99 | Jobs held (mean / most) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (label, f) in [("several jobs", several), ("one job", one)] {
        println!(
            "| {label} | {} ({}) | {} | {:.1} % | {:.2} | {:.2} | {:.1} min | {:.2} | {:.0} / {:.0} ms | {:.2} / {} |",
            f.booked,
            f.windowed,
            f.delivered,
            100.0 * f.on_time_rate(),
            f.per_courier_hour,
            f.per_busy_hour,
            f.booking_to_delivery_min,
            f.km_per_delivery,
            f.offer_p50_ms,
            f.offer_p99_ms,
            f.mean_held,
            f.most_held
        );
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    println!(
        "- deliveries per courier-hour, several ÷ one: {:.2} (target ≥ 1.5); per busy hour {:.2}",
        ratio(several.per_courier_hour, one.per_courier_hour),
        ratio(several.per_busy_hour, one.per_busy_hour)
    );
    println!(
        "- on time with several jobs {:.1} % (targets ≥ 98 % and ≥ one job's {:.1} %); create → offer p99 {:.0} ms (target < 500 ms)",
        100.0 * several.on_time_rate(),
        100.0 * one.on_time_rate(),
        several.offer_p99_ms
    );
    for (label, f) in [("several jobs", several), ("one job", one)] {
        println!(
            "- {label}: late {} never delivered, {} planned past the promise at the accept, {} planned in time and delivered after it; handed over {:.1} min (mean) and {:.1} min (p95) after the arrival planned at the accept (the handling takes 3); {:.2} stops per delivery",
            f.late_undelivered,
            f.late_as_planned,
            f.late_slipped,
            f.slip_mean_min,
            f.slip_p95_min,
            f.stops_per_delivery
        );
        println!(
            "- {label}: {:.0} dispatch rounds, {:.1} ms mean, 99 % within {:.0} ms; the moves at a stop and the route after them {:.0} / {:.0} ms (p50 / p99)",
            f.rounds, f.round_mean_ms, f.round_p99_ms, f.stop_moves_p50_ms, f.stop_moves_p99_ms
        );
    }
    for (label, f) in [("several jobs", several), ("one job", one)] {
        println!(
            "- {label}: {} create errors, {} never offered, {} moves refused, {} apps ended early{}",
            f.create_errors,
            f.never_offered,
            f.move_errors,
            f.apps_failed,
            f.first_app_error
                .as_deref()
                .map_or_else(String::new, |error| format!(" (the first: {error})"))
        );
    }
}

/// What the run of four service areas on two core replicas measured.
#[derive(Debug, Default)]
pub struct AreaFigures {
    pub city: Figures,
    pub couriers: usize,
    /// Both replicas' metrics read at once every [`SAMPLE_EVERY`]: the
    /// reads, and those in which both ran a round, of different areas.
    pub samples: usize,
    pub overlapping: usize,
    /// Per replica (1 or 2) and partition: rounds run, their mean
    /// duration in ms, rounds skipped as the other replica held the lock.
    pub rounds: Vec<PartitionRounds>,
}

#[derive(Debug, Default)]
pub struct PartitionRounds {
    pub replica: usize,
    pub partition: String,
    pub ran: f64,
    pub mean_ms: f64,
    pub locked_out: f64,
}

/// How often the replicas' round gauges are read.
const SAMPLE_EVERY: Duration = Duration::from_millis(20);

/// Four service areas of `settings.couriers` couriers each, carrying
/// several jobs, on two core replicas of one PostgreSQL database (the
/// couriers' apps split between them, bookings through one edge).
pub async fn measure_areas(
    bin_dir: &std::path::Path,
    postgres_url: &str,
    settings: Settings,
) -> BenchResult<AreaFigures> {
    let catalogue = catalogue(&std::env::temp_dir(), Carrying::Several, Areas::Four)?;
    let clock = CityClock::starting_now(settings.time_scale);
    let env = core_env(&catalogue, &clock);
    let metrics = [crate::service::free_addr()?, crate::service::free_addr()?];
    let with_metrics = |addr: &str| {
        let mut env = env.clone();
        env.push(("COURIER_METRICS_ADDR", addr.to_owned()));
        env
    };
    let first = with_metrics(&metrics[0]);
    let service = Service::start_with(
        bin_dir,
        Backend::Postgres,
        postgres_url,
        "city_areas",
        &as_pairs(&first),
    )
    .await?;
    let measured = async {
        let second = with_metrics(&metrics[1]);
        let replica = service
            .start_replica(bin_dir, &as_pairs(&second), "replica.log")
            .await?;
        let couriers = 4 * settings.couriers;
        let apps = sign_up_couriers(
            bin_dir,
            &service,
            &[&service.grpc_url, &replica.grpc_url],
            couriers,
            VEHICLE,
        )
        .await?;
        let sampling = CancellationToken::new();
        let sampler = tokio::spawn(sample_rounds(metrics.clone(), sampling.clone()));
        let city = run(&service, clock, apps, settings).await;
        sampling.cancel();
        let (samples, overlapping) = sampler.await?;
        let rounds = partition_rounds(&metrics).await?;
        replica.stop().await;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(AreaFigures {
            city: city?,
            couriers,
            samples,
            overlapping,
            rounds,
        })
    }
    .await;
    if settings.keep {
        service.stop_keeping().await;
    } else {
        service.stop().await;
    }
    measured
}

/// The metrics page of the core whose metrics listen at `addr`.
async fn metrics_page(client: &reqwest::Client, addr: &str) -> Option<String> {
    client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()
}

/// The dispatch rounds on a core's metrics `page`: how many, their mean
/// duration and the least bucket bound holding 99 % of them, in ms.
fn round_durations(page: &str) -> (f64, f64, f64) {
    const NAME: &str = "courier_dispatch_round_duration_seconds";
    let value = |line: &str| line.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok());
    let of = |suffix: &str| {
        page.lines()
            .find(|line| line.starts_with(&format!("{NAME}_{suffix} ")))
            .and_then(value)
            .unwrap_or_default()
    };
    let (count, sum) = (of("count"), of("sum"));
    let p99 = page
        .lines()
        .filter_map(|line| {
            let bound = line.strip_prefix(&format!("{NAME}_bucket{{le=\""))?.split('"').next()?;
            Some((bound.parse::<f64>().ok()?, value(line)?))
        })
        .find(|&(_, below)| below >= 0.99 * count)
        .map_or(f64::INFINITY, |(bound, _)| bound * 1000.0);
    (count, sum * 1000.0 / count.max(1.0), p99)
}

/// The samples of metric `name` on `page`, by their `partition` label.
fn by_partition<'a>(page: &'a str, name: &str) -> Vec<(&'a str, f64)> {
    page.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix("{partition=\"")?;
            let (partition, rest) = rest.split_once('"')?;
            let value = rest.rsplit(' ').next()?.parse().ok()?;
            Some((partition, value))
        })
        .collect()
}

/// Reads both replicas' round gauges every [`SAMPLE_EVERY`] until `stop`:
/// the samples, and those with rounds of two different partitions running.
async fn sample_rounds(metrics: [String; 2], stop: CancellationToken) -> (usize, usize) {
    let Ok(client) = reqwest::Client::builder().no_proxy().build() else {
        return (0, 0);
    };
    let (mut samples, mut overlapping) = (0, 0);
    let mut every = tokio::time::interval(SAMPLE_EVERY);
    while !stop.is_cancelled() {
        every.tick().await;
        let (first, second) = tokio::join!(metrics_page(&client, &metrics[0]), metrics_page(&client, &metrics[1]));
        let (Some(first), Some(second)) = (first, second) else {
            continue;
        };
        let running = |page: &str| -> Vec<String> {
            by_partition(page, "courier_dispatch_partition_rounds_running")
                .into_iter()
                .filter(|(_, value)| *value > 0.0)
                .map(|(partition, _)| partition.to_owned())
                .collect()
        };
        let (first, second) = (running(&first), running(&second));
        samples += 1;
        if first.iter().any(|a| second.iter().any(|b| a != b)) {
            overlapping += 1;
        }
    }
    (samples, overlapping)
}

/// Each replica's rounds by partition, as its metrics count them.
async fn partition_rounds(metrics: &[String; 2]) -> BenchResult<Vec<PartitionRounds>> {
    let client = reqwest::Client::builder().no_proxy().build()?;
    let mut rounds = Vec::new();
    for (n, addr) in metrics.iter().enumerate() {
        let page = metrics_page(&client, addr)
            .await
            .ok_or("a replica's metrics did not answer")?;
        let sums: HashMap<&str, f64> = by_partition(&page, "courier_dispatch_partition_round_duration_seconds_sum")
            .into_iter()
            .collect();
        let locked: HashMap<&str, f64> = by_partition(&page, "courier_dispatch_partition_rounds_locked_out_total")
            .into_iter()
            .collect();
        for (partition, ran) in by_partition(&page, "courier_dispatch_partition_round_duration_seconds_count") {
            rounds.push(PartitionRounds {
                replica: n + 1,
                partition: partition.to_owned(),
                ran,
                mean_ms: sums.get(partition).copied().unwrap_or_default() * 1000.0 / ran.max(1.0),
                locked_out: locked.get(partition).copied().unwrap_or_default(),
            });
        }
    }
    rounds.sort_by(|a, b| (a.replica, &a.partition).cmp(&(b.replica, &b.partition)));
    Ok(rounds)
}

/// Prints the four-area run as BENCHMARKS.md records it.
pub fn print_areas(settings: &Settings, f: &AreaFigures) {
    let city = &f.city;
    println!(
        "\nFour service areas (the city's quadrants) of {} couriers each, {} couriers in all, on two core replicas of one PostgreSQL database, {} bookings/s for {} s:",
        settings.couriers,
        f.couriers,
        settings.creates_per_second,
        settings.run.as_secs()
    );
    println!(
        "- create → offer p50 {:.0} ms, p99 {:.0} ms (target < 500 ms); {} booked, {} delivered, {:.1} % on time, {:.2} deliveries per courier-hour, {} never offered, {} moves refused, {} apps ended early{}",
        city.offer_p50_ms,
        city.offer_p99_ms,
        city.booked,
        city.delivered,
        100.0 * city.on_time_rate(),
        city.per_courier_hour,
        city.never_offered,
        city.move_errors,
        city.apps_failed,
        city.first_app_error
            .as_deref()
            .map_or_else(String::new, |error| format!(" (the first: {error})"))
    );
    println!(
        "- both replicas' `courier_dispatch_partition_rounds_running` read every {} ms: {} reads, {} ({:.1} %) with the two running rounds of different areas at once",
        SAMPLE_EVERY.as_millis(),
        f.samples,
        f.overlapping,
        100.0 * f.overlapping as f64 / f.samples.max(1) as f64
    );
    println!("| Replica | Partition | Rounds | Mean ms | Skipped, locked by the other |");
    println!("|---:|---|---:|---:|---:|");
    for r in &f.rounds {
        println!(
            "| {} | {} | {:.0} | {:.1} | {:.0} |",
            r.replica, r.partition, r.ran, r.mean_ms, r.locked_out
        );
    }
}
