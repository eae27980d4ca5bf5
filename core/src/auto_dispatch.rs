//! Automatic dispatch (docs/couriers.md "Automatic dispatch";
//! `COURIER_DISPATCH=auto`): a round takes every live delivery waiting for
//! a courier and every eligible courier with room together (a free one, or
//! one whose route a job can join, docs/guide.md "Several jobs per
//! courier") and offers the jobs so as to minimise the route time they add
//! (a min-cost assignment, the Hungarian method), rather than one delivery
//! at a time in arrival order. A round runs when woken (a delivery created, an offer declined,
//! a courier freed), at least every second and at most every 50 ms (a
//! burst of wakes is one round), beside the requests: it never holds
//! SQLite's writer unless it has something to write, and reads no waiting
//! job while nothing it would read has changed since a round that placed
//! nothing ([`Memory`]).
//!
//! A round runs partition by partition ([`Partition`]: the platform's
//! couriers and deliveries of one service area, or one fleet). Offers are
//! rows (`assignments::offers`); a partition's round and its offers are
//! one transaction. On PostgreSQL it holds the partition's
//! transaction-scoped advisory lock, so with several replicas one round of
//! a partition runs at a time while different partitions' run at once, and
//! a replica that dies mid-round leaves nothing half done; each offer takes
//! its courier's route row, and the unique indexes on open offers and
//! assignments hold the rule besides. On SQLite one core does it all.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use tokio_util::sync::CancellationToken;

use crate::couriers::{self, Courier, Fleet};
use crate::jobs::route::Setting;
use crate::jobs::{self, Work};
use crate::positions::{self, Position};
use crate::{Core, CoreResult};
use courier_identity::workspaces;
use courier_orders::assignments;
use courier_orders::assignments::offers::{self, NewOffer, Offer, OfferStatus};
use courier_orders::deliveries::{self, Batching};
use courier_orders::fleet;
use courier_orders::pay::{self, Rule, Scope};
use courier_orders::routes::{
    self,
    plan::{HANDLING, PlanStop},
};
use courier_pricing::catalog::VehicleType;
use courier_pricing::geo::{GeoPoint, distance_km};
use courier_store::config::DispatchMode;
use courier_store::db;
use courier_store::runner::{self, Done, Runner};

/// A round runs at least this often.
const ROUND_EVERY: Duration = Duration::from_secs(1);
/// And at most this often, however often it is woken; also the wait before
/// trying again when another replica's round held the lock.
const ROUND_GAP: Duration = Duration::from_millis(50);
/// The most waiting deliveries one round considers, oldest first.
const MAX_WAITING: u64 = 500;
/// A scheduled delivery is offered from this long before its time.
const SCHEDULED_LEAD_MICROS: i64 = 30 * 60 * 1_000_000;
/// A job with a pickup window is considered from this long before the
/// window opens (longer than any drive to a pickup in the dispatch radius);
/// each courier is offered it once their drive would end as it opens.
const WINDOW_LOOKAHEAD_MICROS: i64 = 60 * 60 * 1_000_000;
/// A courier whose last position is older is not offered jobs.
const STALE_POSITION_MICROS: i64 = 2 * 60 * 1_000_000;
/// The advisory lock of a round (PostgreSQL): any fixed number.
const ROUND_LOCK: i64 = 0x0063_6f75_7269_6572;
/// The cost of a pair that may not be matched.
const INFEASIBLE: i64 = 1_000_000_000;
/// A free courier who moved less than this since a round that placed
/// nothing is where they were for the next one.
const MOVED_KM: f64 = 0.1;

/// What one round did, for metrics and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub expired: usize,
    /// The jobs waiting in the pools that had a free courier; `None` when
    /// no pool had one, and no waiting job was read.
    pub waiting: Option<usize>,
    pub free_couriers: usize,
    pub offered: usize,
}

/// Runs rounds until `stop` (only in `auto` mode): when woken
/// (`Core::dispatch_wake`), at least every [`ROUND_EVERY`], at most every
/// [`ROUND_GAP`] (the wakes of a burst, a create each, are one round).
pub async fn run(core: Core, stop: CancellationToken) {
    if core.config.dispatch != DispatchMode::Auto {
        return;
    }
    let rounds = Rounds {
        core: core.clone(),
        memory: Memory::default(),
    };
    Runner::every(ROUND_EVERY)
        .woken_by(core.dispatch_wake.clone())
        .at_most_every(ROUND_GAP)
        .run(&stop, rounds)
        .await
}

/// The dispatcher's rounds, with what the last one saw.
struct Rounds {
    core: Core,
    memory: Memory,
}

impl runner::Work for Rounds {
    async fn run(&mut self) -> CoreResult<Done> {
        let started = Instant::now();
        match round_with(&self.core, &mut self.memory).await? {
            Some(done) => {
                let metrics = &self.core.metrics;
                metrics.dispatch_round(started.elapsed(), done.waiting, done.free_couriers);
                Ok(Done::Idle)
            }
            // Another replica's round holds the lock and may have begun
            // before what woke this one: again once it is likely done, a
            // gap later.
            None => Ok(Done::More),
        }
    }

    /// Something a round reads changed.
    fn woken(&mut self) {
        self.memory.forget();
    }
}

/// What the last round of each partition saw when it placed nothing: its
/// couriers with room and where they were, and when the first scheduled job
/// it left for later comes due. While the dispatcher is not woken (no
/// create, decline, courier freed or newly online), no offer expires, no
/// scheduled job comes due and the same couriers have room within
/// [`MOVED_KM`] of where they were, a round would place nothing again: it
/// reads no waiting job. A replica's memory is its own: another replica's
/// create wakes that replica's rounds.
#[derive(Debug, Default)]
pub struct Memory {
    unplaced: HashMap<String, Unplaced>,
}

