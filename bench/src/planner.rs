//! `courier-bench --only planner` (BENCHMARKS.md "Planned routes"): our
//! planner (`courier-planner`, vrp-core) on Li & Lim's pickup-and-delivery
//! instances with time windows, beside VROOM (pyvroom) and OR-Tools solving
//! the same instances at the same budgets in the same run
//! (`bench/peers/lilim.py`, in a virtual environment of its own), every
//! plan measured here by the same rules; then a generated fleet day's time
//! to a plan with every order placed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use courier_planner::{Capacity, Driver, Load, Matrix, Minimise, Order, Plan, Problem, StopKind, Visit, Window};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::service::BenchResult;

/// The instance's units, times this, in whole seconds: what every solver
/// is given (the same as the peers' `SCALE`).
const SCALE: f64 = 100.0;

/// The instances (`tests/data/lilim/`) with their best-known vehicles and
/// distance (SINTEF TOP, as kept with them; tests/data/README.md).
const INSTANCES: [(&str, usize, f64); 8] = [
    ("lc101", 10, 828.9369),
    ("lc201", 3, 591.5566),
    ("lr101", 19, 1650.7992),
    ("lr201", 4, 1253.2340),
    ("lrc101", 14, 1708.8013),
    ("lrc201", 4, 1406.9401),
    ("lc1_4_1", 40, 7152.0566),
    ("lr1_4_1", 40, 10639.7539),
];

/// The peers' pinned packages, installed once into the virtual environment.
const PEERS: [&str; 2] = ["pyvroom==1.15.2", "ortools==9.15.6755"];

/// One task of an instance: task 0 is the depot.
#[derive(Clone, Copy)]
struct Task {
    x: f64,
    y: f64,
    demand: i64,
    ready: f64,
    due: f64,
    service: f64,
    /// For a delivery, its pickup's number; 0 for a pickup.
    pickup: usize,
    /// For a pickup, its delivery's number.
    delivery: usize,
}

struct Instance {
    name: &'static str,
    vehicles: usize,
    capacity: i64,
    tasks: Vec<Task>,
}

impl Instance {
    fn read(path: &Path, name: &'static str) -> BenchResult<Instance> {
        let text = std::fs::read_to_string(path)?;
        let mut rows = text.lines().filter(|line| !line.trim().is_empty());
        let head: Vec<f64> = numbers(rows.next().ok_or("an empty instance")?)?;
        let mut tasks = Vec::new();
        for row in rows {
            let v = numbers(row)?;
            if v.len() < 9 {
                return Err(format!("{name}: a task line of {} numbers", v.len()).into());
            }
            tasks.push(Task {
                x: v[1],
                y: v[2],
                demand: v[3] as i64,
                ready: v[4],
                due: v[5],
                service: v[6],
                pickup: v[7] as usize,
                delivery: v[8] as usize,
            });
        }
        Ok(Instance {
            name,
            vehicles: *head.first().ok_or("no vehicle count")? as usize,
            capacity: *head.get(1).ok_or("no capacity")? as i64,
            tasks,
        })
    }

    fn distance(&self, a: usize, b: usize) -> f64 {
        let (a, b) = (self.tasks[a], self.tasks[b]);
        (a.x - b.x).hypot(a.y - b.y)
    }

    /// (pickup, delivery) task numbers.
    fn pairs(&self) -> Vec<(usize, usize)> {
        (1..self.tasks.len())
            .filter(|&i| self.tasks[i].pickup == 0)
            .map(|i| (i, self.tasks[i].delivery))
            .collect()
    }

    /// The instance as our planner's problem: a driver per vehicle from
    /// the depot and back within its hours, an order per pair, travel and
    /// time as the scaled distance.
    fn problem(&self) -> BenchResult<Problem> {
        let n = self.tasks.len();
        let scaled = |a: usize, b: usize| (self.distance(a, b) * SCALE).round() as i64;
        let cells: Vec<i64> = (0..n * n).map(|cell| scaled(cell / n, cell % n)).collect();
        let matrix = Matrix::new(n, cells.clone(), cells)?;
        let micros = |t: f64| (t * SCALE).round() as i64 * 1_000_000;
        let visit = |i: usize| Visit {
            place: i,
            handling_seconds: (self.tasks[i].service * SCALE).round() as i64,
            window: Some(Window {
                start: micros(self.tasks[i].ready),
                end: micros(self.tasks[i].due),
            }),
        };
        let depot = self.tasks[0];
        Ok(Problem {
            orders: self
                .pairs()
                .into_iter()
                .map(|(p, d)| Order {
                    id: format!("{p}-{d}"),
                    pickup: Some(visit(p)),
                    dropoff: visit(d),
                    load: Load {
                        weight_grams: self.tasks[p].demand,
                        volume_cm3: 0,
                    },
                    vehicle_types: Vec::new(),
                })
                .collect(),
            drivers: (0..self.vehicles)
                .map(|v| Driver {
                    id: format!("vehicle-{v}"),
                    vehicle_type: "vehicle".to_owned(),
                    capacity: Capacity {
                        weight_grams: self.capacity,
                        volume_cm3: 0,
                        max_jobs: n as i64,
                    },
                    profile: "lilim".to_owned(),
                    start_place: 0,
                    start_at: micros(depot.ready),
                    end_place: 0,
                    end_at: micros(depot.due),
                    rest: None,
                    carrying: Vec::new(),
                    keeps: Vec::new(),
                })
                .collect(),
            travel: BTreeMap::from([("lilim".to_owned(), matrix)]),
            minimise: Minimise::Distance,
        })
    }

