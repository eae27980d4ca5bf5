//! Courier pay (docs/couriers.md "Pay", "Earnings"): the offer shows what
//! the job pays, accepting keeps it whatever the rule became since, the
//! waiting at the pickup is added, the delivered job's lines are the
//! courier's day and week; a fleet's rule pays its drivers, a no-show at
//! the pickup earns the base and the waiting; adjustments; tips (docs/couriers.md
//! "Tips") from the create to the courier's stream, week and statement and
//! the business's statement; what each bad input is told.

use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier_store::config::DispatchMode;

use crate::auto_dispatch::online_at;
use crate::couriers::{assign, couriers, file, join, next, png, proof, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::{Answer, TestApp, unique_suffix};
use serde_json::{Value, json};

pub const RULE: ipb::PayRuleParts = ipb::PayRuleParts {
    base_cents: 300,
    per_km_cents: 90,
    per_minute_cents: 15,
    waiting_per_minute_cents: 25,
    surcharge_share_percent: 50,
};

pub async fn set_rule(
    app: &TestApp,
    vehicle_type_id: &str,
    fleet_id: &str,
    parts: ipb::PayRuleParts,
) -> Result<ipb::PayRule, tonic::Status> {
    let request = ipb::SetPayRuleRequest {
        vehicle_type_id: vehicle_type_id.into(),
        fleet_id: fleet_id.into(),
        parts: Some(parts),
    };
    let answer = couriers(app).await.set_pay_rule(app.admin_request(request)).await?;
    Ok(answer.into_inner().rule.expect("rule"))
}

async fn earnings(app: &TestApp, courier_id: &str, period: apb::EarningsPeriod) -> ipb::ListEarningsResponse {
    let request = ipb::ListEarningsRequest {
        courier_id: courier_id.into(),
        period: period as i32,
        day: String::new(),
    };
    couriers(app)
        .await
        .list_earnings(app.admin_request(request))
        .await
        .expect("earnings")
        .into_inner()
}

fn kinds(lines: &[apb::EarningsLine]) -> Vec<(apb::EarningsKind, i64)> {
    lines.iter().map(|line| (line.kind(), line.amount_cents)).collect()
}

e2e! {
    with |config| {
        config.dispatch = DispatchMode::Auto;
    };

    async fn the_offer_shows_the_pay_and_the_delivered_job_earns_it_with_its_waiting(app: TestApp) {
        let first = set_rule(&app, "car", "", RULE).await.expect("rule");
        assert_eq!((first.version, first.currency.as_str()), (1, "EUR"));
        let (kim, mut stream) = online_at(&app, "Kim Paid", 1.0, "car").await;
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();

        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        let job = offer.job.as_ref().expect("job");
        let pay = offer.pay.clone().expect("the offer shows the pay");
        let minutes = courier_orders::deliveries::find(&app.core.db, &id).await.expect("read").expect("delivery").duration_min;
        assert_eq!(pay.base_cents, 300);
        assert_eq!(pay.distance_cents, (90.0 * job.distance_km).round() as i64, "{pay:?}");
        assert_eq!(pay.time_cents, 15 * minutes);
        assert_eq!(pay.total_cents, pay.base_cents + pay.distance_cents + pay.time_cents + pay.surcharge_cents);

        // The rule changes before the courier answers: the offer's pay holds.
        let raised = set_rule(&app, "car", "", ipb::PayRuleParts { base_cents: 900, ..RULE }).await.expect("raised");
        assert_eq!(raised.version, 2);
        let mut client = kim.client.clone();
        let accepted = client
            .accept_offer(kim.request(apb::AcceptOfferRequest { offer_id: offer.id.clone() }))
            .await
            .expect("accept")
            .into_inner()
            .job
            .expect("job");
        assert_eq!(accepted.pay.as_ref(), Some(&pay));

        // Eight minutes at the pickup: three past the free five.
        let job_id = || id.clone();
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: job_id() })).await.expect("arrive");
        app.clock.advance(Duration::from_secs(8 * 60 + 10));
        let photo = proof(&id, pb::CheckpointKind::Pickup, vec![file(pb::ArtifactKind::Photo, "parcel.png", png(1))], "pay-pickup");
        client.submit_proof(kim.request(photo)).await.expect("pickup proof");
        let picked = client.pick_up(kim.request(apb::PickUpRequest { job_id: job_id() })).await.expect("pick up").into_inner().job.expect("job");
        let with_waiting = picked.pay.expect("pay");
        assert_eq!(with_waiting.waiting_cents, 3 * 25);
        assert_eq!(with_waiting.total_cents, pay.total_cents + 75);
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: job_id() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: job_id() })).await.expect("at dropoff");
        let photo = proof(&id, pb::CheckpointKind::Dropoff, vec![file(pb::ArtifactKind::Photo, "door.png", png(2))], "pay-dropoff");
        client.submit_proof(kim.request(photo)).await.expect("dropoff proof");
        let delivered = client
            .complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: job_id() }))
            .await
            .expect("handover")
            .into_inner()
            .job
            .expect("job");
        assert_eq!(delivered.pay.as_ref(), Some(&with_waiting), "the finished job keeps its pay");
        assert_eq!(delivered.earned_cents, Some(with_waiting.total_cents));
        assert_eq!(accepted.earned_cents, None, "nothing earned before the end");

        // The courier's day, in their app; the same week for their manager.
        let day = client
            .list_earnings(kim.request(apb::ListEarningsRequest { period: apb::EarningsPeriod::Day as i32, day: String::new() }))
            .await
            .expect("day")
            .into_inner();
        let job_cents = pay.total_cents;
        assert_eq!(kinds(&day.lines), vec![(apb::EarningsKind::Job, job_cents), (apb::EarningsKind::Waiting, 75)]);
        assert!(day.lines.iter().all(|line| line.job_id.as_deref() == Some(id.as_str())));
        let totals = &day.totals[..];
        assert_eq!(totals.len(), 1);
        assert_eq!((totals[0].jobs, totals[0].job_cents, totals[0].waiting_cents, totals[0].total_cents), (1, job_cents, 75, job_cents + 75));

        let bonus = couriers(&app)
            .await
            .adjust_earnings(app.admin_request(ipb::AdjustEarningsRequest {
                courier_id: kim.courier.id.clone(),
                amount_cents: 500,
                reason: "Rainy day bonus".into(),
            }))
            .await
            .expect("adjust")
            .into_inner()
            .line
            .expect("line");
        assert_eq!((bonus.kind(), bonus.amount_cents, bonus.reason.as_deref()), (apb::EarningsKind::Adjustment, 500, Some("Rainy day bonus")));
        let week = earnings(&app, &kim.courier.id, apb::EarningsPeriod::Week).await;
        assert_eq!(week.lines.len(), 3);
        assert_eq!(week.totals[0].total_cents, job_cents + 75 + 500);
        assert_eq!(week.totals[0].adjustment_cents, 500);
        assert!(week.end_time.expect("end").seconds - week.start_time.expect("start").seconds >= 7 * 86_400 - 3_600);
    }

    async fn a_fleet_rule_pays_its_drivers_and_a_no_show_earns_the_base_and_the_waiting(app: TestApp) {
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        let rule = set_rule(&app, "", &fleet, RULE).await.expect("fleet rule");
        assert_eq!((rule.fleet_id.as_str(), rule.vehicle_type_id.as_str()), (fleet.as_str(), ""));
        let listed = couriers(&app)
            .await
            .list_pay_rules(app.admin_request(ipb::ListPayRulesRequest { fleet_id: fleet.clone() }))
            .await
            .expect("rules")
            .into_inner()
            .rules;
        assert_eq!(listed, vec![rule.clone()]);

        let dara = join(&app, &fleet, "Dara Paid", "dara.paid@example.com", "cargo_bike").await;
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let id = order["order_id"].as_str().expect("order id").to_owned();
        let given = assign(&app, &id, &dara.courier.id).await.expect("assign");
        let pay = given.pay.expect("a job given by hand has its pay");
        assert_eq!(pay.base_cents, 300);
        assert!(pay.distance_cents > 0 && pay.time_cents > 0, "{pay:?}");

        let mut client = dara.client.clone();
        client.arrive_at_pickup(dara.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        app.clock.advance(Duration::from_secs(7 * 60));
        client.report_pickup_no_show(dara.request(apb::ReportPickupNoShowRequest { job_id: id.clone() })).await.expect("no-show");
        let day = earnings(&app, &dara.courier.id, apb::EarningsPeriod::Day).await;
        assert_eq!(kinds(&day.lines), vec![(apb::EarningsKind::Job, 300), (apb::EarningsKind::Waiting, 2 * 25)]);
        let ended = client.get_job(dara.request(apb::GetJobRequest { job_id: id.clone() })).await.expect("job").into_inner().job.expect("job");
        assert_eq!(ended.earned_cents, Some(350), "the base and the waiting of a no-show");
    }

    async fn a_failed_handover_earns_its_whole_pay_and_the_return_pays_by_the_same_rule(app: TestApp) {
        set_rule(&app, "car", "", RULE).await.expect("rule");
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Returns", "kim.returns@example.com", "car").await;
        crate::dropoff_pin::to_the_dropoff(&app, &kim, &id).await;
        // The rule changes while the goods are on their way: the return
        // pays by the version the failed job was given under.
        set_rule(&app, "car", "", ipb::PayRuleParts { base_cents: 5_000, ..RULE }).await.expect("raised");
        let mut client = kim.client.clone();
        let failed = client
            .fail_handover(kim.request(apb::FailHandoverRequest { job_id: id.clone() }))
            .await
            .expect("failed handover")
            .into_inner()
            .job
            .expect("job");
        let pay = failed.pay.clone().expect("pay");
        assert_eq!(failed.earned_cents, Some(pay.total_cents), "carried to the door: its whole pay");
        let return_id = failed.return_job_id.clone().expect("the return");
        let back = client.get_job(kim.request(apb::GetJobRequest { job_id: return_id })).await.expect("return").into_inner().job.expect("job");
        let back_pay = back.pay.expect("the return's pay");
        assert_eq!((back_pay.base_cents, back_pay.surcharge_cents), (300, 0));
        assert_eq!(back_pay.distance_cents, (90.0 * back.distance_km).round() as i64);
    }

    async fn bad_pay_rules_and_adjustments_are_refused_and_change_nothing(app: TestApp) {
        let kim = join(&app, "", "Kim Refused", "kim.refused@example.com", "car").await;
        let cases = [
            ("car", "", ipb::PayRuleParts { per_km_cents: -1, ..RULE }, "per_km_cents"),
            ("car", "", ipb::PayRuleParts { base_cents: 1_000_001, ..RULE }, "base_cents"),
            ("car", "", ipb::PayRuleParts { surcharge_share_percent: 101, ..RULE }, "surcharge_share_percent"),
            ("hovercraft", "", RULE, "vehicle_type_id"),
            ("", "", RULE, "vehicle_type_id"),
            ("car", "wsp_both", RULE, "fleet_id"),
            // A business workspace has no drivers.
            ("", app.workspace_id.as_str(), RULE, "fleet_id"),
        ];
        for (vehicle_type_id, fleet_id, parts, param) in cases {
            let status = set_rule(&app, vehicle_type_id, fleet_id, parts).await.expect_err(param);
            assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some(param.to_owned())), "{status:?}");
        }
        let listed = couriers(&app)
            .await
            .list_pay_rules(app.admin_request(ipb::ListPayRulesRequest::default()))
            .await
            .expect("rules")
            .into_inner()
            .rules;
        assert!(listed.is_empty(), "{listed:?}");

        for (amount_cents, reason, param) in [(0, "Nothing", "amount_cents"), (1_000_001, "Too much", "amount_cents"), (500, "  ", "reason")] {
            let request = ipb::AdjustEarningsRequest { courier_id: kim.courier.id.clone(), amount_cents, reason: reason.into() };
            let status = couriers(&app).await.adjust_earnings(app.admin_request(request)).await.expect_err(param);
            assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some(param.to_owned())), "{status:?}");
        }
        let request = ipb::ListEarningsRequest { courier_id: kim.courier.id.clone(), period: 0, day: "2026-13-01".into() };
        let status = couriers(&app).await.list_earnings(app.admin_request(request)).await.expect_err("a bad day");
        assert_eq!(refusal(&status).2.as_deref(), Some("day"));
        assert!(earnings(&app, &kim.courier.id, apb::EarningsPeriod::Week).await.lines.is_empty());
    }
}