#[derive(Debug)]
struct Unplaced {
    /// Each courier with room, where they were and how many jobs they held.
    free: Vec<(String, GeoPoint, usize)>,
    next_due: i64,
}

impl Memory {
    /// Something a round reads changed: the next round reads it all.
    pub fn forget(&mut self) {
        self.unplaced.clear();
    }

    /// Whether `survey` is what the last round of `partition` saw, when it
    /// placed nothing.
    fn unchanged(&self, partition: &Partition, survey: &Survey, now: i64) -> bool {
        let Some(unplaced) = self.unplaced.get(&partition.key()) else {
            return false;
        };
        now < unplaced.next_due
            && survey.free.len() == unplaced.free.len()
            && survey
                .free
                .iter()
                .zip(&unplaced.free)
                .all(|(candidate, (id, was, held))| {
                    candidate.courier.id == *id
                        && candidate.held.len() == *held
                        && distance_km(candidate.position.point(), *was) < MOVED_KM
                })
    }

    fn remember(&mut self, partition: &Partition, survey: &Survey, done: &Round, next_due: i64) {
        let key = partition.key();
        if done.offered > 0 || done.expired > 0 {
            self.unplaced.remove(&key);
            return;
        }
        let free = survey
            .free
            .iter()
            .map(|candidate| {
                (
                    candidate.courier.id.clone(),
                    candidate.position.point(),
                    candidate.held.len(),
                )
            })
            .collect();
        self.unplaced.insert(key, Unplaced { free, next_due });
    }
}

/// Where one round matches, under a lock of its own (docs/guide.md
/// "Several jobs per courier"): the platform's couriers and live
/// deliveries of one service area, or one fleet's drivers and board
/// orders. Replicas run the rounds of different partitions at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    fleet: Fleet,
    /// The service area, for the platform's.
    area: Option<String>,
}

impl Partition {
    /// The platform's couriers and deliveries of service area `area`.
    pub fn area(area: &str) -> Partition {
        Partition {
            fleet: Fleet::Platform,
            area: Some(area.to_owned()),
        }
    }

    /// `platform:<area>` or `fleet:<workspace>`.
    fn key(&self) -> String {
        match (&self.fleet, &self.area) {
            (Fleet::Platform, area) => format!("platform:{}", area.as_deref().unwrap_or_default()),
            (Fleet::Workspace(id), _) => format!("fleet:{id}"),
        }
    }

    /// Its advisory lock (PostgreSQL): the round lock's number mixed with
    /// the key's FNV-1a hash.
    pub fn lock(&self) -> i64 {
        let hash = self.key().bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        ROUND_LOCK ^ (hash as i64)
    }

    /// Whether job `work`'s offer is this partition's to expire.
    fn holds(&self, work: &Work) -> bool {
        match (&self.fleet, work) {
            (Fleet::Platform, Work::Delivery(d)) => self.area.as_deref() == Some(d.service_area_id.as_str()),
            (Fleet::Workspace(id), Work::FleetOrder(o)) => *id == o.workspace_id,
            _ => false,
        }
    }

    /// Whether `candidate`, a courier of its fleet, is dispatched here.
    fn has(&self, candidate: &Candidate) -> bool {
        match &self.fleet {
            Fleet::Workspace(_) => true,
            Fleet::Platform => candidate.area == self.area,
        }
    }
}

/// The service area a platform courier at `at` is dispatched in: the one
/// containing them, else the one whose outline comes nearest.
fn area_of(core: &Core, at: GeoPoint) -> Option<&str> {
    if let Some(area) = core.catalog.area_containing(at) {
        return Some(&area.id);
    }
    let nearest = |area: &&courier_pricing::catalog::ServiceArea| {
        area.polygon
            .vertices()
            .iter()
            .map(|&vertex| distance_km(at, vertex))
            .fold(f64::INFINITY, f64::min)
    };
    core.catalog
        .service_areas()
        .iter()
        .min_by(|a, b| nearest(a).total_cmp(&nearest(b)))
        .map(|area| area.id.as_str())
}

/// The partitions a round runs: each service area's platform couriers and
/// deliveries, and each fleet with automatic dispatch.
async fn partitions(core: &Core, db: &impl ConnectionTrait) -> CoreResult<Vec<Partition>> {
    let fleets = workspaces::auto_dispatch_fleets(db).await?;
    let areas = core.catalog.service_areas().iter().map(|area| Partition {
        fleet: Fleet::Platform,
        area: Some(area.id.clone()),
    });
    Ok(areas
        .chain(fleets.into_iter().map(|fleet| Partition {
            fleet: Fleet::Workspace(fleet.id),
            area: None,
        }))
        .collect())
}

/// What a round of one partition reads first: the open offers and its
/// couriers with room for a job.
struct Survey {
    /// Its jobs' open offers past their expiry.
    expired: Vec<Offer>,
    /// The jobs of the open offers still running.
    offered_jobs: HashSet<String>,
    free: Vec<Candidate>,
}

/// An online courier with room for another job: free, or holding jobs
/// their vehicle has room beside (docs/guide.md "Several jobs per
/// courier").
#[derive(Clone)]
pub struct Candidate {
    pub courier: Courier,
    pub position: Position,
    /// The jobs they hold, oldest first (read only for an insertion).
    pub held: Vec<String>,
    /// A platform courier's service area: the one they are in or, outside
    /// every area, the nearest.
    pub area: Option<String>,
}

