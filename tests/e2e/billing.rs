//! The billing cycle over the internal gRPC `BillingService`: live deliveries
//! that were delivered go on statements, issuing a statement frees the
//! credit it billed, an overdue statement blocks live creates until it is
//! paid, and replicas, restarts and the billing worker never bill a delivery
//! twice or lose one.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier::v1::Mode;
use courier_identity::access::act;
use courier_identity::access::command_line;
use courier_identity::auth::service_token::Role;
use courier_orders::billing::{cycle, statements};
use serde_json::json;
use tonic::Code;

use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, unique_suffix, wait_until};

/// The public code and gRPC code of a refusal.
fn refusal(status: &tonic::Status) -> (Code, &'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (status.code(), code.as_str(), param)
}

/// A business workspace with invoice billing, `credit_limit_cents` and
/// `payment_terms_days`, and a live and a test key.
pub struct BilledWorkspace {
    pub id: String,
    pub live_key: String,
    pub test_key: String,
}

pub async fn billed_workspace(app: &TestApp, credit_limit_cents: i64, payment_terms_days: i32) -> BilledWorkspace {
    let billing = ipb::BillingState {
        invoice_billing_enabled: true,
        credit_limit_cents,
        payment_terms_days: Some(payment_terms_days),
        ..Default::default()
    };
    let id = app
        .create_workspace_with(ipb::WorkspaceKind::Business, Default::default(), billing)
        .await;
    BilledWorkspace {
        live_key: app.create_key(&id, Mode::Live, &[]).await,
        test_key: app.create_key(&id, Mode::Test, &[]).await,
        id,
    }
}

/// The price of the standard Berlin delivery (booked in test mode, so
/// nothing is billed).
async fn berlin_price(app: &TestApp) -> i64 {
    let created = app.create_delivery(&app.test_key, &berlin_delivery()).await;
    created["amount_cents"].as_i64().expect("amount")
}

pub fn proof(id: &str, checkpoint: pb::CheckpointKind) -> ipb::SubmitProofRequest {
    ipb::SubmitProofRequest {
        delivery_id: id.into(),
        checkpoint: checkpoint as i32,
        files: vec![ipb::ProofFile {
            kind: pb::ArtifactKind::Photo as i32,
            file_name: "parcel.jpg".into(),
            content_type: "image/jpeg".into(),
            content: b"\xff\xd8\xff parcel".to_vec(),
        }],
        person_name: None,
        barcode: None,
        age_checked: false,
        left_at_door: false,
        pin: None,
    }
}

/// Drives live delivery `id` to `delivered` as the dispatch system does.
pub async fn deliver(app: &TestApp, id: &str) {
    accept(app, id).await;
    hand_over(app, id).await;
}

/// A courier takes live delivery `id` (no courier-search timeout after).
async fn accept(app: &TestApp, id: &str) {
    let courier = pb::Courier {
        name: Some("Kim Courier".into()),
        ..Default::default()
    };
    let accept = ipb::AcceptJobRequest {
        delivery_id: id.into(),
        courier: Some(courier),
        pickup_eta: None,
    };
    let mut dispatch = app.dispatch().await;
    dispatch.accept_job(app.dispatch_request(accept)).await.expect("accept");
}

/// Live delivery `id` is taken and its courier waits at the dropoff, the
/// dropoff proof not yet in.
pub async fn bring_to_dropoff(app: &TestApp, id: &str) {
    accept(app, id).await;
    to_dropoff(app, id).await;
}

/// The accepted live delivery `id` goes from its pickup to `delivered`.
async fn hand_over(app: &TestApp, id: &str) {
    to_dropoff(app, id).await;
    let mut dispatch = app.dispatch().await;
    let id = id.to_owned();
    let dropoff = proof(&id, pb::CheckpointKind::Dropoff);
    dispatch
        .submit_proof(app.dispatch_request(dropoff))
        .await
        .expect("dropoff proof");
    let handover = ipb::CompleteHandoverRequest { delivery_id: id };
    dispatch
        .complete_handover(app.dispatch_request(handover))
        .await
        .expect("handover");
}

