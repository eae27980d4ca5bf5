//! Automatic dispatch in a simulated city (`--only dispatch`, BENCHMARKS.md):
//! couriers signed in over `CourierAppService`, moving along their routes
//! and reporting positions every 5 s, taking every offer after a short
//! think time, while deliveries are booked through `/v1` at a steady rate.
//! Measures the time from create to the offer on the device and to its
//! acceptance, the time to pickup of the assignments made against the
//! optimum for the same rounds (and first-come assignment against it), the
//! core's CPU and resident set; then the intake of position reports against
//! a bare tonic client stream (`stream-ceiling`) measured in the same run.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use courier::app::v1 as apb;
use courier::app::v1::courier_app_service_client::CourierAppServiceClient;
use courier::app::v1::watch_assignments_response::Update;
use courier::internal::v1 as ipb;
use courier::internal::v1::courier_service_client::CourierServiceClient;
use courier::v1 as pb;
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::codegen::{Body, BoxFuture, Context, Poll, StdError, http};
use tonic::transport::Channel;

use crate::load::percentile_ms;
use crate::service::{BenchResult, OFFER_TIMEOUT, Service, free_addr, resident_kib};

/// The city: a box around Berlin's centre, about 11 km across.
pub(crate) const CENTRE: (f64, f64) = (52.5200, 13.4050);
pub(crate) const HALF_LATITUDE: f64 = 0.05;
pub(crate) const HALF_LONGITUDE: f64 = 0.08;
/// How far (in degrees, each way) a dropoff lies from its pickup: trips of
/// up to about a kilometre.
const TRIP: f64 = 0.008;
/// How fast a simulated courier moves, in metres per second: a day's work
/// pressed into a run of a minute, so that a thousand couriers keep up
/// with 50 creates a second (a trip takes seconds, not half an hour).
const SPEED_MPS: f64 = 100.0;
/// How often each courier's app reports its position.
const REPORT_EVERY: Duration = Duration::from_secs(5);
/// How long a courier looks at an offer before accepting it.
const THINK: Duration = Duration::from_millis(200);
/// Connections the couriers' apps share (HTTP/2, many streams each).
const CHANNELS: usize = 16;
/// Streams reporting positions as fast as they can in the intake runs.
const INTAKE_STREAMS: usize = 256;
/// A simulated courier's password.
const PASSWORD: &str = "bench courier on the move";
/// Every this many bookings carries windows (a quarter of the load).
const WINDOWED_EVERY: u64 = 4;

/// What the dispatch run is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub couriers: usize,
    pub creates_per_second: f64,
    pub run: Duration,
    /// Length of each intake run.
    pub intake_run: Duration,
    pub repeat: usize,
}

/// What the dispatch run measured.
#[derive(Debug, Default)]
pub struct Figures {
    pub created: usize,
    pub create_errors: u64,
    pub offered: usize,
    pub accepted: usize,
    pub never_offered: usize,
    /// Offers that reached the device, and those of them that reached it
    /// more than [`LATE`] after the core made them (0 expected).
    pub offers_received: usize,
    pub late_offers: usize,
    /// Offers that expired on the device unanswered (0 expected: an app
    /// answers within [`THINK`], so one expired unseen).
    pub expired_offers: usize,
    /// Courier apps that ended early, a call or a stream failed, and the
    /// first such failure.
    pub apps_failed: usize,
    pub first_app_error: Option<String>,
    pub offer_p50_ms: f64,
    pub offer_p99_ms: f64,
    /// The create's own answer (sent → answered), and answered → offer on
    /// the device: where the time to an offer goes.
    pub create_p50_ms: f64,
    pub create_p99_ms: f64,
    pub answered_to_offer_p50_ms: f64,
    pub answered_to_offer_p99_ms: f64,
    pub accept_p50_ms: f64,
    pub accept_p99_ms: f64,
    /// Rounds compared with the optimum, and the offers in them.
    pub rounds: usize,
    pub round_offers: usize,
    /// Mean distance to the pickup (m): of the offers made, of the optimum,
    /// of first-come assignment, over the same rounds.
    pub made_m: f64,
    pub optimum_m: f64,
    pub first_come_m: f64,
    pub jobs_done: u64,
    pub move_errors: u64,
    pub positions_accepted: i64,
    /// The core's CPU over the run, in cores (1.0 = one core busy).
    pub core_cpu: f64,
    pub core_peak_mib: f64,
    /// Position reports per second: the core, the bare stream, the median
    /// of the paired ratios.
    pub intake_per_second: f64,
    pub ceiling_per_second: f64,
    pub intake_ratio: f64,
    pub intake_streams: usize,
    /// Bookings that carried windows (every [`WINDOWED_EVERY`]th), their
    /// create → offer p99, and of the delivered deliveries those handed
    /// over by their promised dropoff.
    pub windowed: usize,
    pub windowed_offer_p99_ms: f64,
    pub delivered: usize,
    pub delivered_late: usize,
}

/// A small deterministic random source (SplitMix64).
pub(crate) struct Random(pub(crate) u64);

impl Random {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A point in the city.
    pub(crate) fn place(&mut self) -> (f64, f64) {
        (
            CENTRE.0 + (self.next() * 2.0 - 1.0) * HALF_LATITUDE,
            CENTRE.1 + (self.next() * 2.0 - 1.0) * HALF_LONGITUDE,
        )
    }