impl Survey {
    /// The open offers as `db` sees them, and of the fleet's couriers with
    /// room (`pool`, read once for every partition of a round) those in
    /// `partition` without an open offer.
    async fn read(
        db: &impl ConnectionTrait,
        partition: &Partition,
        pool: &[Candidate],
        now: i64,
    ) -> CoreResult<Survey> {
        let (mut expired, mut offered_jobs, mut busy) = (Vec::new(), HashSet::new(), HashSet::new());
        for offer in offers::open(db).await? {
            // A courier whose offer just expired waits for the next round.
            busy.insert(offer.courier_id.clone());
            if offer.expires_at <= now {
                expired.push(offer);
            } else {
                offered_jobs.insert(offer.job_id);
            }
        }
        if !expired.is_empty() {
            let ids: Vec<String> = expired.iter().map(|offer| offer.job_id.clone()).collect();
            let works = jobs::works(db, &ids).await?;
            expired.retain(|offer| works.get(&offer.job_id).is_some_and(|work| partition.holds(work)));
        }
        let free = pool
            .iter()
            .filter(|candidate| !busy.contains(&candidate.courier.id) && partition.has(candidate))
            .cloned()
            .collect();
        Ok(Survey {
            expired,
            offered_jobs,
            free,
        })
    }

    /// Whether a round may change anything: an offer expired, or a courier
    /// has room and something changed since a round that placed nothing.
    fn has_work(&self, partition: &Partition, memory: &Memory, now: i64) -> bool {
        !self.expired.is_empty() || (!self.free.is_empty() && !memory.unchanged(partition, self, now))
    }
}

/// One round with no memory of the last; `None` when another replica's
/// round of some partition held its lock.
pub async fn round(core: &Core) -> CoreResult<Option<Round>> {
    round_with(core, &mut Memory::default()).await
}

/// One round of every partition after what `memory` holds of the last,
/// which it updates; what they did together, `None` when another
/// replica's round of some partition held its lock (the others ran).
pub async fn round_with(core: &Core, memory: &mut Memory) -> CoreResult<Option<Round>> {
    let mut total = Round::default();
    let mut locked_out = false;
    // Each fleet's couriers with room, read once for all its partitions:
    // what changed since is caught where an offer is made (its courier's
    // route row taken, their jobs counted again).
    let mut pools: HashMap<Fleet, Vec<Candidate>> = HashMap::new();
    for partition in partitions(core, &core.db).await? {
        if !pools.contains_key(&partition.fleet) {
            let now = core.clock.now_micros();
            let pool = candidates(core, &core.db, &partition.fleet, &HashSet::new(), now).await?;
            pools.insert(partition.fleet.clone(), pool);
        }
        let pool = pools.get(&partition.fleet).map_or(&[][..], Vec::as_slice);
        match partition_round(core, &partition, pool, memory).await? {
            Some(done) => {
                total.expired += done.expired;
                total.free_couriers += done.free_couriers;
                total.offered += done.offered;
                if let Some(waiting) = done.waiting {
                    *total.waiting.get_or_insert(0) += waiting;
                }
            }
            None => locked_out = true,
        }
    }
    Ok((!locked_out).then_some(total))
}

/// One round of `partition`; `None` when another replica's round of it
/// holds its lock.
///
/// The couriers with room are read before the waiting jobs, and a
/// partition without one reads none of its jobs: while no courier has room
/// (all full at peak, or none online) a round costs the same however many
/// deliveries wait; nor does one read them while nothing changed since a
/// round that placed nothing ([`Memory`]). On PostgreSQL a round reads and
/// decides under the partition's lock. On SQLite, whose one writer every
/// create needs too, it reads and decides on the read pool and takes the
/// writer only to write what it decided, checking again what may have
/// changed meanwhile.
async fn partition_round(
    core: &Core,
    partition: &Partition,
    pool: &[Candidate],
    memory: &mut Memory,
) -> CoreResult<Option<Round>> {
    let now = core.clock.now_micros();
    let timed = core.metrics.partition_round(partition.key());
    let (tx, decision) = if core.db.get_database_backend() == DbBackend::Sqlite {
        let decision = decide(core, &core.db, partition, pool, memory, now).await?;
        if decision.is_empty() {
            if decision.read {
                memory.remember(partition, &decision.survey, &decision.done, decision.next_due);
            }
            return Ok(Some(decision.done));
        }
        let tx = core.begin().await?;
        // Decided before the writer was taken: an offer made meanwhile
        // (by hand) is seen before any is written.
        let open = offers::open(&*tx).await?;
        (tx, decision.without_offered(open))
    } else {
        let tx = core.begin().await?;
        let locked = tx
            .query_one_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                "SELECT pg_try_advisory_xact_lock($1) AS locked",
                [partition.lock().into()],
            ))
            .await?
            .map(|row| row.try_get::<bool>("", "locked"))
            .transpose()?
            .unwrap_or(false);
        if !locked {
            timed.locked_out();
            return Ok(None);
        }
        let decision = decide(core, &*tx, partition, pool, memory, now).await?;
        (tx, decision)
    };
    let Decision {
        survey,
        mut done,
        matched,
        next_due,
        read,
    } = decision;
    for offer in &survey.expired {
        if offers::close(core, &tx, offer, OfferStatus::Expired, now).await? {
            done.expired += 1;
        }
    }
    make_offers(core, &tx, matched, now, &mut done).await?;
    tx.commit().await?;
    if read {
        memory.remember(partition, &survey, &done, next_due);
    }
    Ok(Some(done))
}

/// What a round of one partition decided, before it writes.
struct Decision {
    survey: Survey,
    done: Round,
    /// The offers to make, each a job and its courier's candidate.
    matched: Vec<(Work, Candidate, Cost)>,
    next_due: i64,
    /// Whether it had work ([`Survey::has_work`]): what it saw is worth
    /// remembering.
    read: bool,
}

