//! The process-wide shutdown signal shared by the binaries.

/// Completes on Ctrl-C or SIGTERM.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// Runs `work` (servers and workers that begin stopping when `stopping`
/// completes) to its end, but once `stopping` has completed gives it at most
/// `grace` more: `None` when the grace period ran out with work in flight.
pub async fn with_grace<T>(
    work: impl std::future::Future<Output = T>,
    stopping: impl std::future::Future<Output = ()>,
    grace: std::time::Duration,
) -> Option<T> {
    tokio::pin!(work);
    tokio::select! {
        out = &mut work => return Some(out),
        () = stopping => {}
    }
    tokio::time::timeout(grace, work).await.ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::with_grace;

    #[tokio::test]
    async fn work_ending_before_the_signal_is_awaited() {
        let work = async { 7 };
        assert_eq!(with_grace(work, std::future::pending(), Duration::ZERO).await, Some(7));
    }

    #[tokio::test]
    async fn after_the_signal_work_gets_the_grace_period_and_no_more() {
        let ms = Duration::from_millis;
        let stopping = tokio::time::sleep(ms(10));
        let finishes = tokio::time::sleep(ms(40));
        assert_eq!(with_grace(finishes, stopping, ms(2000)).await, Some(()));

        let stopping = tokio::time::sleep(ms(10));
        let started = std::time::Instant::now();
        assert_eq!(with_grace(std::future::pending::<()>(), stopping, ms(50)).await, None);
        let waited = started.elapsed();
        assert!(waited >= ms(60) && waited < ms(2000), "{waited:?}");
    }
}
