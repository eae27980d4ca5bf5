//! Automatic dispatch (docs/couriers.md "Automatic dispatch";
//! `COURIER_DISPATCH=auto`): a round takes every live delivery waiting for
//! a courier and every free, eligible courier together and offers the jobs
//! so as to minimise the total time to the pickups (a min-cost assignment,
//! the Hungarian method), rather than one delivery at a time in arrival
//! order. A round runs when woken (a delivery created, an offer declined,
//! a courier freed), at least every second and at most every 50 ms (a
//! burst of wakes is one round), beside the requests: it never holds
//! SQLite's writer unless it has something to write, and reads no waiting
//! job while nothing it would read has changed since a round that placed
//! nothing ([`Memory`]).
//!
//! Offers are rows (`assignments::offers`); the round and its offers are
//! one transaction. On PostgreSQL a round holds a transaction-scoped
//! advisory lock, so with several replicas one round runs at a time and a
//! replica that dies mid-round leaves nothing half done; the unique
//! indexes on open offers and assignments hold the rule besides. On SQLite
//! one core does it all.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use tokio_util::sync::CancellationToken;

use crate::couriers::{self, Courier, Fleet};
use crate::positions::{self, Position};
use crate::{Core, CoreResult};
use courier_identity::workspaces;
use courier_orders::assignments;
use courier_orders::assignments::offers::{self, NewOffer, Offer, OfferStatus};
use courier_orders::deliveries;
use courier_orders::fleet;
use courier_pricing::geo::{GeoPoint, distance_km};
use courier_store::config::DispatchMode;
use courier_store::db;
use courier_store::runner::{Done, Runner, Work};

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

impl Work for Rounds {
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

/// What the last round saw when it placed nothing: each pool's free
/// couriers and where they were, and when the first scheduled job it left
/// for later comes due. While the dispatcher is not woken (no create,
/// decline, courier freed or newly online), no offer expires, no scheduled
/// job comes due and the same couriers are free within [`MOVED_KM`] of
/// where they were, a round would place nothing again: it reads no
/// waiting job. A replica's memory is its own: another replica's create
/// wakes that replica's rounds.
#[derive(Debug, Default)]
pub struct Memory {
    unplaced: Option<Unplaced>,
}

#[derive(Debug)]
struct Unplaced {
    free: Vec<(String, GeoPoint)>,
    next_due: i64,
}

impl Memory {
    /// Something a round reads changed: the next round reads it all.
    pub fn forget(&mut self) {
        self.unplaced = None;
    }

    /// Whether `survey` is what the last round saw, when it placed nothing.
    fn unchanged(&self, survey: &Survey, now: i64) -> bool {
        let Some(unplaced) = &self.unplaced else {
            return false;
        };
        now < unplaced.next_due
            && survey.free().count() == unplaced.free.len()
            && survey
                .free()
                .zip(&unplaced.free)
                .all(|((courier, position), (id, was))| {
                    courier.id == *id && distance_km(point(position), *was) < MOVED_KM
                })
    }

    fn remember(&mut self, survey: &Survey, done: &Round, next_due: i64) {
        self.unplaced = (done.offered == 0 && done.expired == 0).then(|| Unplaced {
            free: survey
                .free()
                .map(|(courier, position)| (courier.id.clone(), point(position)))
                .collect(),
            next_due,
        });
    }
}

fn point(position: &Position) -> GeoPoint {
    GeoPoint {
        latitude: position.latitude,
        longitude: position.longitude,
    }
}

/// What a round reads first: the open offers and each pool's free
/// couriers.
struct Survey {
    /// Open offers past their expiry.
    expired: Vec<Offer>,
    /// The jobs of the open offers still running.
    offered_jobs: HashSet<String>,
    pools: Vec<(Fleet, Vec<(Courier, Position)>)>,
}

impl Survey {
    async fn read(core: &Core, db: &impl ConnectionTrait, now: i64) -> CoreResult<Survey> {
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
        let mut free_in_pools = Vec::new();
        for fleet in pools(db).await? {
            let free = free_couriers(core, db, &fleet, &busy, now).await?;
            free_in_pools.push((fleet, free));
        }
        Ok(Survey {
            expired,
            offered_jobs,
            pools: free_in_pools,
        })
    }

