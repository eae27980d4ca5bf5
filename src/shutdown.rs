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
