//! Pay in process ([`crate::testing`]): reckoning and rounding, rule
//! versions (a change after an offer leaves the offer's pay), waiting at
//! the pickup, what a job's end earns, once; and that the parts and the
//! lines always add up to their totals to the cent.

use proptest::prelude::*;

use super::earnings::{self, Kind, Line, Totals};
use super::*;
use crate::testing::TestOrders;
use courier::errors::ErrorCode;
use courier_store::CoreError;

const MINUTE_MICROS: i64 = 60_000_000;

fn rule(parts: RuleInput) -> Rule {
    Rule {
        id: "cpr_test".into(),
        scope: Scope::VehicleType("car".into()),
        version: 1,
        currency: "EUR".into(),
        parts,
        created_at: 0,
        created_by: "cli:test".into(),
    }
}

const PARTS: RuleInput = RuleInput {
    base_cents: 250,
    per_km_cents: 85,
    per_minute_cents: 12,
    waiting_per_minute_cents: 20,
    surcharge_share_percent: 50,
};

#[test]
fn each_part_is_rounded_to_the_cent() {
    let facts = JobFacts {
        distance_km: 3.47,
        minutes: 14,
        surcharges_cents: 125,
    };
    let pay = JobPay::reckon(&rule(PARTS), facts);
    // 85 × 3.47 = 294.95 → 295; 12 × 14; 125 × 50 % = 62.5 → 63.
    assert_eq!(
        (pay.base_cents, pay.distance_cents, pay.time_cents, pay.surcharge_cents),
        (250, 295, 168, 63)
    );
    assert_eq!(pay.total_cents(), 250 + 295 + 168 + 63);
    assert_eq!(pay.currency, "EUR");
}

#[test]
fn waiting_is_paid_per_whole_minute_past_the_first_five() {
    let pay = JobPay::reckon(
        &rule(PARTS),
        JobFacts {
            distance_km: 1.0,
            minutes: 5,
            surcharges_cents: 0,
        },
    );
    assert_eq!(pay.waiting_for(0, 5 * MINUTE_MICROS), 0);
    assert_eq!(pay.waiting_for(0, 6 * MINUTE_MICROS - 1), 0);
    assert_eq!(pay.waiting_for(0, 12 * MINUTE_MICROS + 30_000_000), 7 * 20);
    assert_eq!(pay.waiting_for(10, 0), 0);
}

proptest! {
    #[test]
    fn the_parts_add_up_to_the_total(
        base in 0..=rules::MAX_CENTS,
        per_km in 0..=rules::MAX_CENTS,
        per_minute in 0..=rules::MAX_CENTS,
        share in 0..=100i32,
        km in 0.0..500.0f64,
        minutes in 0..600i64,
        surcharges in 0..100_000i64,
        waited in 0..(120 * MINUTE_MICROS),
    ) {
        let parts = RuleInput {
            base_cents: base,
            per_km_cents: per_km,
            per_minute_cents: per_minute,
            waiting_per_minute_cents: per_minute,
            surcharge_share_percent: share,
        };
        let mut pay = JobPay::reckon(&rule(parts), JobFacts { distance_km: km, minutes, surcharges_cents: surcharges });
        pay.waiting_cents = pay.waiting_for(0, waited);
        prop_assert_eq!(
            pay.total_cents(),
            pay.base_cents + pay.distance_cents + pay.time_cents + pay.surcharge_cents + pay.waiting_cents
        );
        prop_assert!(pay.surcharge_cents <= surcharges);
        prop_assert!((pay.distance_cents as f64 - per_km as f64 * km).abs() <= 0.5 + 1e-6);
    }

    #[test]
    fn the_lines_add_up_to_the_totals(amounts in proptest::collection::vec((0..4usize, -100_000..100_000i64), 0..50)) {
        let lines: Vec<Line> = amounts
            .iter()
            .enumerate()
            .map(|(i, (kind, amount_cents))| Line {
                id: format!("ern_{i}"),
                courier_id: "cou_1".into(),
                kind: Kind::ALL[*kind],
                job_id: None,
                currency: "EUR".into(),
                amount_cents: *amount_cents,
                reason: None,
                created_by: None,
                earned_at: i as i64,
                statement_id: None,
            })
            .collect();
        let totals = Totals::of(&lines);
        prop_assert_eq!(totals.total_cents(), lines.iter().map(|line| line.amount_cents).sum::<i64>());
        prop_assert_eq!(totals.jobs as usize, lines.iter().filter(|line| line.kind == Kind::Job).count());
    }
}