impl Decision {
    /// Nothing to write: no offer expired, none to make.
    fn is_empty(&self) -> bool {
        self.survey.expired.is_empty() && self.matched.is_empty()
    }

    /// Without the offers whose job or courier has an `open` offer now.
    fn without_offered(mut self, open: Vec<Offer>) -> Decision {
        let (jobs, couriers): (HashSet<String>, HashSet<String>) =
            open.into_iter().map(|offer| (offer.job_id, offer.courier_id)).unzip();
        self.matched
            .retain(|(job, candidate, _)| !jobs.contains(job.id()) && !couriers.contains(&candidate.courier.id));
        self
    }
}

/// Reads partition `partition` on `db` and matches its waiting jobs with
/// its couriers with room (when anything changed since a round that
/// placed nothing).
async fn decide(
    core: &Core,
    db: &impl ConnectionTrait,
    partition: &Partition,
    pool: &[Candidate],
    memory: &Memory,
    now: i64,
) -> CoreResult<Decision> {
    let survey = Survey::read(db, partition, pool, now).await?;
    let mut decision = Decision {
        done: Round {
            free_couriers: survey.free.len(),
            ..Round::default()
        },
        matched: Vec::new(),
        next_due: i64::MAX,
        read: survey.has_work(partition, memory, now),
        survey,
    };
    let survey = &decision.survey;
    if !decision.read || survey.free.is_empty() {
        return Ok(decision);
    }
    let (waiting, due) = waiting_in(db, partition, now).await?;
    let waiting: Vec<Work> = waiting
        .into_iter()
        .filter(|w| !survey.offered_jobs.contains(w.id()))
        .collect();
    *decision.done.waiting.get_or_insert(0) += waiting.len();
    let (matched, early) = match_in_pool(core, db, waiting, &survey.free, now).await?;
    decision.matched = matched;
    decision.next_due = due.min(early);
    Ok(decision)
}

/// The jobs waiting in partition `pool`, oldest first (at most [`MAX_WAITING`]; a
/// scheduled delivery from its lead time on, a job with a pickup window
/// from [`WINDOW_LOOKAHEAD_MICROS`] before it opens), and when the first
/// one left out comes due (`i64::MAX` when none).
async fn waiting_in(db: &impl ConnectionTrait, pool: &Partition, now: i64) -> CoreResult<(Vec<Work>, i64)> {
    let mut next_due = i64::MAX;
    let mut due_now = |due: Option<i64>| match due {
        Some(due) if due > now => {
            next_due = next_due.min(due);
            false
        }
        _ => true,
    };
    let waiting = match &pool.fleet {
        Fleet::Platform => deliveries::pending_live(db, pool.area.as_deref(), MAX_WAITING)
            .await?
            .into_iter()
            .filter(|d| {
                let due = match (d.scheduled_at, d.windows.pickup) {
                    (Some(at), _) => Some(at - SCHEDULED_LEAD_MICROS),
                    (None, Some(window)) => Some(window.start - WINDOW_LOOKAHEAD_MICROS),
                    (None, None) => None,
                };
                due_now(due)
            })
            .map(Work::Delivery)
            .collect(),
        Fleet::Workspace(id) => fleet::pending_orders(db, id, MAX_WAITING)
            .await?
            .into_iter()
            .filter(|o| due_now(o.windows.pickup.map(|w| w.start - WINDOW_LOOKAHEAD_MICROS)))
            .map(Work::FleetOrder)
            .collect(),
    };
    Ok((waiting, next_due))
}

/// When a job's pickup window opens: a round offers it to a courier only
/// once their drive there would not end before.
fn opens_at(job: &Work) -> Option<i64> {
    job.windows().pickup.map(|w| w.start)
}

/// A free courier ranked for one job, by the dispatcher's costs.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub courier: Courier,
    pub seconds_to_pickup: i64,
    pub distance_km: f64,
    /// The jobs they hold already.
    pub jobs_held: usize,
    /// Holding jobs: what this one adds to their route.
    pub added_seconds: Option<i64>,
}

/// The couriers of `fleet` who could take `job` now, soonest at its pickup
/// first: the rounds' own eligibility and costs (vehicle, radius, a fresh
/// position, room beside their jobs with every promise kept, no open offer
/// but one of `job`), so that a dispatcher choosing by hand sees the order
/// the dispatcher would use. Unlike a round, a courier who declined an
/// offer of the job is listed: a person may still choose them.
pub async fn rank(core: &Core, fleet: &Fleet, job: Work) -> CoreResult<Vec<Ranked>> {
    let now = core.clock.now_micros();
    let busy: HashSet<String> = offers::open(&core.db)
        .await?
        .into_iter()
        .filter(|offer| offer.job_id != job.id() && offer.expires_at > now)
        .map(|offer| offer.courier_id)
        .collect();
    let free = candidates(core, &core.db, fleet, &busy, now).await?;
    let waiting = [job];
    let costs = costs(core, &waiting, &free, &HashSet::new(), now).await;
    let mut ranked: Vec<Ranked> = free
        .into_iter()
        .enumerate()
        .filter_map(|(c, candidate)| {
            let cost = costs.get(&(0, c))?;
            Some(Ranked {
                courier: candidate.courier,
                seconds_to_pickup: cost.to_pickup,
                distance_km: cost.distance_km,
                jobs_held: candidate.held.len(),
                added_seconds: cost.insertion.as_ref().map(|i| i.added_seconds),
            })
        })
        .collect();
    ranked.sort_by(|a, b| (a.seconds_to_pickup, &a.courier.name).cmp(&(b.seconds_to_pickup, &b.courier.name)));
    Ok(ranked)
}

