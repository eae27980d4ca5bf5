//! SMS charges in process ([`crate::testing`]): a live SMS is charged once
//! when its sender records it sent, whoever else claimed it; test-mode
//! messages and emails never are; a close bills deliveries and charges on
//! one statement, and a void keeps them billed.

use std::time::Duration;

use courier::errors::ErrorCode;

use super::charges;
use super::statements::{self, PeriodEnd, StatementStatus};
use crate::Orders;
use crate::deliveries::{Change, Courier, Delivery};
use crate::lifecycle::Status;
use crate::notifications::messages::{self, Message, Outcome};
use crate::notifications::settings::{self, Settings};
use crate::notifications::{Channel, MessageStatus, sender};
use crate::testing::{TestOrders, advance, caller, create_delivery};
use courier_identity::access::{Granted, act, command_line};
use courier_identity::auth::Mode;
use courier_identity::workspaces::{self, Workspace};

const SECOND: i64 = 1_000_000;

fn operator() -> Granted<act::ManageBilling> {
    command_line().expect("the command line manages billing")
}

/// A workspace with invoice billing whose messages go out at any hour
/// (the default SMS to the recipient on `courier_assigned`, `arriving` and
/// `delivered`).
async fn workspace(orders: &TestOrders) -> Workspace {
    let workspace = orders.workspace(None).await;
    let any_hour = Settings {
        quiet_hours: None,
        ..Settings::default()
    };
    settings::save(&orders.writer, &workspace.id, &any_hour, orders.clock.now_micros())
        .await
        .expect("settings saved");
    workspace
}

/// A delivery of `workspace` in `mode`, taken by a courier: its
/// `courier_assigned` SMS is queued.
async fn assigned(orders: &Orders, workspace: &Workspace, mode: Mode) -> Delivery {
    let created = create_delivery(orders, &caller(workspace, mode))
        .await
        .expect("created");
    let courier = Change::default().courier(Courier {
        name: Some("Sam Rider".into()),
        ..Default::default()
    });
    advance(orders, &created, Status::CourierAssigned, courier).await
}

/// Claims the messages due now under `token`, their lease ending in a
/// second.
async fn claim(orders: &Orders, token: &str) -> Vec<Message> {
    let now = orders.clock.now_micros();
    messages::claim(&orders.writer, 64, now, now + SECOND, token)
        .await
        .expect("claimed")
}

/// Each message due now taken by its provider, as the sender records it.
async fn provider_takes_all(orders: &Orders) -> usize {
    let claimed = claim(orders, "sender").await;
    for message in &claimed {
        let sent = Outcome::Sent {
            provider_message_id: format!("SM{}", message.id),
        };
        assert!(sender::record(orders, message, &sent, true).await.expect("recorded"));
    }
    claimed.len()
}

