//! A courier's route (docs/guide.md "Several jobs per courier"): the stops
//! of the jobs they hold, in the order kept (`courier_orders::routes`),
//! completed by the planner for the jobs that order lacks, timed from the
//! courier's last position by the routing provider. The order is planned
//! again when a job is added ([`add`]), when the courier leaves it (they
//! are at another stop than the next) and when they pick another stop
//! ([`choose`]); the stops of a job that ended drop out.

use std::collections::BTreeMap;

use super::{Work, works};
use crate::couriers::Courier;
use crate::positions;
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_orders::assignments::{self, offers};
use courier_orders::deliveries::Batching;
use courier_orders::routes::plan::{self, Capacity, PlanStop, Problem, Timeline};
use courier_orders::routes::{self, Stop, StopKind, Visit};
use courier_orders::statuses::Status;
use courier_pricing::catalog::VehicleType;
use courier_pricing::geo::GeoPoint;
use courier_pricing::routing::Durations;
use courier_store::db::WriteTransaction;

/// A courier's route now: the stops still to do, the next first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CourierRoute {
    pub stops: Vec<Visit>,
}

impl CourierRoute {
    /// When the courier will be at job `job_id`'s `kind` stop.
    pub fn eta(&self, job_id: &str, kind: StopKind) -> Option<i64> {
        self.stops
            .iter()
            .find(|stop| stop.job_id == job_id && stop.kind == kind)
            .and_then(|stop| stop.eta)
    }
}

/// Job `work` as its courier's route must keep it: its promises (a
/// window's end or, without a dropoff window, the dropoff `committed` when
/// the courier took it plus `COURIER_BATCH_MAX_DELAY`, and never past the
/// dropoff promised unless it was already when they took it).
fn plan_job(core: &Core, work: &Work, committed: Option<i64>) -> plan::Job {
    let max_delay = i64::try_from(core.config.batch_max_delay.as_micros()).unwrap_or(i64::MAX);
    let windows = work.windows();
    let (weight_kg, volume_cm3) = work.load();
    let kept = |committed: i64| {
        let delayed = committed.saturating_add(max_delay);
        work.promised_by()
            .map_or(delayed, |promised| delayed.min(promised.max(committed)))
    };
    plan::Job {
        picked_up: !work.status().before_pickup(),
        pickup_window: windows.pickup,
        latest_pickup: windows.pickup.map(|w| w.end),
        latest_dropoff: windows.dropoff.map(|w| w.end).or_else(|| committed.map(kept)),
        weight_kg,
        volume_cm3,
    }
}

/// What the planner needs for one courier: their jobs, their vehicle's
/// limits and the driving times between their place and every stop.
pub struct Setting {
    pub works: Vec<Work>,
    pub jobs: Vec<plan::Job>,
    pub capacity: Capacity,
    pub seconds: Durations,
    pub now: i64,
}

impl Setting {
    /// Times `works` from `from` for `vehicle` (one ask of the router).
    pub async fn new(
        core: &Core,
        vehicle: &VehicleType,
        from: GeoPoint,
        works: Vec<Work>,
        committed: &BTreeMap<String, i64>,
    ) -> Setting {
        let jobs = works
            .iter()
            .map(|work| plan_job(core, work, committed.get(work.id()).copied()))
            .collect();
        let places = plan::places(
            from,
            works.iter().map(|work| {
                let (pickup, dropoff) = work.ends();
                (pickup.point(), dropoff.point())
            }),
        );
        let seconds = core.router.durations(&places, &places, vehicle).await;
        Setting {
            works,
            jobs,
            capacity: Capacity {
                weight_kg: vehicle.max_weight_kg,
                volume_cm3: vehicle.cargo_volume_cm3(),
            },
            seconds,
            now: core.clock.now_micros(),
        }
    }

    /// The same setting with only the jobs `keep` (indices, in order).
    pub fn only(&self, keep: impl IntoIterator<Item = usize>) -> Setting {
        let keep: Vec<usize> = keep.into_iter().collect();
        let places: Vec<usize> = std::iter::once(0)
            .chain(
                keep.iter()
                    .flat_map(|&j| [PlanStop::pickup(j).place(), PlanStop::dropoff(j).place()]),
            )
            .collect();
        Setting {
            works: keep.iter().map(|&j| self.works[j].clone()).collect(),
            jobs: keep.iter().map(|&j| self.jobs[j].clone()).collect(),
            capacity: self.capacity,
            seconds: places
                .iter()
                .map(|&from| {
                    places
                        .iter()
                        .map(|&to| self.seconds.get(from).and_then(|row| row.get(to)).copied().flatten())
                        .collect()
                })
                .collect(),
            now: self.now,
        }
    }