/// The accepted live delivery `id` goes from its pickup to `at_dropoff`.
async fn to_dropoff(app: &TestApp, id: &str) {
    let mut dispatch = app.dispatch().await;
    let id = id.to_owned();
    let arrive = ipb::ArriveAtPickupRequest {
        delivery_id: id.clone(),
    };
    dispatch
        .arrive_at_pickup(app.dispatch_request(arrive))
        .await
        .expect("at pickup");
    let pickup = proof(&id, pb::CheckpointKind::Pickup);
    dispatch
        .submit_proof(app.dispatch_request(pickup))
        .await
        .expect("pickup proof");
    let pick_up = ipb::PickUpRequest {
        delivery_id: id.clone(),
    };
    dispatch.pick_up(app.dispatch_request(pick_up)).await.expect("pick up");
    let transit = ipb::StartTransitRequest {
        delivery_id: id.clone(),
        dropoff_eta: None,
    };
    dispatch
        .start_transit(app.dispatch_request(transit))
        .await
        .expect("transit");
    let at_dropoff = ipb::ArriveAtDropoffRequest {
        delivery_id: id.clone(),
    };
    dispatch
        .arrive_at_dropoff(app.dispatch_request(at_dropoff))
        .await
        .expect("at dropoff");
}

/// Books a live delivery with `key`; its id and amount.
async fn book(app: &TestApp, key: &str) -> (String, i64) {
    let created = app.create_delivery(key, &berlin_delivery()).await;
    (
        created["id"].as_str().expect("id").to_owned(),
        created["amount_cents"].as_i64().expect("amount"),
    )
}

async fn try_book(app: &TestApp, key: &str) -> crate::harness::Answer {
    app.post_idempotent("/v1/deliveries", key, &unique_suffix(), &berlin_delivery())
        .await
}

pub async fn billing_state(app: &TestApp, workspace: &str) -> ipb::GetBillingStateResponse {
    let request = ipb::GetBillingStateRequest {
        workspace_id: workspace.into(),
    };
    app.billing()
        .await
        .get_billing_state(app.billing_request(request))
        .await
        .expect("billing state")
        .into_inner()
}

async fn close(app: &TestApp, workspace: &str) -> Result<Vec<ipb::Statement>, tonic::Status> {
    let request = ipb::CloseStatementRequest {
        workspace_id: workspace.into(),
    };
    let answer = app
        .billing()
        .await
        .close_statement(app.billing_request(request))
        .await?;
    Ok(answer.into_inner().statements)
}

async fn list_statements(app: &TestApp, workspace: &str) -> Vec<ipb::Statement> {
    let request = ipb::ListStatementsRequest {
        workspace_id: workspace.into(),
        page_size: 100,
        page_token: String::new(),
    };
    app.billing()
        .await
        .list_statements(app.billing_request(request))
        .await
        .expect("statements")
        .into_inner()
        .statements
}

/// Every delivery of a paged list, read two at a time: `page` answers the
/// deliveries and next page token after a page token.
async fn all_pages<F, Fut>(mut page: F) -> Vec<ipb::BillableDelivery>
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = (Vec<ipb::BillableDelivery>, String)>,
{
    let mut all = Vec::new();
    let mut page_token = String::new();
    loop {
        let (deliveries, next) = page(page_token).await;
        all.extend(deliveries);
        if next.is_empty() {
            return all;
        }
        page_token = next;
    }
}

/// Every delivery on statement `id`.
async fn statement_deliveries(app: &TestApp, id: &str) -> Vec<ipb::BillableDelivery> {
    all_pages(|page_token| async move {
        let request = ipb::GetStatementRequest {
            statement_id: id.into(),
            page_size: 2,
            page_token,
        };
        let page = app
            .billing()
            .await
            .get_statement(app.billing_request(request))
            .await
            .expect("statement");
        let page = page.into_inner();
        (page.deliveries, page.next_page_token)
    })
    .await
}

/// Every billable delivery of `workspace`.
async fn billable(app: &TestApp, workspace: &str) -> Vec<ipb::BillableDelivery> {
    all_pages(|page_token| async move {
        let request = ipb::ListBillableDeliveriesRequest {
            workspace_id: workspace.into(),
            page_size: 2,
            page_token,
        };
        let page = app
            .billing()
            .await
            .list_billable_deliveries(app.billing_request(request))
            .await
            .expect("billable");
        let page = page.into_inner();
        (page.deliveries, page.next_page_token)
    })
    .await
}