    /// A point within a trip of `from`, inside the city.
    pub(crate) fn near(&mut self, from: (f64, f64)) -> (f64, f64) {
        let clamp = |v: f64, centre: f64, half: f64| v.clamp(centre - half, centre + half);
        (
            clamp(from.0 + (self.next() * 2.0 - 1.0) * TRIP, CENTRE.0, HALF_LATITUDE),
            clamp(
                from.1 + (self.next() * 2.0 - 1.0) * TRIP * 1.6,
                CENTRE.1,
                HALF_LONGITUDE,
            ),
        )
    }
}

/// Great-circle distance in metres.
pub(crate) fn metres(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1, la2, lo2) = (a.0.to_radians(), a.1.to_radians(), b.0.to_radians(), b.1.to_radians());
    let h = ((la2 - la1) / 2.0).sin().powi(2) + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * 6_371_000.0 * h.sqrt().asin()
}

/// Where a courier is: still, or moving from one point to another.
#[derive(Clone, Copy)]
pub(crate) struct Motion {
    pub(crate) from: (f64, f64),
    pub(crate) to: (f64, f64),
    pub(crate) start: Instant,
    pub(crate) takes: Duration,
}

impl Motion {
    pub(crate) fn still(at: (f64, f64)) -> Motion {
        Motion {
            from: at,
            to: at,
            start: Instant::now(),
            takes: Duration::ZERO,
        }
    }

    pub(crate) fn at(&self, now: Instant) -> (f64, f64) {
        if self.takes.is_zero() {
            return self.to;
        }
        let done = (now.saturating_duration_since(self.start).as_secs_f64() / self.takes.as_secs_f64()).min(1.0);
        (
            self.from.0 + (self.to.0 - self.from.0) * done,
            self.from.1 + (self.to.1 - self.from.1) * done,
        )
    }
}

/// One round as the devices saw it: the couriers free when its first offer
/// arrived (with their positions), and the offers it made.
struct Round {
    started: Instant,
    free: Vec<(usize, (f64, f64))>,
    /// (courier, delivery id, pickup).
    offers: Vec<(usize, String, (f64, f64))>,
}

/// Offers arriving within this time of a round's first belong to it (a
/// round's offers are pushed together, after its commit).
const ROUND_WINDOW: Duration = Duration::from_millis(50);

#[derive(Default)]
struct City {
    motions: Vec<Motion>,
    /// Online, with no job and no offer.
    free: Vec<bool>,
    rounds: Vec<Round>,
    /// Each booking's create: sent and answered.
    booked: HashMap<String, (Instant, Instant)>,
    /// The bookings that carried windows.
    windowed: HashSet<String>,
    offered: HashMap<String, Instant>,
    accepted: HashMap<String, Instant>,
    /// Every offer received, and those received late ([`LATE`]).
    offers_received: usize,
    late_offers: usize,
    /// Offers that expired on a phone (each app answers within [`THINK`]).
    expired_offers: usize,
}

/// An offer on the device later than this after it was made was held up
/// on its way (a lost wake, a stream that did not read).
const LATE: Duration = Duration::from_secs(2);

struct Shared {
    city: Mutex<City>,
    jobs_done: AtomicU64,
    move_errors: AtomicU64,
}

impl Shared {
    fn city(&self) -> MutexGuard<'_, City> {
        self.city.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Courier `c` was offered `job` now: joins the round under way or
    /// starts one with the free couriers as they are. `on_its_own`: not
    /// in the stream's first snapshot, so late only if held on its way.
    fn offered(&self, c: usize, offer: &apb::Offer, job: &apb::Job, on_its_own: bool) {
        let now = Instant::now();
        let pickup = job.pickup.as_ref().map_or((0.0, 0.0), |p| (p.latitude, p.longitude));
        // Made when its answer time began: its expiry less the timeout.
        let made_micros = offer.expires_at.as_ref().map_or(0, |t| {
            t.seconds * 1_000_000 + i64::from(t.nanos) / 1_000 - OFFER_TIMEOUT.as_micros() as i64
        });
        let wall_micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64);
        let mut city = self.city();
        city.offers_received += 1;
        if on_its_own && wall_micros - made_micros > LATE.as_micros() as i64 {
            city.late_offers += 1;
        }
        city.offered.entry(job.id.clone()).or_insert(now);
        let position = city.motions[c].at(now);
        let joins = city
            .rounds
            .last()
            .is_some_and(|r| now.duration_since(r.started) <= ROUND_WINDOW);
        if !joins {
            let free = (0..city.free.len())
                .filter(|&i| city.free[i])
                .map(|i| (i, city.motions[i].at(now)))
                .collect();
            city.rounds.push(Round {
                started: now,
                free,
                offers: Vec::new(),
            });
        }
        if let Some(round) = city.rounds.last_mut() {
            if !round.free.iter().any(|(i, _)| *i == c) {
                round.free.push((c, position));
            }
            round.offers.push((c, job.id.clone(), pickup));
        }
        city.free[c] = false;
    }
}

/// A signed-in simulated courier.
pub(crate) struct Courier {
    pub(crate) index: usize,
    /// `cou_…`
    pub(crate) id: String,
    pub(crate) client: CourierAppServiceClient<Channel>,
    pub(crate) token: String,
}

impl Courier {
    pub(crate) fn request<T>(&self, message: T) -> tonic::Request<T> {
        authorised(message, &self.token)
    }
}

fn authorised<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn now_timestamp() -> prost_types::Timestamp {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    prost_types::Timestamp {
        seconds: since.as_secs() as i64,
        nanos: since.subsec_nanos() as i32,
    }
}