    pub fn problem(&self) -> Problem<'_> {
        Problem {
            jobs: &self.jobs,
            capacity: self.capacity,
            seconds: &self.seconds,
            now: self.now,
        }
    }

    /// The stop the courier is at (arrived, not yet done), if any.
    pub fn at_stop(&self) -> Option<PlanStop> {
        self.works.iter().enumerate().find_map(|(j, work)| match work.status() {
            Status::AtPickup => Some(PlanStop::pickup(j)),
            Status::AtDropoff => Some(PlanStop::dropoff(j)),
            _ => None,
        })
    }

    /// `kept`'s stops of these jobs, in its order.
    fn kept(&self, kept: &[Stop]) -> Vec<PlanStop> {
        kept.iter()
            .filter_map(|stop| {
                let job = self.works.iter().position(|work| work.id() == stop.job_id)?;
                Some(PlanStop { job, kind: stop.kind })
            })
            .collect()
    }

    /// The order of every stop: `kept`'s where the courier follows it.
    /// When they left it (they are at another stop than the next), from
    /// the stop they are at: the kept order of the rest or one planned
    /// afresh, whichever keeps every promise and ends sooner (two parcels
    /// at one shop taken in another order leave the order as it was).
    pub fn order(&self, kept: &[Stop], chosen: Option<PlanStop>) -> Vec<PlanStop> {
        let problem = self.problem();
        let kept = self.kept(kept);
        let first = chosen.or_else(|| self.at_stop());
        let next = kept
            .iter()
            .find(|stop| stop.kind == StopKind::Dropoff || !self.jobs[stop.job].picked_up);
        let as_kept = problem.complete(&kept, first);
        match first {
            Some(first) if next != Some(&first) && chosen.is_none() => {
                let afresh = problem.complete(&[], Some(first));
                // Promises kept first, then the sooner end.
                let rank = |order: &[PlanStop]| match problem.timeline(order) {
                    Some(timeline) => (problem.broken(order, &timeline, true).is_some(), timeline.ends_at),
                    None => (true, i64::MAX),
                };
                if rank(&afresh) < rank(&as_kept) {
                    afresh
                } else {
                    as_kept
                }
            }
            _ => as_kept,
        }
    }

    /// The order of the first `held` jobs' stops (those the courier holds,
    /// before the ones tried beside them), and how many of its stops stay
    /// first whatever is inserted: the stop they are at.
    pub fn held_order(&self, held: usize, kept: &[Stop]) -> (Vec<PlanStop>, usize) {
        let base = self.only(0..held);
        let order = base.order(kept, None);
        let pinned = usize::from(base.at_stop().is_some_and(|at| order.first() == Some(&at)));
        (order, pinned)
    }

    /// As kept: `order`'s stops, each job's dropoff committed in `committed`.
    fn stored(&self, order: &[PlanStop], committed: BTreeMap<String, i64>) -> routes::Route {
        routes::Route {
            stops: order.iter().map(|stop| self.stop(*stop)).collect(),
            committed: committed
                .into_iter()
                .filter(|(job_id, _)| self.works.iter().any(|work| work.id() == job_id))
                .collect(),
        }
    }

    pub fn stop(&self, stop: PlanStop) -> Stop {
        Stop {
            job_id: self.works[stop.job].id().to_owned(),
            kind: stop.kind,
        }
    }

    /// `order` with its times, as the courier sees it.
    pub fn route(&self, order: &[PlanStop]) -> CourierRoute {
        let timeline = self.problem().timeline(order);
        CourierRoute {
            stops: order
                .iter()
                .enumerate()
                .map(|(i, stop)| {
                    let (pickup, dropoff) = self.works[stop.job].ends();
                    Visit {
                        job_id: self.works[stop.job].id().to_owned(),
                        kind: stop.kind,
                        place: match stop.kind {
                            StopKind::Pickup => pickup.clone(),
                            StopKind::Dropoff => dropoff.clone(),
                        },
                        eta: timeline.as_ref().map(|t| t.arrivals[i]),
                    }
                })
                .collect(),
        }
    }
}

/// Where the courier is for planning: their last position, or without
/// one, the first stop of their jobs.
async fn origin(core: &Core, courier_id: &str, works: &[Work]) -> CoreResult<Option<GeoPoint>> {
    Ok(match positions::latest(core, courier_id).await? {
        Some(position) => Some(position.point()),
        None => works.first().map(Work::pickup),
    })
}

/// The vehicle of `courier`, from the catalogue.
fn vehicle<'a>(core: &'a Core, courier: &Courier) -> CoreResult<&'a VehicleType> {
    core.catalog
        .vehicle_type(&courier.vehicle.vehicle_type_id)
        .ok_or_else(|| CoreError::Internal(format!("courier {} drives an unknown vehicle", courier.id)))
}

