//! The sender (docs/notifications.md "Sending"): claims due messages from
//! the outbox with a lease, decides each at the moment it would go out, and
//! hands it to its provider.
//!
//! Before every send, in this order: a message about progress for a
//! delivery that ended over a minute ago is dropped; an address that opted out gets nothing;
//! quiet hours hold what can wait until they end; a test-mode message goes
//! to the test inbox and nowhere else. A provider that does not take a
//! message is tried again on the webhooks' schedule (8 attempts); each
//! attempt is recorded when it ends, with the provider's id or error, and
//! the claim marks a send under way until then (`messages::claim`). A send
//! cut off by a crash is looked up at the provider before it is made again
//! ([`attempt`]). A live SMS the provider took is charged
//! (`billing::charges`) in the transaction that records it as sent
//! ([`record`]). A run's reads and writes are per batch, not per message,
//! and a batch's calls are made while the batch before it is recorded and
//! the one after it claimed ([`send_due`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::messages::{self, Finished, Message, Outcome, outcome};
use super::providers::Providers;
use super::settings::{self, Settings};
use super::{Channel, MessageStatus, opt_outs};
use crate::billing::charges::{self, Charge};
use crate::deliveries::{self, Standing};
use crate::webhooks::retry;
use crate::{CoreResult, Orders};
use courier_identity::modes::Mode;
use courier_messaging::email::Email;
use courier_messaging::sms::Sms;
use courier_messaging::{Accepted, SendError};
use courier_store::ids;
use courier_store::runner::{Done, Runner};

/// How long after its delivery ended a message about its progress may
/// still go out: one queued just before the end is news sent at once (and
/// in order, before the end's own), one held or retried past it is not.
const ENDED_GRACE_MICROS: i64 = 60 * 1_000_000;

/// Messages claimed at a time: a batch's fixed cost (its claim, its reads,
/// its commits) spread over many.
const BATCH: u64 = 256;
/// Batches one run sends before it lets the runner look at its stop.
const BATCHES_PER_RUN: usize = 16;
/// Provider calls in flight at once, across a batch: as many connections
/// to a provider as the webhooks keep to an endpoint, twice.
const IN_FLIGHT: usize = 64;
/// How long a claimed batch may wait for the one before it to be sent
/// before its lease is renewed.
const RENEW_AFTER: Duration = Duration::from_secs(1);
/// The shortest time between two runs' starts: the messages that a burst
/// of commits queues go in one batch, not a batch of one per commit (each
/// batch's claim, reads and commits cost the same whatever its size, taken
/// from the requests beside it).
const GATHER: Duration = Duration::from_millis(100);
/// How often the sender looks without being woken: messages of other
/// replicas, retries and the end of quiet hours.
const POLL: Duration = Duration::from_millis(500);

/// Runs the sender until `stop` fires.
pub async fn run(orders: Orders, stop: CancellationToken) {
    for channel in Channel::ALL {
        if !orders.notification_providers.is_live(channel) {
            let settings = match channel {
                Channel::Sms => "COURIER_TWILIO_ACCOUNT_SID, COURIER_TWILIO_AUTH_TOKEN and COURIER_TWILIO_FROM",
                Channel::Email => "COURIER_SMTP_URL",
            };
            tracing::warn!(
                channel = channel.as_str(),
                "live {} notifications are off: {settings} not set (test mode still fills the test inbox)",
                channel.as_str()
            );
        }
    }
    let wake = orders.notification_wake.clone();
    Runner::every(POLL)
        .woken_by(wake)
        .at_most_every(GATHER)
        .run(&stop, move || send_due(orders.clone()))
        .await
}

