//! The problem in vrp-core's terms (its "pragmatic" format, one vehicle per
//! driver, one pickup-and-delivery job per order) and its solution back in
//! ours. Objective, in order: orders placed, drivers used, then total time
//! or distance ([`Minimise`]). The search starts from first plans built
//! one order at a time ([`first_plans`]).

use std::collections::HashMap;
use std::io::BufWriter;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat};
use vrp_pragmatic::core::construction::heuristics::{
    AllRouteSelector, BestResultSelector, InsertionContext, JobSelector, LegSelection, ResultSelection,
};
use vrp_pragmatic::core::models::GoalContext;
use vrp_pragmatic::core::models::problem::{Job, JobIdDimension};
use vrp_pragmatic::core::prelude::{Environment, Solver, VrpConfigBuilder};
use vrp_pragmatic::core::rosomaxa::evolution::{HeuristicSolutionProcessing, InitialOperators, ProcessingConfig};
use vrp_pragmatic::core::rosomaxa::utils::{DefaultRandom, Parallelism, Quota};
use vrp_pragmatic::core::solver::processing::{AdvanceDeparture, UnassignmentReason};
use vrp_pragmatic::core::solver::search::ConfigurableRecreate;
use vrp_pragmatic::core::solver::{RecreateInitialOperator, RefinementContext};
use vrp_pragmatic::format::Location;
use vrp_pragmatic::format::problem::{self as api, PragmaticProblem};
use vrp_pragmatic::format::solution::{self as out, PragmaticOutputType};

use crate::error::PlanError;
use crate::plan::{Plan, Route, Stop, StopKind, Unfit, Unplanned};
use crate::problem::{Matrix, Minimise, Order, Problem, Visit, Window};

/// Stops the search at its deadline or when cancelled, whichever first.
struct Deadline {
    at: Instant,
    cancelled: Arc<AtomicBool>,
}

impl Quota for Deadline {
    fn is_reached(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || Instant::now() >= self.at
    }
}

/// Solves `problem` within `budget` (at least a second), or until
/// `cancelled` is set: the best plan found by then.
pub fn solve(problem: &Problem, budget: Duration, cancelled: Arc<AtomicBool>) -> Result<Plan, PlanError> {
    problem.check()?;
    let started = Instant::now();
    if problem.drivers.is_empty() || problem.orders.is_empty() {
        return Ok(Plan {
            routes: Vec::new(),
            unplanned: problem
                .orders
                .iter()
                .map(|order| Unplanned {
                    order_id: order.id.clone(),
                    reason: Unfit::NoDriver,
                })
                .collect(),
            cost: 0.0,
            solved_in: started.elapsed(),
        });
    }
    let places = Places::of(problem);
    let (api_problem, matrices) = to_pragmatic(problem, &places);
    let core_problem = Arc::new(
        (api_problem, matrices)
            .read_pragmatic()
            .map_err(|errors| PlanError::Solver(errors.to_string()))?,
    );
    let environment = Arc::new(Environment::new(
        Arc::new(DefaultRandom::default()),
        Some(Arc::new(Deadline {
            at: started + budget,
            cancelled,
        })),
        Parallelism::default(),
        Arc::new(|message: &str| tracing::debug!(target: "courier_planner::solver", "{message}")),
        false,
    ));
    let seconds = budget.as_secs_f64().ceil().max(1.0) as usize;
    let cpus = environment.parallelism.available_cpus();
    let config = VrpConfigBuilder::new(core_problem.clone())
        .set_environment(environment)
        .prebuild()
        .and_then(|builder| {
            builder
                .with_initial(FIRST_PLANS, 0.05, first_plans(problem))
                .with_processing(ProcessingConfig {
                    context: Vec::new(),
                    // vrp-core's defaults, less the two for what our
                    // problems never have (clustered jobs, reserved
                    // times), and with the reasons bounded in time.
                    solution: vec![
                        Box::<AdvanceDeparture>::default(),
                        Box::new(Reasons { chunk: cpus.max(1) }),
                    ],
                })
                .with_max_time(Some(seconds))
                .with_max_generations(None)
                .build()
        })
        .map_err(|error| PlanError::Solver(error.to_string()))?;
    let solution = Solver::new(core_problem.clone(), config)
        .solve()
        .map_err(|error| PlanError::Solver(error.to_string()))?;
    let mut written = BufWriter::new(Vec::new());
    out::write_pragmatic(
        &core_problem,
        &solution,
        PragmaticOutputType::OnlyPragmatic,
        &mut written,
    )
    .map_err(|error| PlanError::Solver(error.to_string()))?;
    let bytes = written
        .into_inner()
        .map_err(|error| PlanError::Solver(error.to_string()))?;
    let solution = out::deserialize_solution(std::io::BufReader::new(bytes.as_slice()))
        .map_err(|error| PlanError::Solver(error.to_string()))?;
    from_pragmatic(problem, &places, solution, started.elapsed())
}

