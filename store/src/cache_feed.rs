//! How far the in-memory caches (`auth::cache` for keys, `deliveries::cache`
//! for deliveries) may trust what they keep, and the feed that tells every
//! PostgreSQL replica what another one changed (docs/scaling.md, "Caches on
//! replicas"): it evicts what changed, and pushes changed deliveries to this
//! replica's `WatchDelivery` streams and webhook dispatcher (the core's
//! [`Listener`]),
//! so that they hear of another replica's change in milliseconds
//! (docs/scaling.md "Streams on replicas").
//!
//! - SQLite: one process serves the database (`db::ServeLock`) and sees
//!   every change, so its caches are exact ([`Freshness::Exact`]).
//! - PostgreSQL: every replica writes. A change is announced with
//!   `pg_notify` ([`announce`]), which PostgreSQL delivers to every listener
//!   once the change's transaction commits; [`listen`] receives them and
//!   evicts what changed. While the listening connection is down the caches
//!   are bypassed, and when it is back they start over empty, since
//!   announcements may have been missed meanwhile. An entry older than
//!   [`MAX_AGE`] is not served either: the backstop for an announcement lost
//!   between a commit and its notification (a replica that died in between)
//!   or a connection that hangs without failing.
//!
//! The replica that made a change evicts it itself before it answers, so
//! there the very next request sees it; every other replica within
//! milliseconds normally, within [`MAX_AGE`] at worst.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sea_orm::sqlx::postgres::PgListener;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use tokio_util::sync::CancellationToken;

use crate::CoreResult;
use crate::metrics::CoreMetrics;

/// The PostgreSQL channel of cache announcements.
const CHANNEL: &str = "courier_cache";
/// The oldest entry a PostgreSQL replica serves from a cache.
pub const MAX_AGE: Duration = Duration::from_secs(1);
/// The wait before connecting again after the listening connection failed.
const RECONNECT_AFTER: Duration = Duration::from_millis(200);

/// Whether this replica's announcement listener is connected: the caches
/// of a PostgreSQL replica serve only while it is.
#[derive(Debug)]
pub struct Feed {
    connected: AtomicBool,
    /// This replica's mark on its own announcements of couriers, which it
    /// skips: their watchers here were woken at the commit.
    origin: u64,
}

impl Default for Feed {
    fn default() -> Feed {
        Feed {
            connected: AtomicBool::new(false),
            origin: rand::random(),
        }
    }
}

impl Feed {
    pub fn origin(&self) -> u64 {
        self.origin
    }

    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::Acquire)
    }

    fn set_connected(&self, connected: bool) {
        self.connected.store(connected, Ordering::Release);
    }
}

/// How far a cache may trust what it keeps.
#[derive(Clone, Debug)]
pub enum Freshness {
    /// Every change passes through this process: entries are exact.
    Exact,
    /// Changes come from other replicas too, announced on `feed`: entries
    /// serve while it is connected and for [`MAX_AGE`] at most.
    Announced(Arc<Feed>),
}

impl Freshness {
    /// Whether the cache may be used at all now.
    pub fn usable(&self) -> bool {
        match self {
            Freshness::Exact => true,
            Freshness::Announced(feed) => feed.is_connected(),
        }
    }

    /// Whether an entry stored at `stored` may be served now.
    pub fn serves(&self, stored: Instant) -> bool {
        match self {
            Freshness::Exact => true,
            Freshness::Announced(feed) => feed.is_connected() && stored.elapsed() < MAX_AGE,
        }
    }
}

/// What changed, as announced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A key or a workspace (revocation, plan, billing settings): keys
    /// carry their workspace, so every cached key is forgotten.
    Keys,
    /// The delivery `id`, changed by the replica `from` (which has told its
    /// own caches and streams).
    Delivery { from: u64, id: String },
    /// The feeds of these couriers (`assignments::feed`), changed by the
    /// replica `from`: their `WatchAssignments` streams read them anew.
    Couriers { from: u64, ids: Vec<String> },
}

/// The longest payload of one notification (PostgreSQL refuses 8,000 bytes
/// and more); a longer list of couriers is sent in several.
const MAX_PAYLOAD: usize = 7_000;

impl Change {
    /// The notification payload: the change and the wall-clock time it was
    /// announced (microseconds), for the invalidation lag.
    fn payload(&self, at_micros: i64) -> String {
        match self {
            Change::Keys => format!("k {at_micros}"),
            Change::Delivery { from, id } => format!("d {at_micros} {from} {id}"),
            Change::Couriers { from, ids } => format!("c {at_micros} {from} {}", ids.join(" ")),
        }
    }

    fn parse(payload: &str) -> Option<(Change, i64)> {
        let mut parts = payload.splitn(3, ' ');
        let kind = parts.next()?;
        let at = parts.next()?.parse().ok()?;
        match (kind, parts.next()) {
            ("k", None) => Some((Change::Keys, at)),
            ("d", Some(rest)) => {
                let (from, id) = rest.split_once(' ')?;
                if id.is_empty() {
                    return None;
                }
                Some((
                    Change::Delivery {
                        from: from.parse().ok()?,
                        id: id.to_owned(),
                    },
                    at,
                ))
            }
            ("c", Some(rest)) => {
                let (from, ids) = rest.split_once(' ')?;
                let ids: Vec<String> = ids.split(' ').map(str::to_owned).collect();
                if ids.iter().any(String::is_empty) {
                    return None;
                }
                Some((
                    Change::Couriers {
                        from: from.parse().ok()?,
                        ids,
                    },
                    at,
                ))
            }
            _ => None,
        }
    }
}

