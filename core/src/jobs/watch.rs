//! `WatchAssignments` (docs/couriers.md "The assignment stream"): a
//! courier's feed (`assignments::feed`) as a stream of updates. A fresh
//! stream, or one whose resume position is no longer kept, starts with a
//! snapshot of the courier's open jobs; then every feed row after the
//! position, in order, each with its own position to resume from. The
//! stream wakes on this process's commits and on other replicas'
//! announcements (a suspension or a sign-out wakes it too); it reads again
//! every [`BACKSTOP`] for an announcement lost with a replica that died
//! between its commit and the notification, and every [`POLL`] while
//! announcements cannot be heard.

use std::time::Duration;

use tokio::sync::mpsc;

use super::route::{self, CourierRoute};
use super::{Job, Offered};
use crate::couriers::Courier;
use crate::{Core, CoreError, CoreResult};
use courier_identity::sessions;
use courier_orders::assignments::feed::{self, Entry, Reason};

/// How often a stream reads its feed without being woken while it hears
/// every change (SQLite, or PostgreSQL with the announcements connected).
const BACKSTOP: Duration = Duration::from_secs(15);
/// How often it reads while announcements of other replicas are not heard.
const POLL: Duration = Duration::from_secs(1);
/// The wait before reading again after a read failed.
const RETRY_READ: Duration = Duration::from_millis(500);

/// One message of the stream, with the position to resume after it.
#[derive(Clone, Debug)]
pub struct Update {
    pub position: i64,
    pub change: Change,
}

#[derive(Clone, Debug)]
pub enum Change {
    /// Everything open for the courier now; replaces what the app holds.
    Snapshot {
        jobs: Vec<Job>,
        offer: Option<Box<Offered>>,
        route: CourierRoute,
    },
    /// The courier's route after the changes just sent.
    Route(CourierRoute),
    /// A job offered to the courier.
    Offer(Box<Offered>),
    /// One of the courier's jobs as it is now; `changed_fields` names the
    /// members the client changed, when that is why it is sent.
    Job { job: Box<Job>, changed_fields: Vec<String> },
    /// A job (or an offer) left the courier's hands.
    Withdrawal {
        job_id: String,
        offer_id: Option<String>,
        reason: Reason,
    },
}

/// Watches the feed of the courier signed in with `session_token` from
/// `resume` (a position they received, or `None`), until the receiver is
/// dropped or the session ends (the last message is then the error).
pub async fn watch(
    core: &Core,
    session_token: &str,
    resume: Option<i64>,
) -> CoreResult<mpsc::Receiver<CoreResult<Update>>> {
    let session = sessions::authenticate::<Courier>(core, session_token).await?;
    let courier_id = session.subject.id.clone();
    let (sender, receiver) = mpsc::channel(16);
    let core = core.clone();
    let token = session_token.to_owned();
    // Subscribed before the first read: a commit after it wakes the loop.
    let mut wake = core.courier_signals.subscribe(&courier_id);
    tokio::spawn(async move {
        let mut position = match resume {
            Some(position) if feed::is_kept(&core.db, &courier_id, position).await.unwrap_or(false) => position,
            _ => match snapshot(&core, &session.subject).await {
                Ok(update) => {
                    let position = update.position;
                    if sender.send(Ok(update)).await.is_err() {
                        return;
                    }
                    position
                }
                Err(error) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
            },
        };
        loop {
            let sent = match sessions::authenticate::<Courier>(&core, &token).await {
                Ok(session) => send_after(&core, &session.subject, &mut position, &sender).await,
                Err(error) => Err(error),
            };
            let next_read = match sent {
                Ok(true) => unwoken_read(&core),
                Ok(false) => return,
                // A refusal (the session ended, a job no longer theirs)
                // ends the stream with it.
                Err(error @ (CoreError::Rejected { .. } | CoreError::Throttled { .. })) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
                // A read that failed (the database busy or restarting) is
                // tried again from the same position: ending the stream
                // would leave the phone deaf to its offers until it
                // reconnects.
                Err(error) => {
                    tracing::warn!(%error, courier = %courier_id, "assignment stream not read; trying again");
                    RETRY_READ
                }
            };
            tokio::select! {
                () = sender.closed() => return,
                () = core.stopping.cancelled() => return,
                () = wake.woken() => {}
                () = tokio::time::sleep(next_read) => {}
            }
        }
    });
    Ok(receiver)
}

fn unwoken_read(core: &Core) -> Duration {
    if core.freshness.usable() { BACKSTOP } else { POLL }
}

/// The courier's open jobs, at the feed's newest position (read first, so
/// that a change committed meanwhile is sent again rather than missed).
async fn snapshot(core: &Core, courier: &crate::couriers::Courier) -> CoreResult<Update> {
    let position = feed::latest_position(&core.db, &courier.id).await?;
    let jobs = super::open(core, courier).await?;
    let offer = super::open_offer(core, courier).await?.map(Box::new);
    let route = route::current(core, courier).await?;
    Ok(Update {
        position,
        change: Change::Snapshot { jobs, offer, route },
    })
}

/// Sends the feed rows after `position`, moving it, then the route they
/// left when any changed a job; `false` once the receiver is gone.
async fn send_after(
    core: &Core,
    courier: &crate::couriers::Courier,
    position: &mut i64,
    sender: &mpsc::Sender<CoreResult<Update>>,
) -> CoreResult<bool> {
    let mut jobs_changed = false;
    loop {
        let rows = feed::after(&core.db, &courier.id, *position).await?;
        // A short read reached the newest row; a row committed since woke
        // the stream again, so the next read comes with that wake.
        let newest_reached = rows.len() < feed::READ_LIMIT;
        for row in rows {
            jobs_changed |= !matches!(row.entry, Entry::Offer { .. });
            let change = match row.entry {
                Entry::Job { job_id } => Change::Job {
                    job: Box::new(super::get(core, courier, &job_id).await?),
                    changed_fields: Vec::new(),
                },
                Entry::Edited { job_id, changed_fields } => Change::Job {
                    job: Box::new(super::get(core, courier, &job_id).await?),
                    changed_fields,
                },
                Entry::Offer { offer_id, .. } => Change::Offer(Box::new(super::offer(core, courier, &offer_id).await?)),
                Entry::Withdrawal {
                    job_id,
                    offer_id,
                    reason,
                } => Change::Withdrawal {
                    job_id,
                    offer_id,
                    reason,
                },
            };
            *position = row.position;
            let update = Update {
                position: row.position,
                change,
            };
            if sender.send(Ok(update)).await.is_err() {
                return Ok(false);
            }
        }
        if newest_reached {
            if jobs_changed {
                let update = Update {
                    position: *position,
                    change: Change::Route(route::current(core, courier).await?),
                };
                return Ok(sender.send(Ok(update)).await.is_ok());
            }
            return Ok(true);
        }
    }
}
