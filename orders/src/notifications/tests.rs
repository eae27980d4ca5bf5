//! Notifications in process ([`crate::testing`]): triggers fired by moves
//! made as movers make them, and the sender's decisions before a send,
//! on the test clock.

use std::time::Duration;

use chrono::{NaiveTime, Timelike};

use super::messages::{self, Message};
use super::settings::{self, QuietHours, Settings};
use super::{Channel, MessageStatus, Trigger, mask, opt_outs, sender};
use crate::Orders;
use crate::deliveries::{Change, Courier, Delivery};
use crate::lifecycle::{self, Status};
use crate::testing::{TestOrders, advance, caller, create_delivery};
use courier_identity::auth::Mode;

/// A test workspace whose settings send every trigger by SMS to the
/// recipient, with `quiet` hours; and one of its deliveries.
async fn delivery_of(orders: &TestOrders, quiet: Option<QuietHours>) -> Delivery {
    let workspace = orders.workspace(None).await;
    let chosen = Settings {
        rules: Trigger::ALL
            .into_iter()
            .map(|trigger| settings::Rule {
                trigger,
                audience: super::Audience::Recipient,
                channel: Channel::Sms,
            })
            .collect(),
        quiet_hours: quiet,
        ..Settings::default()
    };
    settings::save(&orders.writer, &workspace.id, &chosen, orders.clock.now_micros())
        .await
        .expect("settings saved");
    let created = create_delivery(orders, &caller(&workspace, Mode::Test))
        .await
        .expect("created");
    (*created).clone()
}

fn courier() -> Change {
    Change::default().courier(Courier {
        name: Some("Sam Rider".into()),
        ..Default::default()
    })
}

async fn queued(orders: &Orders, delivery: &Delivery) -> Vec<Message> {
    messages::of_delivery(&orders.db, &delivery.workspace_id, delivery.mode, &delivery.id)
        .await
        .expect("messages")
}

/// Claims what is due now with `token`, as a sender with a 15 s lease does,
/// oldest first.
async fn claim_now(orders: &Orders, token: &str) -> Vec<Message> {
    let now = orders.clock.now_micros();
    let mut claimed = messages::claim(&orders.writer, 64, now, now + 15_000_000, token)
        .await
        .expect("claimed");
    claimed.sort_by_key(|m| m.created_at);
    claimed
}

#[tokio::test]
async fn a_trigger_queues_its_message_once_however_often_it_fires() {
    let orders = TestOrders::open().await;
    let delivery = delivery_of(&orders, None).await;
    let assigned = advance(&orders, &delivery, Status::CourierAssigned, courier()).await;
    // Said again (another courier takes the job): still one message.
    let tx = orders.begin().await.expect("transaction");
    let now = orders.clock.now_micros();
    lifecycle::record_events(
        &orders,
        &tx,
        &[(&assigned, crate::events::EventType::CourierAssigned, now)],
    )
    .await
    .expect("recorded");
    tx.commit().await.expect("commit");
    let messages = queued(&orders, &assigned).await;
    assert_eq!(messages.len(), 1, "{messages:#?}");
    let message = &messages[0];
    assert_eq!(
        (message.trigger, message.channel, message.status),
        (Trigger::CourierAssigned, Channel::Sms, MessageStatus::Queued)
    );
    assert_eq!(
        message.address, "+49301234567",
        "the dropoff's phone, as providers take it"
    );
    assert!(message.body.contains("Sam is on the way"), "{}", message.body);
    assert!(
        message.body.contains(&format!("/t/{}", assigned.tracking_token)),
        "{}",
        message.body
    );
}

#[tokio::test]
async fn the_sender_puts_test_messages_in_the_inbox_holds_in_quiet_hours_and_drops_what_ended() {
    // Quiet from this hour to the next on Berlin's clock.
    let orders = TestOrders::open().await;
    let hour = orders.clock.now().with_timezone(&chrono_tz::Europe::Berlin).hour();
    let at = |h: u32| NaiveTime::from_hms_opt((hour + h) % 24, 0, 0).expect("a time");
    let delivery = delivery_of(
        &orders,
        Some(QuietHours {
            start: at(0),
            end: at(1),
        }),
    )
    .await;
    let assigned = advance(&orders, &delivery, Status::CourierAssigned, courier()).await;
    sender::send_due((*orders).clone()).await.expect("a run");
    let held = queued(&orders, &assigned).await;
    assert_eq!(held[0].status, MessageStatus::Held, "{held:#?}");

    // Morning: the held message goes to the test inbox.
    orders.clock.advance(Duration::from_secs(3_600));
    sender::send_due((*orders).clone()).await.expect("a run");
    let sent = queued(&orders, &assigned).await;
    assert_eq!(sent[0].status, MessageStatus::Sent, "{sent:#?}");
    assert_eq!(
        sent[0].provider_message_id.as_deref(),
        Some(format!("test_{}", sent[0].id).as_str())
    );

    // A message about progress queued, then the delivery ends over a
    // minute before it could go out: dropped, saying why.
    let at_pickup = advance(&orders, &assigned, Status::AtPickup, Change::default()).await;
    let picked_up = advance(&orders, &at_pickup, Status::PickedUp, Change::default()).await;
    let change = Change::default().cancelled(
        lifecycle::CancellationReason::CancelledByMaxmove,
        orders.clock.now_micros(),
    );
    advance(&orders, &picked_up, Status::Cancelled, change).await;
    orders.clock.advance(Duration::from_secs(120));
    sender::send_due((*orders).clone()).await.expect("a run");
    let ended = queued(&orders, &assigned).await;
    let of = |trigger| ended.iter().find(|m| m.trigger == trigger).expect("its message");
    assert_eq!(of(Trigger::PickedUp).status, MessageStatus::Dropped);
    assert!(
        of(Trigger::PickedUp)
            .error
            .as_deref()
            .is_some_and(|e| e.contains("cancelled"))
    );
    assert_eq!(
        of(Trigger::Failed).status,
        MessageStatus::Sent,
        "failed outlives the delivery"
    );
}