    /// Routes as task numbers, from our plan.
    fn routes_of(plan: &Plan) -> Vec<Vec<usize>> {
        plan.routes
            .iter()
            .map(|route| {
                route
                    .stops
                    .iter()
                    .filter_map(|stop| {
                        let (p, d) = stop.order_id.as_deref()?.split_once('-')?;
                        match stop.kind {
                            StopKind::Pickup => p.parse().ok(),
                            StopKind::Dropoff => d.parse().ok(),
                            StopKind::Rest => None,
                        }
                    })
                    .collect()
            })
            .filter(|route: &Vec<usize>| !route.is_empty())
            .collect()
    }

    /// Vehicles and distance of `routes` in the instance's own units, or
    /// why they break its rules (every task once, a pickup before its
    /// delivery on one route, capacity, windows, the depot's hours).
    fn judge(&self, routes: &[Vec<usize>]) -> Result<(usize, f64), String> {
        let mut served = vec![0usize; self.tasks.len()];
        let mut distance = 0.0;
        for route in routes {
            let (mut at, mut clock, mut load) = (0, self.tasks[0].ready, 0i64);
            let mut on_route = vec![false; self.tasks.len()];
            for &task in route {
                let t = *self
                    .tasks
                    .get(task)
                    .ok_or(format!("task {task} is not in the instance"))?;
                served[task] += 1;
                on_route[task] = true;
                if t.pickup != 0 && !on_route[t.pickup] {
                    return Err(format!("task {task} delivered before its pickup {}", t.pickup));
                }
                distance += self.distance(at, task);
                clock = (clock + self.distance(at, task)).max(t.ready);
                if clock > t.due + 1e-6 {
                    return Err(format!(
                        "task {task} reached at {clock:.1}, after its window ends ({})",
                        t.due
                    ));
                }
                clock += t.service;
                load += t.demand;
                if load > self.capacity {
                    return Err(format!("over capacity at task {task}"));
                }
                at = task;
            }
            distance += self.distance(at, 0);
            if clock + self.distance(at, 0) > self.tasks[0].due + 1e-6 {
                return Err("a route back after the depot closes".into());
            }
        }
        if let Some(task) = (1..self.tasks.len()).find(|&t| served[t] != 1) {
            return Err(format!("task {task} served {} times", served[task]));
        }
        Ok((routes.len(), distance))
    }
}

fn numbers(line: &str) -> BenchResult<Vec<f64>> {
    line.split_whitespace()
        .map(|v| v.parse::<f64>().map_err(|e| format!("{v:?}: {e}").into()))
        .collect()
}

/// One solver's plan of one instance at one budget.
struct Outcome {
    /// Vehicles and distance, or why the plan is not valid.
    judged: Result<(usize, f64), String>,
    seconds: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Solver {
    Ours,
    Vroom,
    OrTools,
}

impl Solver {
    fn label(self) -> &'static str {
        match self {
            Solver::Ours => "ours (vrp-core)",
            Solver::Vroom => "VROOM",
            Solver::OrTools => "OR-Tools",
        }
    }
}

/// The repository's root (the bench runs from anywhere).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The peers' Python, in a virtual environment made once under the user's
/// cache.
async fn peers_python() -> BenchResult<PathBuf> {
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    let venv = Path::new(&home).join(".cache/courier-bench/peers-pyvroom-1.15.2-ortools-9.15");
    let python = venv.join("bin/python");
    if !python.exists() {
        println!("(installing {} into {})", PEERS.join(", "), venv.display());
        let made = tokio::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .await?;
        let installed = tokio::process::Command::new(&python)
            .args(["-m", "pip", "install", "--quiet"])
            .args(PEERS)
            .status()
            .await?;
        if !made.success() || !installed.success() {
            return Err("could not install the peers (python3 -m venv, pip)".into());
        }
    }
    Ok(python)
}