    /// Every pool's free couriers, pool by pool.
    fn free(&self) -> impl Iterator<Item = &(Courier, Position)> {
        self.pools.iter().flat_map(|(_, free)| free)
    }

    fn free_couriers(&self) -> usize {
        self.free().count()
    }

    /// Whether a round may change anything: an offer expired, or a courier
    /// is free and something changed since a round that placed nothing.
    fn has_work(&self, memory: &Memory, now: i64) -> bool {
        !self.expired.is_empty() || (self.free_couriers() > 0 && !memory.unchanged(self, now))
    }
}

/// One round with no memory of the last; `None` when another replica's
/// round holds the lock.
pub async fn round(core: &Core) -> CoreResult<Option<Round>> {
    round_with(core, &mut Memory::default()).await
}

/// One round after what `memory` holds of the last, which it updates;
/// `None` when another replica's round holds the lock.
///
/// The free couriers are read before the waiting jobs, and a pool without
/// one reads none of its jobs: while no courier is free (all busy at peak,
/// or none online) a round costs the same however many deliveries wait;
/// nor does one read them while nothing changed since a round that placed
/// nothing ([`Memory`]). On SQLite, whose one writer every create needs
/// too, a round first asks the read pool whether it has work, and takes
/// the writer only then.
pub async fn round_with(core: &Core, memory: &mut Memory) -> CoreResult<Option<Round>> {
    let now = core.clock.now_micros();
    if core.db.get_database_backend() == DbBackend::Sqlite {
        let survey = Survey::read(core, &core.db, now).await?;
        if !survey.has_work(memory, now) {
            return Ok(Some(Round {
                free_couriers: survey.free_couriers(),
                ..Round::default()
            }));
        }
    }
    let tx = core.begin().await?;
    if tx.get_database_backend() == DbBackend::Postgres {
        let locked = tx
            .query_one_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                "SELECT pg_try_advisory_xact_lock($1) AS locked",
                [ROUND_LOCK.into()],
            ))
            .await?
            .map(|row| row.try_get::<bool>("", "locked"))
            .transpose()?
            .unwrap_or(false);
        if !locked {
            return Ok(None);
        }
    }
    let survey = Survey::read(core, &*tx, now).await?;
    let mut done = Round {
        free_couriers: survey.free_couriers(),
        ..Round::default()
    };
    if !survey.has_work(memory, now) {
        tx.commit().await?;
        return Ok(Some(done));
    }
    for offer in &survey.expired {
        offers::close(core, &tx, offer, OfferStatus::Expired, now).await?;
        done.expired += 1;
    }
    let mut next_due = i64::MAX;
    for (fleet, free) in &survey.pools {
        if free.is_empty() {
            continue;
        }
        let (waiting, due) = waiting_in(&*tx, fleet, now).await?;
        let waiting: Vec<Waiting> = waiting
            .into_iter()
            .filter(|w| !survey.offered_jobs.contains(&w.id))
            .collect();
        let early = offer_in_pool(core, &tx, waiting, free, now, &mut done).await?;
        next_due = next_due.min(due).min(early);
    }
    tx.commit().await?;
    memory.remember(&survey, &done, next_due);
    Ok(Some(done))
}

/// The pools a round matches in: the platform's couriers and live
/// deliveries, and each fleet with automatic dispatch, its drivers and
/// board orders.
async fn pools(db: &impl ConnectionTrait) -> CoreResult<Vec<Fleet>> {
    let fleets = workspaces::auto_dispatch_fleets(db).await?;
    Ok(std::iter::once(Fleet::Platform)
        .chain(fleets.into_iter().map(|fleet| Fleet::Workspace(fleet.id)))
        .collect())
}