fn wall_clock_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// Announces `change` to every replica on PostgreSQL, in `db`: inside a
/// transaction the notification leaves when it commits (and not at all if it
/// rolls back). Nothing on SQLite.
pub async fn announce(db: &impl ConnectionTrait, change: Change) -> CoreResult<()> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [CHANNEL.into(), change.payload(wall_clock_micros()).into()],
    ))
    .await?;
    Ok(())
}

/// Announces in `tx` that the feeds of `courier_ids` changed: as few
/// notifications as their ids fit in (one for a whole dispatch round), since
/// every notification costs the commit a turn at PostgreSQL's queue lock.
pub async fn announce_couriers(tx: &impl ConnectionTrait, from: u64, courier_ids: Vec<String>) -> CoreResult<()> {
    let mut batch: Vec<String> = Vec::new();
    let mut length = 0;
    for id in courier_ids {
        if length + id.len() + 1 > MAX_PAYLOAD && !batch.is_empty() {
            let ids = std::mem::take(&mut batch);
            announce(tx, Change::Couriers { from, ids }).await?;
            length = 0;
        }
        length += id.len() + 1;
        batch.push(id);
    }
    if !batch.is_empty() {
        announce(tx, Change::Couriers { from, ids: batch }).await?;
    }
    Ok(())
}

/// What a replica does with the announcements it hears (the caches and
/// streams it keeps are the layers above's).
pub trait Listener: Send + Sync {
    /// The listening connection is up again: whatever changed while nobody
    /// listened is unknown, so forget what is kept and look again.
    fn connected(&self);
    /// Another replica announced `change` (this replica's own are skipped).
    fn changed(&self, change: Change);
}

/// Listens for announcements on PostgreSQL (on a connection of `writer`'s
/// pool) until `stop` fires, telling `listener` of each other replica's
/// change; returns at once on SQLite.
pub async fn listen(
    writer: sea_orm::DatabaseConnection,
    feed: Arc<Feed>,
    metrics: Arc<CoreMetrics>,
    listener: impl Listener,
    stop: CancellationToken,
) {
    if writer.get_database_backend() != DbBackend::Postgres {
        return;
    }
    let pool = writer.get_postgres_connection_pool().clone();
    while !stop.is_cancelled() {
        let connected = async {
            let mut connection = PgListener::connect_with(&pool).await?;
            connection.listen(CHANNEL).await?;
            Ok::<_, sea_orm::sqlx::Error>(connection)
        };
        let mut connection = tokio::select! {
            () = stop.cancelled() => return,
            connected = connected => match connected {
                Ok(connection) => connection,
                Err(error) => {
                    tracing::warn!(%error, "cache announcements: cannot listen; caches bypassed");
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(RECONNECT_AFTER) => continue,
                    }
                }
            },
        };
        listener.connected();
        feed.set_connected(true);
        metrics.set_cache_feed_connected(true);
        loop {
            let received = tokio::select! {
                () = stop.cancelled() => break,
                received = connection.try_recv() => received,
            };
            match received {
                Ok(Some(notification)) => match Change::parse(notification.payload()) {
                    Some((change, at)) => {
                        match change {
                            Change::Delivery { from, .. } | Change::Couriers { from, .. } if from == feed.origin => {}
                            change => listener.changed(change),
                        }
                        let lag = wall_clock_micros().saturating_sub(at).max(0);
                        metrics.observe_cache_invalidation_lag(Duration::from_micros(lag as u64));
                    }
                    None => tracing::warn!(payload = notification.payload(), "cache announcements: unreadable"),
                },
                Ok(None) | Err(_) => {
                    tracing::warn!("cache announcements: connection lost; caches bypassed until it is back");
                    break;
                }
            }
        }
        feed.set_connected(false);
        metrics.set_cache_feed_connected(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_back() {
        let couriers = Change::Couriers {
            from: 7,
            ids: vec!["cou_1".into(), "cou_2".into()],
        };
        let delivery = Change::Delivery {
            from: 9,
            id: "del_1 x".into(),
        };
        for change in [Change::Keys, delivery, couriers] {
            assert_eq!(Change::parse(&change.payload(42)), Some((change, 42)));
        }
        for bad in [
            "",
            "k",
            "k x",
            "d 1",
            "d 1 ",
            "d 1 7",
            "d 1 7 ",
            "d 1 x del_1",
            "c 1",
            "c 1 ",
            "c 1 7",
            "c 1 7 ",
            "c 1 x cou_1",
            "x 1 y",
        ] {
            assert_eq!(Change::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn announced_entries_serve_only_while_connected_and_young() {
        let feed = Arc::new(Feed::default());
        let freshness = Freshness::Announced(feed.clone());
        let now = Instant::now();
        assert!(!freshness.usable() && !freshness.serves(now));
        feed.set_connected(true);
        assert!(freshness.usable() && freshness.serves(now));
        if let Some(old) = now.checked_sub(MAX_AGE) {
            assert!(!freshness.serves(old));
        }
        assert!(Freshness::Exact.usable());
    }
}
