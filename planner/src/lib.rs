//! Planned routes (docs/routing.md "Planned routes"): a fleet's orders and
//! its drivers on shift become one route per driver, fewest drivers first,
//! then least total time (or distance), by vrp-core's solver within a time
//! budget. The
//! problem and the plan are ours ([`problem`], [`plan`]); [`solver`] maps
//! them to and from the solver's. No database: callers read the orders and
//! shifts and store what is published.

mod error;
pub mod plan;
pub mod problem;
mod solver;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use error::PlanError;
pub use plan::{Plan, Route, Stop, StopKind, Unfit, Unplanned};
pub use problem::{Capacity, Driver, Load, Matrix, Minimise, Order, Problem, Rest, Visit, Window};
pub use solver::solve;

/// Plans `problem` off the async runtime: the best plan within `budget`,
/// or found by the time `cancel` is cancelled.
pub async fn plan(problem: Problem, budget: Duration, cancel: CancellationToken) -> Result<Plan, PlanError> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let solving = tokio::task::spawn_blocking({
        let cancelled = cancelled.clone();
        move || solve(&problem, budget, cancelled)
    });
    let flag = cancelled.clone();
    let watch = tokio::spawn(async move {
        cancel.cancelled().await;
        flag.store(true, Ordering::Relaxed);
    });
    let answer = solving.await;
    watch.abort();
    answer.map_err(|error| PlanError::Solver(format!("the planning thread ended: {error}")))?
}