#[tokio::test]
async fn an_opted_out_address_gets_nothing() {
    let orders = TestOrders::open().await;
    let delivery = delivery_of(&orders, None).await;
    let now = orders.clock.now_micros();
    opt_outs::opt_out(
        &orders.writer,
        &delivery.workspace_id,
        Channel::Sms,
        "+49301234567",
        opt_outs::Source::SmsStop,
        now,
    )
    .await
    .expect("opted out");
    let assigned = advance(&orders, &delivery, Status::CourierAssigned, courier()).await;
    sender::send_due((*orders).clone()).await.expect("a run");
    assert_eq!(queued(&orders, &assigned).await[0].status, MessageStatus::OptedOut);
}

#[tokio::test]
async fn a_deliverys_next_message_waits_while_one_before_it_is_claimed() {
    let orders = TestOrders::open().await;
    let claim = |token: &'static str| claim_now(&orders, token);
    let delivery = delivery_of(&orders, None).await;
    let assigned = advance(&orders, &delivery, Status::CourierAssigned, courier()).await;
    let first = claim("first").await;
    assert_eq!(first.len(), 1, "{first:#?}");
    let at_pickup = advance(&orders, &assigned, Status::AtPickup, Change::default()).await;
    advance(&orders, &at_pickup, Status::PickedUp, Change::default()).await;
    let other = delivery_of(&orders, None).await;
    let other = advance(&orders, &other, Status::CourierAssigned, courier()).await;
    // Picked up waits for courier assigned, still with the first sender;
    // another delivery's message does not.
    let second = claim("second").await;
    assert_eq!(
        second.iter().map(|m| m.delivery_id.as_str()).collect::<Vec<_>>(),
        [other.id.as_str()],
        "{second:#?}"
    );
    let sent = messages::Outcome::Sent {
        provider_message_id: "SM1".into(),
    };
    assert!(
        messages::finish(&orders.writer, &first[0], &sent, true, orders.clock.now_micros())
            .await
            .expect("finished")
    );
    let third = claim("third").await;
    assert_eq!(
        third
            .iter()
            .map(|m| (m.delivery_id.as_str(), m.trigger))
            .collect::<Vec<_>>(),
        [(delivery.id.as_str(), Trigger::PickedUp)],
        "{third:#?}"
    );
    // A sender that dies holds its messages no longer than its lease.
    orders.clock.advance(Duration::from_secs(16));
    let fourth = claim("fourth").await;
    assert!(
        fourth.iter().any(|m| m.trigger == Trigger::PickedUp),
        "the dead sender's message is claimed again: {fourth:#?}"
    );
}

/// The claim marks a send under way: a message claimed again after a
/// sender held it and never recorded it is cut off since that sender's
/// claim, and stays so until an attempt settles it (a run that only held
/// it does not).
#[tokio::test]
async fn a_claim_never_recorded_is_cut_off_until_an_attempt_settles_it() {
    let orders = TestOrders::open().await;
    let claim = |token: &'static str| claim_now(&orders, token);
    let delivery = delivery_of(&orders, None).await;
    advance(&orders, &delivery, Status::CourierAssigned, courier()).await;
    let before = orders.clock.now_micros();
    let first = claim("first").await;
    let first_claim = before..=orders.clock.now_micros();
    assert_eq!((first.len(), first[0].cut_off_at), (1, None), "{first:#?}");

    orders.clock.advance(Duration::from_secs(16));
    let second = claim("second").await;
    let died_at = second[0].cut_off_at.expect("its send may have gone out");
    assert!(
        first_claim.contains(&died_at),
        "since the first claim: {died_at} in {first_claim:?}"
    );
    let now = orders.clock.now_micros();
    let held = messages::Outcome::Held { until: now };
    assert!(
        messages::finish(&orders.writer, &second[0], &held, false, now)
            .await
            .expect("held")
    );

    orders.clock.advance(Duration::from_secs(1));
    let third = claim("third").await;
    assert_eq!(third[0].cut_off_at, Some(died_at), "holding it settled nothing");
    let sent = messages::Outcome::Sent {
        provider_message_id: "SM1".into(),
    };
    let now = orders.clock.now_micros();
    assert!(
        messages::finish(&orders.writer, &third[0], &sent, true, now)
            .await
            .expect("sent")
    );
    let settled = queued(&orders, &delivery).await;
    assert_eq!((settled[0].cut_off_at, settled[0].attempts), (None, 1), "{settled:#?}");
}

#[test]
fn numbers_and_addresses_are_masked_as_lists_show_them() {
    assert_eq!(mask(Channel::Sms, "+4915112345612"), "+49*********12");
    assert_eq!(mask(Channel::Sms, "+4912"), "*****");
    assert_eq!(mask(Channel::Email, "jana@example.com"), "j***@example.com");
}

#[test]
fn names_round_trip() {
    for t in Trigger::ALL {
        assert_eq!(Trigger::parse(t.as_str()), Some(t));
    }
    for s in MessageStatus::ALL {
        assert_eq!(MessageStatus::parse(s.as_str()), Some(s));
    }
}