/// How many first plans the search may start from: built one after the
/// other while they take under 5 % of the budget (vrp-core's rule).
const FIRST_PLANS: usize = 4;

/// The first plans: every order inserted one at a time where it costs
/// least (vrp-core's own insertion, so every rule holds), in a few orders.
/// vrp-core's default construction weighs every order left against every
/// route before each insertion, which does not finish in seconds for
/// hundreds of orders.
fn first_plans(problem: &Problem) -> InitialOperators<RefinementContext, GoalContext, InsertionContext> {
    // Orders on board first (their driver is fixed). Orders from one place
    // one after the other: they become one round from the shop; the
    // earlier windows among them first.
    let by_shop = |order: &Order| {
        (
            order.pickup.as_ref().map(|pickup| pickup.place),
            order.dropoff.window.map_or(i64::MAX, |window| window.start),
        )
    };
    // The tightest windows first, while routes still have room for them.
    let by_window = |order: &Order| {
        (
            order.pickup.is_some(),
            order
                .pickup
                .iter()
                .chain([&order.dropoff])
                .filter_map(|visit| visit.window)
                .map(|window| window.end)
                .min()
                .unwrap_or(i64::MAX),
        )
    };
    let orders: [Box<dyn JobSelector>; 3] = [
        Box::new(InOrder::by(problem, by_shop)),
        Box::new(InOrder::by(problem, by_window)),
        Box::new(AnyOrder),
    ];
    orders
        .into_iter()
        .map(|jobs| {
            let recreate = ConfigurableRecreate::new(
                jobs,
                Box::<AllRouteSelector>::default(),
                LegSelection::Exhaustive,
                ResultSelection::Concrete(Box::<BestResultSelector>::default()),
                Default::default(),
            );
            (Box::new(RecreateInitialOperator::new(Arc::new(recreate))) as _, 1)
        })
        .collect()
}

/// Picks the next order to insert: the first by a rank of ours.
struct InOrder {
    rank: HashMap<String, usize>,
}

impl InOrder {
    fn by<K: Ord>(problem: &Problem, key: impl Fn(&Order) -> K) -> InOrder {
        let mut orders: Vec<&Order> = problem.orders.iter().collect();
        orders.sort_by_cached_key(|order| key(order));
        InOrder {
            rank: orders
                .into_iter()
                .enumerate()
                .map(|(rank, order)| (order.id.clone(), rank))
                .collect(),
        }
    }
}

impl JobSelector for InOrder {
    fn prepare(&self, insertion_ctx: &mut InsertionContext) {
        let rank = |job: &Job| {
            job.dimens()
                .get_job_id()
                .and_then(|id| self.rank.get(id))
                .copied()
                .unwrap_or(usize::MAX)
        };
        insertion_ctx.solution.required.sort_by_cached_key(rank);
    }