/// The online couriers of `fleet` with room for a job now: not in `busy`
/// (holding an open offer), with a position fresher than
/// [`STALE_POSITION_MICROS`], and holding fewer jobs than their vehicle's
/// `max_jobs`.
async fn candidates(
    core: &Core,
    db: &impl ConnectionTrait,
    fleet: &Fleet,
    busy: &HashSet<String>,
    now: i64,
) -> CoreResult<Vec<Candidate>> {
    let online: Vec<Courier> = couriers::online(db, fleet)
        .await?
        .into_iter()
        .filter(|c| !busy.contains(&c.id))
        .collect();
    let ids: Vec<String> = online.iter().map(|c| c.id.clone()).collect();
    let mut holding: HashMap<String, Vec<String>> = HashMap::new();
    for assignment in assignments::open_for_couriers(db, ids.clone()).await? {
        holding
            .entry(assignment.courier_id)
            .or_default()
            .push(assignment.job_id);
    }
    let max_jobs = |courier: &Courier| {
        core.catalog
            .vehicle_type(&courier.vehicle.vehicle_type_id)
            .map_or(1, |vehicle| vehicle.max_jobs as usize)
    };
    let with_room: Vec<Courier> = online
        .into_iter()
        .filter(|c| {
            let held = holding.get(&c.id).map_or(0, Vec::len);
            held < max_jobs(c)
        })
        .collect();
    let located = positions::latest_many(core, with_room.iter().map(|c| c.id.clone()).collect()).await?;
    Ok(with_room
        .into_iter()
        .filter_map(|courier| {
            let position = *located.get(&courier.id)?;
            if now - position.recorded_at > STALE_POSITION_MICROS {
                return None;
            }
            let held = holding.remove(&courier.id).unwrap_or_default();
            let area = match fleet {
                Fleet::Platform => area_of(core, position.point()).map(str::to_owned),
                Fleet::Workspace(_) => None,
            };
            Some(Candidate {
                courier,
                position,
                held,
                area,
            })
        })
        .collect())
}

/// Matches the `waiting` jobs of a pool with its couriers with room,
/// jointly. A job with a pickup window is offered to a courier only from
/// when, answering in the offer's time and driving there, they would reach
/// the pickup as the window opens (docs/couriers.md "Automatic
/// dispatch"); when the first pair left for later comes due (`i64::MAX`
/// when none).
async fn match_in_pool(
    core: &Core,
    db: &impl ConnectionTrait,
    waiting: Vec<Work>,
    free: &[Candidate],
    now: i64,
) -> CoreResult<(Vec<(Work, Candidate, Cost)>, i64)> {
    if waiting.is_empty() {
        return Ok((Vec::new(), i64::MAX));
    }
    let refused: HashSet<(String, String)> =
        assignments::passed_over(db, waiting.iter().map(|w| w.id().to_owned()).collect())
            .await?
            .into_iter()
            .map(|passed| (passed.job_id, passed.courier_id))
            .collect();
    let mut costs = costs(core, &waiting, free, &refused, now).await;
    let answer_micros = i64::try_from(core.config.offer_timeout.as_micros()).unwrap_or(i64::MAX);
    let mut early = i64::MAX;
    costs.retain(|&(j, _), cost| {
        let Some(opens_at) = opens_at(&waiting[j]) else {
            return true;
        };
        let offer_from = opens_at - answer_micros - cost.to_pickup * 1_000_000;
        if offer_from > now {
            early = early.min(offer_from);
        }
        offer_from <= now
    });
    // Matched: only the jobs and couriers of some feasible pair.
    let mut jobs: Vec<usize> = costs.keys().map(|&(j, _)| j).collect();
    let mut couriers: Vec<usize> = costs.keys().map(|&(_, c)| c).collect();
    for list in [&mut jobs, &mut couriers] {
        list.sort_unstable();
        list.dedup();
    }
    let cost_of = |j: usize, c: usize| {
        costs
            .get(&(jobs[j], couriers[c]))
            .map_or(INFEASIBLE, |cost| cost.seconds)
    };
    let matched = pairs(jobs.len(), couriers.len(), cost_of)
        .into_iter()
        .filter_map(|(j, c)| {
            let (job, courier) = (jobs[j], couriers[c]);
            let cost = costs.remove(&(job, courier))?;
            Some((waiting[job].clone(), free[courier].clone(), cost))
        })
        .collect();
    Ok((matched, early))
}

/// Makes the offers `matched` in `tx`, each courier's route row taken in
/// id order (no two rounds wait on each other), so that an assignment made
/// since they were read is seen.
async fn make_offers(
    core: &Core,
    tx: &db::WriteTransaction,
    mut matched: Vec<(Work, Candidate, Cost)>,
    now: i64,
    done: &mut Round,
) -> CoreResult<()> {
    if matched.is_empty() {
        return Ok(());
    }
    matched.sort_by(|a, b| a.1.courier.id.cmp(&b.1.courier.id));
    // The pay rule in force for each scope, read once a round.
    let mut rules: HashMap<Scope, Option<Rule>> = HashMap::new();
    for (job, candidate, cost) in matched {
        routes::lock(tx, &candidate.courier.id, now).await?;
        let holds = assignments::open_of_courier(&**tx, &candidate.courier.id).await?;
        if holds.len() != candidate.held.len() {
            // Given a job (or freed) meanwhile: for the next round.
            continue;
        }
        if assignments::open_for_job(&**tx, job.id()).await?.is_some() {
            // Taken since it was read: an offer this round expires was
            // accepted at its deadline, or a dispatcher assigned it.
            continue;
        }
        let new = NewOffer {
            job_id: job.id().to_owned(),
            courier_id: candidate.courier.id.clone(),
            distance_km: cost.distance_km,
            minutes_to_pickup: (cost.to_pickup + 59) / 60,
            expires_at: now + core.config.offer_timeout.as_micros() as i64,
            route: cost.insertion,
        };
        let offer = offers::create(core, tx, new, now).await?;
        let scope = jobs::pay_scope(&candidate.courier);
        let rule = match rules.get(&scope) {
            Some(rule) => rule.clone(),
            None => {
                let rule = pay::rules::current(&**tx, &scope).await?;
                rules.insert(scope, rule.clone());
                rule
            }
        };
        if let Some(job_pay) = jobs::offer_pay(rule.as_ref(), &job) {
            let payee = pay::Payee {
                courier_id: &offer.courier_id,
                job_id: &offer.job_id,
            };
            pay::fix_for_offer(tx, payee, &offer.id, &job_pay, now).await?;
        }
        core.metrics.dispatch_offered(now - job.created_at());
        done.offered += 1;
    }
    Ok(())
}