async fn adjust(app: &TestApp, courier_id: &str, amount_cents: i64, reason: &str) {
    let request = ipb::AdjustEarningsRequest {
        courier_id: courier_id.into(),
        amount_cents,
        reason: reason.into(),
    };
    couriers(app)
        .await
        .adjust_earnings(app.admin_request(request))
        .await
        .expect("adjusted");
}

async fn statements_of(app: &TestApp, courier_id: &str) -> Vec<apb::CourierStatement> {
    let request = ipb::ListCourierStatementsRequest {
        courier_id: courier_id.into(),
    };
    couriers(app)
        .await
        .list_courier_statements(app.admin_request(request))
        .await
        .expect("statements")
        .into_inner()
        .statements
}

/// Waits until the statement worker closed a week for `courier_id`.
async fn closed_for(app: &TestApp, courier_id: &str) -> Vec<apb::CourierStatement> {
    crate::harness::wait_until("a week closed by the worker", Duration::from_secs(20), async || {
        let listed = statements_of(app, courier_id).await;
        if listed.is_empty() {
            Err("none yet".to_owned())
        } else {
            Ok(())
        }
    })
    .await;
    statements_of(app, courier_id).await
}

/// `PATCH /v1/deliveries/{id}` of its tip alone, with a fresh key.
async fn tip(app: &TestApp, id: &str, tip_cents: Value) -> Answer {
    let request = app
        .http
        .patch(app.url(&format!("/v1/deliveries/{id}")))
        .header("x-api-key", &app.live_key)
        .header("idempotency-key", unique_suffix());
    app.send(request.json(&json!({ "tip_cents": tip_cents }))).await
}

