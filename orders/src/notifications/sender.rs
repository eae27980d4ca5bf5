//! The sender (docs/notifications.md "Sending"): claims due messages from
//! the outbox with a lease, decides each at the moment it would go out, and
//! hands it to its provider.
//!
//! Before every send, in this order: a message about progress for a
//! delivery that ended over a minute ago is dropped; an address that opted out gets nothing;
//! quiet hours hold what can wait until they end; a test-mode message goes
//! to the test inbox and nowhere else. A provider that does not take a
//! message is tried again on the webhooks' schedule (8 attempts); each
//! attempt is recorded before the call and after it, with the provider's id
//! or error. A send cut off by a crash is looked up at the provider before
//! it is made again ([`attempt`]). A live SMS the provider took is charged
//! (`billing::charges`) in the transaction that records it as sent
//! ([`record`]).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::messages::{self, Message, Outcome, outcome};
use super::providers::Providers;
use super::{Channel, MessageStatus, opt_outs, settings};
use crate::billing::charges::{self, Charge};
use crate::webhooks::retry;
use crate::{CoreResult, Orders, deliveries};
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

/// Messages claimed by one run.
const BATCH: u64 = 64;
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
        .run(&stop, move || send_due(orders.clone()))
        .await
}

/// Claims the messages due now and sends them, each on its own task.
pub async fn send_due(orders: Orders) -> CoreResult<Done> {
    let now = orders.clock.now_micros();
    let providers = &orders.notification_providers;
    // The lease covers a send and the recording of its outcome; a sender
    // that dies leaves its messages to another in seconds.
    let lease = i64::try_from((providers.timeout + Duration::from_secs(5)).as_micros()).unwrap_or(i64::MAX);
    let token = ids::random_base62(24);
    let claimed = messages::claim(&orders.writer, BATCH, now, now.saturating_add(lease), &token).await?;
    let full = claimed.len() as u64 == BATCH;
    // One task per delivery, its messages in the order they were queued:
    // `arriving` never overtakes `picked_up`, nor `delivered` `arriving`.
    let mut by_delivery: BTreeMap<String, Vec<Message>> = BTreeMap::new();
    for message in claimed {
        by_delivery
            .entry(message.delivery_id.clone())
            .or_default()
            .push(message);
    }
    let mut sends = JoinSet::new();
    for (_, mut queue) in by_delivery {
        queue.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        let orders = orders.clone();
        sends.spawn(async move {
            for message in queue {
                if let Err(error) = send(&orders, &message).await {
                    tracing::warn!(%error, message = %message.id, "notification not sent; tried again after its lease");
                }
            }
        });
    }
    while sends.join_next().await.is_some() {}
    Ok(if full { Done::More } else { Done::Idle })
}

/// Decides and sends one claimed message, and records what became of it.
async fn send(orders: &Orders, message: &Message) -> CoreResult<()> {
    let now = orders.clock.now_micros();
    let (outcome, attempted) = match before_send(orders, message, now).await? {
        Some(outcome) => (outcome, false),
        None => (attempt(orders, message).await?, true),
    };
    if record(orders, message, &outcome, attempted).await? {
        orders.metrics.notification(
            message.channel.as_str(),
            message.trigger.as_str(),
            result_name(message, &outcome),
        );
    }
    Ok(())
}

/// Records `outcome` of claimed `message` ([`messages::finish`]), if this
/// sender still holds it; returns whether it did. A live SMS its provider
/// took is charged in the same transaction, and only when the finish
/// updated the row: a message is charged once however many senders
/// claimed it. Test-mode messages and emails are not charged.
pub async fn record(orders: &Orders, message: &Message, outcome: &Outcome, attempted: bool) -> CoreResult<bool> {
    let now = orders.clock.now_micros();
    let charge = match outcome {
        Outcome::Sent { .. } if message.mode == Mode::Live && message.channel == Channel::Sms => Charge::sms(
            &orders.catalog,
            &message.id,
            &message.workspace_id,
            &message.delivery_id,
            now,
        ),
        _ => None,
    };
    let Some(charge) = charge else {
        return messages::finish(&orders.writer, message, outcome, attempted, now).await;
    };
    let tx = orders.begin().await?;
    let finished = messages::finish(&*tx, message, outcome, attempted, now).await?;
    if finished {
        charges::record(&*tx, &charge).await?;
    }
    tx.commit().await?;
    Ok(finished)
}