/// What matching one job with one courier costs.
struct Cost {
    /// What the round minimises: the time the courier's route grows by,
    /// less the job's own drive (the same whoever carries it), in seconds:
    /// for a free courier, the drive to the pickup.
    seconds: i64,
    /// The seconds until they would reach the pickup.
    to_pickup: i64,
    /// Straight from the courier's position to the pickup.
    distance_km: f64,
    /// For a courier holding jobs: the route with this one inserted.
    insertion: Option<offers::Insertion>,
}

/// The cost of every (job, courier) pair that may be matched. A free
/// courier's: the routing provider's driving time to the pickup (one
/// matrix per vehicle type of the free couriers, over the pickups that
/// vehicle may serve). A courier holding jobs: the least time inserting
/// the job adds to their route, where every promise still holds
/// ([`insertions`]). A pair is left out where the courier may not take the
/// job (vehicle, radius, passed over for it) or no route leads there: a
/// van job among a thousand cargo bikes costs nothing to route.
async fn costs(
    core: &Core,
    waiting: &[Work],
    free: &[Candidate],
    refused: &HashSet<(String, String)>,
    now: i64,
) -> HashMap<(usize, usize), Cost> {
    let radius = core.config.dispatch_radius_km;
    let mut by_vehicle: HashMap<&str, Vec<usize>> = HashMap::new();
    for (c, candidate) in free.iter().enumerate() {
        by_vehicle
            .entry(candidate.courier.vehicle.vehicle_type_id.as_str())
            .or_default()
            .push(c);
    }
    let mut costs = HashMap::new();
    let mut busy = Vec::new();
    for (vehicle_type_id, members) in by_vehicle {
        let Some(vehicle) = core.catalog.vehicle_type(vehicle_type_id) else {
            continue;
        };
        let servable: Vec<usize> = (0..waiting.len())
            .filter(|&j| vehicle.can_serve(waiting[j].vehicle_type_id()))
            .collect();
        if servable.is_empty() {
            continue;
        }
        let (free_members, busy_members): (Vec<usize>, Vec<usize>) =
            members.into_iter().partition(|&c| free[c].held.is_empty());
        let pickups: Vec<GeoPoint> = servable.iter().map(|&j| waiting[j].pickup()).collect();
        // A busy courier reaches a pickup no sooner than driving straight
        // there: the pickups they could reach in time are tried.
        let busy_sources: Vec<GeoPoint> = busy_members.iter().map(|&c| free[c].position.point()).collect();
        let straight = core.router.durations(&busy_sources, &pickups, vehicle).await;
        for (row, c) in busy_members.into_iter().enumerate() {
            let reach = servable
                .iter()
                .enumerate()
                .filter_map(|(column, &j)| {
                    let seconds = straight.get(row)?.get(column).copied().flatten()?;
                    Some((j, now + (seconds.round() as i64).saturating_mul(1_000_000)))
                })
                .collect();
            busy.push((c, vehicle, reach));
        }
        let sources: Vec<GeoPoint> = free_members.iter().map(|&c| free[c].position.point()).collect();
        let durations = core.router.durations(&sources, &pickups, vehicle).await;
        for (row, &c) in free_members.iter().enumerate() {
            let courier = &free[c].courier;
            for (column, &j) in servable.iter().enumerate() {
                let job = &waiting[j];
                let distance = distance_km(sources[row], job.pickup());
                if (radius > 0.0 && distance > radius) || refused.contains(&(job.id().to_owned(), courier.id.clone())) {
                    continue;
                }
                let Some(seconds) = durations.get(row).and_then(|r| r.get(column)).copied().flatten() else {
                    continue;
                };
                let seconds = (seconds.round() as i64).min(INFEASIBLE - 1);
                costs.insert(
                    (j, c),
                    Cost {
                        seconds,
                        to_pickup: seconds,
                        distance_km: distance,
                        insertion: None,
                    },
                );
            }
        }
    }
    // The soonest a free courier reaches each pickup: an insertion may make
    // it at most INSERTION_SLACK later.
    let mut soonest: HashMap<usize, i64> = HashMap::new();
    for (&(j, _), cost) in &costs {
        let at = soonest.entry(j).or_insert(i64::MAX);
        *at = (*at).min(now + cost.to_pickup * 1_000_000);
    }
    let tries: Vec<(usize, &VehicleType, Vec<usize>)> = busy
        .into_iter()
        .map(|(c, vehicle, reach): (usize, &VehicleType, Vec<(usize, i64)>)| {
            let candidate = &free[c];
            let near: Vec<usize> = reach
                .into_iter()
                .filter(|&(j, straight_there)| {
                    soonest
                        .get(&j)
                        .is_none_or(|&soonest| straight_there <= soonest.saturating_add(INSERTION_SLACK))
                })
                .map(|(j, _)| j)
                .filter(|&j| {
                    let job = &waiting[j];
                    let distance = distance_km(candidate.position.point(), job.pickup());
                    job.batching() == Batching::Allowed
                        && job.ends_only()
                        && (radius <= 0.0 || distance <= radius)
                        && !refused.contains(&(job.id().to_owned(), candidate.courier.id.clone()))
                })
                .collect();
            (c, vehicle, near)
        })
        .filter(|(_, _, near)| !near.is_empty())
        .collect();
    // What the couriers tried hold, and their routes, each in one read.
    let held_ids: Vec<String> = tries.iter().flat_map(|&(c, _, _)| free[c].held.clone()).collect();
    let courier_ids: Vec<String> = tries.iter().map(|&(c, _, _)| free[c].courier.id.clone()).collect();
    let (Ok(mut works), Ok(kept)) = (
        jobs::works(&core.db, &held_ids).await,
        routes::read_many(&core.db, &courier_ids).await,
    ) else {
        return costs;
    };
    for (c, vehicle, near) in tries {
        let candidate = &free[c];
        let held: Vec<Work> = candidate.held.iter().filter_map(|id| works.remove(id)).collect();
        // A job that rides alone keeps its courier to itself; one that
        // ended meanwhile is for the next round.
        if held.len() != candidate.held.len() || held.iter().any(|w| w.batching() == Batching::Never || !w.ends_only())
        {
            continue;
        }
        let busy = Busy {
            candidate,
            held,
            kept: kept.get(&candidate.courier.id).cloned().unwrap_or_default(),
            vehicle,
        };
        for (j, cost) in insertions(core, busy, waiting, near, &soonest).await {
            costs.insert((j, c), cost);
        }
    }
    costs
}