/// Sends what is due, a batch at a time, each in three steps whatever its
/// number of messages: the claim, which marks their sends under way, with
/// what they need read once ([`Facts`]); the provider calls, side by side
/// (one task per delivery, its messages in the order they were queued:
/// `arriving` never overtakes `picked_up`); and one transaction recording
/// every attempt and outcome. The steps of three batches overlap:
/// while one batch's calls are made, the one before it is recorded and the
/// one after it is claimed and read. The claim leaves a delivery's messages
/// alone while another of its messages is claimed ([`messages::claim`]), so
/// they still reach the provider in order. Everything sent is recorded when
/// it returns.
pub async fn send_due(orders: Orders) -> CoreResult<Done> {
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    let Some(mut batch) = claim_batch(&orders).await? else {
        return Ok(Done::Idle);
    };
    let mut unrecorded: Option<Sent> = None;
    let mut batches = 1;
    loop {
        let (full, token) = (batch.full, batch.token.clone());
        let claim_next = full && batches < BATCHES_PER_RUN;
        let (decided, recorded, next) = tokio::join!(
            send_batch(&orders, batch, in_flight.clone()),
            record_sent(&orders, unrecorded.take()),
            async {
                if claim_next {
                    claim_batch(&orders).await
                } else {
                    Ok(None)
                }
            }
        );
        let sent = Sent { token, decided };
        let next = match (recorded, next) {
            (Ok(()), Ok(next)) => next,
            (Err(error), next) => return wind_down(&orders, &in_flight, sent, next.ok().flatten(), error).await,
            (Ok(()), Err(error)) => return wind_down(&orders, &in_flight, sent, None, error).await,
        };
        let Some(next) = next else {
            record_sent(&orders, Some(sent)).await?;
            // Claimed no more: nothing was due, or this run has sent its share.
            return Ok(if claim_next || !full { Done::Idle } else { Done::More });
        };
        match next.renewed(&orders).await {
            Ok(next) => batch = next,
            Err(error) => return wind_down(&orders, &in_flight, sent, None, error).await,
        }
        unrecorded = Some(sent);
        batches += 1;
    }
}

/// Ends a run cut short by `error`: the batch `sent` is recorded, and one
/// `claimed` already (its sends marked under way) is still sent and
/// recorded. What could not be recorded goes again after its lease, looked
/// up at its provider first.
async fn wind_down(
    orders: &Orders,
    in_flight: &Arc<Semaphore>,
    sent: Sent,
    claimed: Option<Batch>,
    error: crate::CoreError,
) -> CoreResult<Done> {
    record_sent(orders, Some(sent)).await?;
    if let Some(batch) = claimed {
        let token = batch.token.clone();
        let decided = send_batch(orders, batch, in_flight.clone()).await;
        record_sent(orders, Some(Sent { token, decided })).await?;
    }
    Err(error)
}

/// A batch sent and not yet recorded: its claim token and outcomes.
struct Sent {
    token: String,
    decided: Vec<Decided>,
}

/// Records `sent`'s outcomes ([`record_all`]), if any, and counts them.
async fn record_sent(orders: &Orders, sent: Option<Sent>) -> CoreResult<()> {
    let Some(Sent { token, decided }) = sent else {
        return Ok(());
    };
    let recorded = record_all(orders, &token, &decided).await?;
    for (one, recorded) in decided.iter().zip(recorded) {
        if recorded {
            orders.metrics.notification(
                one.message.channel.as_str(),
                one.message.trigger.as_str(),
                result_name(&one.message, &one.outcome),
            );
        }
    }
    Ok(())
}

/// A claimed batch, decided up to its provider calls.
struct Batch {
    token: String,
    /// Whether as many were claimed as could be: more may be due.
    full: bool,
    /// Messages that need no call (dropped, opted out, held, test inbox).
    decided: Vec<Decided>,
    /// Messages to send, per delivery.
    to_send: BTreeMap<String, Vec<Planned>>,
    claimed_at: Instant,
}