pub(crate) fn report(at: (f64, f64)) -> apb::ReportLocationsRequest {
    report_at(at, now_timestamp())
}

/// A report of position `at` recorded at `recorded_at`.
pub(crate) fn report_at(at: (f64, f64), recorded_at: prost_types::Timestamp) -> apb::ReportLocationsRequest {
    apb::ReportLocationsRequest {
        positions: vec![apb::Position {
            latitude: at.0,
            longitude: at.1,
            accuracy_m: Some(8.0),
            heading_deg: None,
            speed_mps: None,
            recorded_at: Some(recorded_at),
        }],
    }
}

/// Invites `count` platform couriers driving `vehicle`, has each join, go
/// online at a random place and report it.
pub(crate) async fn sign_up(
    service: &Service,
    admin_token: &str,
    channels: &[Channel],
    count: usize,
    vehicle: &str,
) -> BenchResult<Vec<Courier>> {
    let mut random = Random(7);
    let places: Vec<(f64, f64)> = (0..count).map(|_| random.place()).collect();
    let mut joining = JoinSet::new();
    let next = Arc::new(AtomicU64::new(0));
    let places = Arc::new(places);
    let signed = Arc::new(Mutex::new(Vec::with_capacity(count)));
    // Joining hashes a password (argon2id): a few at a time.
    for _ in 0..8 {
        let (channels, next, places, signed) = (channels.to_vec(), next.clone(), places.clone(), signed.clone());
        let (grpc_url, admin_token, vehicle) = (service.grpc_url.clone(), admin_token.to_owned(), vehicle.to_owned());
        joining.spawn(async move {
            let mut couriers = CourierServiceClient::connect(grpc_url).await?;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= count {
                    return Ok::<_, Box<dyn std::error::Error + Send + Sync>>(());
                }
                let invited = couriers
                    .invite_courier(authorised(
                        ipb::InviteCourierRequest {
                            workspace_id: String::new(),
                            name: format!("Bench Courier {i}"),
                            phone: None,
                            email: Some(format!("courier{i}@bench.example")),
                            vehicle: Some(ipb::CourierVehicleInput {
                                vehicle_type_id: vehicle.clone(),
                                ..Default::default()
                            }),
                        },
                        &admin_token,
                    ))
                    .await?
                    .into_inner();
                let link_token = invited.invitation_url.rsplit('/').next().unwrap_or_default().to_owned();
                let mut client = CourierAppServiceClient::new(channels[i % channels.len()].clone());
                let joined = client
                    .accept_invitation(apb::AcceptInvitationRequest {
                        token: link_token,
                        password: PASSWORD.into(),
                    })
                    .await?
                    .into_inner();
                let courier = Courier {
                    index: i,
                    id: invited
                        .courier
                        .map(|c| c.id)
                        .ok_or("an invitation answered no courier")?,
                    client,
                    token: joined.session_token,
                };
                let mut client = courier.client.clone();
                client
                    .set_availability(courier.request(apb::SetAvailabilityRequest {
                        availability: apb::Availability::Online as i32,
                    }))
                    .await?;
                client
                    .report_locations(courier.request(tokio_stream::iter([report(places[i])])))
                    .await?;
                signed.lock().unwrap_or_else(|p| p.into_inner()).push(courier);
            }
        });
    }
    while let Some(joined) = joining.join_next().await {
        joined??;
    }
    let mut couriers = std::mem::take(&mut *signed.lock().unwrap_or_else(|p| p.into_inner()));
    couriers.sort_by_key(|c| c.index);
    Ok(couriers)
}

/// The proof `job` asks for at `checkpoint`, as a courier's app sends it.
fn proof_for(job: &apb::Job, checkpoint: pb::CheckpointKind) -> apb::SubmitProofRequest {
    let rules = job.proof.unwrap_or_default();
    let (photos, signature, barcode, age) = match checkpoint {
        pb::CheckpointKind::Pickup => {
            let p = rules.pickup.unwrap_or_default();
            (p.photos, p.signature, p.barcode, false)
        }
        _ => {
            let d = rules.dropoff.unwrap_or_default();
            (d.photos, d.signature, d.barcode, d.age_check)
        }
    };
    let png = |n: i32| {
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend(std::iter::repeat_n(n as u8, 256));
        bytes
    };
    let mut files: Vec<apb::ProofFile> = (0..photos.max(1))
        .map(|n| apb::ProofFile {
            kind: pb::ArtifactKind::Photo as i32,
            file_name: format!("photo-{n}.png"),
            content_type: "image/png".into(),
            content: png(n),
        })
        .collect();
    if signature {
        files.push(apb::ProofFile {
            kind: pb::ArtifactKind::Signature as i32,
            file_name: "signature.png".into(),
            content_type: "image/png".into(),
            content: png(99),
        });
    }
    apb::SubmitProofRequest {
        job_id: job.id.clone(),
        checkpoint: checkpoint as i32,
        files,
        person_name: Some("Bench Person".into()),
        barcode: barcode.then(|| "BENCH-1".into()),
        age_checked: age,
        left_at_door: false,
        pin: None,
        submission_id: String::new(),
    }
}

/// Moves courier `c` to `to` at [`SPEED_MPS`], and waits until they are there.
async fn travel(shared: &Shared, c: usize, to: (f64, f64)) {
    let takes = {
        let mut city = shared.city();
        let from = city.motions[c].at(Instant::now());
        let takes = Duration::from_secs_f64(metres(from, to) / SPEED_MPS);
        city.motions[c] = Motion {
            from,
            to,
            start: Instant::now(),
            takes,
        };
        takes
    };
    tokio::time::sleep(takes).await;
}