/// The jobs waiting in `pool`, oldest first (at most [`MAX_WAITING`]; a
/// scheduled delivery from its lead time on, a job with a pickup window
/// from [`WINDOW_LOOKAHEAD_MICROS`] before it opens), and when the first
/// one left out comes due (`i64::MAX` when none).
async fn waiting_in(db: &impl ConnectionTrait, pool: &Fleet, now: i64) -> CoreResult<(Vec<Waiting>, i64)> {
    let mut next_due = i64::MAX;
    let mut due_now = |due: Option<i64>| match due {
        Some(due) if due > now => {
            next_due = next_due.min(due);
            false
        }
        _ => true,
    };
    let waiting = match pool {
        Fleet::Platform => deliveries::pending_live(db, MAX_WAITING)
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
            .map(|d| Waiting {
                pickup: d.route.pickup.point(),
                vehicle_type_id: d.vehicle_type_id,
                created_at: d.created_at,
                opens_at: d.windows.pickup.map(|w| w.start),
                id: d.id,
            })
            .collect(),
        Fleet::Workspace(id) => fleet::pending_orders(db, id, MAX_WAITING)
            .await?
            .into_iter()
            .filter(|o| due_now(o.windows.pickup.map(|w| w.start - WINDOW_LOOKAHEAD_MICROS)))
            .map(|o| Waiting {
                pickup: o.route.pickup.point(),
                vehicle_type_id: o.vehicle_type_id,
                created_at: o.created_at,
                opens_at: o.windows.pickup.map(|w| w.start),
                id: o.order_id,
            })
            .collect(),
    };
    Ok((waiting, next_due))
}

/// A job waiting for a courier: a live delivery, or a board order of a
/// fleet with automatic dispatch.
pub struct Waiting {
    pub id: String,
    pub pickup: GeoPoint,
    pub vehicle_type_id: String,
    pub created_at: i64,
    /// When its pickup window opens: a round offers it to a courier only
    /// once their drive there would not end before.
    pub opens_at: Option<i64>,
}

/// A free courier ranked for one job, by the dispatcher's costs.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub courier: Courier,
    pub seconds_to_pickup: i64,
    pub distance_km: f64,
}

/// The free couriers of `fleet` who could take `job` now, soonest at its
/// pickup first: the rounds' own eligibility and costs (vehicle, radius, a
/// fresh position, no other job or open offer but one of `job`), so that
/// a dispatcher choosing by hand sees the order the dispatcher would use.
/// Unlike a round, a courier who declined an offer of the job is listed:
/// a person may still choose them.
pub async fn rank(core: &Core, fleet: &Fleet, job: Waiting) -> CoreResult<Vec<Ranked>> {
    let now = core.clock.now_micros();
    let busy: HashSet<String> = offers::open(&core.db)
        .await?
        .into_iter()
        .filter(|offer| offer.job_id != job.id && offer.expires_at > now)
        .map(|offer| offer.courier_id)
        .collect();
    let free = free_couriers(core, &core.db, fleet, &busy, now).await?;
    let waiting = [job];
    let costs = costs(core, &waiting, &free, &HashSet::new()).await;
    let mut ranked: Vec<Ranked> = free
        .into_iter()
        .enumerate()
        .filter_map(|(c, (courier, _))| {
            let cost = costs.get(&(0, c))?;
            Some(Ranked {
                courier,
                seconds_to_pickup: cost.seconds,
                distance_km: cost.distance_km,
            })
        })
        .collect();
    ranked.sort_by(|a, b| (a.seconds_to_pickup, &a.courier.name).cmp(&(b.seconds_to_pickup, &b.courier.name)));
    Ok(ranked)
}

/// The online couriers of `fleet` free for a job now: not in `busy`
/// (holding an open offer), holding no job, with a position fresher than
/// [`STALE_POSITION_MICROS`].
async fn free_couriers(
    core: &Core,
    db: &impl ConnectionTrait,
    fleet: &Fleet,
    busy: &HashSet<String>,
    now: i64,
) -> CoreResult<Vec<(Courier, Position)>> {
    let candidates: Vec<Courier> = couriers::free(db, fleet)
        .await?
        .into_iter()
        .filter(|c| !busy.contains(&c.id))
        .collect();
    let located = positions::latest_many(core, candidates.iter().map(|c| c.id.clone()).collect()).await?;
    Ok(candidates
        .into_iter()
        .filter_map(|c| {
            let position = *located.get(&c.id)?;
            (now - position.recorded_at <= STALE_POSITION_MICROS).then_some((c, position))
        })
        .collect())
}

