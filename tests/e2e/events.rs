//! `GET /v1/events` and `GET /v1/events/{event_id}` (docs/guide.md
//! "Events"), and the 30-day retention of events and attempts.

use std::collections::HashSet;
use std::time::Duration;

use courier::internal::v1 as admin_pb;
use courier::v1::Mode;
use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::harness::{Backend, TestApp};
use crate::webhooks::{Receiver, attempts_when, create_endpoint, live_delivery};

const EVENT_FIELDS: [&str; 5] = ["id", "type", "version", "created_at", "data"];

async fn list(app: &TestApp, query: &str) -> Value {
    let answer = app.get(&format!("/v1/events{query}"), &app.live_key).await;
    assert_eq!(answer.status, 200, "{query}: {:#}", answer.body);
    answer.body
}

/// `(type, delivery id)` of each listed event, in order.
fn summary(page: &Value) -> Vec<(String, String)> {
    page["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["type"].as_str().expect("type").to_owned(),
                e["data"]["id"].as_str().expect("delivery id").to_owned(),
            )
        })
        .collect()
}

fn event_ids(page: &Value) -> Vec<String> {
    page["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["id"].as_str().expect("id").to_owned())
        .collect()
}

/// A query value, percent-encoded where RFC 3339 needs it.
fn encoded(value: &str) -> String {
    value.replace('+', "%2B").replace(':', "%3A")
}

e2e! {
    async fn events_are_listed_newest_first_with_filters(app: TestApp) {
        let d1 = live_delivery(&app).await;
        let d2 = live_delivery(&app).await;
        let d3 = live_delivery(&app).await;
        let cancelled = app
            .post(&format!("/v1/deliveries/{d1}/cancel"), &app.live_key, &json!({}))
            .await;
        assert_eq!(cancelled.status, 200);

        let page = list(&app, "").await;
        let created = |d: &str| ("delivery.created".to_owned(), d.to_owned());
        assert_eq!(
            summary(&page),
            [
                ("delivery.cancelled".to_owned(), d1.clone()),
                created(&d3),
                created(&d2),
                created(&d1)
            ]
        );
        assert!(page["next_page_token"].is_null());
        let event = &page["events"][0];
        let keys: HashSet<&str> = event.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(keys, EVENT_FIELDS.into_iter().collect());
        assert!(event["id"].as_str().expect("id").starts_with("evt_"));
        assert_eq!(event["version"], "2026-11");
        assert_eq!(event["data"]["status"], "cancelled");
        assert_eq!(event["data"]["cancellation_reason"], "cancelled_by_you");
        assert!(event["data"]["courier"].is_null());
        assert_eq!(page["events"][3]["data"]["status"], "pending");
        assert!(event["created_at"].as_str().expect("time").ends_with('Z'));

        assert_eq!(
            summary(&list(&app, &format!("?delivery_id={d1}")).await),
            [("delivery.cancelled".to_owned(), d1.clone()), created(&d1)]
        );
        assert_eq!(
            summary(&list(&app, "?type=delivery.cancelled").await),
            [("delivery.cancelled".to_owned(), d1.clone())]
        );
        assert_eq!(
            summary(&list(&app, &format!("?type=delivery.created&delivery_id={d2}")).await),
            [created(&d2)]
        );
        assert_eq!(summary(&list(&app, "?delivery_id=del_unknown").await), []);

        // created_after is inclusive, created_before exclusive, at the exact instant.
        let t2 = encoded(page["events"][2]["created_at"].as_str().expect("time"));
        let t3 = encoded(page["events"][1]["created_at"].as_str().expect("time"));
        assert_eq!(
            summary(&list(&app, &format!("?created_after={t2}")).await),
            [
                ("delivery.cancelled".to_owned(), d1.clone()),
                created(&d3),
                created(&d2)
            ]
        );
        assert_eq!(
            summary(&list(&app, &format!("?created_before={t2}")).await),
            [created(&d1)]
        );
        assert_eq!(
            summary(&list(&app, &format!("?created_after={t2}&created_before={t3}")).await),
            [created(&d2)]
        );

        let bad = app.get("/v1/events?type=delivery.shipped", &app.live_key).await;
        bad.assert_error(400, "invalid_request", Some("type"));
        app.get("/v1/events?created_after=yesterday", &app.live_key)
            .await
            .assert_error(400, "invalid_request", Some("created_after"));
        app.get("/v1/events?status=pending", &app.live_key)
            .await
            .assert_error(400, "invalid_request", Some("status"));
        app.get(
            "/v1/events?type=delivery.created&type=delivery.cancelled",
            &app.live_key,
        )
        .await
        .assert_error(400, "invalid_request", Some("type"));

        // The other mode sees none of them.
        let test_page = app.get("/v1/events", &app.test_key).await;
        assert_eq!(test_page.body, json!({ "events": [], "next_page_token": null }));
    }

    async fn event_pages_never_repeat_or_skip(app: TestApp) {
        for _ in 0..5 {
            live_delivery(&app).await;
        }
        let all = event_ids(&list(&app, "?limit=100").await);
        assert_eq!(all.len(), 5);
        assert!(
            list(&app, "?limit=5").await["next_page_token"].is_null(),
            "an exact fit has no further page"
        );

        let first = list(&app, "?limit=2").await;
        let token = first["next_page_token"].as_str().expect("token").to_owned();
        // Events recorded meanwhile sort before the position: never on later pages.
        let newer = live_delivery(&app).await;
        let second = list(&app, &format!("?limit=2&page_token={token}")).await;
        let third = list(
            &app,
            &format!(
                "?limit=2&page_token={}",
                second["next_page_token"].as_str().expect("token")
            ),
        )
        .await;
        assert!(third["next_page_token"].is_null());
        let paged: Vec<String> = [&first, &second, &third].iter().flat_map(|p| event_ids(p)).collect();
        assert_eq!(paged, all);
        assert!(summary(&list(&app, "?limit=1").await)[0].1 == newer);

        let four = list(&app, "?limit=4").await;
        assert_eq!(event_ids(&four).len(), 4);
        let rest = list(
            &app,
            &format!(
                "?limit=4&page_token={}",
                four["next_page_token"].as_str().expect("token")
            ),
        )
        .await;
        assert_eq!(event_ids(&rest).len(), 2);
        assert!(rest["next_page_token"].is_null());

        // Tokens are bound to filters, mode and content.
        let answer = app
            .get(
                &format!("/v1/events?limit=2&type=delivery.created&page_token={token}"),
                &app.live_key,
            )
            .await;
        answer.assert_error(400, "invalid_page_token", Some("page_token"));
        let answer = app
            .get(&format!("/v1/events?limit=2&page_token={token}"), &app.test_key)
            .await;
        answer.assert_error(400, "invalid_page_token", Some("page_token"));
        app.get("/v1/events?page_token=forged.token", &app.live_key)
            .await
            .assert_error(400, "invalid_page_token", Some("page_token"));
        for limit in ["0", "101", "-1", "ten"] {
            app.get(&format!("/v1/events?limit={limit}"), &app.live_key)
                .await
                .assert_error(400, "invalid_request", Some("limit"));
        }
        assert_eq!(event_ids(&list(&app, "?limit=1").await).len(), 1);
        assert_eq!(event_ids(&list(&app, "").await).len(), 6, "default page size 20");
    }

    async fn event_details_are_scoped_to_workspace_and_mode(app: TestApp) {
        let delivery_id = live_delivery(&app).await;
        let page = list(&app, &format!("?delivery_id={delivery_id}")).await;
        let event_id = page["events"][0]["id"].as_str().expect("id").to_owned();
        let details = app.get(&format!("/v1/events/{event_id}"), &app.live_key).await;
        assert_eq!(details.status, 200, "{:#}", details.body);
        let mut expected = page["events"][0].clone();
        expected["webhook_attempts"] = json!([]);
        assert_eq!(details.body, expected);

        app.get(&format!("/v1/events/{event_id}"), &app.test_key)
            .await
            .assert_error(404, "not_found", None);
        app.get("/v1/events/evt_unknown", &app.live_key)
            .await
            .assert_error(404, "not_found", None);
        let other = app
            .create_workspace(admin_pb::WorkspaceKind::Business, Default::default())
            .await;
        let other_key = app.create_key(&other, Mode::Live, &[]).await;
        app.get(&format!("/v1/events/{event_id}"), &other_key)
            .await
            .assert_error(404, "not_found", None);
        assert_eq!(app.get("/v1/events", &other_key).await.body["events"], json!([]));
        let writer = app
            .create_key(&app.workspace_id, Mode::Live, &["deliveries:write"])
            .await;
        app.get("/v1/events", &writer)
            .await
            .assert_error(403, "permission_denied", None);
        app.get(&format!("/v1/events/{event_id}"), &writer)
            .await
            .assert_error(403, "permission_denied", None);
        let reader = app
            .create_key(&app.workspace_id, Mode::Live, &["deliveries:read"])
            .await;
        assert_eq!(app.get(&format!("/v1/events/{event_id}"), &reader).await.status, 200);
    }

    async fn test_mode_events_are_listed_for_test_keys(app: TestApp) {
        let delivery = app.create_delivery(&app.test_key, &berlin_delivery()).await;
        let delivery_id = delivery["id"].as_str().expect("id");
        let answer = app
            .get(
                &format!("/v1/events?delivery_id={delivery_id}&type=delivery.created"),
                &app.test_key,
            )
            .await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body["events"][0]["data"]["mode"], "test");
        assert_eq!(
            list(&app, &format!("?delivery_id={delivery_id}")).await["events"],
            json!([])
        );
    }

    async fn events_and_attempts_are_kept_thirty_days(app: TestApp) {
        let receiver = Receiver::start().await;
        create_endpoint(&app, &app.live_key, &receiver.url, json!(["delivery.created"])).await;
        let delivery_id = live_delivery(&app).await;
        let event_id = event_ids(&list(&app, &format!("?delivery_id={delivery_id}")).await)[0].clone();
        attempts_when(&app, &app.live_key, &event_id, Duration::from_secs(10), |a| {
            !a.is_empty()
        })
        .await;

        app.clock.advance(Duration::from_secs(29 * 24 * 3600));
        purge(&app).await;
        let kept = app.get(&format!("/v1/events/{event_id}"), &app.live_key).await;
        assert_eq!(kept.status, 200);
        assert_eq!(kept.body["webhook_attempts"].as_array().map(Vec::len), Some(1));

        app.clock.advance(Duration::from_secs(2 * 24 * 3600));
        purge(&app).await;
        app.get(&format!("/v1/events/{event_id}"), &app.live_key)
            .await
            .assert_error(404, "not_found", None);
        assert!(!event_ids(&list(&app, "").await).contains(&event_id));
        use courier_orders::webhooks::entity::attempt;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let left = attempt::Entity::find()
            .filter(attempt::Column::EventId.eq(event_id.as_str()))
            .all(&app.core.db)
            .await
            .expect("attempts");
        assert!(left.is_empty());
    }
}