/// The stream's next job whose tip is `tip_cents` (10 s for each message).
async fn job_tipped(stream: &mut tonic::Streaming<apb::WatchAssignmentsResponse>, tip_cents: i64) -> apb::Job {
    loop {
        if let Some(Update::Job(job)) = next(stream).await.update
            && job.tip_cents == tip_cents
        {
            return job;
        }
    }
}

e2e! {
    async fn tips_reach_the_courier_their_week_and_the_business_statement(app: TestApp) {
        set_rule(&app, "car", "", RULE).await.expect("rule");
        for (tip_cents, param) in [(json!(-1), "tip_cents"), (json!(100_001), "tip_cents"), (json!("5"), "tip_cents")] {
            let mut body = berlin_delivery();
            body["tip_cents"] = tip_cents;
            app.post_idempotent("/v1/deliveries", &app.live_key, &unique_suffix(), &body).await.assert_error(400, "invalid_request", Some(param));
        }
        let mut body = berlin_delivery();
        body["tip_cents"] = json!(400);
        let created = app.create_delivery(&app.live_key, &body).await;
        assert_eq!(created["tip_cents"], 400);
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Tipped", "kim.tipped@example.com", "car").await;
        let mut stream = kim.client.clone().watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        assert!(matches!(next(&mut stream).await.update, Some(Update::Snapshot(_))));
        crate::dropoff_pin::to_the_dropoff(&app, &kim, &id).await;

        // Before delivery a tip may go down; the courier's app hears it.
        let lowered = tip(&app, &id, json!(300)).await;
        assert_eq!((lowered.status, &lowered.body["tip_cents"]), (200, &json!(300)), "{:#}", lowered.body);
        let held = job_tipped(&mut stream, 300).await;
        assert_eq!((held.currency.as_str(), held.earned_cents), ("EUR", None));
        let pay = held.pay.clone().expect("pay");

        let mut client = kim.client.clone();
        let photo = proof(&id, pb::CheckpointKind::Dropoff, vec![file(pb::ArtifactKind::Photo, "door.png", png(3))], "tip-dropoff");
        client.submit_proof(kim.request(photo)).await.expect("dropoff proof");
        let delivered = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover").into_inner().job.expect("job");
        assert_eq!(delivered.earned_cents, Some(pay.total_cents + 300), "the pay and all of the tip");

        // Once delivered a tip only rises.
        for lower in [json!(200), Value::Null, json!(0)] {
            tip(&app, &id, lower).await.assert_error(409, "not_editable", Some("tip_cents"));
        }
        let raised = tip(&app, &id, json!(500)).await;
        assert_eq!((raised.status, &raised.body["tip_cents"]), (200, &json!(500)), "{:#}", raised.body);
        let told = job_tipped(&mut stream, 500).await;
        assert_eq!(told.earned_cents, Some(pay.total_cents + 500), "the raise reaches the courier");
        let day = earnings(&app, &kim.courier.id, apb::EarningsPeriod::Day).await;
        assert_eq!(
            kinds(&day.lines),
            vec![(apb::EarningsKind::Job, pay.total_cents), (apb::EarningsKind::Tip, 300), (apb::EarningsKind::Tip, 200)]
        );
        assert_eq!(day.totals[0].tip_cents, 500);

        // The business's statement bills the tips on a line of their own.
        let statements = app
            .billing()
            .await
            .close_statement(app.billing_request(ipb::CloseStatementRequest { workspace_id: app.workspace_id.clone() }))
            .await
            .expect("close")
            .into_inner()
            .statements;
        let statement = &statements[0];
        let amount = created["amount_cents"].as_i64().expect("amount");
        assert_eq!((statement.tip_count, statement.tip_cents), (2, 500));
        assert_eq!(statement.total_cents, amount + statement.sms_cents + 500);
        let read = app
            .billing()
            .await
            .get_statement(app.billing_request(ipb::GetStatementRequest { statement_id: statement.id.clone(), page_size: 0, page_token: String::new() }))
            .await
            .expect("statement")
            .into_inner();
        let csv = courier::statements::statement_csv(statement, &read.deliveries).expect("csv");
        assert!(csv.contains("Tips: 2,,,,,,,5.00,EUR"), "{csv}");

        // A week later: no more raises, and the courier's week holds the tips.
        app.clock.advance(Duration::from_secs(8 * 86_400));
        let late = tip(&app, &id, json!(900)).await;
        late.assert_error(409, "not_editable", Some("tip_cents"));
        assert!(late.body["error"]["message"].as_str().expect("message").contains("7 days"), "{:#}", late.body);
        let closed = closed_for(&app, &kim.courier.id).await;
        let totals = closed[0].totals.clone().expect("totals");
        assert_eq!((totals.tip_cents, totals.total_cents), (500, pay.total_cents + 500));

        // A cancelled delivery's tip never changes and is never given.
        let cancelled = app.create_delivery(&app.live_key, &body).await;
        let other = cancelled["id"].as_str().expect("id");
        let answer = app.post(&format!("/v1/deliveries/{other}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        tip(&app, other, json!(800)).await.assert_error(409, "not_editable", Some("tip_cents"));
    }

    async fn the_worker_closes_a_week_once_with_exactly_its_lines_and_the_cli_exports_it(app: TestApp) {
        set_rule(&app, "", "", RULE).await.expect_err("no scope");
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        set_rule(&app, "", &fleet, RULE).await.expect("fleet rule");
        let dara = join(&app, &fleet, "Dara Weekly", "dara.weekly@example.com", "cargo_bike").await;
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let id = order["order_id"].as_str().expect("order id").to_owned();
        assign(&app, &id, &dara.courier.id).await.expect("assign");
        let mut client = dara.client.clone();
        client.arrive_at_pickup(dara.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        client.report_pickup_no_show(dara.request(apb::ReportPickupNoShowRequest { job_id: id.clone() })).await.expect("no-show");
        adjust(&app, &dara.courier.id, 400, "Weekend bonus").await;
        let week = earnings(&app, &dara.courier.id, apb::EarningsPeriod::Week).await;
        assert!(statements_of(&app, &dara.courier.id).await.is_empty(), "the week is not over");

        // The week ends; the worker closes it on Monday.
        app.clock.advance(Duration::from_secs(8 * 86_400));
        adjust(&app, &dara.courier.id, 100, "Next week's").await;
        let closed = closed_for(&app, &dara.courier.id).await;
        assert_eq!(closed.len(), 1, "{closed:?}");
        let statement = &closed[0];
        assert!(statement.id.starts_with("cst_") && statement.closed_by == "worker", "{statement:?}");
        assert_eq!((statement.start_time, statement.end_time), (week.start_time, week.end_time));
        let totals = statement.totals.clone().expect("totals");
        assert_eq!((totals.jobs, totals.job_cents, totals.adjustment_cents), (1, 300, 400));
        assert_eq!(totals.total_cents, week.totals[0].total_cents);

        let read = couriers(&app).await.get_courier_statement(app.admin_request(ipb::GetCourierStatementRequest { statement_id: statement.id.clone() }))
            .await.expect("statement").into_inner();
        assert_eq!(read.courier_name, "Dara Weekly");
        assert_eq!(read.lines.iter().map(|l| l.amount_cents).sum::<i64>(), totals.total_cents);
        assert!(read.lines.iter().all(|l| l.statement_id.as_deref() == Some(statement.id.as_str())));
        assert!(!read.lines.iter().any(|l| l.reason.as_deref() == Some("Next week's")));

        // Closing the same week again (an operator, the worker's next turn): nothing.
        let day = courier::time::from_proto(week.start_time.as_ref().expect("start")).expect("time").format("%Y-%m-%d").to_string();
        let again = couriers(&app).await.close_courier_statements(app.admin_request(ipb::CloseCourierStatementsRequest { day }))
            .await.expect("close").into_inner().statements;
        assert!(again.is_empty(), "{again:?}");
        let status = couriers(&app).await.close_courier_statements(app.admin_request(ipb::CloseCourierStatementsRequest { day: app.clock.now().format("%Y-%m-%d").to_string() }))
            .await.expect_err("this week is not over");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("day".to_owned())));
        let status = couriers(&app).await.get_courier_statement(app.admin_request(ipb::GetCourierStatementRequest { statement_id: "cst_missing".into() }))
            .await.expect_err("no such statement");
        assert_eq!(refusal(&status).0, tonic::Code::NotFound);

        // The printable and spreadsheet documents add up the same.
        let csv = courier::statements::courier_statement_csv(statement, &read.lines).expect("csv");
        assert!(csv.starts_with("line_id,earned_at,kind,job_id,amount,currency\n") && csv.contains("Adjustment: Weekend bonus"), "{csv}");
        assert!(csv.trim_end().ends_with(&format!("total,,,,{},EUR", courier::statements::amount(totals.total_cents))), "{csv}");
        let html = courier::statements::courier_statement_html(&read.courier_name, statement, &read.lines).expect("html");
        assert!(html.contains("Courier statement cst_") && html.contains("Dara Weekly"), "{html}");
    }
}

/// The statement workers of two replicas on one PostgreSQL database close
/// each courier's week once, every line on one statement; an operator's
/// close of that week on either changes nothing after them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_close_each_couriers_week_once() {
    crate::harness::limited(async {
        let Some(app) = TestApp::spawn(crate::harness::Backend::Postgres).await else {
            return;
        };
        let replica = app.spawn_replica().await;
        let mut ids = Vec::new();
        for n in 0..6 {
            let courier = join(
                &app,
                "",
                &format!("Rui Twice{n}"),
                &format!("rui.twice{n}@example.com"),
                "car",
            )
            .await;
            for cents in [100, 250, 75] {
                adjust(&app, &courier.courier.id, cents + n, "Shift").await;
            }
            ids.push(courier.courier.id);
        }
        let week = earnings(&app, &ids[0], apb::EarningsPeriod::Week).await;
        app.clock.advance(Duration::from_secs(8 * 86_400));
        for (n, id) in ids.iter().enumerate() {
            let closed = closed_for(&app, id).await;
            assert_eq!(closed.len(), 1, "{id}: {closed:?}");
            assert_eq!(
                closed[0].totals.as_ref().expect("totals").total_cents,
                425 + 3 * n as i64
            );
        }
        let day = courier::time::from_proto(week.start_time.as_ref().expect("start"))
            .expect("time")
            .format("%Y-%m-%d")
            .to_string();
        for url in [&app.grpc_url, &replica.grpc_url] {
            let mut service = courier::internal::v1::courier_service_client::CourierServiceClient::connect(url.clone())
                .await
                .expect("connect");
            let request = ipb::CloseCourierStatementsRequest { day: day.clone() };
            let again = service
                .close_courier_statements(app.admin_request(request))
                .await
                .expect("close")
                .into_inner()
                .statements;
            assert!(again.is_empty(), "{again:?}");
        }
        for id in &ids {
            assert_eq!(statements_of(&app, id).await.len(), 1);
            let lines = courier_orders::pay::earnings::between(&app.core.db, id, 0, i64::MAX)
                .await
                .expect("lines");
            assert!(lines.iter().all(|line| line.statement_id.is_some()), "{lines:?}");
        }
    })
    .await
}