/// Carries an accepted job from the courier's position to its end.
async fn carry(
    shared: &Shared,
    courier: &Courier,
    reports: &mpsc::Sender<apb::ReportLocationsRequest>,
    job: apb::Job,
) -> Result<(), tonic::Status> {
    let c = courier.index;
    let point = |w: &Option<pb::Waypoint>| w.as_ref().map_or((0.0, 0.0), |w| (w.latitude, w.longitude));
    let (pickup, dropoff) = (point(&job.pickup), point(&job.dropoff));
    travel(shared, c, pickup).await;
    pick_up(courier, &job.id).await?;
    travel(shared, c, dropoff).await;
    reach_dropoff(courier, &job.id).await?;
    // Where the courier is free again, before they are: the app reports
    // the position at the handover.
    let _ = reports.send(report(dropoff)).await;
    hand_over(courier, &job.id).await
}

/// The proof `job` asks for at `checkpoint`, if the next move waits for it.
async fn prove(courier: &Courier, job: &apb::Job, checkpoint: pb::CheckpointKind) -> Result<(), tonic::Status> {
    if job.next_move() == apb::JobMove::Unspecified {
        courier
            .client
            .clone()
            .submit_proof(courier.request(proof_for(job, checkpoint)))
            .await?;
    }
    Ok(())
}

/// At job `id`'s pickup: arrived, the proof, the goods on board, on the way.
pub(crate) async fn pick_up(courier: &Courier, id: &str) -> Result<(), tonic::Status> {
    let mut client = courier.client.clone();
    let job_id = || id.to_owned();
    let job = client
        .arrive_at_pickup(courier.request(apb::ArriveAtPickupRequest { job_id: job_id() }))
        .await?
        .into_inner()
        .job
        .unwrap_or_default();
    prove(courier, &job, pb::CheckpointKind::Pickup).await?;
    client
        .pick_up(courier.request(apb::PickUpRequest { job_id: job_id() }))
        .await?;
    client
        .start_transit(courier.request(apb::StartTransitRequest { job_id: job_id() }))
        .await?;
    Ok(())
}

/// At job `id`'s dropoff: arrived, and the proof.
pub(crate) async fn reach_dropoff(courier: &Courier, id: &str) -> Result<(), tonic::Status> {
    let job = courier
        .client
        .clone()
        .arrive_at_dropoff(courier.request(apb::ArriveAtDropoffRequest { job_id: id.to_owned() }))
        .await?
        .into_inner()
        .job
        .unwrap_or_default();
    prove(courier, &job, pb::CheckpointKind::Dropoff).await
}

/// Job `id` handed over.
pub(crate) async fn hand_over(courier: &Courier, id: &str) -> Result<(), tonic::Status> {
    courier
        .client
        .clone()
        .complete_handover(courier.request(apb::CompleteHandoverRequest { job_id: id.to_owned() }))
        .await?;
    Ok(())
}

/// One courier's app until `stop`: its position stream, its assignment
/// stream, and the offers it takes. Answers the positions the core accepted.
/// `ready` is told once the assignment stream's snapshot arrived.
async fn drive(
    shared: Arc<Shared>,
    courier: Courier,
    ready: oneshot::Sender<()>,
    stop: CancellationToken,
) -> BenchResult<i64> {
    let c = courier.index;
    let mut client = courier.client.clone();
    let phone = {
        let shared = shared.clone();
        Phone::open(&courier, REPORT_EVERY, stop.clone(), move || {
            report(shared.city().motions[c].at(Instant::now()))
        })
    };
    let reports = phone.reports.clone();
    let mut stream = client
        .watch_assignments(courier.request(apb::WatchAssignmentsRequest::default()))
        .await?
        .into_inner();
    let mut ready = Some(ready);
    let mut taken = HashSet::new();
    loop {
        let message = tokio::select! {
            _ = stop.cancelled() => break,
            message = stream.message() => message?,
        };
        let Some(message) = message else { break };
        // The stream's first message is its snapshot: the app is ready.
        if let Some(ready) = ready.take() {
            let _ = ready.send(());
        }
        // An offer comes on its own, or in a snapshot when it was made
        // before the stream's first read (then it may come again on its
        // own: an app takes an offer once). Only one on its own says how
        // long the way to the phone took.
        let (offer, on_its_own) = match message.update {
            Some(Update::Offer(offer)) => (offer, true),
            Some(Update::Snapshot(apb::AssignmentSnapshot { offer: Some(offer), .. })) => (offer, false),
            Some(Update::Withdrawal(withdrawal)) => {
                if withdrawal.reason() == apb::WithdrawalReason::OfferExpired {
                    shared.city().expired_offers += 1;
                }
                continue;
            }
            _ => continue,
        };
        let Some(job) = offer.job.as_ref() else { continue };
        if !taken.insert(offer.id.clone()) {
            continue;
        }
        shared.offered(c, &offer, job, on_its_own);
        tokio::time::sleep(THINK).await;
        let accepted = client
            .accept_offer(courier.request(apb::AcceptOfferRequest {
                offer_id: offer.id.clone(),
            }))
            .await;
        let outcome = match accepted {
            Ok(answer) => {
                shared.city().accepted.insert(job.id.clone(), Instant::now());
                let job = answer.into_inner().job.unwrap_or_default();
                carry(&shared, &courier, &reports, job).await
            }
            Err(refused) => Err(refused),
        };
        match outcome {
            Ok(()) => shared.jobs_done.fetch_add(1, Ordering::Relaxed),
            Err(_) => shared.move_errors.fetch_add(1, Ordering::Relaxed),
        };
        shared.city().free[c] = true;
    }
    drop(reports);
    phone.close().await
}