impl Batch {
    /// The batch with its lease renewed if it waited long for the batch
    /// before it (a slow provider): the lease covers its own calls. Only
    /// messages this sender still holds are sent.
    async fn renewed(mut self, orders: &Orders) -> CoreResult<Batch> {
        if self.claimed_at.elapsed() < RENEW_AFTER {
            return Ok(self);
        }
        let ids: Vec<String> = self.to_send.values().flatten().map(|p| p.message.id.clone()).collect();
        let now = orders.clock.now_micros();
        let held = messages::renew(&orders.writer, &self.token, &ids, now.saturating_add(lease(orders))).await?;
        for queue in self.to_send.values_mut() {
            queue.retain(|planned| held.contains(&planned.message.id));
        }
        self.claimed_at = Instant::now();
        Ok(self)
    }
}

/// A claim's lease: a send and the recording of its outcome. A sender that
/// dies leaves its messages to another in seconds.
fn lease(orders: &Orders) -> i64 {
    let lease = orders.notification_providers.timeout + Duration::from_secs(5);
    i64::try_from(lease.as_micros()).unwrap_or(i64::MAX)
}

/// Claims the messages due now and decides what needs no provider call;
/// `None` when nothing is due.
async fn claim_batch(orders: &Orders) -> CoreResult<Option<Batch>> {
    let (now, claimed_at) = (orders.clock.now_micros(), Instant::now());
    let token = ids::random_base62(24);
    let claimed = messages::claim(&orders.writer, BATCH, now, now.saturating_add(lease(orders)), &token).await?;
    if claimed.is_empty() {
        return Ok(None);
    }
    let full = claimed.len() as u64 == BATCH;
    let facts = Facts::read(orders, &claimed).await?;
    let mut decided: Vec<Decided> = Vec::with_capacity(claimed.len());
    let mut to_send: BTreeMap<String, Vec<Planned>> = BTreeMap::new();
    for message in claimed {
        if let Some(outcome) = facts.before_send(orders, &message, now) {
            decided.push(Decided {
                message,
                outcome,
                attempts: Vec::new(),
            });
            continue;
        }
        let planned = Planned {
            email: match message.channel {
                Channel::Email => Some(facts.email_of(orders, &message)),
                Channel::Sms => None,
            },
            message,
        };
        to_send
            .entry(planned.message.delivery_id.clone())
            .or_default()
            .push(planned);
    }
    Ok(Some(Batch {
        token,
        full,
        decided,
        to_send,
        claimed_at,
    }))
}

/// Makes a batch's provider calls, at most `in_flight` at once; every
/// message's outcome.
async fn send_batch(orders: &Orders, batch: Batch, in_flight: Arc<Semaphore>) -> Vec<Decided> {
    let Batch {
        mut decided, to_send, ..
    } = batch;
    let mut sends = JoinSet::new();
    for (_, mut queue) in to_send {
        queue.sort_by(|a, b| (a.message.created_at, &a.message.id).cmp(&(b.message.created_at, &b.message.id)));
        let (orders, in_flight) = (orders.clone(), in_flight.clone());
        sends.spawn(async move {
            let mut sent = Vec::with_capacity(queue.len());
            for planned in queue {
                // Never closed: a permit is always had.
                let _permit = in_flight.acquire().await;
                sent.push(attempt(&orders, planned).await);
            }
            sent
        });
    }
    while let Some(sent) = sends.join_next().await {
        match sent {
            Ok(sent) => decided.extend(sent),
            Err(error) => {
                tracing::warn!(%error, "a notification send task failed; its messages go again after their lease")
            }
        }
    }
    decided
}

/// What one run reads once for all its messages.
struct Facts {
    deliveries: BTreeMap<String, Standing>,
    opted_out: BTreeSet<(String, Channel, String)>,
    settings: BTreeMap<String, Settings>,
    /// The name each workspace signs with.
    names: BTreeMap<String, String>,
}

