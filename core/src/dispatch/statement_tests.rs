//! Closing, paying and voiding statements (`courier_orders::billing::statements`)
//! in process ([`crate::testing`]), over live deliveries moved by dispatch
//! as a courier moves them.

use courier::errors::ErrorCode;

use crate::Core;
use crate::dispatch;
use crate::testing::{TestCore, caller, create_delivery};
use courier_identity::access::{Granted, act};
use courier_identity::auth::Mode;
use courier_identity::workspaces::{self, BillingSettings, Workspace};
use courier_orders::billing::statements::*;
use courier_orders::deliveries::Courier;
use courier_orders::proofs::{self, Checkpoint};

const DAY: i64 = 86_400 * 1_000_000;

/// The grant of billing changes to the operator's command line.
fn operator() -> Granted<act::ManageBilling> {
    courier_identity::access::command_line().expect("the command line manages billing")
}

/// A live delivery of `workspace`, taken by a courier; its id and price.
async fn accepted(core: &Core, workspace: &Workspace) -> (String, i64) {
    let created = create_delivery(core, &caller(workspace, Mode::Live))
        .await
        .expect("created");
    let courier = Courier {
        name: Some("Lena".into()),
        ..Default::default()
    };
    dispatch::accept(core, &created.id, courier, None)
        .await
        .expect("accepted");
    (created.id.clone(), created.amount_cents.expect("priced"))
}

/// A live delivery of `workspace`, delivered with the proof it asks for;
/// its price.
async fn delivered(core: &Core, workspace: &Workspace) -> i64 {
    let (id, price) = accepted(core, workspace).await;
    let at_pickup = dispatch::arrive_at_pickup(core, dispatch::Mover::Dispatch, &id)
        .await
        .expect("at pickup");
    let proof = proofs::sample_submission(&at_pickup, Checkpoint::Pickup);
    dispatch::submit_proof(core, dispatch::Mover::Dispatch, &id, proof)
        .await
        .expect("pickup proof");
    dispatch::pick_up(core, dispatch::Mover::Dispatch, &id)
        .await
        .expect("picked up");
    dispatch::start_transit(core, dispatch::Mover::Dispatch, &id, None)
        .await
        .expect("in transit");
    let at_dropoff = dispatch::arrive_at_dropoff(core, dispatch::Mover::Dispatch, &id)
        .await
        .expect("at dropoff");
    let proof = proofs::sample_submission(&at_dropoff, Checkpoint::Dropoff);
    dispatch::submit_proof(core, dispatch::Mover::Dispatch, &id, proof)
        .await
        .expect("dropoff proof");
    dispatch::complete_handover(core, dispatch::Mover::Dispatch, &id)
        .await
        .expect("delivered");
    price
}

async fn open_amount(core: &Core, workspace: &Workspace) -> i64 {
    workspaces::get(&core.db, &workspace.id)
        .await
        .expect("workspace")
        .open_amount_cents
}

#[tokio::test]
async fn a_close_bills_each_delivered_delivery_once_and_leaves_the_others_open() {
    let core = TestCore::open().await;
    let workspace = core.workspace(None).await;
    let billed = delivered(&core, &workspace).await + delivered(&core, &workspace).await;
    let (_, in_progress) = accepted(&core, &workspace).await;
    assert_eq!(open_amount(&core, &workspace).await, billed + in_progress);

    let closed = close(&core, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed");
    assert_eq!(closed.len(), 1, "one currency, one statement");
    let statement = &closed[0];
    let now = core.clock.now_micros();
    assert_eq!(
        (statement.status, statement.currency.as_str()),
        (StatementStatus::Open, "EUR")
    );
    assert_eq!((statement.total_cents, statement.delivery_count), (billed, 2));
    assert_eq!(statement.period_start, workspace.created_at);
    assert_eq!(statement.due_at, statement.issued_at + 14 * DAY);
    assert!(statement.period_end <= now && !statement.is_overdue(now));
    assert_eq!(
        open_amount(&core, &workspace).await,
        in_progress,
        "billed amounts leave the open amount"
    );

    // Nothing is billed twice: a second close has nothing to bill, and the
    // cycle's close of a billing day already covered is skipped.
    let again = close(&core, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect_err("nothing new");
    assert_eq!(again.code(), ErrorCode::NothingToBill);
    let day = statement.period_end - DAY;
    assert!(
        close(&core, &workspace.id, PeriodEnd::BillingDay(day))
            .await
            .expect("skipped")
            .is_empty()
    );
    assert_eq!(get(&core.db, &statement.id).await.expect("stored"), *statement);
}

#[tokio::test]
async fn an_overdue_statement_stops_live_creates_until_it_is_paid_once() {
    let core = TestCore::open().await;
    let due_on_issue = BillingSettings {
        invoice_billing_enabled: true,
        credit_limit_cents: 100_000_000,
        payment_terms_days: 0,
        ..Default::default()
    };
    let workspace = core.workspace(Some(due_on_issue)).await;
    delivered(&core, &workspace).await;
    let statement = close(&core, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed")
        .remove(0);

    core.clock.advance(std::time::Duration::from_secs(1));
    assert_eq!(flag_overdue(&core).await.expect("flagged"), 1);
    assert_eq!(flag_overdue(&core).await.expect("flagged"), 0, "flagged once");
    let refused = create_delivery(&core, &caller(&workspace, Mode::Live))
        .await
        .expect_err("overdue");
    assert_eq!(refused.code(), ErrorCode::InvoiceStatementOverdue);

    let paid = mark_paid(&core, &operator(), &statement.id).await.expect("paid");
    assert_eq!(paid.status, StatementStatus::Paid);
    assert!(paid.paid_at.is_some_and(|at| at >= statement.issued_at));
    let after = workspaces::get(&core.db, &workspace.id).await.expect("workspace");
    assert!(!after.statement_overdue, "paying clears the flag");
    create_delivery(&core, &caller(&workspace, Mode::Live))
        .await
        .expect("live creates again");

    for settled in [
        mark_paid(&core, &operator(), &statement.id).await,
        void(&core, &operator(), &statement.id).await,
    ] {
        assert_eq!(
            settled.expect_err("settled already").code(),
            ErrorCode::StatementNotOpen
        );
    }
    assert_eq!(get(&core.db, &statement.id).await.expect("stored"), paid);
}

#[tokio::test]
async fn a_voided_statement_keeps_its_deliveries_and_does_not_reopen_their_amounts() {
    let core = TestCore::open().await;
    let workspace = core.workspace(None).await;
    delivered(&core, &workspace).await;
    let statement = close(&core, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect("closed")
        .remove(0);

    let voided = void(&core, &operator(), &statement.id).await.expect("voided");
    assert_eq!(
        (voided.status, voided.total_cents),
        (StatementStatus::Void, statement.total_cents)
    );
    assert!(voided.voided_at.is_some() && voided.paid_at.is_none());
    assert_eq!(open_amount(&core, &workspace).await, 0);
    let again = close(&core, &workspace.id, PeriodEnd::Now(&operator()))
        .await
        .expect_err("billed already");
    assert_eq!(again.code(), ErrorCode::NothingToBill);
}