/// A courier's phone reporting positions on one `ReportLocations` stream:
/// `position()` every `every` (phases spread over couriers) until `stop`,
/// and what the app sends on `reports` itself.
pub(crate) struct Phone {
    pub(crate) reports: mpsc::Sender<apb::ReportLocationsRequest>,
    reporter: tokio::task::JoinHandle<()>,
    stream: tokio::task::JoinHandle<Result<tonic::Response<apb::ReportLocationsResponse>, tonic::Status>>,
}

impl Phone {
    pub(crate) fn open(
        courier: &Courier,
        every: Duration,
        stop: CancellationToken,
        position: impl Fn() -> apb::ReportLocationsRequest + Send + 'static,
    ) -> Phone {
        let (reports, receiver) = mpsc::channel(16);
        let mut client = courier.client.clone();
        let request = courier.request(ReceiverStream::new(receiver));
        let stream = tokio::spawn(async move { client.report_locations(request).await });
        let phase = Duration::from_millis((courier.index as u64 * 7919) % every.as_millis().max(1) as u64);
        let sender = reports.clone();
        let reporter = tokio::spawn(async move {
            // Phones do not report in step: a phase per courier.
            tokio::time::sleep(phase).await;
            let mut ticks = tokio::time::interval(every);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                if sender.send(position()).await.is_err() {
                    return;
                }
            }
        });
        Phone {
            reports,
            reporter,
            stream,
        }
    }

    /// Ends the stream; answers the positions the core accepted.
    pub(crate) async fn close(self) -> BenchResult<i64> {
        self.reporter.abort();
        let _ = self.reporter.await;
        drop(self.reports);
        Ok(self.stream.await?.map(|a| a.into_inner().accepted).unwrap_or(0))
    }
}

/// Each courier's `app` (told when its assignment stream is open, stopped
/// by `stop`), once every one holds its stream: bookings begin then, as in a
/// city whose couriers were online before the first order.
pub(crate) async fn start_apps<T, F>(
    couriers: Vec<Courier>,
    stop: &CancellationToken,
    app: impl Fn(Courier, oneshot::Sender<()>, CancellationToken) -> F,
) -> BenchResult<JoinSet<T>>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let mut apps = JoinSet::new();
    let mut readiness = Vec::with_capacity(couriers.len());
    for courier in couriers {
        let (ready, is_ready) = oneshot::channel();
        readiness.push(is_ready);
        apps.spawn(app(courier, ready, stop.clone()));
    }
    for is_ready in readiness {
        is_ready
            .await
            .map_err(|_| "a courier app ended before its assignment stream opened")?;
    }
    Ok(apps)
}

/// How many of `service`'s deliveries `query` lists (`GET /v1/deliveries`,
/// every page).
pub(crate) async fn count_deliveries(client: &reqwest::Client, service: &Service, query: &str) -> BenchResult<usize> {
    let (mut count, mut token) = (0, String::new());
    loop {
        let page: serde_json::Value = client
            .get(format!("{}/v1/deliveries?limit=100&{query}{token}", service.base_url))
            .header("x-api-key", &service.live_key)
            .send()
            .await?
            .json()
            .await?;
        count += page["deliveries"].as_array().map_or(0, Vec::len);
        match page["next_page_token"].as_str() {
            Some(next) => token = format!("&page_token={next}"),
            None => return Ok(count),
        }
    }
}

/// `utime + stime` of process `pid`, in clock ticks.
pub(crate) fn cpu_ticks(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // Fields after the command's closing parenthesis; utime and
            // stime are the 14th and 15th of the whole line.
            let rest = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0)
}

/// Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux).
pub(crate) const TICKS_PER_SECOND: f64 = 100.0;

pub(crate) fn sorted_ms(mut durations: Vec<Duration>) -> (f64, f64) {
    durations.sort_unstable();
    (percentile_ms(&durations, 0.50), percentile_ms(&durations, 0.99))
}

/// The optimum and first-come totals of one round (metres), with the total
/// of the offers made; `None` when the round cannot be compared (more
/// offers than free couriers seen).
fn judge(round: &Round) -> Option<(f64, f64, f64)> {
    let (jobs, free) = (round.offers.len(), round.free.len());
    if jobs == 0 || jobs > free {
        return None;
    }
    let position = |c: usize| round.free.iter().find(|(i, _)| *i == c).map(|(_, p)| *p);
    let made: f64 = round
        .offers
        .iter()
        .map(|(c, _, pickup)| position(*c).map_or(0.0, |p| metres(p, *pickup)))
        .sum();
    let weights = Matrix::from_fn(jobs, free, |(j, c)| {
        metres(round.free[c].1, round.offers[j].2).round() as i64
    });
    let (optimum, _) = kuhn_munkres_min(&weights);
    // First come, first served: in booking order (ids begin with their
    // creation time), each delivery takes the nearest courier left.
    let mut order: Vec<usize> = (0..jobs).collect();
    order.sort_by(|&a, &b| round.offers[a].1.cmp(&round.offers[b].1));
    let mut taken = vec![false; free];
    let mut first_come = 0.0;
    for j in order {
        let nearest = (0..free).filter(|&c| !taken[c]).min_by(|&a, &b| {
            metres(round.free[a].1, round.offers[j].2).total_cmp(&metres(round.free[b].1, round.offers[j].2))
        })?;
        taken[nearest] = true;
        first_come += metres(round.free[nearest].1, round.offers[j].2);
    }
    Some((made, optimum as f64, first_come))
}

