//! Planning a courier's route (docs/guide.md "Several jobs per courier"),
//! with no database and no network: the stops in an order, the time at
//! each, and whether the order keeps every rule (each pickup before its
//! dropoff, the cargo within the vehicle's limits at every point, every
//! promise). A new job goes in where it adds the least time (cheapest
//! insertion: every pair of places for its pickup and dropoff, the other
//! stops kept in their order, so the courier's route changes no more than
//! it must).

use super::StopKind;
use crate::windows::{MINUTE, Window};
use courier_pricing::routing::Durations;

/// Time spent at every stop (parking, the handover), as the price's
/// estimate counts it.
pub const HANDLING: i64 = courier_pricing::routing::DEFAULT_HANDLING_MIN_PER_STOP * MINUTE;

/// A job as a route must keep it.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Its goods are on board: only the dropoff remains.
    pub picked_up: bool,
    pub pickup_window: Option<Window>,
    /// The latest arrival at the pickup its promises allow, if any.
    pub latest_pickup: Option<i64>,
    /// The latest its promises allow the handover at the dropoff to be
    /// done (the arrival and the handling), if any.
    pub latest_dropoff: Option<i64>,
    pub weight_kg: f64,
    pub volume_cm3: f64,
}

/// What the vehicle carries at most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capacity {
    pub weight_kg: f64,
    pub volume_cm3: f64,
}

/// A stop of a plan: job `job` (an index into the plan's jobs) and which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanStop {
    pub job: usize,
    pub kind: StopKind,
}

impl PlanStop {
    pub fn pickup(job: usize) -> PlanStop {
        PlanStop {
            job,
            kind: StopKind::Pickup,
        }
    }

    pub fn dropoff(job: usize) -> PlanStop {
        PlanStop {
            job,
            kind: StopKind::Dropoff,
        }
    }

    /// Its place in the travel-time matrix: 0 is the courier, then each
    /// job's pickup and dropoff.
    pub fn place(self) -> usize {
        1 + 2 * self.job + usize::from(self.kind == StopKind::Dropoff)
    }
}

/// The places of a plan in matrix order: the courier, then every job's
/// pickup and dropoff.
pub fn places<P: Copy>(courier: P, ends: impl IntoIterator<Item = (P, P)>) -> Vec<P> {
    let mut places = vec![courier];
    for (pickup, dropoff) in ends {
        places.push(pickup);
        places.push(dropoff);
    }
    places
}

/// What a plan needs: the jobs, the vehicle, the driving seconds between
/// every two places (`Durations` over [`places`]) and the time it starts.
pub struct Problem<'a> {
    pub jobs: &'a [Job],
    pub capacity: Capacity,
    pub seconds: &'a Durations,
    pub now: i64,
}

/// An order's times: the arrival at each stop, when each is done (the
/// handling after a pickup window opened, the handover at a dropoff) and
/// when the last is done.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub arrivals: Vec<i64>,
    pub done: Vec<i64>,
    pub ends_at: i64,
}

/// Why an order breaks a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    /// A job's dropoff comes before its pickup, or a stop is missing.
    Order,
    /// The cargo exceeds the vehicle's weight or volume somewhere.
    Cargo,
    /// A job reaches a pickup or dropoff after its promise allows.
    Promise,
    /// No route leads between two of its stops.
    NoRoute,
}