    fn select<'a>(&'a self, insertion_ctx: &'a InsertionContext) -> Box<dyn Iterator<Item = &'a Job> + 'a> {
        Box::new(insertion_ctx.solution.required.iter().take(1))
    }
}

/// Picks the next order to insert at random (vrp-core shuffles them before
/// each insertion).
struct AnyOrder;

impl JobSelector for AnyOrder {
    fn select<'a>(&'a self, insertion_ctx: &'a InsertionContext) -> Box<dyn Iterator<Item = &'a Job> + 'a> {
        Box::new(insertion_ctx.solution.required.iter().take(1))
    }
}

/// vrp-core's reasons for the orders left out, within [`REASONS_TIME`] of
/// the search's end: it tries each order left out at every position of
/// every route, which takes many seconds when hundreds are left out of
/// long routes. Orders not reached keep the reason their last failed
/// insertion gave, if any.
struct Reasons {
    /// Orders explained at once (vrp-core spreads them over the cores).
    chunk: usize,
}

/// How long the reasons may take after the search.
const REASONS_TIME: Duration = Duration::from_millis(200);

impl HeuristicSolutionProcessing for Reasons {
    type Solution = InsertionContext;

    fn post_process(&self, mut solution: InsertionContext) -> InsertionContext {
        let until = Instant::now() + REASONS_TIME;
        let mut left: Vec<_> = solution.solution.unassigned.drain().collect();
        let mut explained = Vec::with_capacity(left.len());
        while !left.is_empty() && Instant::now() < until {
            let at = left.len().saturating_sub(self.chunk);
            solution.solution.unassigned.extend(left.drain(at..));
            solution = UnassignmentReason::default().post_process(solution);
            explained.extend(solution.solution.unassigned.drain());
        }
        solution.solution.unassigned.extend(explained.into_iter().chain(left));
        solution
    }
}

/// The places a problem uses, numbered densely as the solver wants its
/// matrices (exactly as many rows as places used).
struct Places {
    used: Vec<usize>,
    dense: HashMap<usize, usize>,
}

impl Places {
    fn of(problem: &Problem) -> Places {
        let mut used: Vec<usize> = problem
            .orders
            .iter()
            .flat_map(|order| order.pickup.iter().chain([&order.dropoff]).map(|visit| visit.place))
            .chain(
                problem
                    .drivers
                    .iter()
                    .flat_map(|driver| [driver.start_place, driver.end_place]),
            )
            .collect();
        used.sort_unstable();
        used.dedup();
        let dense = used.iter().enumerate().map(|(dense, &place)| (place, dense)).collect();
        Places { used, dense }
    }

    fn location(&self, place: usize) -> Location {
        Location::Reference {
            index: self.dense[&place],
        }
    }

    /// The rows and columns of `matrix` for the places used.
    fn matrix(&self, profile: &str, matrix: &Matrix) -> api::Matrix {
        let cells = self.used.len() * self.used.len();
        let (mut travel_times, mut distances) = (Vec::with_capacity(cells), Vec::with_capacity(cells));
        for &from in &self.used {
            for &to in &self.used {
                travel_times.push(matrix.seconds(from, to));
                distances.push(matrix.metres(from, to));
            }
        }
        api::Matrix {
            profile: Some(profile.to_owned()),
            timestamp: None,
            travel_times,
            distances,
            error_codes: None,
        }
    }
}