/// What becomes of `message` without a send, if anything: dropped, opted
/// out, held, or put in the test inbox.
async fn before_send(orders: &Orders, message: &Message, now: i64) -> CoreResult<Option<Outcome>> {
    let delivery = deliveries::reload(&orders.db, &message.delivery_id).await?;
    let ended_at = delivery.delivered_at.or(delivery.cancelled_at);
    let late = ended_at.is_some_and(|ended| now - ended > ENDED_GRACE_MICROS);
    if late && delivery.status.is_terminal() && !message.trigger.outlives_the_delivery() {
        return Ok(Some(Outcome::Ended {
            status: MessageStatus::Dropped,
            error: Some(format!(
                "The delivery was {} before this message could go out.",
                delivery.status.as_str()
            )),
        }));
    }
    if opt_outs::is_opted_out(&orders.db, &message.workspace_id, message.channel, &message.address).await? {
        return Ok(Some(Outcome::Ended {
            status: MessageStatus::OptedOut,
            error: None,
        }));
    }
    if message.trigger.can_wait() {
        let settings = settings::get(&orders.db, &message.workspace_id).await?;
        let area = orders.catalog.service_area(&delivery.service_area_id);
        let held = settings
            .quiet_hours
            .zip(area)
            .zip(DateTime::<Utc>::from_timestamp_micros(now))
            .and_then(|((quiet, area), now)| quiet.until(now, area.time_zone));
        if let Some(until) = held {
            return Ok(Some(Outcome::Held {
                until: until.timestamp_micros(),
            }));
        }
    }
    if message.mode == Mode::Test {
        return Ok(Some(Outcome::Sent {
            provider_message_id: format!("test_{}", message.id),
        }));
    }
    Ok(None)
}

/// Hands a live message to its provider, each attempt recorded before
/// the call and after it. A send an earlier sender started and never
/// finished (it died) may have gone out: an SMS is looked up at Twilio
/// first, whose Messages API takes no idempotency key, and adopted when
/// found; an email is sent again with its Message-ID unchanged.
async fn attempt(orders: &Orders, message: &Message) -> CoreResult<Outcome> {
    let providers = &orders.notification_providers;
    let earlier = messages::attempts_of(&orders.db, &message.id).await?;
    let cut_off = earlier.iter().find(|a| a.outcome == outcome::STARTED);
    if let Some(cut) = cut_off {
        let found = match (&providers.sms, message.channel) {
            (Some(twilio), Channel::Sms) => match DateTime::<Utc>::from_timestamp_micros(cut.started_at) {
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
        let provider_id = found.as_ref().map(|a| a.provider_message_id.clone());
        messages::end_attempt(
            &orders.writer,
            &cut.id,
            0,
            outcome::CUT_OFF,
            provider_id,
            Some(error.to_owned()),
        )
        .await?;
        if let Some(accepted) = found {
            return Ok(Outcome::Sent {
                provider_message_id: accepted.provider_message_id,
            });
        }
    }
    let started_at = orders.clock.now_micros();
    let number = i32::try_from(earlier.len()).unwrap_or(i32::MAX).saturating_add(1);
    let attempt_id = messages::start_attempt(&orders.writer, message, number, started_at).await?;
    let started = Instant::now();
    let result = match message.channel {
        Channel::Sms => match &providers.sms {
            Some(twilio) => Some(twilio.send(&sms_of(providers, message)).await),
            None => None,
        },
        Channel::Email => match &providers.email {
            Some(smtp) => Some(smtp.send(&email_of(orders, message).await?).await),
            None => None,
        },
    };
    let took = started.elapsed();
    let Some(result) = result else {
        let error = format!(
            "Live {} messages are not set up on this platform.",
            message.channel.as_str()
        );
        messages::end_attempt(
            &orders.writer,
            &attempt_id,
            0,
            outcome::REJECTED,
            None,
            Some(error.clone()),
        )
        .await?;
        return Ok(Outcome::Ended {
            status: MessageStatus::Failed,
            error: Some(error),
        });
    };
    orders
        .metrics
        .notification_provider_call(message.channel.as_str(), took);
    let took = i64::try_from(took.as_micros()).unwrap_or(i64::MAX);
    let (name, provider_id, error) = match &result {
        Ok(Accepted {
            provider_message_id, ..
        }) => (outcome::SENT, Some(provider_message_id.clone()), None),
        Err(SendError::Rejected(e)) => (outcome::REJECTED, None, Some(e.clone())),
        Err(SendError::Unavailable(e)) => (outcome::UNAVAILABLE, None, Some(e.clone())),
    };
    messages::end_attempt(&orders.writer, &attempt_id, took, name, provider_id, error).await?;
    Ok(match result {
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
    })
}

fn sms_of(providers: &Providers, message: &Message) -> Sms {
    Sms {
        to: message.address.clone(),
        body: message.body.clone(),
        idempotency_key: message.id.clone(),
        status_callback: Some(providers.status_callback.clone()),
    }
}

async fn email_of(orders: &Orders, message: &Message) -> CoreResult<Email> {
    let settings = settings::get(&orders.db, &message.workspace_id).await?;
    let from_name = match settings.email_from_name {
        Some(name) => name,
        None => {
            courier_identity::workspaces::get(&orders.db, &message.workspace_id)
                .await?
                .name
        }
    };
    let token = opt_outs::unsubscribe_token(
        &orders.secrets.unsubscribe_link,
        &message.workspace_id,
        &message.address,
    );
    let unsubscribe_url = format!(
        "{}/v1/notifications/unsubscribe/{token}",
        orders.config.public_base_url.trim_end_matches('/')
    );
    Ok(Email {
        to: message.address.clone(),
        from_name,
        from_address: orders.notification_providers.from_address.clone(),
        reply_to: settings.reply_to,
        subject: message.subject.clone().unwrap_or_default(),
        text: format!("{}\n\n--\nNo more emails like this: {unsubscribe_url}", message.body),
        unsubscribe_url,
        message_id: message.id.clone(),
    })
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