/// `count` couriers driving `vehicle` signed up as [`sign_up`] does, over
/// [`CHANNELS`] connections to the cores at `grpc_urls` (in turn), with an
/// admin token of the bench's own.
pub(crate) async fn sign_up_couriers(
    bin_dir: &std::path::Path,
    service: &Service,
    grpc_urls: &[&str],
    count: usize,
    vehicle: &str,
) -> BenchResult<Vec<Courier>> {
    let admin_token = service
        .admin(
            bin_dir,
            &["token", "--role", "admin", "--subject", "bench", "--ttl", "86400"],
        )
        .await?
        .trim()
        .to_owned();
    let mut channels = Vec::with_capacity(CHANNELS);
    for url in grpc_urls.iter().cycle().take(CHANNELS) {
        channels.push(
            tonic::transport::Endpoint::from_shared(url.to_string())?
                .connect()
                .await?,
        );
    }
    sign_up(service, &admin_token, &channels, count, vehicle).await
}

/// The dispatch run, then the position intake runs, on `service`.
pub async fn measure(bin_dir: &std::path::Path, service: &Service, settings: Settings) -> BenchResult<Figures> {
    let couriers = sign_up_couriers(bin_dir, service, &[&service.grpc_url], settings.couriers, "cargo_bike").await?;
    let intake_couriers: Vec<(CourierAppServiceClient<Channel>, String)> = couriers
        .iter()
        .take(INTAKE_STREAMS)
        .map(|c| (c.client.clone(), c.token.clone()))
        .collect();
    let mut random = Random(11);
    let shared = Arc::new(Shared {
        city: Mutex::new(City {
            motions: (0..couriers.len()).map(|_| Motion::still(random.place())).collect(),
            free: vec![true; couriers.len()],
            ..City::default()
        }),
        jobs_done: AtomicU64::new(0),
        move_errors: AtomicU64::new(0),
    });
    // The couriers' first positions, as they reported them.
    {
        let mut again = Random(7);
        let mut city = shared.city();
        for motion in city.motions.iter_mut() {
            *motion = Motion::still(again.place());
        }
    }
    let stop = CancellationToken::new();
    let mut apps = start_apps(couriers, &stop, |courier, ready, stop| {
        drive(shared.clone(), courier, ready, stop)
    })
    .await?;

    let core_pid = service.core.id().unwrap_or(0);
    let peak_kib = Arc::new(AtomicU64::new(0));
    let sampler = {
        let peak = peak_kib.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(resident_kib(core_pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        })
    };
    let (ticks_before, started) = (cpu_ticks(core_pid), Instant::now());

    // Deliveries at a steady rate (open loop: one every 1/rate seconds,
    // whether or not the previous one was answered).
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .build()?;
    let create_errors = Arc::new(AtomicU64::new(0));
    let mut creates = JoinSet::new();
    let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / settings.creates_per_second));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut places = Random(23);
    let mut booking = 0u64;
    while started.elapsed() < settings.run {
        booking += 1;
        every.tick().await;
        let pickup = places.place();
        let dropoff = places.near(pickup);
        let mut body = json!({
            "pickup": crate::place("Pickup, Berlin", pickup.0, pickup.1, "Ana Sender"),
            "dropoff": crate::place("Dropoff, Berlin", dropoff.0, dropoff.1, "Rui Receiver"),
            "vehicle_type_id": "cargo_bike",
        });
        let windowed = booking.is_multiple_of(WINDOWED_EVERY);
        if windowed {
            // A shop's promise: picked up within half an hour (the window
            // open now), delivered between 15 and 75 minutes from now.
            let at =
                |minutes: i64| courier::time::format_rfc3339(chrono::Utc::now() + chrono::Duration::minutes(minutes));
            body["pickup_window"] = json!({ "start": at(0), "end": at(30) });
            body["dropoff_window"] = json!({ "start": at(15), "end": at(75) });
        }
        let request = client
            .post(format!("{}/v1/deliveries", service.base_url))
            .header("x-api-key", &service.live_key)
            .header("idempotency-key", format!("dispatch-{booking}"))
            .json(&body);
        let (shared, errors) = (shared.clone(), create_errors.clone());
        creates.spawn(async move {
            let sent = Instant::now();
            let answer = match request.send().await {
                Ok(answer) if answer.status().is_success() => answer.json::<serde_json::Value>().await.ok(),
                _ => None,
            };
            match answer.as_ref().and_then(|a| a["id"].as_str()) {
                Some(id) => {
                    let mut city = shared.city();
                    city.booked.insert(id.to_owned(), (sent, Instant::now()));
                    if windowed {
                        city.windowed.insert(id.to_owned());
                    }
                }
                None => {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while creates.join_next().await.is_some() {}
    // The last bookings' offers and acceptances.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let elapsed = started.elapsed().as_secs_f64();
    let core_cpu = (cpu_ticks(core_pid).saturating_sub(ticks_before)) as f64 / TICKS_PER_SECOND / elapsed;
    stop.cancel();
    let (mut positions_accepted, mut apps_failed, mut first_app_error) = (0, 0, None);
    while let Some(app) = apps.join_next().await {
        match app? {
            Ok(accepted) => positions_accepted += accepted,
            // An app whose call or stream failed stopped taking offers:
            // its offers expire unseen.
            Err(error) => {
                apps_failed += 1;
                first_app_error.get_or_insert_with(|| error.to_string());
            }
        }
    }
    sampler.abort();

    let mut figures = Figures {
        create_errors: create_errors.load(Ordering::Relaxed),
        jobs_done: shared.jobs_done.load(Ordering::Relaxed),
        move_errors: shared.move_errors.load(Ordering::Relaxed),
        positions_accepted,
        apps_failed,
        first_app_error,
        core_cpu,
        core_peak_mib: peak_kib.load(Ordering::Relaxed) as f64 / 1024.0,
        ..Figures::default()
    };
    {
        let city = shared.city();
        figures.created = city.booked.len();
        (figures.offers_received, figures.late_offers, figures.expired_offers) =
            (city.offers_received, city.late_offers, city.expired_offers);
        let (mut to_offer, mut to_accept, mut to_answer, mut answer_to_offer, mut windowed_to_offer) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (id, (sent, answered)) in &city.booked {
            to_answer.push(answered.saturating_duration_since(*sent));
            match city.offered.get(id) {
                Some(at) => {
                    to_offer.push(at.saturating_duration_since(*sent));
                    answer_to_offer.push(at.saturating_duration_since(*answered));
                    if city.windowed.contains(id) {
                        windowed_to_offer.push(at.saturating_duration_since(*sent));
                    }
                }
                None => figures.never_offered += 1,
            }
            if let Some(at) = city.accepted.get(id) {
                to_accept.push(at.saturating_duration_since(*sent));
            }
        }
        figures.offered = to_offer.len();
        figures.windowed = city.windowed.len();
        (_, figures.windowed_offer_p99_ms) = sorted_ms(windowed_to_offer);
        figures.accepted = to_accept.len();
        (figures.offer_p50_ms, figures.offer_p99_ms) = sorted_ms(to_offer);
        (figures.accept_p50_ms, figures.accept_p99_ms) = sorted_ms(to_accept);
        (figures.create_p50_ms, figures.create_p99_ms) = sorted_ms(to_answer);
        (figures.answered_to_offer_p50_ms, figures.answered_to_offer_p99_ms) = sorted_ms(answer_to_offer);
        let (mut made, mut optimum, mut first_come) = (0.0, 0.0, 0.0);
        for round in &city.rounds {
            if let Some((m, o, f)) = judge(round) {
                figures.rounds += 1;
                figures.round_offers += round.offers.len();
                made += m;
                optimum += o;
                first_come += f;
            }
        }
        let n = figures.round_offers.max(1) as f64;
        (figures.made_m, figures.optimum_m, figures.first_come_m) = (made / n, optimum / n, first_come / n);
    }

    // The promise kept: delivered deliveries, and those delivered late.
    figures.delivered = count_deliveries(&client, service, "status=delivered").await?;
    figures.delivered_late = count_deliveries(&client, service, "status=delivered&promise=late").await?;

    // Position intake: the core against a bare client stream, alternately.
    let ceiling = Peer::start("stream-ceiling").await?;
    let ceiling_channel = tonic::transport::Endpoint::from_shared(ceiling.url.clone())?
        .connect()
        .await?;
    let (mut intakes, mut ceilings, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..settings.repeat {
        let core_rate = intake(&intake_couriers, settings.intake_run).await?;
        let bare_streams: Vec<_> = intake_couriers
            .iter()
            .map(|(_, token)| (CourierAppServiceClient::new(ceiling_channel.clone()), token.clone()))
            .collect();
        let bare_rate = intake(&bare_streams, settings.intake_run).await?;
        ratios.push(core_rate / bare_rate);
        intakes.push(core_rate);
        ceilings.push(bare_rate);
    }
    ceiling.stop().await;
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or_default()
    };
    figures.intake_per_second = median(intakes);
    figures.ceiling_per_second = median(ceilings);
    figures.intake_ratio = median(ratios);
    figures.intake_streams = intake_couriers.len();
    Ok(figures)
}

/// Position reports per second accepted over `streams` (one stream each,
/// one position per message, sent as fast as they are taken) for `run`.
async fn intake(streams: &[(CourierAppServiceClient<Channel>, String)], run: Duration) -> BenchResult<f64> {
    let started = Instant::now();
    let mut senders = JoinSet::new();
    let mut answers = JoinSet::new();
    for (n, (client, token)) in streams.iter().enumerate() {
        let (reports, receiver) = mpsc::channel(64);
        let mut client = client.clone();
        let request = authorised(ReceiverStream::new(receiver), token);
        answers.spawn(async move { client.report_locations(request).await });
        senders.spawn(async move {
            let mut random = Random(n as u64 + 1000);
            while started.elapsed() < run {
                if reports.send(report(random.place())).await.is_err() {
                    return;
                }
            }
        });
    }
    while senders.join_next().await.is_some() {}
    let mut accepted = 0;
    while let Some(answer) = answers.join_next().await {
        accepted += answer?
            .map_err(|status| format!("position stream refused: {status}"))?
            .into_inner()
            .accepted;
    }
    Ok(accepted as f64 / started.elapsed().as_secs_f64())
}

/// A role of this binary as a child process of the bench (e.g.
/// `stream-ceiling`), so that it competes for the cores as the core does;
/// killed when dropped.
pub(crate) struct Peer {
    pub(crate) url: String,
    child: tokio::process::Child,
}

impl Peer {
    /// Starts `role` at a free address and waits until it accepts connections.
    pub(crate) async fn start(role: &str) -> BenchResult<Peer> {
        let addr = free_addr()?;
        let child = tokio::process::Command::new(std::env::current_exe()?)
            .args([role, "--addr", &addr])
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(&addr).await.is_err() {
            if Instant::now() > deadline {
                return Err(format!("{role} did not start").into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Peer {
            url: format!("http://{addr}"),
            child,
        })
    }

    pub(crate) async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// A tonic server answering only `CourierAppService/ReportLocations`, by
/// counting the positions it reads: no session, no checks, nothing kept.
#[derive(Clone)]
pub struct StreamCeiling;

impl tonic::server::NamedService for StreamCeiling {
    const NAME: &'static str = "courier.app.v1.CourierAppService";
}

impl<B> tonic::codegen::Service<http::Request<B>> for StreamCeiling
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
            Ok(grpc.client_streaming(CountPositions, request).await)
        })
    }
}

struct CountPositions;

impl tonic::server::ClientStreamingService<apb::ReportLocationsRequest> for CountPositions {
    type Response = apb::ReportLocationsResponse;
    type Future = BoxFuture<tonic::Response<Self::Response>, tonic::Status>;

    fn call(&mut self, request: tonic::Request<tonic::Streaming<apb::ReportLocationsRequest>>) -> Self::Future {
        Box::pin(async move {
            let mut stream = request.into_inner();
            let mut accepted = 0;
            while let Some(report) = stream.message().await? {
                accepted += report.positions.len() as i64;
            }
            Ok(tonic::Response::new(apb::ReportLocationsResponse { accepted }))
        })
    }
}

/// Serves [`StreamCeiling`] at `addr` until killed.
pub async fn serve_stream_ceiling(addr: &str) -> BenchResult<()> {
    tonic::transport::Server::builder()
        .add_service(StreamCeiling)
        .serve(addr.parse()?)
        .await?;
    Ok(())
}

/// Prints the figures as BENCHMARKS.md records them.
pub fn print(settings: &Settings, f: &Figures) {
    println!(
        "\nAutomatic dispatch: {} couriers, {} creates/s for {} s ({} booked, {} errors; {} jobs carried, {} moves refused):",
        settings.couriers,
        settings.creates_per_second,
        settings.run.as_secs(),
        f.created,
        f.create_errors,
        f.jobs_done,
        f.move_errors
    );
    println!(
        "- create → offer on the device: p50 {:.0} ms, p99 {:.0} ms (target p99 < 500 ms); {} offered, {} never offered",
        f.offer_p50_ms, f.offer_p99_ms, f.offered, f.never_offered
    );
    println!(
        "- offers on the device more than {} s after they were made: {} of {} received (target 0)",
        LATE.as_secs(),
        f.late_offers,
        f.offers_received
    );
    println!(
        "- offers that expired on the device unanswered: {} (target 0: an app answers within {} ms)",
        f.expired_offers,
        THINK.as_millis()
    );
    println!(
        "- courier apps ended early by a failed call or stream: {}{} (target 0)",
        f.apps_failed,
        f.first_app_error
            .as_deref()
            .map_or_else(String::new, |error| format!("; the first: {error}"))
    );
    println!(
        "  of which the create's answer: p50 {:.0} ms, p99 {:.0} ms; its answer → the offer (0 when the offer came first): p50 {:.0} ms, p99 {:.0} ms",
        f.create_p50_ms, f.create_p99_ms, f.answered_to_offer_p50_ms, f.answered_to_offer_p99_ms
    );
    println!(
        "- with windows (every {}th booking: pickup window open now, dropoff window in 15 to 75 min): {} booked, create → offer p99 {:.0} ms; on time: {} of {} delivered ({:.1} %)",
        WINDOWED_EVERY,
        f.windowed,
        f.windowed_offer_p99_ms,
        f.delivered - f.delivered_late,
        f.delivered,
        if f.delivered > 0 {
            100.0 * (f.delivered - f.delivered_late) as f64 / f.delivered as f64
        } else {
            0.0
        }
    );
    println!(
        "- create → acceptance (with {} ms think time): p50 {:.0} ms, p99 {:.0} ms; {} accepted",
        THINK.as_millis(),
        f.accept_p50_ms,
        f.accept_p99_ms,
        f.accepted
    );
    let ratio = |m: f64| if f.optimum_m > 0.0 { m / f.optimum_m } else { 0.0 };
    println!(
        "- time to pickup ÷ optimum over the same {} rounds ({} offers): assignments made {:.3} (target ≤ 1.05), first-come {:.3}; mean distances {:.0} m, {:.0} m optimum, {:.0} m first-come",
        f.rounds,
        f.round_offers,
        ratio(f.made_m),
        ratio(f.first_come_m),
        f.made_m,
        f.optimum_m,
        f.first_come_m
    );
    println!(
        "- core during the run: {:.2} cores of CPU, peak resident set {:.0} MiB; {} positions accepted from the apps",
        f.core_cpu, f.core_peak_mib, f.positions_accepted
    );
    println!(
        "- position intake over {} streams: {:.0} reports/s; bare client stream {:.0}/s; ratio {:.2} (targets ≥ 0.5 and ≥ 20000/s)",
        f.intake_streams, f.intake_per_second, f.ceiling_per_second, f.intake_ratio
    );
}