#[tokio::test]
async fn a_live_sms_claimed_by_two_senders_is_charged_once() {
    let orders = TestOrders::open().await;
    let workspace = workspace(&orders).await;
    let delivery = assigned(&orders, &workspace, Mode::Live).await;
    let first = claim(&orders, "first").await;
    assert_eq!(first.len(), 1, "the courier_assigned SMS: {first:#?}");
    // The first sender's lease ends while its provider call hangs; a
    // second sender claims the message and sends it.
    orders.clock.advance(Duration::from_secs(2));
    let second = claim(&orders, "second").await;
    assert_eq!(second.len(), 1);
    let sent = |sid: &str| Outcome::Sent {
        provider_message_id: sid.into(),
    };
    assert!(
        sender::record(&orders, &second[0], &sent("SM2"), true)
            .await
            .expect("recorded")
    );
    // The first sender's answer comes back: not its message any more.
    assert!(
        !sender::record(&orders, &first[0], &sent("SM1"), true)
            .await
            .expect("not recorded")
    );
    // Nor is the second's, recorded again.
    assert!(
        !sender::record(&orders, &second[0], &sent("SM2"), true)
            .await
            .expect("not recorded")
    );

    let charged = charges::of_delivery(&orders.db, &delivery.id).await.expect("charges");
    assert_eq!(charged.len(), 1, "{charged:#?}");
    let charge = &charged[0];
    let message = &messages::of_delivery(&orders.db, &workspace.id, Mode::Live, &delivery.id)
        .await
        .expect("messages")[0];
    assert_eq!(
        (message.status, message.provider_message_id.as_deref()),
        (MessageStatus::Sent, Some("SM2"))
    );
    assert_eq!(charge.id, message.id, "one charge per message, by its id");
    assert_eq!(
        (
            charge.kind.as_str(),
            charge.workspace_id.as_str(),
            charge.currency.as_str()
        ),
        ("sms_notification", workspace.id.as_str(), "EUR")
    );
    assert_eq!(charge.amount_cents, orders.catalog.notification_prices().sms_cents);
    assert_eq!(Some(charge.created_at), message.sent_at, "charged when sent");
    assert_eq!(charge.statement_id, None, "billable");
    // Not in the open amount: that is the delivery's price alone.
    let open = workspaces::get(&orders.db, &workspace.id)
        .await
        .expect("workspace")
        .open_amount_cents;
    assert_eq!(Some(open), delivery.amount_cents);
}

#[tokio::test]
async fn test_mode_messages_and_emails_are_never_charged() {
    let orders = TestOrders::open().await;
    let workspace = workspace(&orders).await;
    // Test mode: the sender puts the SMS in the test inbox, sent.
    let test = assigned(&orders, &workspace, Mode::Test).await;
    sender::send_due((*orders).clone()).await.expect("a run");
    let inbox = messages::of_delivery(&orders.db, &workspace.id, Mode::Test, &test.id)
        .await
        .expect("messages");
    assert_eq!(inbox[0].status, MessageStatus::Sent, "{inbox:#?}");
    assert!(
        charges::of_delivery(&orders.db, &test.id)
            .await
            .expect("charges")
            .is_empty()
    );

    // A live email taken by its provider.
    let live = assigned(&orders, &workspace, Mode::Live).await;
    let mut email = claim(&orders, "sender").await.remove(0);
    email.channel = Channel::Email;
    let sent = Outcome::Sent {
        provider_message_id: "<ntf@courier>".into(),
    };
    assert!(sender::record(&orders, &email, &sent, true).await.expect("recorded"));
    assert!(
        charges::of_delivery(&orders.db, &live.id)
            .await
            .expect("charges")
            .is_empty()
    );
}