/// A courier holding jobs, as an insertion reads them.
struct Busy<'a> {
    candidate: &'a Candidate,
    held: Vec<Work>,
    kept: routes::Route,
    vehicle: &'a VehicleType,
}

/// How long after the soonest free courier a courier holding jobs may
/// reach a new pickup (docs/guide.md "Several jobs per courier").
const INSERTION_SLACK: i64 = 5 * 60 * 1_000_000;
/// How long before each promise an insertion must leave every handover
/// (docs/guide.md "Several jobs per courier").
const PROMISE_MARGIN: i64 = 3 * 60 * 1_000_000;
/// The most waiting jobs, nearest first, tried in one busy courier's route
/// per round.
const INSERTIONS_TRIED: usize = 8;

/// The costs of inserting each of the `near` waiting jobs into
/// `candidate`'s route where every promise holds with [`PROMISE_MARGIN`]
/// to spare: each held job's windows
/// or committed dropoff plus `COURIER_BATCH_MAX_DELAY` (never past its
/// promise unless it was already), the new job's pickup window or, without
/// one, no later than the soonest free courier (or this courier driving
/// straight there) plus 5 minutes, and its promised dropoff while it can
/// still be kept.
async fn insertions(
    core: &Core,
    busy: Busy<'_>,
    waiting: &[Work],
    mut near: Vec<usize>,
    soonest: &HashMap<usize, i64>,
) -> Vec<(usize, Cost)> {
    let Busy {
        candidate,
        held,
        kept,
        vehicle,
    } = busy;
    let from = candidate.position.point();
    near.sort_by(|&a, &b| distance_km(from, waiting[a].pickup()).total_cmp(&distance_km(from, waiting[b].pickup())));
    near.truncate(INSERTIONS_TRIED);
    let held_jobs = held.len();
    let works: Vec<Work> = held
        .into_iter()
        .chain(near.iter().map(|&j| waiting[j].clone()))
        .collect();
    let mut all = Setting::new(core, vehicle, from, works, &kept.committed).await;
    // What no plan foresees (a slow handover, a red light) comes out of a
    // margin, not out of a promise.
    for job in &mut all.jobs {
        job.latest_dropoff = job.latest_dropoff.map(|latest| latest - PROMISE_MARGIN);
    }
    let (order, pinned) = all.held_order(held_jobs, &kept.stops);
    let Some(before) = all.problem().timeline(&order) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (k, &j) in near.iter().enumerate() {
        let held = held_jobs;
        let mut setting = all.only((0..held).chain([held + k]));
        let (pickup, dropoff) = (PlanStop::pickup(held).place(), PlanStop::dropoff(held).place());
        let (straight, direct) = (
            setting.problem().seconds(0, pickup),
            setting.problem().seconds(pickup, dropoff),
        );
        let (Some(straight), Some(direct)) = (straight, direct) else {
            continue;
        };
        let bound = soonest
            .get(&j)
            .copied()
            .unwrap_or(setting.now + straight)
            .saturating_add(INSERTION_SLACK);
        let new = &mut setting.jobs[held];
        new.latest_pickup = Some(new.latest_pickup.map_or(bound, |end| end.min(bound)));
        // Nor its own promise, while it can still be kept.
        if new.latest_dropoff.is_none() {
            new.latest_dropoff = waiting[j]
                .promise_ahead(setting.now)
                .map(|promised| promised - PROMISE_MARGIN);
        }
        let Some((with, after)) = setting.problem().insert(&order, pinned, held, true) else {
            continue;
        };
        let added = after.ends_at - before.ends_at;
        let Some(pickup_at) = with.iter().position(|s| *s == PlanStop::pickup(held)) else {
            continue;
        };
        let route = setting.route(&with);
        let own = direct + 2 * HANDLING;
        found.push((
            j,
            Cost {
                seconds: ((added - own).max(0) / 1_000_000).min(INFEASIBLE - 1),
                to_pickup: ((after.arrivals[pickup_at] - setting.now).max(0) / 1_000_000).min(INFEASIBLE - 1),
                distance_km: distance_km(from, waiting[j].pickup()),
                insertion: Some(offers::Insertion {
                    added_seconds: added / 1_000_000,
                    stops: route.stops,
                }),
            },
        ));
    }
    found
}