/// The works of the jobs `courier_id` holds, oldest assignment first.
pub async fn held(db: &impl sea_orm::ConnectionTrait, courier_id: &str) -> CoreResult<Vec<Work>> {
    let open = assignments::open_of_courier(db, courier_id).await?;
    let ids: Vec<String> = open.iter().map(|a| a.job_id.clone()).collect();
    let mut found = works(db, &ids).await?;
    Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
}

/// Courier `courier`'s route now (a read: nothing is kept).
pub async fn current(core: &Core, courier: &Courier) -> CoreResult<CourierRoute> {
    let works = held(&core.db, &courier.id).await?;
    let Some(from) = origin(core, &courier.id, &works).await? else {
        return Ok(CourierRoute::default());
    };
    let kept = routes::read(&core.db, &courier.id).await?;
    let setting = Setting::new(core, vehicle(core, courier)?, from, works, &kept.committed).await;
    Ok(setting.route(&setting.order(&kept.stops, None)))
}

/// How many stops come before job `job_id`'s dropoff in courier
/// `courier_id`'s route, in the order kept (no router is asked); `None`
/// when they do not hold the job.
pub async fn stops_before_dropoff(
    db: &impl sea_orm::ConnectionTrait,
    courier_id: &str,
    job_id: &str,
) -> CoreResult<Option<usize>> {
    let works = held(db, courier_id).await?;
    if !works.iter().any(|w| w.id() == job_id) {
        return Ok(None);
    }
    let kept = routes::read(db, courier_id).await?;
    let to_do = |stop: &&Stop| {
        works
            .iter()
            .any(|w| w.id() == stop.job_id && (stop.kind == StopKind::Dropoff || w.status().before_pickup()))
    };
    let stops: Vec<&Stop> = kept.stops.iter().filter(to_do).collect();
    Ok(Some(
        stops
            .iter()
            .position(|stop| stop.job_id == job_id && stop.kind == StopKind::Dropoff)
            .unwrap_or(stops.len()),
    ))
}

/// Why `courier` may not carry `work` beside `held` (count, batching,
/// intermediate stops), if so.
pub fn refusal(core: &Core, courier: &Courier, held: &[Work], work: &Work) -> Option<String> {
    let vehicle = core.catalog.vehicle_type(&courier.vehicle.vehicle_type_id)?;
    let others: Vec<&Work> = held.iter().filter(|w| w.id() != work.id()).collect();
    let other = others.first()?;
    if others.len() as u32 >= vehicle.max_jobs {
        return Some(format!(
            "{} holds {} jobs, the most a {} carries at once.",
            courier.name,
            others.len(),
            vehicle.name.to_lowercase()
        ));
    }
    if work.batching() == Batching::Never {
        return Some(format!(
            "Job {} rides alone (batching never), and {} holds job {}.",
            work.id(),
            courier.name,
            other.id()
        ));
    }
    if let Some(alone) = others.iter().find(|w| w.batching() == Batching::Never) {
        return Some(format!(
            "{} holds job {}, which rides alone (batching never).",
            courier.name,
            alone.id()
        ));
    }
    if !work.ends_only() || others.iter().any(|w| !w.ends_only()) {
        return Some(format!(
            "A job with intermediate stops rides alone, and {} holds job {}.",
            courier.name,
            other.id()
        ));
    }
    None
}

/// What adding a job did to its courier's route.
pub struct Added {
    pub route: CourierRoute,
}