fn ids(deliveries: &[ipb::BillableDelivery]) -> HashSet<String> {
    deliveries.iter().map(|d| d.delivery_id.clone()).collect()
}

async fn mark_paid(app: &TestApp, statement: &str) -> Result<ipb::Statement, tonic::Status> {
    let request = ipb::MarkStatementPaidRequest {
        statement_id: statement.into(),
    };
    let answer = app
        .billing()
        .await
        .mark_statement_paid(app.billing_request(request))
        .await?;
    Ok(answer.into_inner().statement.expect("statement"))
}

async fn void(app: &TestApp, statement: &str) -> Result<ipb::Statement, tonic::Status> {
    let request = ipb::VoidStatementRequest {
        statement_id: statement.into(),
    };
    let answer = app.billing().await.void_statement(app.billing_request(request)).await?;
    Ok(answer.into_inner().statement.expect("statement"))
}

/// Waits until the billing worker has set (or cleared) the workspace's
/// overdue flag.
async fn wait_for_overdue(app: &TestApp, workspace: &str, overdue: bool) {
    let what = format!("the overdue flag of {workspace} to be {overdue}");
    wait_until(what, Duration::from_secs(10), async || {
        let billing = billing_state(app, workspace).await.billing.expect("billing");
        if billing.statement_overdue == overdue {
            Ok(())
        } else {
            Err(format!("{billing:?}"))
        }
    })
    .await;
}

/// A workspace whose only statement is overdue (payment due on issue), and
/// that statement.
pub async fn overdue_workspace(app: &TestApp) -> (BilledWorkspace, ipb::Statement) {
    let workspace = billed_workspace(app, 10_000_000, 0).await;
    let (id, _) = book(app, &workspace.live_key).await;
    deliver(app, &id).await;
    let statement = close(app, &workspace.id).await.expect("close").remove(0);
    wait_for_overdue(app, &workspace.id, true).await;
    (workspace, statement)
}