/// What the retention worker does, now.
async fn purge(app: &TestApp) {
    let now = app.clock.now_micros();
    courier_orders::webhooks::purge_expired(&app.core.writer, now)
        .await
        .expect("purge attempts");
    courier_orders::events::history::purge_expired(&app.core.writer, now)
        .await
        .expect("purge events");
}

const DAY: u64 = 24 * 3600;

/// On PostgreSQL the history is partitioned by day (docs/scaling.md
/// "History partitions"): an event of a day past the created partitions
/// lands in the default partition and moves into its day's partition when
/// the retention worker creates it, and retention drops an old day as a
/// whole partition while the rows of the days kept stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_history_days_are_partitions_dropped_whole() {
    use courier_store::day_partitions::{self, COURIER_TRAILS, DAYS_AHEAD, EVENTS, WEBHOOK_ATTEMPTS};
    crate::harness::limited(async {
        let Some(app) = TestApp::spawn(Backend::Postgres).await else {
            return;
        };
        let first = first_event_of(&app, &live_delivery(&app).await).await;
        let first_day = partition_of(&app, &first).await;
        assert!(first_day.starts_with("events_p"), "{first_day}");

        app.clock.advance(Duration::from_secs(20 * DAY));
        let later = first_event_of(&app, &live_delivery(&app).await).await;
        assert_eq!(partition_of(&app, &later).await, "events_default");
        let now = app.clock.now_micros();
        day_partitions::create_ahead(&app.core.writer, now)
            .await
            .expect("create partitions");
        let today = now.div_euclid(DAY as i64 * 1_000_000);
        for history in [EVENTS, WEBHOOK_ATTEMPTS, COURIER_TRAILS] {
            let days = day_partitions::partitions(&app.core.writer, &history)
                .await
                .expect("partitions");
            for day in today..=today + DAYS_AHEAD {
                assert!(
                    days.iter().any(|(_, d)| *d == day),
                    "{} day {day}: {days:?}",
                    history.table
                );
            }
        }
        assert_eq!(
            partition_of(&app, &later).await,
            day_partitions::partition_name(&EVENTS, today).expect("name")
        );

        app.clock.advance(Duration::from_secs(11 * DAY));
        purge(&app).await;
        let days = day_partitions::partitions(&app.core.writer, &EVENTS)
            .await
            .expect("partitions");
        assert!(days.iter().all(|(name, _)| *name != first_day), "{days:?}");
        app.get(&format!("/v1/events/{first}"), &app.live_key)
            .await
            .assert_error(404, "not_found", None);
        assert_eq!(app.get(&format!("/v1/events/{later}"), &app.live_key).await.status, 200);
    })
    .await;
}

async fn first_event_of(app: &TestApp, delivery_id: &str) -> String {
    event_ids(&list(app, &format!("?delivery_id={delivery_id}")).await)[0].clone()
}

/// The partition holding event `id`.
async fn partition_of(app: &TestApp, id: &str) -> String {
    use sea_orm::{ConnectionTrait, DbBackend, Statement};
    let row = app
        .core
        .writer
        .query_one_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT tableoid::regclass::text AS partition FROM events WHERE id = $1",
            [id.into()],
        ))
        .await
        .expect("query")
        .expect("the event's row");
    row.try_get("", "partition").expect("partition")
}