/// Offers the `waiting` jobs of a pool to its `free` couriers, matched
/// jointly, in `tx`. A job with a pickup window is offered to a courier
/// only from when, answering in the offer's time and driving there, they
/// would reach the pickup as the window opens (docs/couriers.md
/// "Automatic dispatch"); when the first pair left for later comes due
/// (`i64::MAX` when none).
async fn offer_in_pool(
    core: &Core,
    tx: &db::WriteTransaction,
    waiting: Vec<Waiting>,
    free: &[(Courier, Position)],
    now: i64,
    done: &mut Round,
) -> CoreResult<i64> {
    *done.waiting.get_or_insert(0) += waiting.len();
    if waiting.is_empty() {
        return Ok(i64::MAX);
    }
    let refused: HashSet<(String, String)> =
        assignments::passed_over(&**tx, waiting.iter().map(|w| w.id.clone()).collect())
            .await?
            .into_iter()
            .map(|passed| (passed.job_id, passed.courier_id))
            .collect();
    let mut costs = costs(core, &waiting, free, &refused).await;
    let answer_micros = i64::try_from(core.config.offer_timeout.as_micros()).unwrap_or(i64::MAX);
    let mut early = i64::MAX;
    costs.retain(|&(j, _), cost| {
        let Some(opens_at) = waiting[j].opens_at else {
            return true;
        };
        let offer_from = opens_at - answer_micros - cost.seconds * 1_000_000;
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
    for (j, c) in pairs(jobs.len(), couriers.len(), cost_of) {
        let (job, courier) = (jobs[j], couriers[c]);
        let Some(cost) = costs.get(&(job, courier)) else {
            continue;
        };
        let new = NewOffer {
            job_id: waiting[job].id.clone(),
            courier_id: free[courier].0.id.clone(),
            distance_km: cost.distance_km,
            minutes_to_pickup: (cost.seconds + 59) / 60,
            expires_at: now + core.config.offer_timeout.as_micros() as i64,
        };
        offers::create(core, tx, new, now).await?;
        core.metrics.dispatch_offered(now - waiting[job].created_at);
        done.offered += 1;
    }
    Ok(early)
}

/// The time to a pickup and the straight-line distance of one pair.
struct Cost {
    seconds: i64,
    distance_km: f64,
}

/// The cost of every (job, courier) pair that may be matched: the routing
/// provider's driving time from the courier to the pickup (one matrix per
/// vehicle type of the free couriers, over the pickups that vehicle may
/// serve). A pair is left out where the courier may not take the job
/// (vehicle, radius, passed over for it) or no route leads
/// there: a van job among a thousand cargo bikes costs nothing to route.
async fn costs(
    core: &Core,
    waiting: &[Waiting],
    free: &[(Courier, Position)],
    refused: &HashSet<(String, String)>,
) -> HashMap<(usize, usize), Cost> {
    let radius = core.config.dispatch_radius_km;
    let mut by_vehicle: HashMap<&str, Vec<usize>> = HashMap::new();
    for (c, (courier, _)) in free.iter().enumerate() {
        by_vehicle
            .entry(courier.vehicle.vehicle_type_id.as_str())
            .or_default()
            .push(c);
    }
    let mut costs = HashMap::new();
    for (vehicle_type_id, members) in by_vehicle {
        let Some(vehicle) = core.catalog.vehicle_type(vehicle_type_id) else {
            continue;
        };
        let servable: Vec<usize> = (0..waiting.len())
            .filter(|&j| vehicle.can_serve(&waiting[j].vehicle_type_id))
            .collect();
        if servable.is_empty() {
            continue;
        }
        let sources: Vec<GeoPoint> = members
            .iter()
            .map(|&c| GeoPoint {
                latitude: free[c].1.latitude,
                longitude: free[c].1.longitude,
            })
            .collect();
        let pickups: Vec<GeoPoint> = servable.iter().map(|&j| waiting[j].pickup).collect();
        let durations = core.router.durations(&sources, &pickups, vehicle).await;
        for (row, &c) in members.iter().enumerate() {
            let courier = &free[c].0;
            for (column, &j) in servable.iter().enumerate() {
                let job = &waiting[j];
                let distance = distance_km(sources[row], job.pickup);
                if (radius > 0.0 && distance > radius) || refused.contains(&(job.id.clone(), courier.id.clone())) {
                    continue;
                }
                let Some(seconds) = durations.get(row).and_then(|r| r.get(column)).copied().flatten() else {
                    continue;
                };
                costs.insert(
                    (j, c),
                    Cost {
                        seconds: (seconds.round() as i64).min(INFEASIBLE - 1),
                        distance_km: distance,
                    },
                );
            }
        }
    }
    costs
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
        let waiting = deliveries::pending_live(&core.db, 1_000).await.expect("waiting");
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