/// The (job, courier) pairs of a min-cost assignment of `jobs` jobs to
/// `couriers` couriers under `cost`: every job matched when couriers are
/// as many or more, else every courier.
pub fn pairs(jobs: usize, couriers: usize, cost: impl Fn(usize, usize) -> i64) -> Vec<(usize, usize)> {
    if jobs == 0 || couriers == 0 {
        return Vec::new();
    }
    if jobs <= couriers {
        let weights = Matrix::from_fn(jobs, couriers, |(j, c)| cost(j, c));
        let (_, assigned) = kuhn_munkres_min(&weights);
        assigned.into_iter().enumerate().collect()
    } else {
        let weights = Matrix::from_fn(couriers, jobs, |(c, j)| cost(j, c));
        let (_, assigned) = kuhn_munkres_min(&weights);
        assigned.into_iter().enumerate().map(|(c, j)| (j, c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joint_assignment_beats_first_come() {
        // Job 0 came first; courier 0 is its nearest, but courier 0 is the
        // only one near job 1: first come would cost 1 + 100.
        let cost = [[1, 2], [3, 100]];
        let matched = pairs(2, 2, |j, c| cost[j][c]);
        assert_eq!(matched, vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn more_jobs_than_couriers_gives_each_courier_one() {
        let cost = [[5], [1], [9]];
        assert_eq!(pairs(3, 1, |j, c| cost[j][c]), vec![(1, 0)]);
        assert!(pairs(0, 4, |_, _| 0).is_empty());
    }

    /// At peak every courier is busy while deliveries pile up: a round then
    /// reads no waiting job and takes no writer, however many wait.
    #[tokio::test]
    async fn a_round_without_a_free_courier_reads_no_waiting_job() {
        use crate::testing::{TestCore, caller, create_delivery};
        use courier_identity::auth::Mode;
        let core = TestCore::open_with(|config| config.dispatch = DispatchMode::Auto).await;
        let live = caller(&core.workspace(None).await, Mode::Live);
        for _ in 0..300 {
            create_delivery(&core, &live).await.expect("a live delivery");
        }
        let waiting = deliveries::pending_live(&core.db, None, 1_000).await.expect("waiting");
        assert_eq!(waiting.len(), 300);
        for _ in 0..3 {
            let done = round(&core).await.expect("a round").expect("it ran");
            assert_eq!(done, Round::default(), "nothing read, nothing done");
        }
    }

    /// A free courier who can take none of 300 waiting deliveries (they
    /// wait in Berlin, the courier is in Hamburg): once a round placed
    /// nothing, the next reads no waiting job until something changes.
    #[tokio::test]
    async fn a_round_that_placed_nothing_reads_no_waiting_job_until_something_changes() {
        use crate::couriers::{Availability, NewCourier, Vehicle};
        use crate::testing::{TestCore, caller, create_delivery};
        use courier_identity::auth::Mode;
        let core = TestCore::open_with(|config| config.dispatch = DispatchMode::Auto).await;
        let live = caller(&core.workspace(None).await, Mode::Live);
        for _ in 0..300 {
            create_delivery(&core, &live).await.expect("a live delivery");
        }
        let tx = core.begin().await.expect("tx");
        let vehicle = Vehicle {
            vehicle_type_id: "car".into(),
            make: None,
            model: None,
            color: None,
            license_plate: None,
        };
        let new = NewCourier {
            fleet: Fleet::Platform,
            name: "Hana Hamburg".into(),
            phone: None,
            email: Some("hana@example.com".into()),
            vehicle,
        };
        let courier = couriers::create(&core, &tx, new).await.expect("courier");
        couriers::set_availability(&core, &tx, &courier.id, Availability::Online)
            .await
            .expect("online");
        tx.commit().await.expect("commit");
        let at = |latitude: f64| Position {
            latitude,
            longitude: 10.0,
            accuracy_m: None,
            heading_deg: None,
            speed_mps: None,
            recorded_at: core.clock.now_micros(),
        };
        positions::accept(&core, &courier.id, vec![at(53.55)])
            .await
            .expect("position");

        let mut memory = Memory::default();
        let read_all = Round {
            waiting: Some(300),
            free_couriers: 1,
            ..Round::default()
        };
        let read_none = Round {
            free_couriers: 1,
            ..Round::default()
        };
        let mut next = async || round_with(&core, &mut memory).await.expect("a round").expect("it ran");
        assert_eq!(next().await, read_all, "the first round reads them all and places none");
        for _ in 0..3 {
            assert_eq!(next().await, read_none, "nothing changed: nothing read");
        }
        // Moved 50 m: where they were, for dispatch.
        positions::accept(&core, &courier.id, vec![at(53.5505)])
            .await
            .expect("position");
        assert_eq!(next().await, read_none);
        // Moved 1 km: read again, then remembered again.
        positions::accept(&core, &courier.id, vec![at(53.56)])
            .await
            .expect("position");
        assert_eq!(next().await, read_all);
        assert_eq!(next().await, read_none);
        // A wake (a create, a decline, a courier freed) forgets.
        memory.forget();
        assert_eq!(round_with(&core, &mut memory).await.expect("a round"), Some(read_all));
    }
}