impl Facts {
    /// The reads go side by side, each on a connection of its own where
    /// the store has several.
    async fn read(orders: &Orders, claimed: &[Message]) -> CoreResult<Facts> {
        let delivery_ids: BTreeSet<String> = claimed.iter().map(|m| m.delivery_id.clone()).collect();
        let delivery_ids: Vec<String> = delivery_ids.into_iter().collect();
        let workspaces = async {
            let mut settings = BTreeMap::new();
            let mut names = BTreeMap::new();
            for workspace_id in claimed.iter().map(|m| m.workspace_id.as_str()).collect::<BTreeSet<_>>() {
                let chosen = settings::get(&orders.db, workspace_id).await?;
                let name = chosen.business_name(&orders.db, workspace_id).await?;
                settings.insert(workspace_id.to_owned(), chosen);
                names.insert(workspace_id.to_owned(), name);
            }
            CoreResult::Ok((settings, names))
        };
        let (deliveries, opted_out, (settings, names)) = tokio::try_join!(
            deliveries::standings(&orders.db, &delivery_ids),
            opt_outs::among(
                &orders.db,
                claimed
                    .iter()
                    .map(|m| (m.workspace_id.as_str(), m.channel, m.address.as_str())),
            ),
            workspaces,
        )?;
        Ok(Facts {
            deliveries: deliveries.into_iter().map(|d| (d.id.clone(), d)).collect(),
            opted_out,
            settings,
            names,
        })
    }

    /// What becomes of `message` without a send, if anything: dropped,
    /// opted out, held, or put in the test inbox.
    fn before_send(&self, orders: &Orders, message: &Message, now: i64) -> Option<Outcome> {
        let Some(delivery) = self.deliveries.get(&message.delivery_id) else {
            return Some(Outcome::Ended {
                status: MessageStatus::Dropped,
                error: Some("The delivery is no longer kept.".to_owned()),
            });
        };
        let late = delivery.ended_at.is_some_and(|ended| now - ended > ENDED_GRACE_MICROS);
        if late && delivery.status.is_terminal() && !message.trigger.outlives_the_delivery() {
            return Some(Outcome::Ended {
                status: MessageStatus::Dropped,
                error: Some(format!(
                    "The delivery was {} before this message could go out.",
                    delivery.status.as_str()
                )),
            });
        }
        let key = (message.workspace_id.clone(), message.channel, message.address.clone());
        if self.opted_out.contains(&key) {
            return Some(Outcome::Ended {
                status: MessageStatus::OptedOut,
                error: None,
            });
        }
        if message.trigger.can_wait() {
            let quiet = self.settings.get(&message.workspace_id).and_then(|s| s.quiet_hours);
            let area = orders.catalog.service_area(&delivery.service_area_id);
            let held = quiet
                .zip(area)
                .zip(DateTime::<Utc>::from_timestamp_micros(now))
                .and_then(|((quiet, area), now)| quiet.until(now, area.time_zone));
            if let Some(until) = held {
                return Some(Outcome::Held {
                    until: until.timestamp_micros(),
                });
            }
        }
        if message.mode == Mode::Test {
            return Some(Outcome::Sent {
                provider_message_id: format!("test_{}", message.id),
            });
        }
        None
    }

    /// The email `message` goes out as.
    fn email_of(&self, orders: &Orders, message: &Message) -> Email {
        let token = opt_outs::unsubscribe_token(
            &orders.secrets.unsubscribe_link,
            &message.workspace_id,
            &message.address,
        );
        let unsubscribe_url = format!(
            "{}/v1/notifications/unsubscribe/{token}",
            orders.config.public_base_url.trim_end_matches('/')
        );
        Email {
            to: message.address.clone(),
            from_name: self.names.get(&message.workspace_id).cloned().unwrap_or_default(),
            from_address: orders.notification_providers.from_address.clone(),
            reply_to: self
                .settings
                .get(&message.workspace_id)
                .and_then(|s| s.reply_to.clone()),
            subject: message.subject.clone().unwrap_or_default(),
            text: format!("{}\n\n--\nNo more emails like this: {unsubscribe_url}", message.body),
            unsubscribe_url,
            message_id: message.id.clone(),
        }
    }
}

/// A message about to go to its provider.
struct Planned {
    message: Message,
    email: Option<Email>,
}

/// A claimed message's outcome, with the attempts made for it, to record.
struct Decided {
    message: Message,
    outcome: Outcome,
    attempts: Vec<messages::attempt::Model>,
}