/// Gives `work` a place in `courier`'s route in `tx`, after taking their
/// route row (so that every replica's assignments to them take turns) and
/// checking their vehicle's limits: `courier_unavailable` naming what
/// would break (their jobs at once, batching, the cargo at some point of
/// the route or, with `promises`, a promise of one of their jobs). The
/// job goes where it adds the least time; its dropoff is committed.
pub async fn add(
    core: &Core,
    tx: &WriteTransaction,
    courier: &Courier,
    work: &Work,
    promises: bool,
) -> CoreResult<Added> {
    let now = core.clock.now_micros();
    let kept = routes::lock(tx, &courier.id, now).await?;
    let mut works: Vec<Work> = held(&**tx, &courier.id)
        .await?
        .into_iter()
        .filter(|w| w.id() != work.id())
        .collect();
    let refuse = |why: String| Err(CoreError::at(ErrorCode::CourierUnavailable, "courier_id", why));
    if let Some(why) = refusal(core, courier, &works, work) {
        return refuse(why);
    }
    let vehicle = vehicle(core, courier)?;
    let new = works.len();
    works.push(work.clone());
    let from = origin(core, &courier.id, &works)
        .await?
        .unwrap_or_else(|| work.pickup());
    let mut committed = kept.committed;
    let setting = Setting::new(core, vehicle, from, works, &committed).await;
    let problem = setting.problem();
    let (before, pinned) = setting.held_order(new, &kept.stops);
    // Where the new job keeps its own promise too, while it still can (as
    // the offer planned it), else where the others keep theirs.
    let mut own = setting.jobs.clone();
    if own[new].latest_dropoff.is_none() {
        own[new].latest_dropoff = work.promise_ahead(setting.now);
    }
    let keeping_own = Problem { jobs: &own, ..problem };
    let inserted = keeping_own
        .insert(&before, pinned, new, true)
        .or_else(|| problem.insert(&before, pinned, new, true));
    let (order, timeline) = match inserted {
        Some(found) => found,
        None if promises && new > 0 => {
            return refuse(format!(
                "Adding job {} to {}'s route would break a promise of one of their jobs.",
                work.id(),
                courier.name
            ));
        }
        None => match problem.insert(&before, pinned, new, false) {
            Some(found) => found,
            None => {
                return refuse(format!(
                    "{}'s {} has no room for job {} beside what they carry.",
                    courier.name,
                    vehicle.name.to_lowercase(),
                    work.id()
                ));
            }
        },
    };
    if let Some(at) = dropoff_done(&order, &timeline, new) {
        committed.insert(work.id().to_owned(), at);
    }
    routes::write(tx, &courier.id, &setting.stored(&order, committed), now).await?;
    // Full, or carrying a job that rides alone: an offer still open to
    // them could no longer be taken.
    if setting.works.len() >= vehicle.max_jobs as usize || work.batching() == Batching::Never {
        offers::withdraw_for_courier(core, tx, &courier.id, now).await?;
    }
    Ok(Added {
        route: setting.route(&order),
    })
}

/// Keeps courier `courier`'s route as it stands once they arrived at a
/// stop: the stops done dropped, planned again from the stop they are at
/// when they left the order. With one job there is no order to keep.
///
/// Planned from a read first: most arrivals keep the order, and then
/// nothing is written. A change is planned again under the courier's
/// lock, from what the lock sees.
pub async fn settle(core: &Core, courier: &Courier) -> CoreResult<()> {
    let works = held(&core.db, &courier.id).await?;
    if works.len() < 2 {
        return Ok(());
    }
    let kept = routes::read(&core.db, &courier.id).await?;
    if settled(core, courier, works, &kept).await? == kept {
        return Ok(());
    }
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let kept = routes::lock(&tx, &courier.id, now).await?;
    let works = held(&*tx, &courier.id).await?;
    let stored = settled(core, courier, works, &kept).await?;
    if stored != kept {
        routes::write(&tx, &courier.id, &stored, now).await?;
    }
    tx.commit().await
}

/// `kept` as it stands for `works`, the jobs the courier holds now.
async fn settled(core: &Core, courier: &Courier, works: Vec<Work>, kept: &routes::Route) -> CoreResult<routes::Route> {
    let Some(from) = origin(core, &courier.id, &works).await? else {
        return Ok(routes::Route::default());
    };
    let setting = Setting::new(core, vehicle(core, courier)?, from, works, &kept.committed).await;
    Ok(setting.stored(&setting.order(&kept.stops, None), kept.committed.clone()))
}

/// When `order` has job `job` handed over.
fn dropoff_done(order: &[PlanStop], timeline: &Timeline, job: usize) -> Option<i64> {
    let at = order.iter().position(|stop| *stop == PlanStop::dropoff(job))?;
    timeline.done.get(at).copied()
}

/// Courier `courier` goes to stop `stop` next: their route is planned
/// again from it. `not_found` when no job of theirs has that stop still to
/// do.
pub async fn choose(core: &Core, courier: &Courier, stop: Stop) -> CoreResult<CourierRoute> {
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let kept = routes::lock(&tx, &courier.id, now).await?;
    let works = held(&*tx, &courier.id).await?;
    let from = origin(core, &courier.id, &works).await?;
    let job = works.iter().position(|w| w.id() == stop.job_id);
    let (Some(job), Some(from)) = (job, from) else {
        return Err(CoreError::not_found("stop"));
    };
    let setting = Setting::new(core, vehicle(core, courier)?, from, works, &kept.committed).await;
    let chosen = PlanStop { job, kind: stop.kind };
    if chosen.kind == StopKind::Pickup && setting.jobs[job].picked_up {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!("Job {}'s pickup is done; its dropoff is still to do.", stop.job_id),
        ));
    }
    let order = setting.order(&kept.stops, Some(chosen));
    routes::write(&tx, &courier.id, &setting.stored(&order, kept.committed), now).await?;
    tx.commit().await?;
    Ok(setting.route(&order))
}