#[tokio::test]
async fn a_rule_change_applies_to_new_offers_only() {
    let orders = TestOrders::open().await;
    let now = orders.clock.now_micros();
    let scope = Scope::VehicleType("car".into());
    let tx = orders.begin().await.expect("the test database answers");
    let first = rules::set(&orders, &tx, scope.clone(), PARTS, "cli:test", now)
        .await
        .expect("the test database answers");
    let facts = JobFacts {
        distance_km: 2.0,
        minutes: 10,
        surcharges_cents: 0,
    };
    let offered = JobPay::reckon(&first, facts);
    let payee = Payee {
        courier_id: "cou_1",
        job_id: "del_1",
    };
    fix_for_offer(&tx, payee, "off_1", &offered, now)
        .await
        .expect("the test database answers");
    let raised = RuleInput {
        base_cents: 400,
        ..PARTS
    };
    let second = rules::set(&orders, &tx, scope.clone(), raised, "cli:test", now)
        .await
        .expect("the test database answers");
    accepted(&tx, "off_1", "asg_1")
        .await
        .expect("the test database answers");
    tx.commit().await.expect("the test database answers");

    assert_eq!((first.version, second.version), (1, 2));
    assert_eq!(
        rules::current(&orders.db, &scope)
            .await
            .expect("the test database answers"),
        Some(second.clone())
    );
    let history = rules::history(&orders.db, None)
        .await
        .expect("the test database answers");
    assert_eq!(history, vec![second, first.clone()]);
    let held = of_assignments(&orders.db, &["asg_1".to_owned()])
        .await
        .expect("the test database answers");
    assert_eq!(held.get("asg_1"), Some(&offered));
    assert_eq!(held["asg_1"].rule_id, first.id);
    assert_eq!(
        of_offer(&orders.db, "off_1").await.expect("the test database answers"),
        Some(offered)
    );
}

#[tokio::test]
async fn a_rule_out_of_range_or_of_no_vehicle_type_is_refused() {
    let orders = TestOrders::open().await;
    let now = orders.clock.now_micros();
    let tx = orders.begin().await.expect("the test database answers");
    let cases = [
        (Scope::VehicleType("hovercraft".into()), PARTS, "vehicle_type_id"),
        (
            Scope::VehicleType("car".into()),
            RuleInput {
                per_km_cents: -1,
                ..PARTS
            },
            "per_km_cents",
        ),
        (
            Scope::Fleet("wsp_1".into()),
            RuleInput {
                surcharge_share_percent: 101,
                ..PARTS
            },
            "surcharge_share_percent",
        ),
    ];
    for (scope, parts, param) in cases {
        let refused = rules::set(&orders, &tx, scope, parts, "cli:test", now)
            .await
            .expect_err("refused");
        assert!(
            matches!(&refused, CoreError::Rejected { code: ErrorCode::InvalidRequest, param: Some(p), .. } if p == param),
            "{param}: {refused:?}"
        );
    }
    assert!(
        rules::history(&*tx, None)
            .await
            .expect("the test database answers")
            .is_empty()
    );
}