/// Hands a live message to its provider. A send an earlier sender started
/// and never recorded (it died: `cut_off_at`) may have gone out: an SMS is
/// looked up at Twilio first, whose Messages API takes no idempotency key,
/// and adopted when found; an email is sent again with its Message-ID
/// unchanged. Either way the cut-off send is recorded as an attempt of its
/// own.
async fn attempt(orders: &Orders, planned: Planned) -> Decided {
    let providers = &orders.notification_providers;
    let Planned { message, email } = planned;
    let mut attempts = Vec::new();
    let made =
        |number: i32, started_at: i64, outcome: &str, provider_message_id: Option<String>, error: Option<String>| {
            messages::attempt::Model {
                id: ids::new_id("nta"),
                message_id: message.id.clone(),
                attempt: number,
                started_at,
                duration_micros: 0,
                outcome: outcome.to_owned(),
                provider_message_id,
                error,
            }
        };
    let mut number = message.attempts;
    if let Some(cut_off_at) = message.cut_off_at {
        let found = match (&providers.sms, message.channel) {
            (Some(twilio), Channel::Sms) => match DateTime::<Utc>::from_timestamp_micros(cut_off_at) {
                Some(since) => twilio.find_sent(&message.address, &message.body, since).await,
                None => Ok(None),
            },
            _ => Ok(None),
        };
        let (found, error) = match found {
            Ok(found) => (found, "The sender stopped before the provider answered."),
            Err(_) => (
                None,
                "The sender stopped before the provider answered; the provider could not be asked.",
            ),
        };
        number = number.saturating_add(1);
        attempts.push(made(
            number,
            cut_off_at,
            outcome::CUT_OFF,
            found.as_ref().map(|a| a.provider_message_id.clone()),
            Some(error.to_owned()),
        ));
        if let Some(accepted) = found {
            return Decided {
                message,
                outcome: Outcome::Sent {
                    provider_message_id: accepted.provider_message_id,
                },
                attempts,
            };
        }
    }
    number = number.saturating_add(1);
    let started_at = orders.clock.now_micros();
    let started = Instant::now();
    let result = match (message.channel, &providers.sms, &providers.email, email) {
        (Channel::Sms, Some(twilio), _, _) => Some(twilio.send(&sms_of(providers, &message)).await),
        (Channel::Email, _, Some(smtp), Some(email)) => Some(smtp.send(&email).await),
        _ => None,
    };
    let took = started.elapsed();
    let Some(result) = result else {
        let error = format!(
            "Live {} messages are not set up on this platform.",
            message.channel.as_str()
        );
        attempts.push(made(number, started_at, outcome::REJECTED, None, Some(error.clone())));
        return Decided {
            message,
            outcome: Outcome::Ended {
                status: MessageStatus::Failed,
                error: Some(error),
            },
            attempts,
        };
    };
    orders
        .metrics
        .notification_provider_call(message.channel.as_str(), took);
    let (name, provider_id, error) = match &result {
        Ok(Accepted {
            provider_message_id, ..
        }) => (outcome::SENT, Some(provider_message_id.clone()), None),
        Err(SendError::Rejected(e)) => (outcome::REJECTED, None, Some(e.clone())),
        Err(SendError::Unavailable(e)) => (outcome::UNAVAILABLE, None, Some(e.clone())),
    };
    attempts.push(messages::attempt::Model {
        duration_micros: i64::try_from(took.as_micros()).unwrap_or(i64::MAX),
        ..made(number, started_at, name, provider_id, error)
    });
    let outcome = match result {
        Ok(accepted) => Outcome::Sent {
            provider_message_id: accepted.provider_message_id,
        },
        Err(SendError::Rejected(error)) => Outcome::Ended {
            status: MessageStatus::Failed,
            error: Some(error),
        },
        Err(SendError::Unavailable(error)) => {
            let jitter = rand::random::<f64>() * 2.0 - 1.0;
            match retry::next_delay(number, providers.retry_scale, jitter, None) {
                Some(wait) => Outcome::Retry {
                    at: orders
                        .clock
                        .now_micros()
                        .saturating_add(i64::try_from(wait.as_micros()).unwrap_or(i64::MAX)),
                    error,
                },
                None => Outcome::Ended {
                    status: MessageStatus::Failed,
                    error: Some(format!("{error} (after {} attempts)", retry::MAX_ATTEMPTS)),
                },
            }
        }
    };
    Decided {
        message,
        outcome,
        attempts,
    }
}