/// Whole seconds, as RFC 3339.
fn time(micros: i64) -> String {
    DateTime::from_timestamp_micros(micros)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn micros(text: &str) -> Result<i64, PlanError> {
    DateTime::parse_from_rfc3339(text)
        .map(|at| at.timestamp_micros())
        .map_err(|error| PlanError::Solver(format!("a time the solver answered, {text:?}: {error}")))
}

fn place(places: &Places, visit: &Visit, load: Vec<i32>) -> api::JobTask {
    api::JobTask {
        places: vec![api::JobPlace {
            location: places.location(visit.place),
            duration: visit.handling_seconds as f64,
            times: visit
                .window
                .map(|Window { start, end }| vec![vec![time(start), time(end)]]),
            tag: None,
        }],
        demand: Some(load),
        order: None,
    }
}

/// Saturated to the solver's 32-bit dimensions.
fn dimension(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn job(places: &Places, order: &Order) -> api::Job {
    let load = vec![dimension(order.load.weight_grams), dimension(order.load.volume_cm3), 1];
    api::Job {
        id: order.id.clone(),
        pickups: order
            .pickup
            .as_ref()
            .map(|pickup| vec![place(places, pickup, load.clone())]),
        deliveries: Some(vec![place(places, &order.dropoff, load)]),
        replacements: None,
        services: None,
        skills: (!order.vehicle_types.is_empty()).then(|| api::JobSkills {
            all_of: None,
            one_of: Some(order.vehicle_types.clone()),
            none_of: None,
        }),
        value: None,
        group: None,
        compatibility: None,
    }
}

fn to_pragmatic(problem: &Problem, places: &Places) -> (api::Problem, Vec<api::Matrix>) {
    let (per_metre, per_second) = match problem.minimise {
        Minimise::Time => (0.0, 1.0),
        Minimise::Distance => (1.0, 0.0),
    };
    let vehicles = problem
        .drivers
        .iter()
        .map(|driver| api::VehicleType {
            type_id: driver.id.clone(),
            vehicle_ids: vec![driver.id.clone()],
            profile: api::VehicleProfile {
                matrix: driver.profile.clone(),
                scale: None,
            },
            costs: api::VehicleCosts {
                fixed: None,
                distance: per_metre,
                time: per_second,
            },
            shifts: vec![api::VehicleShift {
                start: api::ShiftStart {
                    earliest: time(driver.start_at),
                    latest: None,
                    location: places.location(driver.start_place),
                },
                end: Some(api::ShiftEnd {
                    earliest: None,
                    latest: time(driver.end_at),
                    location: places.location(driver.end_place),
                }),
                // An optional break is a stop of the route, timed with the
                // rest; a required one (vrp's reserved time) can push a
                // later stop past its window in the plan it writes.
                breaks: driver.rest.map(|rest| {
                    vec![api::VehicleBreak::Optional {
                        time: api::VehicleOptionalBreakTime::TimeWindow(vec![
                            time(rest.window.start),
                            time(rest.window.end),
                        ]),
                        places: vec![api::VehicleOptionalBreakPlace {
                            duration: rest.seconds as f64,
                            location: None,
                            tag: None,
                        }],
                        policy: None,
                    }]
                }),
                reloads: None,
                recharges: None,
            }],
            capacity: vec![
                dimension(driver.capacity.weight_grams),
                dimension(driver.capacity.volume_cm3),
                dimension(driver.capacity.max_jobs),
            ],
            skills: Some(vec![driver.vehicle_type.clone()]),
            limits: None,
        })
        .collect();
    let relations: Vec<api::Relation> = problem
        .drivers
        .iter()
        .filter(|driver| !driver.carrying.is_empty() || !driver.keeps.is_empty())
        .map(|driver| api::Relation {
            type_field: api::RelationType::Any,
            // A relation names a job once per task: a kept order's pickup
            // and dropoff, a carried order's dropoff.
            jobs: driver
                .carrying
                .iter()
                .chain(driver.keeps.iter().flat_map(|id| [id, id]))
                .cloned()
                .collect(),
            vehicle_id: driver.id.clone(),
            shift_index: None,
        })
        .collect();
    let matrices = problem
        .travel
        .iter()
        .map(|(profile, matrix)| places.matrix(profile, matrix))
        .collect();
    let api_problem = api::Problem {
        plan: api::Plan {
            jobs: problem.orders.iter().map(|order| job(places, order)).collect(),
            relations: (!relations.is_empty()).then_some(relations),
            clustering: None,
        },
        fleet: api::Fleet {
            vehicles,
            profiles: problem
                .travel
                .keys()
                .map(|name| api::MatrixProfile {
                    name: name.clone(),
                    speed: None,
                })
                .collect(),
            resources: None,
        },
        objectives: Some(vec![
            api::Objective::MinimizeUnassigned { breaks: None },
            api::Objective::MinimizeTours,
            api::Objective::MinimizeCost,
        ]),
    };
    (api_problem, matrices)
}

fn unfit(code: &str) -> Unfit {
    match code {
        "TIME_WINDOW_CONSTRAINT" => Unfit::Window,
        "CAPACITY_CONSTRAINT" | "TOUR_SIZE_CONSTRAINT" => Unfit::Capacity,
        "SKILL_CONSTRAINT" => Unfit::VehicleType,
        "REACHABLE_CONSTRAINT" => Unfit::Unreachable,
        _ => Unfit::NotFound,
    }
}

fn from_pragmatic(
    problem: &Problem,
    places: &Places,
    solution: out::Solution,
    solved_in: Duration,
) -> Result<Plan, PlanError> {
    let orders: HashMap<&str, &Order> = problem.orders.iter().map(|order| (order.id.as_str(), order)).collect();
    let mut routes = Vec::new();
    for tour in solution.tours {
        let mut stops = Vec::new();
        // A rest has no place of its own: it is taken where the last stop was.
        let mut last_place = problem
            .drivers
            .iter()
            .find(|driver| driver.id == tour.vehicle_id)
            .map_or(0, |driver| driver.start_place);
        let (mut starts_at, mut ends_at) = (None, 0);
        for stop in &tour.stops {
            let schedule = stop.schedule();
            let (arrives_at, leaves_at) = (micros(&schedule.arrival)?, micros(&schedule.departure)?);
            starts_at.get_or_insert(leaves_at);
            ends_at = arrives_at;
            for activity in stop.activities() {
                let kind = match activity.activity_type.as_str() {
                    "pickup" => StopKind::Pickup,
                    "delivery" => StopKind::Dropoff,
                    "break" => StopKind::Rest,
                    _ => continue,
                };
                let (starts, leaves) = match &activity.time {
                    Some(interval) => (micros(&interval.start)?, micros(&interval.end)?),
                    None => (arrives_at, leaves_at),
                };
                // Handling starts on arrival, or when the window opens.
                let opens = match kind {
                    StopKind::Rest => None,
                    _ => orders
                        .get(activity.job_id.as_str())
                        .and_then(|order| match kind {
                            StopKind::Pickup => order.pickup.as_ref(),
                            _ => Some(&order.dropoff),
                        })
                        .and_then(|visit| visit.window)
                        .map(|window| window.start),
                };
                if let Some(Location::Reference { index }) = activity.location.as_ref().or(stop.location()) {
                    last_place = places.used.get(*index).copied().unwrap_or(last_place);
                }
                stops.push(Stop {
                    order_id: (kind != StopKind::Rest).then(|| activity.job_id.clone()),
                    kind,
                    place: last_place,
                    arrives_at: starts,
                    starts_at: opens.map_or(starts, |opens| opens.max(starts)),
                    leaves_at: leaves,
                });
            }
        }
        routes.push(Route {
            driver_id: tour.vehicle_id,
            stops,
            starts_at: starts_at.unwrap_or_default(),
            ends_at,
            driving_seconds: tour.statistic.times.driving,
            metres: tour.statistic.distance,
        });
    }
    let unplanned = solution
        .unassigned
        .unwrap_or_default()
        .into_iter()
        .filter(|job| orders.contains_key(job.job_id.as_str()))
        .map(|job| Unplanned {
            reason: job
                .reasons
                .first()
                .map_or(Unfit::NotFound, |reason| unfit(&reason.code)),
            order_id: job.job_id,
        })
        .collect();
    Ok(Plan {
        routes,
        unplanned,
        cost: solution.statistic.cost,
        solved_in,
    })
}