async fn solve(
    solver: Solver,
    instance: &Instance,
    path: &Path,
    python: &Path,
    budget: Duration,
) -> BenchResult<Outcome> {
    let started = std::time::Instant::now();
    let routes = match solver {
        Solver::Ours => {
            let plan = courier_planner::plan(instance.problem()?, budget, CancellationToken::new()).await?;
            if let Some(left) = plan.unplanned.first() {
                return Ok(Outcome {
                    judged: Err(format!(
                        "{} orders unplanned ({} {:?})",
                        plan.unplanned.len(),
                        left.order_id,
                        left.reason
                    )),
                    seconds: started.elapsed().as_secs_f64(),
                });
            }
            Instance::routes_of(&plan)
        }
        Solver::Vroom | Solver::OrTools => {
            let name = if solver == Solver::Vroom { "vroom" } else { "ortools" };
            let output = tokio::process::Command::new(python)
                .arg(root().join("bench/peers/lilim.py"))
                .arg(name)
                .arg(path)
                .arg(budget.as_secs_f64().to_string())
                .output()
                .await?;
            if !output.status.success() {
                return Err(format!("{name} failed: {}", String::from_utf8_lossy(&output.stderr)).into());
            }
            let answer: Value = serde_json::from_slice(&output.stdout)?;
            serde_json::from_value(answer["routes"].clone())?
        }
    };
    Ok(Outcome {
        judged: instance.judge(&routes),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Solves every instance with every solver at every budget, prints the
/// table and the targets.
pub async fn measure(budgets: &[Duration]) -> BenchResult<()> {
    let python = peers_python().await?;
    println!(
        "\n### Planned routes: Li & Lim instances, {} cores\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| Instance | Best known | Budget | Solver | Vehicles | Distance | Gap | Took |");
    println!("|---|---:|---:|---|---:|---:|---:|---:|");
    let mut results = Results::new();
    for (name, best_vehicles, best_distance) in INSTANCES {
        let path = root().join(format!("tests/data/lilim/{name}.txt"));
        let instance = Instance::read(&path, name)?;
        for &budget in budgets {
            for solver in [Solver::Ours, Solver::Vroom, Solver::OrTools] {
                let outcome = solve(solver, &instance, &path, &python, budget).await?;
                let (vehicles, distance, gap) = match &outcome.judged {
                    Ok((vehicles, distance)) => (
                        vehicles.to_string(),
                        format!("{distance:.2}"),
                        format!("{:+.2} %", 100.0 * (distance / best_distance - 1.0)),
                    ),
                    Err(why) => ("—".into(), format!("not valid: {why}"), "—".into()),
                };
                println!(
                    "| {} | {best_vehicles} / {best_distance:.2} | {} s | {} | {vehicles} | {distance} | {gap} | {:.1} s |",
                    instance.name,
                    budget.as_secs(),
                    solver.label(),
                    outcome.seconds
                );
                results
                    .entry((budget, solver))
                    .or_default()
                    .push((name, best_vehicles, best_distance, outcome.judged));
            }
        }
    }
    summarise(budgets, &results);
    fleet_day().await
}

/// Per budget and solver, each instance's name, best-known vehicles and
/// distance, and the plan as judged.
type Results<'a> = BTreeMap<(Duration, Solver), Vec<(&'a str, usize, f64, Result<(usize, f64), String>)>>;

/// The targets, per budget: ours on the 100-task instances against
/// the best known, and against VROOM on every instance.
fn summarise(budgets: &[Duration], results: &Results) {
    for &budget in budgets {
        let Some(ours) = results.get(&(budget, Solver::Ours)) else {
            continue;
        };
        let small: Vec<_> = ours.iter().filter(|(name, ..)| !name.contains("_4_")).collect();
        let gaps: Vec<f64> = small
            .iter()
            .filter_map(|(_, _, best, judged)| judged.as_ref().ok().map(|(_, d)| 100.0 * (d / best - 1.0)))
            .collect();
        let at_best_vehicles = small
            .iter()
            .filter(|(_, best, _, judged)| judged.as_ref().is_ok_and(|(v, _)| v <= best))
            .count();
        println!(
            "- {} s, ours on the 100-task instances: mean gap to the best-known distance {:.2} % over {} valid plans of {} (target ≤ 3 % at 60 s); best-known vehicles on {} of {} (target ≥ 80 % at 60 s)",
            budget.as_secs(),
            gaps.iter().sum::<f64>() / gaps.len().max(1) as f64,
            gaps.len(),
            small.len(),
            at_best_vehicles,
            small.len()
        );
        if let Some(vroom) = results.get(&(budget, Solver::Vroom)) {
            let (mut no_more_vehicles, mut compared, mut distance_diff) = (0, 0, 0.0);
            for ((_, _, _, ours), (_, _, _, theirs)) in ours.iter().zip(vroom) {
                if let (Ok((ov, od)), Ok((tv, td))) = (ours, theirs) {
                    compared += 1;
                    no_more_vehicles += usize::from(ov <= tv);
                    distance_diff += 100.0 * (od / td - 1.0);
                }
            }
            println!(
                "- {} s, ours against VROOM: no more vehicles on {no_more_vehicles} of {compared} instances both solved (target: all); distance {:+.2} % on average (target ≤ +1 %)",
                budget.as_secs(),
                distance_diff / compared.max(1) as f64
            );
        }
    }
}

/// A generated fleet day: 20 drivers on 8-hour shifts from one depot, 500
/// orders from 40 shops to homes within 1.5 km of their shop, a third of
/// the dropoffs in 2-hour windows, in a city of 12 × 12 km driven at
/// 25 km/h; the budgets tried until one places every order.
async fn fleet_day() -> BenchResult<()> {
    const ORDERS: usize = 500;
    const DRIVERS: usize = 20;
    let mut places = vec![(6000.0, 6000.0)];
    let mut random = crate::dispatch::Random(99);
    let shops: Vec<usize> = (0..40)
        .map(|_| {
            places.push((random.next() * 12_000.0, random.next() * 12_000.0));
            places.len() - 1
        })
        .collect();
    let hour = 3_600_000_000i64;
    let day = 1_798_790_400_000_000i64;
    let mut orders = Vec::new();
    for i in 0..ORDERS {
        let shop = shops[i % shops.len()];
        let (x, y) = places[shop];
        places.push((x + (random.next() - 0.5) * 3_000.0, y + (random.next() - 0.5) * 3_000.0));
        let home = places.len() - 1;
        let window = (i % 3 == 0).then(|| {
            let start = day + (random.next() * 5.0 * hour as f64) as i64;
            Window {
                start,
                end: start + 2 * hour,
            }
        });
        orders.push(Order {
            id: format!("ord_{i}"),
            pickup: Some(Visit {
                place: shop,
                handling_seconds: 180,
                window: None,
            }),
            dropoff: Visit {
                place: home,
                handling_seconds: 180,
                window,
            },
            load: Load {
                weight_grams: 2_000,
                volume_cm3: 10_000,
            },
            vehicle_types: Vec::new(),
        });
    }
    let n = places.len();
    let metres: Vec<i64> = (0..n * n)
        .map(|cell| {
            let ((x1, y1), (x2, y2)) = (places[cell / n], places[cell % n]);
            (1.3 * (x1 - x2).hypot(y1 - y2)).round() as i64
        })
        .collect();
    let seconds: Vec<i64> = metres.iter().map(|m| m * 36 / 250).collect();
    let problem = Problem {
        orders,
        drivers: (0..DRIVERS)
            .map(|d| Driver {
                id: format!("drv_{d}"),
                vehicle_type: "small_van".to_owned(),
                capacity: Capacity {
                    weight_grams: 400_000,
                    volume_cm3: 2_000_000,
                    max_jobs: 15,
                },
                profile: "small_van".to_owned(),
                start_place: 0,
                start_at: day,
                end_place: 0,
                end_at: day + 8 * hour,
                rest: None,
                carrying: Vec::new(),
                keeps: Vec::new(),
            })
            .collect(),
        travel: BTreeMap::from([("small_van".to_owned(), Matrix::new(n, seconds, metres)?)]),
        minimise: Minimise::Time,
    };
    println!(
        "\nA generated fleet day: {DRIVERS} drivers on 8-hour shifts, {ORDERS} orders from 40 shops to homes within 1.5 km, a third with dropoff windows:"
    );
    for budget in [1, 2, 5, 10].map(Duration::from_secs) {
        let plan = courier_planner::plan(problem.clone(), budget, CancellationToken::new()).await?;
        println!(
            "- budget {} s: {} orders unplanned, {} drivers used, took {:.1} s",
            budget.as_secs(),
            plan.unplanned.len(),
            plan.drivers_used(),
            plan.solved_in.as_secs_f64()
        );
        if plan.unplanned.is_empty() {
            println!("- every order placed within {} s (target < 10 s)", budget.as_secs());
            return Ok(());
        }
    }
    println!("- not every order placed within 10 s (target < 10 s)");
    Ok(())
}
