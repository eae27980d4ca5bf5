//! What tests of every crate wait with (`wait_until`): a deadline, never a
//! fixed sleep.

use std::time::Duration;

/// How often [`wait_until`] asks again.
const POLL_EVERY: Duration = Duration::from_millis(20);

/// Asks `check` until it answers `Ok`, and returns that; fails the test
/// after `limit`, naming `what` it waited for and what `check` last saw
/// (its `Err`). For what a worker does in its own time.
pub async fn wait_until<T, E: std::fmt::Display>(
    what: impl std::fmt::Display,
    limit: Duration,
    mut check: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let last = match check().await {
            Ok(done) => return done,
            Err(last) => last,
        };
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {limit:?} for {what}; last seen: {last:#}"
        );
        tokio::time::sleep(POLL_EVERY).await;
    }
}