async fn held_job(orders: &TestOrders, assignment_id: &str) -> Payee<'static> {
    let now = orders.clock.now_micros();
    let tx = orders.begin().await.expect("the test database answers");
    let rule = rules::set(orders, &tx, Scope::Fleet("wsp_1".into()), PARTS, "cli:test", now)
        .await
        .expect("the test database answers");
    let pay = JobPay::reckon(
        &rule,
        JobFacts {
            distance_km: 2.0,
            minutes: 10,
            surcharges_cents: 0,
        },
    );
    let payee = Payee {
        courier_id: "cou_1",
        job_id: "ord_1",
    };
    fix_for_assignment(&tx, payee, assignment_id, &pay, now)
        .await
        .expect("the test database answers");
    tx.commit().await.expect("the test database answers");
    payee
}

async fn lines(orders: &TestOrders) -> Vec<(Kind, i64)> {
    earnings::between(&orders.db, "cou_1", 0, i64::MAX)
        .await
        .expect("the test database answers")
        .into_iter()
        .map(|line| (line.kind, line.amount_cents))
        .collect()
}

#[tokio::test]
async fn a_delivered_job_earns_its_pay_and_its_waiting_once() {
    let orders = TestOrders::open().await;
    let payee = held_job(&orders, "asg_1").await;
    let job_cents = 250 + 170 + 120;
    let tx = orders.begin().await.expect("the test database answers");
    let at = orders.clock.now_micros();
    arrived(&tx, "asg_1", at).await.expect("the test database answers");
    picked_up(&tx, "asg_1", at + 9 * MINUTE_MICROS)
        .await
        .expect("the test database answers");
    settle(&tx, payee, "asg_1", Ending::Delivered, at + 30 * MINUTE_MICROS)
        .await
        .expect("the test database answers");
    // A second call (a mover's retry) adds nothing.
    settle(&tx, payee, "asg_1", Ending::Delivered, at + 31 * MINUTE_MICROS)
        .await
        .expect("the test database answers");
    tx.commit().await.expect("the test database answers");
    assert_eq!(
        lines(&orders).await,
        vec![(Kind::Job, job_cents), (Kind::Waiting, 4 * 20)]
    );
    let pay = of_assignments(&orders.db, &["asg_1".to_owned()])
        .await
        .expect("the test database answers");
    assert_eq!(pay["asg_1"].total_cents(), job_cents + 80);
}

#[tokio::test]
async fn a_cancelled_job_earns_by_how_far_the_courier_got() {
    let orders = TestOrders::open().await;
    let at = orders.clock.now_micros();
    // Cancelled before the courier reached the pickup: nothing.
    let payee = held_job(&orders, "asg_1").await;
    let tx = orders.begin().await.expect("the test database answers");
    settle(&tx, payee, "asg_1", Ending::Cancelled, at)
        .await
        .expect("the test database answers");
    tx.commit().await.expect("the test database answers");
    assert_eq!(lines(&orders).await, vec![]);

    // At the pickup for 15 minutes, then a no-show: the base and the waiting.
    let payee = held_job(&orders, "asg_2").await;
    let tx = orders.begin().await.expect("the test database answers");
    arrived(&tx, "asg_2", at).await.expect("the test database answers");
    settle(&tx, payee, "asg_2", Ending::Cancelled, at + 15 * MINUTE_MICROS)
        .await
        .expect("the test database answers");
    tx.commit().await.expect("the test database answers");
    assert_eq!(lines(&orders).await, vec![(Kind::Job, 250), (Kind::Waiting, 10 * 20)]);
}

mod statements_tests {
    use chrono::{NaiveDate, TimeZone, Weekday};

    use super::super::earnings::{self, Kind, NewLine};
    use super::super::statements::{self, Closer, due_week, week_of};
    use crate::testing::TestOrders;
    use courier_identity::access::{act, command_line};

    fn berlin(y: i32, m: u32, d: u32, h: u32) -> i64 {
        chrono_tz::Europe::Berlin
            .with_ymd_and_hms(y, m, d, h, 0, 0)
            .single()
            .expect("one local time")
            .timestamp_micros()
    }