impl Problem<'_> {
    /// The driving time between two places, in microseconds.
    pub fn seconds(&self, from: usize, to: usize) -> Option<i64> {
        let seconds = self.seconds.get(from)?.get(to).copied().flatten()?;
        Some((seconds.max(0.0) * 1_000_000.0).round() as i64)
    }

    /// The times along `order` from the courier's place now, waiting at a
    /// pickup for its window to open; `None` when a leg has no route.
    pub fn timeline(&self, order: &[PlanStop]) -> Option<Timeline> {
        let (mut at, mut place) = (self.now, 0);
        let (mut arrivals, mut done) = (Vec::with_capacity(order.len()), Vec::with_capacity(order.len()));
        for stop in order {
            let leg = self.seconds(place, stop.place())?;
            let arrival = at + leg;
            arrivals.push(arrival);
            let opens = match stop.kind {
                StopKind::Pickup => self.jobs[stop.job].pickup_window.map_or(arrival, |w| w.start),
                StopKind::Dropoff => arrival,
            };
            // A stop where the last one was shares its handling: two
            // parcels from one shop are one stop's parking and walk.
            let handling = if place != 0 && leg == 0 { 0 } else { HANDLING };
            at = arrival.max(opens) + handling;
            done.push(at);
            place = stop.place();
        }
        Some(Timeline {
            arrivals,
            done,
            ends_at: at,
        })
    }

    /// The first rule `order` breaks with `timeline`, if any; `promises`
    /// false checks only the order and the cargo.
    pub fn broken(&self, order: &[PlanStop], timeline: &Timeline, promises: bool) -> Option<Broken> {
        let (mut weight, mut volume) = (0.0, 0.0);
        let mut seen = vec![(false, false); self.jobs.len()];
        for (j, job) in self.jobs.iter().enumerate() {
            if job.picked_up {
                weight += job.weight_kg;
                volume += job.volume_cm3;
                seen[j].0 = true;
            }
        }
        let fits = |weight: f64, volume: f64| {
            weight <= self.capacity.weight_kg + 1e-9 && volume <= self.capacity.volume_cm3 + 1e-6
        };
        if !fits(weight, volume) {
            return Some(Broken::Cargo);
        }
        for ((stop, &arrival), &done) in order.iter().zip(&timeline.arrivals).zip(&timeline.done) {
            let job = &self.jobs[stop.job];
            let (picked, dropped) = &mut seen[stop.job];
            let latest = match stop.kind {
                StopKind::Pickup => {
                    if *picked {
                        return Some(Broken::Order);
                    }
                    *picked = true;
                    weight += job.weight_kg;
                    volume += job.volume_cm3;
                    if !fits(weight, volume) {
                        return Some(Broken::Cargo);
                    }
                    job.latest_pickup.map(|latest| (arrival, latest))
                }
                StopKind::Dropoff => {
                    if !*picked || *dropped {
                        return Some(Broken::Order);
                    }
                    *dropped = true;
                    weight -= job.weight_kg;
                    volume -= job.volume_cm3;
                    // A promised dropoff is kept by the handover, done
                    // after the handling at the door.
                    job.latest_dropoff.map(|latest| (done, latest))
                }
            };
            if promises && latest.is_some_and(|(at, latest)| at > latest) {
                return Some(Broken::Promise);
            }
        }
        if seen.iter().any(|&(picked, dropped)| !picked || !dropped) {
            return Some(Broken::Order);
        }
        None
    }

    /// `order` with job `new` (none of whose stops it holds) put where it
    /// makes the route end soonest while keeping every rule (`promises`
    /// false: all but the promises), the other stops in their order and
    /// the first `pinned` of them first; with its timeline. `None` when no
    /// place keeps them.
    pub fn insert(
        &self,
        order: &[PlanStop],
        pinned: usize,
        new: usize,
        promises: bool,
    ) -> Option<(Vec<PlanStop>, Timeline)> {
        let pinned = pinned.min(order.len());
        let mut best: Option<(Vec<PlanStop>, Timeline)> = None;
        let mut consider = |candidate: Vec<PlanStop>| {
            let Some(timeline) = self.timeline(&candidate) else {
                return;
            };
            if self.broken(&candidate, &timeline, promises).is_some() {
                return;
            }
            if best.as_ref().is_none_or(|(_, b)| timeline.ends_at < b.ends_at) {
                best = Some((candidate, timeline));
            }
        };
        if self.jobs[new].picked_up {
            for at in pinned..=order.len() {
                let mut candidate = order.to_vec();
                candidate.insert(at, PlanStop::dropoff(new));
                consider(candidate);
            }
        } else {
            for pickup_at in pinned..=order.len() {
                for dropoff_at in pickup_at + 1..=order.len() + 1 {
                    let mut candidate = order.to_vec();
                    candidate.insert(pickup_at, PlanStop::pickup(new));
                    candidate.insert(dropoff_at, PlanStop::dropoff(new));
                    consider(candidate);
                }
            }
        }
        best
    }

    /// A whole order for every job, starting from `kept` (stops of the
    /// stored order still to do, in that order; `first`, when set, moved to
    /// the front with its pickup before it where still to do), each job
    /// missing from it inserted in turn: with its promises where some place
    /// keeps them, else where only the order and the cargo hold, else at
    /// the end (a courier's own choice can break a rule; the route still
    /// shows every stop).
    pub fn complete(&self, kept: &[PlanStop], first: Option<PlanStop>) -> Vec<PlanStop> {
        let mut order: Vec<PlanStop> = Vec::new();
        if let Some(first) = first {
            if first.kind == StopKind::Dropoff && !self.jobs[first.job].picked_up {
                order.push(PlanStop::pickup(first.job));
            }
            order.push(first);
        }
        let pinned = order.len();
        let to_do = |stop: &PlanStop| stop.kind == StopKind::Dropoff || !self.jobs[stop.job].picked_up;
        let mut rest: Vec<PlanStop> = kept
            .iter()
            .filter(|stop| to_do(stop) && !order.contains(stop))
            .copied()
            .collect();
        // A job with only one of its stops kept is planned again whole;
        // a chosen pickup keeps its dropoff, last if it had none.
        let has = |stops: &[PlanStop], job: usize, kind| stops.iter().any(|s| s.job == job && s.kind == kind);
        let whole: Vec<bool> = (0..self.jobs.len())
            .map(|j| {
                let both = [order.as_slice(), rest.as_slice()].concat();
                self.jobs[j].picked_up || (has(&both, j, StopKind::Pickup) && has(&both, j, StopKind::Dropoff))
            })
            .collect();
        rest.retain(|stop| whole[stop.job]);
        if let Some(first) = first
            && first.kind == StopKind::Pickup
            && !has(&rest, first.job, StopKind::Dropoff)
        {
            rest.push(PlanStop::dropoff(first.job));
        }
        order.extend(rest);
        for (j, job) in self.jobs.iter().enumerate() {
            if order.iter().any(|s| s.job == j) {
                continue;
            }
            let inserted = self
                .insert(&order, pinned, j, true)
                .or_else(|| self.insert(&order, pinned, j, false));
            match inserted {
                Some((with, _)) => order = with,
                None => {
                    if !job.picked_up {
                        order.push(PlanStop::pickup(j));
                    }
                    order.push(PlanStop::dropoff(j));
                }
            }
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000_000;

    fn job() -> Job {
        Job {
            picked_up: false,
            pickup_window: None,
            latest_pickup: None,
            latest_dropoff: None,
            weight_kg: 1.0,
            volume_cm3: 1_000.0,
        }
    }

    /// Places on a line, one minute apart per unit: the courier at 0.
    fn line(positions: &[f64]) -> Durations {
        positions
            .iter()
            .map(|a| positions.iter().map(|b| Some((a - b).abs() * 60.0)).collect())
            .collect()
    }

    /// Jobs on a 10 kg, 100-litre vehicle, starting at `NOW`.
    fn problem<'a>(jobs: &'a [Job], seconds: &'a Durations) -> Problem<'a> {
        Problem {
            jobs,
            capacity: Capacity {
                weight_kg: 10.0,
                volume_cm3: 100_000.0,
            },
            seconds,
            now: NOW,
        }
    }

    #[test]
    fn a_job_on_the_way_goes_between_the_ends_of_the_first() {
        // Job a: 0 -> 10; job b: 3 -> 7, on a's way.
        let jobs = [job(), job()];
        let seconds = line(&places(0.0, [(1.0, 10.0), (3.0, 7.0)]));
        let problem = problem(&jobs, &seconds);
        let held = [PlanStop::pickup(0), PlanStop::dropoff(0)];
        let alone = problem.timeline(&held).expect("a route");
        let (order, timeline) = problem.insert(&held, 0, 1, true).expect("a place");
        assert_eq!(
            order,
            [
                PlanStop::pickup(0),
                PlanStop::pickup(1),
                PlanStop::dropoff(1),
                PlanStop::dropoff(0)
            ]
        );
        // No detour: only the two stops' handling is added.
        assert_eq!(timeline.ends_at - alone.ends_at, 2 * HANDLING);
        // Later in the route, later at the dropoff.
        assert!(timeline.arrivals[3] > timeline.arrivals[2]);
    }

    #[test]
    fn stops_at_one_place_share_its_handling() {
        // Jobs a and b from one shop at 2, to 5 and 6.
        let jobs = [job(), job()];
        let seconds = line(&places(0.0, [(2.0, 5.0), (2.0, 6.0)]));
        let problem = problem(&jobs, &seconds);
        let order = [
            PlanStop::pickup(0),
            PlanStop::pickup(1),
            PlanStop::dropoff(0),
            PlanStop::dropoff(1),
        ];
        let timeline = problem.timeline(&order).expect("timeline");
        assert_eq!(timeline.arrivals[1], timeline.arrivals[0] + HANDLING);
        assert_eq!(timeline.arrivals[2], timeline.arrivals[1] + 3 * MINUTE);
        assert_eq!(timeline.ends_at, NOW + 6 * MINUTE + 3 * HANDLING);
    }

    #[test]
    fn no_place_is_taken_that_breaks_a_held_jobs_promise() {
        // Job a must be handed over at its dropoff (10) within 18 minutes;
        // b is the other way (-5 -> -8) and must be picked up within 10: b
        // first makes a late, b last is too late for b.
        let mut a = job();
        a.latest_dropoff = Some(NOW + 12 * MINUTE + 2 * HANDLING);
        let mut b = job();
        b.latest_pickup = Some(NOW + 10 * MINUTE);
        let jobs = [a, b];
        let seconds = line(&places(0.0, [(1.0, 10.0), (-5.0, -8.0)]));
        let problem = problem(&jobs, &seconds);
        let held = [PlanStop::pickup(0), PlanStop::dropoff(0)];
        assert!(problem.insert(&held, 0, 1, true).is_none());
        // Without the promises (a job the courier accepted meanwhile), b
        // goes where the route ends soonest.
        let (order, timeline) = problem.insert(&held, 0, 1, false).expect("a place");
        assert_eq!(order.len(), 4);
        assert_eq!(problem.broken(&order, &timeline, true), Some(Broken::Promise));
    }

    #[test]
    fn a_promise_is_kept_by_the_handover_not_the_arrival() {
        // Job a: 0 -> 1 -> 5: at the dropoff after 1 + 3 + 4 = 8 minutes,
        // handed over at 11.
        let mut a = job();
        let seconds = line(&places(0.0, [(1.0, 5.0)]));
        let order = [PlanStop::pickup(0), PlanStop::dropoff(0)];
        a.latest_dropoff = Some(NOW + 10 * MINUTE);
        let late = [a.clone()];
        let problem = problem(&late, &seconds);
        let timeline = problem.timeline(&order).expect("timeline");
        assert_eq!(timeline.arrivals[1], NOW + 8 * MINUTE);
        assert_eq!(timeline.done[1], NOW + 11 * MINUTE);
        assert_eq!(problem.broken(&order, &timeline, true), Some(Broken::Promise));
        a.latest_dropoff = Some(NOW + 11 * MINUTE);
        let kept = [a];
        let problem = super::Problem { jobs: &kept, ..problem };
        assert_eq!(problem.broken(&order, &timeline, true), None);
    }

    #[test]
    fn the_cargo_never_exceeds_the_vehicle() {
        // Each job weighs 6 kg of a 10 kg vehicle: b only after a is dropped.
        let mut a = job();
        a.weight_kg = 6.0;
        let mut b = job();
        b.weight_kg = 6.0;
        let jobs = [a, b];
        let seconds = line(&places(0.0, [(1.0, 10.0), (3.0, 7.0)]));
        let problem = problem(&jobs, &seconds);
        let held = [PlanStop::pickup(0), PlanStop::dropoff(0)];
        let (order, timeline) = problem.insert(&held, 0, 1, true).expect("a place");
        assert_eq!(order[..2], held);
        assert_eq!(problem.broken(&order, &timeline, true), None);
        let together = [
            PlanStop::pickup(0),
            PlanStop::pickup(1),
            PlanStop::dropoff(1),
            PlanStop::dropoff(0),
        ];
        let timeline = problem.timeline(&together).expect("a route");
        assert_eq!(problem.broken(&together, &timeline, true), Some(Broken::Cargo));
    }

    #[test]
    fn a_pickup_waits_for_its_window() {
        let mut a = job();
        a.pickup_window = Some(Window {
            start: NOW + 30 * MINUTE,
            end: NOW + 60 * MINUTE,
        });
        let jobs = [a];
        let seconds = line(&places(0.0, [(5.0, 10.0)]));
        let problem = problem(&jobs, &seconds);
        let timeline = problem
            .timeline(&[PlanStop::pickup(0), PlanStop::dropoff(0)])
            .expect("a route");
        assert_eq!(timeline.arrivals[0], NOW + 5 * MINUTE);
        assert_eq!(timeline.arrivals[1], NOW + 30 * MINUTE + HANDLING + 5 * MINUTE);
    }

    #[test]
    fn a_chosen_stop_goes_first_and_a_picked_up_job_keeps_only_its_dropoff() {
        let mut b = job();
        b.picked_up = true;
        let jobs = [job(), b, job()];
        let seconds = line(&places(0.0, [(1.0, 10.0), (0.0, 5.0), (2.0, 3.0)]));
        let problem = problem(&jobs, &seconds);
        let stored = [
            PlanStop::pickup(0),
            PlanStop::pickup(1), // done: b is on board
            PlanStop::dropoff(1),
            PlanStop::dropoff(0),
        ];
        let order = problem.complete(&stored, Some(PlanStop::dropoff(1)));
        assert_eq!(order[0], PlanStop::dropoff(1));
        assert!(!order.contains(&PlanStop::pickup(1)));
        assert_eq!(order.len(), 5, "every stop still to do: {order:?}");
        let timeline = problem.timeline(&order).expect("a route");
        assert_eq!(problem.broken(&order, &timeline, false), None);
        // Choosing a dropoff whose goods are not on board brings its pickup.
        let order = problem.complete(&stored, Some(PlanStop::dropoff(2)));
        assert_eq!(order[..2], [PlanStop::pickup(2), PlanStop::dropoff(2)]);
    }
}