/// Records every outcome of a run in one transaction and three statements
/// however many messages: the attempts made, the messages this sender
/// still holds finished, and the charges of the live SMS their provider
/// took. Whether each was recorded.
async fn record_all(orders: &Orders, token: &str, done: &[Decided]) -> CoreResult<Vec<bool>> {
    let now = orders.clock.now_micros();
    let made: Vec<messages::attempt::Model> = done.iter().flat_map(|d| d.attempts.iter().cloned()).collect();
    let finished: Vec<Finished> = done
        .iter()
        .map(|d| Finished {
            message: &d.message,
            outcome: &d.outcome,
            attempts: i32::try_from(d.attempts.len()).unwrap_or(i32::MAX),
        })
        .collect();
    let tx = orders.begin().await?;
    messages::record_attempts(&*tx, made).await?;
    let held = messages::finish_many(&*tx, token, &finished, now).await?;
    let charged: Vec<Charge> = done
        .iter()
        .filter(|d| held.contains(&d.message.id))
        .filter_map(|d| charge_of(orders, &d.message, &d.outcome, now))
        .collect();
    charges::record_many(&*tx, &charged).await?;
    tx.commit().await?;
    Ok(done.iter().map(|d| held.contains(&d.message.id)).collect())
}

/// The charge of `message` recorded with `outcome` at `now`: a live SMS its
/// provider took. Test-mode messages and emails are not charged.
fn charge_of(orders: &Orders, message: &Message, outcome: &Outcome, now: i64) -> Option<Charge> {
    match outcome {
        Outcome::Sent { .. } if message.mode == Mode::Live && message.channel == Channel::Sms => Charge::sms(
            &orders.catalog,
            &message.id,
            &message.workspace_id,
            &message.delivery_id,
            now,
        ),
        _ => None,
    }
}

/// Records `outcome` of claimed `message` ([`messages::finish`]), if this
/// sender still holds it; returns whether it did. A live SMS its provider
/// took is charged in the same transaction, and only when the finish
/// updated the row: a message is charged once however many senders
/// claimed it. Test-mode messages and emails are not charged.
pub async fn record(orders: &Orders, message: &Message, outcome: &Outcome, attempted: bool) -> CoreResult<bool> {
    let now = orders.clock.now_micros();
    let tx = orders.begin().await?;
    let finished = messages::finish(&*tx, message, outcome, attempted, now).await?;
    if let Some(charge) = charge_of(orders, message, outcome, now).filter(|_| finished) {
        charges::record_many(&*tx, &[charge]).await?;
    }
    tx.commit().await?;
    Ok(finished)
}

fn sms_of(providers: &Providers, message: &Message) -> Sms {
    Sms {
        to: message.address.clone(),
        body: message.body.clone(),
        idempotency_key: message.id.clone(),
        status_callback: Some(providers.status_callback.clone()),
    }
}

fn result_name(message: &Message, outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Sent { .. } if message.mode == Mode::Test => "test_inbox",
        Outcome::Sent { .. } => "sent",
        Outcome::Retry { .. } => "retrying",
        Outcome::Held { .. } => "held",
        Outcome::Ended { status, .. } => status.as_str(),
    }
}

/// The outbox's depth, for the metrics sampler.
pub async fn sample_outbox(orders: &Orders) -> CoreResult<()> {
    let waiting = messages::waiting(&orders.db).await?;
    orders.metrics.set_notification_outbox_depth(waiting);
    Ok(())
}