    #[test]
    fn the_week_closed_is_the_one_before_the_closing_day() {
        let zone = chrono_tz::Europe::Berlin;
        let day = NaiveDate::from_ymd_opt(2026, 12, 2).expect("a day");
        assert_eq!(week_of(zone, day), (berlin(2026, 11, 30, 0), berlin(2026, 12, 7, 0)));
        // Wednesday 2 December: closing on Mondays, the week up to 30 November.
        let now = berlin(2026, 12, 2, 10);
        assert_eq!(
            due_week(zone, Weekday::Mon, now),
            (berlin(2026, 11, 23, 0), berlin(2026, 11, 30, 0))
        );
        // Closing on Wednesdays: from today, the same week.
        assert_eq!(
            due_week(zone, Weekday::Wed, now),
            (berlin(2026, 11, 23, 0), berlin(2026, 11, 30, 0))
        );
        // Closing on Thursdays: not yet; the week before.
        assert_eq!(
            due_week(zone, Weekday::Thu, now),
            (berlin(2026, 11, 16, 0), berlin(2026, 11, 23, 0))
        );
    }

    async fn earn(orders: &TestOrders, courier_id: &str, kind: Kind, cents: i64, at: i64) {
        let line = NewLine {
            courier_id,
            kind,
            job_id: None,
            assignment_id: None,
            currency: "EUR",
            amount_cents: cents,
            reason: Some("test"),
            created_by: None,
        };
        earnings::record(&orders.writer, &[line], at).await.expect("a line");
    }

    #[tokio::test]
    async fn a_week_closes_once_with_each_line_on_one_statement_and_its_total_their_sum() {
        let orders = TestOrders::open().await;
        let week = week_of(
            chrono_tz::Europe::Berlin,
            NaiveDate::from_ymd_opt(2026, 11, 25).expect("a day"),
        );
        earn(&orders, "cou_a", Kind::Adjustment, 1_000, week.0 - 1).await;
        earn(&orders, "cou_a", Kind::Adjustment, 250, week.0 + 5).await;
        earn(&orders, "cou_a", Kind::Adjustment, -75, week.1 - 1).await;
        earn(&orders, "cou_a", Kind::Adjustment, 999, week.1).await;
        earn(&orders, "cou_b", Kind::Adjustment, 40, week.0 + 10).await;

        let granted = command_line::<act::Administer>().expect("the command line is the back office");
        let made = statements::close(&orders, week, Closer::Caller(&granted))
            .await
            .expect("closed");
        assert_eq!(made.len(), 2);
        let a = made.iter().find(|s| s.courier_id == "cou_a").expect("a's statement");
        // Unbilled from before the week, and the week's; not the next week's.
        assert_eq!(a.totals.total_cents(), 1_000 + 250 - 75);
        assert_eq!((a.period_start, a.period_end), (week.0, week.1));
        assert_eq!(a.closed_by, granted.actor());
        let (_, lines) = statements::with_lines(&orders.db, &a.id)
            .await
            .expect("read")
            .expect("found");
        assert_eq!(
            lines.iter().map(|l| l.amount_cents).sum::<i64>(),
            a.totals.total_cents()
        );

        // Again (a replica's worker, a retry): nothing more.
        assert!(
            statements::close(&orders, week, Closer::Worker)
                .await
                .expect("closed")
                .is_empty()
        );
        // A line that committed late for the closed week goes on the next.
        earn(&orders, "cou_a", Kind::Adjustment, 5, week.1 - 2).await;
        let next = (week.1, week.1 + 7 * 86_400_000_000);
        let made = statements::close(&orders, next, Closer::Worker).await.expect("closed");
        let a_next = made.iter().find(|s| s.courier_id == "cou_a").expect("next week");
        assert_eq!(a_next.totals.total_cents(), 999 + 5);
        let listed = statements::of_courier(&orders.db, "cou_a").await.expect("listed");
        assert_eq!(
            listed.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            [a_next.id.as_str(), a.id.as_str()]
        );
    }
}
