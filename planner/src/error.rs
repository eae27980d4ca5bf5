//! How planning fails.

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The problem contradicts itself (an unknown place, a window the
    /// wrong way round): the caller's mistake.
    #[error("{0}")]
    Invalid(String),
    /// The solver failed on a problem we handed it.
    #[error("the route solver failed: {0}")]
    Solver(String),
}
