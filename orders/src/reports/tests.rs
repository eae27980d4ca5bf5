use std::time::Duration;

use chrono::NaiveDate;

use super::figures::{Histogram, Period, Range, by_period};
use super::rollup::{self, Booked};
use super::*;
use crate::deliveries::{CancelReason, Change, Delivery};
use crate::lifecycle;
use crate::statuses::{CancellationReason, Status};
use crate::testing::{TestOrders, advance, caller, create_delivery};

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

#[test]
fn quantiles_are_nearest_rank_over_every_delivery() {
    let mut minutes = Histogram::default();
    assert_eq!(minutes.quantile(0.5), None);
    for m in [10, 20, 20, 30, 90] {
        minutes.add(m);
    }
    assert_eq!(
        (minutes.quantile(0.5), minutes.quantile(0.9), minutes.count()),
        (Some(20), Some(90), 5)
    );
    let mut other = Histogram::default();
    other.add(5);
    minutes.merge(&other);
    assert_eq!(minutes.quantile(0.5), Some(20));
    assert_eq!(minutes.quantile(0.0), Some(5));
}

#[test]
fn weeks_start_on_monday_and_a_range_is_at_most_a_year() {
    let range = Range::new(day("2026-11-25"), day("2026-12-08")).expect("range");
    assert_eq!(
        range.periods(Period::Week),
        vec![day("2026-11-23"), day("2026-11-30"), day("2026-12-07")]
    );
    assert_eq!(range.periods(Period::Day).len(), 14);
    assert!(Range::new(day("2026-12-08"), day("2026-12-07")).is_err());
    assert!(Range::new(day("2026-01-01"), day("2027-01-02")).is_err());
    // Days merge into their week; days outside the range count nothing.
    let weeks = by_period(
        range,
        Period::Week,
        [
            (day("2026-11-24"), 9_u64),
            (day("2026-11-25"), 1),
            (day("2026-12-01"), 2),
            (day("2026-12-06"), 3),
        ],
        |total, n| *total += n,
    );
    assert_eq!(
        weeks,
        vec![(day("2026-11-23"), 1), (day("2026-11-30"), 5), (day("2026-12-07"), 0)]
    );
}

#[test]
fn a_day_counts_each_delivery_once_from_when_its_pickup_was_wanted() {
    let minute = 60_000_000;
    let booked =
        |status: &str, wanted_at: i64, picked: Option<i64>, delivered: Option<i64>, on_time: Option<bool>| Booked {
            status: status.into(),
            wanted_at,
            picked_up_at: picked,
            delivered_at: delivered,
            cancellation_reason: (status == "cancelled").then(|| "no_courier_found".into()),
            on_time,
        };
    let figures = rollup::count(&[
        booked("delivered", 0, Some(12 * minute), Some(31 * minute), Some(true)),
        booked("delivered", 0, Some(20 * minute), Some(55 * minute), Some(false)),
        booked("delivered", 0, None, Some(40 * minute), None),
        booked("cancelled", 0, None, None, None),
        booked("pending", 0, None, None, None),
    ]);
    assert_eq!((figures.deliveries, figures.delivered, figures.cancelled), (5, 3, 1));
    assert_eq!(figures.cancellations.get("no_courier_found"), Some(&1));
    assert_eq!(
        (figures.on_time, figures.promised, figures.on_time_rate()),
        (1, 2, Some(0.5))
    );
    assert_eq!(figures.to_pickup.quantile(0.5), Some(12));
    assert_eq!(figures.to_delivery.quantile(0.5), Some(40));
    assert_eq!(figures.to_delivery.quantile(0.9), Some(55));
}

/// `delivery` moved to picked up after `pickup` and delivered `handover` later.
async fn delivered(orders: &TestOrders, delivery: &Delivery, pickup: Duration, handover: Duration) -> Delivery {
    let mut moved = advance(orders, delivery, Status::CourierAssigned, Change::default()).await;
    moved = advance(orders, &moved, Status::AtPickup, Change::default()).await;
    orders.clock.advance(pickup);
    moved = advance(orders, &moved, Status::PickedUp, Change::default()).await;
    moved = advance(orders, &moved, Status::InTransit, Change::default()).await;
    moved = advance(orders, &moved, Status::AtDropoff, Change::default()).await;
    orders.clock.advance(handover);
    let now = orders.clock.now_micros();
    advance(
        orders,
        &moved,
        Status::Delivered,
        Change::default().delivered(&moved, now),
    )
    .await
}

#[tokio::test]
async fn the_worker_keeps_each_day_and_a_report_reads_it_by_day_and_week() {
    let orders = TestOrders::open().await;
    let workspace = orders.workspace(None).await;
    let test = caller(&workspace, Mode::Test);
    let first = create_delivery(&orders, &test).await.expect("create");
    let second = create_delivery(&orders, &test).await.expect("create");
    let cancelled = create_delivery(&orders, &test).await.expect("create");
    create_delivery(&orders, &test).await.expect("create");
    let booked_on = rollup::local_day(orders.catalog.time_zone(&first.service_area_id), first.created_at);
    let one = delivered(
        &orders,
        &first,
        Duration::from_secs(10 * 60),
        Duration::from_secs(20 * 60),
    )
    .await;
    let two = delivered(
        &orders,
        &second,
        Duration::from_secs(5 * 60),
        Duration::from_secs(10 * 60),
    )
    .await;
    lifecycle::cancel(&orders, &test, &cancelled.id, Some(CancelReason::NoLongerNeeded))
        .await
        .expect("cancel");
    assert!(rollup::roll_up(&orders).await.expect("rolled up") >= 1);

    let range = Range::new(booked_on, booked_on).expect("one day");
    let scope = Scope {
        workspace_id: Some(&workspace.id),
        mode: Mode::Test,
        service_area_id: None,
    };
    let days = super::deliveries(&orders, scope, range, Period::Day)
        .await
        .expect("report");
    assert_eq!(days.len(), 1);
    let (start, figures) = &days[0];
    assert_eq!(*start, booked_on);
    assert_eq!((figures.deliveries, figures.delivered, figures.cancelled), (4, 2, 1));
    assert_eq!(
        figures.cancellations.get(CancellationReason::CancelledByYou.as_str()),
        Some(&1)
    );
    // The first was picked up 10 minutes after booking and handed over at
    // 30; the second, booked with it and moved after it, at 35 and 45.
    assert_eq!(figures.to_pickup.quantile(0.5), Some(10));
    assert_eq!(figures.to_pickup.quantile(0.9), Some(35));
    assert_eq!(figures.to_delivery.quantile(0.5), Some(30));
    assert_eq!(figures.to_delivery.quantile(0.9), Some(45));
    let promised = [&one, &two].iter().filter(|d| d.promised_by.is_some()).count() as u64;
    let on_time = [&one, &two]
        .iter()
        .filter(|d| {
            d.promised_by
                .is_some_and(|by| d.delivered_at.is_some_and(|at| at <= by))
        })
        .count() as u64;
    assert_eq!((figures.promised, figures.on_time), (promised, on_time));

    // Another workspace's, or the other mode's, count nothing here.
    let live = Scope {
        mode: Mode::Live,
        ..scope
    };
    assert_eq!(
        super::deliveries(&orders, live, range, Period::Day)
            .await
            .expect("report")[0]
            .1
            .deliveries,
        0
    );
    // Every workspace's (operators) counts this one's too.
    let platform = Scope {
        workspace_id: None,
        ..scope
    };
    assert_eq!(
        super::deliveries(&orders, platform, range, Period::Week)
            .await
            .expect("report")[0]
            .1
            .deliveries,
        4
    );
}