#[tokio::test]
async fn a_close_bills_deliveries_and_sms_and_a_void_keeps_them_billed() {
    let orders = TestOrders::open().await;
    let workspace = workspace(&orders).await;
    let delivery = assigned(&orders, &workspace, Mode::Live).await;
    assert_eq!(provider_takes_all(&orders).await, 1);
    let mut moved = delivery;
    for to in [Status::AtPickup, Status::PickedUp, Status::InTransit, Status::AtDropoff] {
        moved = advance(&orders, &moved, to, Change::default()).await;
    }
    let now = orders.clock.now_micros();
    let delivered = advance(
        &orders,
        &moved,
        Status::Delivered,
        Change::default().delivered(&moved, now),
    )
    .await;
    assert_eq!(
        provider_takes_all(&orders).await,
        2,
        "arriving (at the door) and delivered"
    );
    let price = delivered.amount_cents.expect("priced");
    let sms_cents = orders.catalog.notification_prices().sms_cents;

    orders.clock.advance(Duration::from_secs(1));
    let closed = statements::close(&orders, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed");
    assert_eq!(closed.len(), 1);
    let statement = &closed[0];
    assert_eq!((statement.delivery_count, statement.sms_count), (1, 3));
    assert_eq!(
        (statement.sms_cents, statement.sms_unit_cents),
        (3 * sms_cents, Some(sms_cents))
    );
    assert_eq!(statement.total_cents, price + 3 * sms_cents, "deliveries and SMS");
    assert_eq!(
        statements::get(&orders.db, &statement.id).await.expect("read"),
        *statement
    );
    let billed = charges::of_delivery(&orders.db, &delivered.id).await.expect("charges");
    assert!(
        billed
            .iter()
            .all(|c| c.statement_id.as_deref() == Some(statement.id.as_str())),
        "{billed:#?}"
    );
    let open = workspaces::get(&orders.db, &workspace.id)
        .await
        .expect("workspace")
        .open_amount_cents;
    assert_eq!(
        open, 0,
        "the delivery's price left the open amount, and the SMS were never in it"
    );

    // An SMS sent after the close is the next statement's, alone.
    let next = assigned(&orders, &workspace, Mode::Live).await;
    assert_eq!(provider_takes_all(&orders).await, 1);
    orders.clock.advance(Duration::from_secs(1));
    let closed = statements::close(&orders, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed");
    let only_sms = &closed[0];
    assert_eq!(
        (only_sms.delivery_count, only_sms.sms_count, only_sms.total_cents),
        (0, 1, sms_cents)
    );

    // Voided, its charge stays billed by it: nothing is left to bill.
    let voided = statements::void(&orders, &operator(), &only_sms.id)
        .await
        .expect("voided");
    assert_eq!((voided.status, voided.total_cents), (StatementStatus::Void, sms_cents));
    let kept = charges::of_delivery(&orders.db, &next.id).await.expect("charges");
    assert_eq!(kept[0].statement_id.as_deref(), Some(only_sms.id.as_str()));
    let again = statements::close(&orders, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect_err("nothing left");
    assert_eq!(again.code(), ErrorCode::NothingToBill, "{again:?}");
}

#[tokio::test]
async fn sms_priced_differently_within_a_period_show_no_unit_price() {
    let orders = TestOrders::open().await;
    let workspace = workspace(&orders).await;
    let now = orders.clock.now_micros();
    // The catalogue's price changed between two SMS of one period.
    for (id, amount_cents) in [("ntf_a", 9), ("ntf_b", 11)] {
        let charge = charges::Charge {
            id: id.into(),
            workspace_id: workspace.id.clone(),
            kind: charges::Kind::SmsNotification,
            delivery_id: "del_1".into(),
            currency: "EUR".into(),
            amount_cents,
            created_at: now,
        };
        charges::record_many(&orders.writer, std::slice::from_ref(&charge))
            .await
            .expect("charged");
        // Written twice (it cannot be, but its key says so): still one.
        charges::record_many(&orders.writer, std::slice::from_ref(&charge))
            .await
            .expect("charged");
    }
    orders.clock.advance(Duration::from_secs(1));
    let closed = statements::close(&orders, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed");
    let statement = &closed[0];
    assert_eq!(
        (statement.sms_count, statement.sms_cents, statement.sms_unit_cents),
        (2, 20, None)
    );
    assert_eq!((statement.delivery_count, statement.total_cents), (0, 20));
}

#[tokio::test]
async fn the_worker_closes_a_period_with_only_sms_to_bill() {
    let orders = TestOrders::open().await;
    let workspace = workspace(&orders).await;
    let day = super::cycle::last_billing_day(orders.clock.now_micros(), 1);
    let sent_at = day - 3_600 * SECOND;
    let charge = charges::Charge::sms(&orders.catalog, "ntf_old", &workspace.id, "del_1", sent_at).expect("priced");
    charges::record_many(&orders.writer, std::slice::from_ref(&charge))
        .await
        .expect("charged");
    assert_eq!(super::cycle::close_due_periods(&orders).await.expect("closed"), 1);
    let (listed, _) = statements::list(&orders, &workspace.id, 10, None)
        .await
        .expect("statements");
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].period_end, listed[0].delivery_count, listed[0].sms_count),
        (day, 0, 1)
    );
    assert_eq!(listed[0].total_cents, charge.amount_cents);
    assert_eq!(super::cycle::close_due_periods(&orders).await.expect("nothing more"), 0);
}