e2e! {
    async fn a_statement_frees_the_credit_it_bills(app: TestApp) {
        let price = berlin_price(&app).await;
        let workspace = billed_workspace(&app, 2 * price, 14).await;
        let (first, _) = book(&app, &workspace.live_key).await;
        let (second, _) = book(&app, &workspace.live_key).await;
        try_book(&app, &workspace.live_key).await.assert_error(402, "invoice_credit_limit_exceeded", None);
        deliver(&app, &first).await;
        deliver(&app, &second).await;
        // Delivered, but not billed yet: still open.
        try_book(&app, &workspace.live_key).await.assert_error(402, "invoice_credit_limit_exceeded", None);
        assert_eq!(billing_state(&app, &workspace.id).await.open_amount_cents, 2 * price);

        // Neither test deliveries nor cancelled live ones are ever billed.
        let test = app.create_delivery(&workspace.test_key, &berlin_delivery()).await;
        let test_id = test["id"].as_str().expect("id");
        app.wait_for_status(&workspace.test_key, test_id, "delivered", Duration::from_secs(20)).await;
        assert_eq!(ids(&billable(&app, &workspace.id).await), HashSet::from([first.clone(), second.clone()]));

        let before = app.clock.now_micros();
        let statement = close(&app, &workspace.id).await.expect("close");
        assert_eq!(statement.len(), 1);
        let statement = &statement[0];
        assert!(statement.id.starts_with("stm_"), "{}", statement.id);
        assert_eq!(statement.status(), ipb::StatementStatus::Open);
        assert_eq!((statement.total_cents, statement.delivery_count), (2 * price, 2));
        // No SMS provider here: no live SMS went out, so none is charged.
        assert_eq!((statement.sms_count, statement.sms_cents, statement.sms_unit_cents), (0, 0, None));
        assert_eq!(statement.currency, "EUR");
        assert!(!statement.overdue);
        let issued = statement.issued_at.expect("issued").seconds;
        assert!(issued >= before / 1_000_000);
        assert_eq!(statement.due_at.expect("due").seconds, issued + 14 * 86_400);
        assert_eq!(statement.period_end, statement.issued_at);
        let billed = statement_deliveries(&app, &statement.id).await;
        assert_eq!(ids(&billed), HashSet::from([first.clone(), second.clone()]));
        assert!(billed.iter().all(|d| d.amount_cents == price && d.pickup_address.contains("Alexanderplatz")));
        assert!(billable(&app, &workspace.id).await.is_empty());

        // The workspace books again; what is open is what was booked since.
        assert_eq!(billing_state(&app, &workspace.id).await.open_amount_cents, 0);
        let (third, _) = book(&app, &workspace.live_key).await;
        let cancelled = app.post(&format!("/v1/deliveries/{third}/cancel"), &workspace.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        assert_eq!(billing_state(&app, &workspace.id).await.open_amount_cents, 0);

        // Nothing left to bill: a clear refusal, and no empty statement.
        let refused = close(&app, &workspace.id).await.expect_err("empty period");
        assert_eq!(refusal(&refused), (Code::FailedPrecondition, "nothing_to_bill", None));
        assert_eq!(list_statements(&app, &workspace.id).await.len(), 1);
    }

    async fn an_overdue_statement_blocks_live_creates_until_it_is_settled(app: TestApp) {
        let workspace = billed_workspace(&app, 10_000_000, 1).await;
        let (first, _) = book(&app, &workspace.live_key).await;
        deliver(&app, &first).await;
        let older = close(&app, &workspace.id).await.expect("close").remove(0);
        let (second, _) = book(&app, &workspace.live_key).await;
        deliver(&app, &second).await;
        let newer = close(&app, &workspace.id).await.expect("close").remove(0);
        assert_eq!(newer.period_start, older.period_end, "periods follow each other");
        try_book(&app, &workspace.live_key).await; // due in a day: not overdue yet

        app.clock.advance(Duration::from_secs(86_400 + 1));
        wait_for_overdue(&app, &workspace.id, true).await;
        try_book(&app, &workspace.live_key).await.assert_error(402, "invoice_statement_overdue", None);
        // Quotes and test deliveries go on.
        app.create_delivery(&workspace.test_key, &berlin_delivery()).await;
        assert!(list_statements(&app, &workspace.id).await.iter().all(|s| s.overdue));

        // One of two overdue statements paid: still blocked.
        let paid = mark_paid(&app, &older.id).await.expect("paid");
        assert_eq!(paid.status(), ipb::StatementStatus::Paid);
        assert!(paid.paid_at.is_some() && !paid.overdue);
        try_book(&app, &workspace.live_key).await.assert_error(402, "invoice_statement_overdue", None);
        // The last one voided: the very next request books.
        let voided = void(&app, &newer.id).await.expect("void");
        assert_eq!(voided.status(), ipb::StatementStatus::Void);
        assert!(voided.voided_at.is_some());
        assert_eq!(try_book(&app, &workspace.live_key).await.status, 201);
        assert!(!billing_state(&app, &workspace.id).await.billing.expect("billing").statement_overdue);

        // Illegal moves are refused and change nothing.
        let again = mark_paid(&app, &older.id).await.expect_err("paid twice");
        assert_eq!(refusal(&again), (Code::FailedPrecondition, "statement_not_open", None));
        let pay_void = mark_paid(&app, &newer.id).await.expect_err("pay a void statement");
        assert_eq!(refusal(&pay_void), (Code::FailedPrecondition, "statement_not_open", None));
        let void_paid = void(&app, &older.id).await.expect_err("void a paid statement");
        assert_eq!(refusal(&void_paid), (Code::FailedPrecondition, "statement_not_open", None));
        let statements = list_statements(&app, &workspace.id).await;
        assert_eq!(statements.iter().map(|s| s.status()).collect::<Vec<_>>(), [ipb::StatementStatus::Void, ipb::StatementStatus::Paid]);
        // A void statement's deliveries are not billed again.
        assert!(billable(&app, &workspace.id).await.is_empty());
        let missing = mark_paid(&app, "stm_missing").await.expect_err("unknown");
        assert_eq!(refusal(&missing), (Code::NotFound, "not_found", None));
    }

    async fn the_billing_checks_come_in_their_order(app: TestApp) {
        // Billing disabled comes before an overdue statement.
        let (workspace, _) = overdue_workspace(&app).await;
        try_book(&app, &workspace.live_key).await.assert_error(402, "invoice_statement_overdue", None);
        let disable = ipb::UpdateBillingStateRequest {
            workspace_id: workspace.id.clone(),
            billing: Some(ipb::BillingState { invoice_billing_enabled: false, statement_overdue: true, ..Default::default() }),
            update_mask: Some(prost_types::FieldMask { paths: vec!["invoice_billing_enabled".into()] }),
        };
        let updated = app.billing().await.update_billing_state(app.billing_request(disable)).await.expect("update").into_inner();
        let billing = updated.billing.expect("billing");
        assert!(!billing.invoice_billing_enabled && billing.statement_overdue);
        assert_eq!(billing.credit_limit_cents, 10_000_000, "fields outside the mask stay");
        try_book(&app, &workspace.live_key).await.assert_error(403, "invoice_billing_not_enabled", None);
    }

    async fn the_worker_closes_each_period_on_its_billing_day(app: TestApp) {
        let workspace = billed_workspace(&app, 10_000_000, 14).await;
        let day = 15;
        let settings = ipb::UpdateBillingStateRequest {
            workspace_id: workspace.id.clone(),
            billing: Some(ipb::BillingState { billing_day: Some(day as i32), ..Default::default() }),
            update_mask: Some(prost_types::FieldMask { paths: vec!["billing_day".into()] }),
        };
        app.billing().await.update_billing_state(app.billing_request(settings)).await.expect("billing day");
        let (before, _) = book(&app, &workspace.live_key).await;
        deliver(&app, &before).await;
        let (pending, _) = book(&app, &workspace.live_key).await;
        accept(&app, &pending).await;

        // Just past the next billing day.
        let now = app.clock.now_micros();
        let next_day = cycle::last_billing_day(cycle::last_billing_day(now, day) + 32 * 86_400_000_000, day);
        assert!(next_day > now);
        app.clock.advance(Duration::from_micros((next_day - now) as u64 + 1_000_000));
        hand_over(&app, &pending).await; // delivered after the billing day

        let statement = wait_until("the billing worker's statement", Duration::from_secs(10), async || {
            list_statements(&app, &workspace.id).await.pop().ok_or("no statement")
        })
        .await;
        assert_eq!(statement.period_end.expect("end").seconds * 1_000_000, next_day);
        assert_eq!(ids(&statement_deliveries(&app, &statement.id).await), HashSet::from([before]));
        assert_eq!(ids(&billable(&app, &workspace.id).await), HashSet::from([pending]));
        // The worker does not close the period again.
        assert_eq!(cycle::close_due_periods(&app.core).await.expect("close"), 0);
        assert_eq!(list_statements(&app, &workspace.id).await.len(), 1);
    }

    async fn replicas_closing_one_period_at_once_make_one_statement(app: TestApp) {
        let workspace = billed_workspace(&app, 10_000_000, 14).await;
        for _ in 0..3 {
            let (id, _) = book(&app, &workspace.live_key).await;
            deliver(&app, &id).await;
        }
        let replica = courier_server::serving::open_core((*app.core.config).clone(), app.clock.clone()).await.expect("replica");
        let cores = [app.core.clone(), replica.clone(), app.core.clone(), replica.clone()];
        // As the operator's command line closes a period.
        let granted = std::sync::Arc::new(command_line::<act::ManageBilling>().expect("the command line closes"));
        let closes = crate::harness::together(cores.into_iter().map(|core| {
            let workspace = workspace.id.clone();
            let granted = granted.clone();
            async move { statements::close(&core, &workspace, statements::PeriodEnd::Now(&granted)).await }
        }))
        .await;
        let issued: Vec<_> = closes.iter().filter_map(|c| c.as_ref().ok()).flatten().collect();
        assert_eq!(issued.len(), 1, "{closes:?}");
        for refused in closes.iter().filter_map(|c| c.as_ref().err()) {
            assert_eq!(refused.code().as_str(), "nothing_to_bill", "{refused:?}");
        }
        assert_eq!(issued[0].delivery_count, 3);

        // The scheduled close of one billing day, by two workers at once.
        let (id, _) = book(&app, &workspace.live_key).await;
        deliver(&app, &id).await;
        app.clock.advance(Duration::from_secs(32 * 86_400));
        let workers = crate::harness::together([app.core.clone(), replica.clone()].into_iter().map(|core| async move {
            cycle::close_due_periods(&core).await.expect("close")
        }))
        .await;
        let statements = list_statements(&app, &workspace.id).await;
        assert_eq!(statements.len(), 2, "{workers:?}");
        assert_eq!(statements[0].delivery_count, 1);
    }

    async fn a_close_that_dies_before_its_commit_leaves_no_statement(app: TestApp) {
        let mut app = app;
        let workspace = billed_workspace(&app, 10_000_000, 14).await;
        let mut amounts = 0;
        for _ in 0..2 {
            let (id, amount) = book(&app, &workspace.live_key).await;
            deliver(&app, &id).await;
            amounts += amount;
        }
        app.core.faults.fail_before_commit.store(true, std::sync::atomic::Ordering::SeqCst);
        let failed = close(&app, &workspace.id).await.expect_err("injected failure");
        assert_eq!(failed.code(), Code::Internal);
        app.restart_core().await;
        assert!(list_statements(&app, &workspace.id).await.is_empty());
        assert_eq!(billable(&app, &workspace.id).await.len(), 2);
        assert_eq!(billing_state(&app, &workspace.id).await.open_amount_cents, amounts);

        let statement = close(&app, &workspace.id).await.expect("close after restart").remove(0);
        assert_eq!((statement.delivery_count, statement.total_cents), (2, amounts));
        assert_eq!(billing_state(&app, &workspace.id).await.open_amount_cents, 0);
    }

    async fn the_billing_service_checks_callers_and_requests(app: TestApp) {
        let (workspace, statement) = overdue_workspace(&app).await;
        let mut billing = app.billing().await;

        // Only billing and admin tokens; their own codes otherwise.
        let get = || ipb::GetBillingStateRequest { workspace_id: workspace.id.clone() };
        let anonymous = billing.get_billing_state(get()).await.expect_err("no token");
        assert_eq!(anonymous.code(), Code::Unauthenticated);
        let dispatch = billing.get_billing_state(app.service_request(Role::Dispatch, get())).await.expect_err("dispatch");
        assert_eq!(refusal(&dispatch), (Code::PermissionDenied, "permission_denied", None));
        for role in [Role::Billing, Role::Admin] {
            billing.get_billing_state(app.service_request(role, get())).await.expect("allowed");
        }
        macro_rules! denied_to_dispatch {
            ($($call:ident($message:expr)),* $(,)?) => {$(
                let status = billing.$call(app.service_request(Role::Dispatch, $message)).await.expect_err(stringify!($call));
                assert_eq!(status.code(), Code::PermissionDenied, stringify!($call));
                let status = billing.$call($message).await.expect_err(stringify!($call));
                assert_eq!(status.code(), Code::Unauthenticated, stringify!($call));
            )*};
        }
        denied_to_dispatch!(
            update_billing_state(ipb::UpdateBillingStateRequest { workspace_id: workspace.id.clone(), billing: None, update_mask: None }),
            list_billable_deliveries(ipb::ListBillableDeliveriesRequest { workspace_id: workspace.id.clone(), page_size: 0, page_token: String::new() }),
            close_statement(ipb::CloseStatementRequest { workspace_id: workspace.id.clone() }),
            list_statements(ipb::ListStatementsRequest { workspace_id: workspace.id.clone(), page_size: 0, page_token: String::new() }),
            get_statement(ipb::GetStatementRequest { statement_id: statement.id.clone(), page_size: 0, page_token: String::new() }),
            mark_statement_paid(ipb::MarkStatementPaidRequest { statement_id: statement.id.clone() }),
            void_statement(ipb::VoidStatementRequest { statement_id: statement.id.clone() }),
        );

        // Bad requests name their field and change nothing.
        let update = |billing: ipb::BillingState, paths: &[&str]| ipb::UpdateBillingStateRequest {
            workspace_id: workspace.id.clone(),
            billing: Some(billing),
            update_mask: Some(prost_types::FieldMask { paths: paths.iter().map(|p| p.to_string()).collect() }),
        };
        let current = billing_state(&app, &workspace.id).await.billing.expect("billing");
        for (request, param) in [
            (update(ipb::BillingState { billing_day: Some(29), ..current }, &["billing_day"]), "billing.billing_day"),
            (update(ipb::BillingState { billing_day: Some(0), ..current }, &[]), "billing.billing_day"),
            (update(ipb::BillingState { payment_terms_days: Some(366), ..current }, &[]), "billing.payment_terms_days"),
            (update(ipb::BillingState { payment_terms_days: Some(-1), ..current }, &[]), "billing.payment_terms_days"),
            (update(ipb::BillingState { credit_limit_cents: -1, ..current }, &["credit_limit_cents"]), "billing.credit_limit_cents"),
            (update(ipb::BillingState { statement_overdue: false, ..current }, &[]), "billing.statement_overdue"),
            (update(current, &["statement_overdue"]), "billing.statement_overdue"),
            (update(current, &["plan"]), "update_mask"),
        ] {
            let status = billing.update_billing_state(app.billing_request(request)).await.expect_err(param);
            assert_eq!(refusal(&status), (Code::InvalidArgument, "invalid_request", Some(param.to_owned())));
        }
        assert_eq!(billing_state(&app, &workspace.id).await.billing, Some(current));
        let full = update(ipb::BillingState { credit_limit_cents: 5_000, billing_day: Some(15), payment_terms_days: Some(30), ..current }, &[]);
        let changed = billing.update_billing_state(app.billing_request(full)).await.expect("update").into_inner().billing.expect("billing");
        assert_eq!((changed.credit_limit_cents, changed.billing_day, changed.payment_terms_days), (5_000, Some(15), Some(30)));

        let page = ipb::ListStatementsRequest { workspace_id: workspace.id.clone(), page_size: 101, page_token: String::new() };
        let status = billing.list_statements(app.billing_request(page)).await.expect_err("page size");
        assert_eq!(refusal(&status), (Code::InvalidArgument, "invalid_request", Some("page_size".into())));
        let forged = ipb::ListBillableDeliveriesRequest { workspace_id: workspace.id.clone(), page_size: 1, page_token: "forged".into() };
        let status = billing.list_billable_deliveries(app.billing_request(forged)).await.expect_err("token");
        assert_eq!(refusal(&status), (Code::InvalidArgument, "invalid_page_token", Some("page_token".into())));
        let unknown = ipb::CloseStatementRequest { workspace_id: "wks_missing".into() };
        let status = billing.close_statement(app.billing_request(unknown)).await.expect_err("unknown workspace");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found", None));
        let unknown = ipb::GetStatementRequest { statement_id: "stm_missing".into(), page_size: 0, page_token: String::new() };
        let status = billing.get_statement(app.billing_request(unknown)).await.expect_err("unknown statement");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found", None));

        // A statement reads back whole.
        let read = ipb::GetStatementRequest { statement_id: statement.id.clone(), page_size: 0, page_token: String::new() };
        let read = billing.get_statement(app.billing_request(read)).await.expect("get").into_inner();
        assert_eq!(read.statement.as_ref().map(|s| (&s.id, s.overdue)), Some((&statement.id, true)));
        assert_eq!(read.deliveries.len(), 1);
        // Creating a workspace marked overdue is refused: the cycle sets it.
        let request = ipb::CreateWorkspaceRequest {
            name: "Overdue".into(),
            kind: ipb::WorkspaceKind::Business as i32,
            plan: None,
            billing: Some(ipb::BillingState { statement_overdue: true, ..Default::default() }),
        };
        let status = app.admin().await.create_workspace(app.admin_request(request)).await.expect_err("overdue at birth");
        assert_eq!(refusal(&status), (Code::InvalidArgument, "invalid_request", Some("billing.statement_overdue".into())));
    }

    async fn billing_keeps_the_open_amount_exact_for_any_sequence(app: TestApp) {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};

        #[derive(Clone, Debug)]
        enum Step {
            Book,
            Cancel(usize),
            Deliver(usize),
            Close,
            Pay(usize),
        }
        let step = prop_oneof![
            3 => Just(Step::Book),
            1 => any::<usize>().prop_map(Step::Cancel),
            3 => any::<usize>().prop_map(Step::Deliver),
            1 => Just(Step::Close),
            1 => any::<usize>().prop_map(Step::Pay),
        ];
        let mut runner = TestRunner::new(Config { cases: 8, failure_persistence: None, ..Config::default() });
        let handle = tokio::runtime::Handle::current();
        let result = runner.run(&proptest::collection::vec(step, 1..14), |steps| {
            tokio::task::block_in_place(|| handle.block_on(check_sequence(&app, &steps)));
            Ok(())
        });
        result.expect("the billing invariants hold");

        async fn check_sequence(app: &TestApp, steps: &[Step]) {
            let workspace = billed_workspace(app, 10_000_000, 14).await;
            // Booked live deliveries: id → (amount, status).
            let mut booked: Vec<(String, i64, &str)> = Vec::new();
            let mut issued: Vec<String> = Vec::new();
            for step in steps {
                match *step {
                    Step::Book => {
                        let (id, amount) = book(app, &workspace.live_key).await;
                        booked.push((id, amount, "pending"));
                    }
                    Step::Cancel(n) if !booked.is_empty() => {
                        let entry = n % booked.len();
                        let answer = app.post(&format!("/v1/deliveries/{}/cancel", booked[entry].0), &workspace.live_key, &json!({})).await;
                        if booked[entry].2 == "pending" {
                            assert_eq!(answer.status, 200, "{:#}", answer.body);
                            booked[entry].2 = "cancelled";
                        } else {
                            assert_eq!(answer.status, 409, "{:#}", answer.body);
                        }
                    }
                    Step::Deliver(n) if !booked.is_empty() => {
                        let entry = n % booked.len();
                        if booked[entry].2 == "pending" {
                            deliver(app, &booked[entry].0).await;
                            booked[entry].2 = "delivered";
                        }
                    }
                    Step::Close => match close(app, &workspace.id).await {
                        Ok(statements) => issued.extend(statements.into_iter().map(|s| s.id)),
                        Err(status) => assert_eq!(refusal(&status).1, "nothing_to_bill"),
                    },
                    Step::Pay(n) if !issued.is_empty() => {
                        let id = &issued[n % issued.len()];
                        if let Err(status) = mark_paid(app, id).await {
                            assert_eq!(refusal(&status).1, "statement_not_open");
                        }
                    }
                    _ => {}
                }
            }
            // Every delivered delivery is on exactly one statement or billable.
            let mut on_statement: HashMap<String, String> = HashMap::new();
            for statement in list_statements(app, &workspace.id).await {
                let lines = statement_deliveries(app, &statement.id).await;
                assert_eq!(statement.total_cents, lines.iter().map(|l| l.amount_cents).sum::<i64>());
                assert_eq!(statement.delivery_count as usize, lines.len());
                for line in lines {
                    assert!(on_statement.insert(line.delivery_id, statement.id.clone()).is_none(), "billed twice: {steps:?}");
                }
            }
            let waiting = ids(&billable(app, &workspace.id).await);
            let delivered: HashSet<String> = booked.iter().filter(|b| b.2 == "delivered").map(|b| b.0.clone()).collect();
            let billed: HashSet<String> = on_statement.keys().cloned().collect();
            assert!(waiting.is_disjoint(&billed), "{steps:?}");
            assert_eq!(&waiting | &billed, delivered, "{steps:?}");
            // The open amount: priced live deliveries not cancelled, on no statement.
            let open: i64 = booked.iter().filter(|b| b.2 != "cancelled" && !billed.contains(&b.0)).map(|b| b.1).sum();
            assert_eq!(billing_state(app, &workspace.id).await.open_amount_cents, open, "{steps:?}");
        }
    }
}
