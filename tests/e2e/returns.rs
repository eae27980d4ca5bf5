//! Returns (docs/guide.md "Returns"): a failed handover books the return
//! that brings the goods back, held at once by the courier who has them,
//! priced at 60 % of the route, linked both ways, carried to `delivered`;
//! `dispose` books none; test mode shows it with `test_scenario:
//! "returned"`; a return is never redelivered; and a delivery gets exactly
//! one return on two cores, one of them killed with SIGKILL mid-run.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::courier_app_service_client::CourierAppServiceClient;
use courier::app::v1::watch_assignments_response::Update;
use courier::v1 as pb;
use courier_identity::accounts::memberships::Role;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde_json::{Value, json};

use crate::couriers::{App, file, join, next, png, proof};
use crate::deliveries::berlin_delivery;
use crate::dropoff_pin::{carry_to_the_dropoff, to_the_dropoff};
use crate::harness::{Backend, TestApp, together, unique_suffix, wait_until};
use crate::lifecycle::{RUN_LIMIT, default_run};
use crate::webhook_crash::CoreProcess;

fn id_of(delivery: &Value) -> String {
    delivery["id"].as_str().expect("id").to_owned()
}

/// Courier `courier` fails the handover of `id` through `client` (a core's
/// courier app API); the job as answered.
async fn fail(client: &mut CourierAppServiceClient<tonic::transport::Channel>, courier: &App, id: &str) -> apb::Job {
    let request = courier.request(apb::FailHandoverRequest { job_id: id.to_owned() });
    client
        .fail_handover(request)
        .await
        .expect("failed handover")
        .into_inner()
        .job
        .expect("job")
}

/// `courier` carries the job `id`, which they hold, to `delivered`, a
/// photo at each end.
async fn carry(courier: &App, id: &str) {
    carry_to_the_dropoff(courier, id).await;
    let mut client = courier.client.clone();
    let photo = proof(
        id,
        pb::CheckpointKind::Dropoff,
        vec![file(pb::ArtifactKind::Photo, "goods.png", png(4))],
        "return-dropoff",
    );
    client
        .submit_proof(courier.request(photo))
        .await
        .expect("dropoff proof");
    client
        .complete_handover(courier.request(apb::CompleteHandoverRequest { job_id: id.to_owned() }))
        .await
        .expect("handover");
}

fn with(member: &str, value: &str) -> Value {
    let mut body = berlin_delivery();
    body[member] = json!(value);
    body
}

/// The ids of the returns stored for each of `ids`.
async fn returns_of(app: &TestApp, ids: &[String]) -> Vec<Vec<String>> {
    let backend = app.core.db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "SELECT id FROM deliveries WHERE return_of = $1",
        _ => "SELECT id FROM deliveries WHERE return_of = ?",
    };
    let mut found = Vec::new();
    for id in ids {
        let rows = app
            .core
            .db
            .query_all_raw(Statement::from_sql_and_values(backend, sql, [id.as_str().into()]))
            .await
            .expect("returns");
        found.push(rows.iter().map(|row| row.try_get("", "id").expect("id")).collect());
    }
    found
}

e2e! {
    async fn a_failed_handover_books_the_return_held_by_the_same_courier(app: TestApp) {
        let original = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        assert_eq!(original["undeliverable_action"], "return_to_pickup");
        assert!(original["return_of"].is_null() && original["return_delivery_id"].is_null(), "{original:#}");
        let id = id_of(&original);
        let kim = join(&app, "", "Kim Return", &format!("kim.{}@example.com", unique_suffix()), "car").await;
        to_the_dropoff(&app, &kim, &id).await;
        let mut stream = kim
            .client
            .clone()
            .watch_assignments(kim.request(apb::WatchAssignmentsRequest::default()))
            .await
            .expect("watch")
            .into_inner();
        assert!(matches!(next(&mut stream).await.update, Some(Update::Snapshot(_))));

        let failed_job = fail(&mut kim.client.clone(), &kim, &id).await;
        assert!(!failed_job.active);
        let return_id = failed_job.return_job_id.clone().expect("the failed job names its return");
        // Kim's app hears of the return, in hand.
        let held = loop {
            match next(&mut stream).await.update {
                Some(Update::Job(job)) if job.id == return_id => break job,
                _ => continue,
            }
        };
        assert!(held.active, "{held:?}");
        assert_eq!(held.return_of.as_deref(), Some(id.as_str()));
        assert_eq!(held.status(), pb::DeliveryStatus::CourierAssigned);
        assert_eq!(held.next_move(), apb::JobMove::ArriveAtPickup);

        let cancelled = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!(cancelled["status"], "cancelled");
        assert_eq!(cancelled["cancellation_reason"], "cancelled_by_maxmove");
        assert_eq!(cancelled["return_delivery_id"], return_id.as_str());
        let answer = app.get(&format!("/v1/deliveries/{return_id}"), &app.live_key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let back = answer.body;
        assert_eq!(back["status"], "courier_assigned");
        assert_eq!(back["mode"], "live");
        assert_eq!(back["return_of"], id.as_str());
        assert!(back["return_delivery_id"].is_null());
        assert_eq!(back["undeliverable_action"], "dispose", "a return is never returned again");
        // From the dropoff back to the pickup, each place with its contact.
        assert_eq!(back["pickup"], original["dropoff"]);
        assert_eq!(back["dropoff"], original["pickup"]);
        assert_eq!(back["vehicle_type_id"], original["vehicle_type_id"]);
        assert_eq!(back["courier"]["name"], cancelled["courier"]["name"]);
        assert_ne!(back["tracking_url"], original["tracking_url"]);
        assert!(back["tracking_available_at"].is_string());
        // 60 % of the route price, rounded half up, as its only line.
        let route_cents = original["breakdown"]["route_cents"].as_i64().expect("route price");
        let price = (route_cents * 60 + 50) / 100;
        assert_eq!(back["amount_cents"], price, "{back:#}");
        assert_eq!(back["breakdown"]["route_cents"], price);
        assert_eq!(back["currency"], original["currency"]);

        let events = app.delivery_events(&app.live_key, &id).await;
        assert_eq!(events.last().map(|e| e.0.as_str()), Some("delivery.cancelled"), "{events:?}");
        let listed = app.get(&format!("/v1/events?delivery_id={id}&limit=1"), &app.live_key).await.body;
        assert_eq!(listed["events"][0]["data"]["return_delivery_id"], return_id.as_str(), "the cancellation names the return");
        let return_events = |status: &str| {
            [("delivery.created", status), ("delivery.courier_assigned", status)].map(|(t, s)| (t.to_owned(), s.to_owned()))
        };
        assert_eq!(app.delivery_events(&app.live_key, &return_id).await, return_events("courier_assigned"));

        // Kim brings the goods back.
        carry(&kim, &return_id).await;
        let delivered = app.get(&format!("/v1/deliveries/{return_id}"), &app.live_key).await.body;
        assert_eq!(delivered["status"], "delivered", "{delivered:#}");
        let events = app.delivery_events(&app.live_key, &return_id).await;
        assert_eq!(events.last().map(|e| e.0.as_str()), Some("delivery.delivered"), "{events:?}");
        assert_eq!(
            returns_of(&app, std::slice::from_ref(&id)).await[0].len(),
            1,
            "one return"
        );

        // The console links the two.
        crate::console_pages::user(&app, "owner@example.com", Role::Owner).await;
        let owner = crate::console_pages::sign_in(&app, "owner@example.com").await;
        let page_of = |of: &str| app.url(&format!("/console/w/{}/deliveries/{of}?mode=live", app.workspace_id));
        let (status, page, _) = crate::console_pages::get(&owner, &page_of(&return_id)).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("id=\"return-of\"") && page.contains(&page_of(&id).replace(&app.url(""), "")), "{page}");
        let (_, page, _) = crate::console_pages::get(&owner, &page_of(&id)).await;
        assert!(page.contains("id=\"return-delivery\"") && page.contains(&return_id), "{page}");

        // A return is not delivered again; its original is.
        let answer = app.post_idempotent(&format!("/v1/deliveries/{return_id}/redeliver"), &app.live_key, &unique_suffix(), &json!({})).await;
        answer.assert_error(409, "not_redeliverable", None);
        let answer = app.post_idempotent(&format!("/v1/deliveries/{id}/redeliver"), &app.live_key, &unique_suffix(), &json!({})).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        assert_eq!(answer.body["undeliverable_action"], "return_to_pickup");
        assert!(answer.body["return_of"].is_null());
    }

    async fn a_delivery_booked_to_be_disposed_of_gets_no_return(app: TestApp) {
        let created = app.create_delivery(&app.live_key, &with("undeliverable_action", "dispose")).await;
        assert_eq!(created["undeliverable_action"], "dispose");
        let id = id_of(&created);
        let kim = join(&app, "", "Kim Dispose", &format!("kim.{}@example.com", unique_suffix()), "car").await;
        to_the_dropoff(&app, &kim, &id).await;
        let job = fail(&mut kim.client.clone(), &kim, &id).await;
        assert_eq!(job.return_job_id, None);
        let ended = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!((ended["status"].as_str(), ended["cancellation_reason"].as_str()), (Some("cancelled"), Some("cancelled_by_maxmove")));
        assert!(ended["return_delivery_id"].is_null(), "{ended:#}");
        assert!(returns_of(&app, &[id]).await[0].is_empty());
        let jobs = kim.client.clone().list_jobs(kim.request(apb::ListJobsRequest::default())).await.expect("jobs").into_inner().jobs;
        assert!(jobs.iter().all(|j| !j.active), "nothing left in hand: {jobs:?}");
    }

    async fn a_bad_undeliverable_action_is_refused_and_books_nothing(app: TestApp) {
        let before = app.get("/v1/deliveries?limit=100", &app.test_key).await.body["deliveries"].as_array().map(Vec::len);
        for (body, param) in [
            (with("undeliverable_action", "burn"), "undeliverable_action"),
            ({
                let mut body = berlin_delivery();
                body["undeliverable_action"] = json!(7);
                body
            }, "undeliverable_action"),
            ({
                let mut body = with("test_scenario", "returned");
                body["undeliverable_action"] = json!("dispose");
                body
            }, "test_scenario"),
        ] {
            let answer = app.post_idempotent("/v1/deliveries", &app.test_key, &unique_suffix(), &body).await;
            answer.assert_error(400, "invalid_request", Some(param));
        }
        let after = app.get("/v1/deliveries?limit=100", &app.test_key).await.body["deliveries"].as_array().map(Vec::len);
        assert_eq!(before, after);
    }

    async fn the_returned_scenario_fails_at_the_dropoff_and_simulates_the_return(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &with("test_scenario", "returned")).await;
        let id = id_of(&created);
        let failed = app.create_delivery(&app.test_key, &with("test_scenario", "delivery_failed")).await;
        let failed_id = id_of(&failed);

        let ended = app.wait_for_status(&app.test_key, &id, "cancelled", RUN_LIMIT).await;
        assert_eq!(ended["cancellation_reason"], "cancelled_by_maxmove");
        let return_id = ended["return_delivery_id"].as_str().expect("return").to_owned();
        let events = app.delivery_events(&app.test_key, &id).await;
        let (last, before) = events.split_last().expect("events");
        assert_eq!(last.0, "delivery.cancelled");
        assert_eq!(before, &default_run()[..before.len()]);
        assert_eq!(before.last().map(|e| e.1.as_str()), Some("at_dropoff"));

        let back = app.wait_for_status(&app.test_key, &return_id, "delivered", RUN_LIMIT).await;
        assert_eq!(back["return_of"], id.as_str());
        assert_eq!(back["mode"], "test");
        assert_eq!(back["pickup"], created["dropoff"]);
        assert!(back["test_scenario"].is_null());
        let events = app.delivery_events(&app.test_key, &return_id).await;
        assert_eq!(events.first().map(|e| e.0.as_str()), Some("delivery.created"));
        assert_eq!(events.last().map(|e| e.0.as_str()), Some("delivery.delivered"), "{events:?}");

        // `delivery_failed` ends as it always did.
        let ended = app.wait_for_status(&app.test_key, &failed_id, "cancelled", RUN_LIMIT).await;
        assert!(ended["return_delivery_id"].is_null(), "{ended:#}");
        assert!(returns_of(&app, &[failed_id]).await[0].is_empty());
    }
}

/// Two cores on one PostgreSQL database, the second a process of its own.
/// The same failed handovers are sent through both at once; then test
/// deliveries that fail at the dropoff are simulated by both, and the
/// second is killed with SIGKILL mid-run. Every failed delivery has exactly
/// one return, and every return runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_handover_gets_exactly_one_return_on_two_cores_when_one_is_killed() {
    crate::harness::limited(async {
        const LIVE: usize = 6;
        const SIMULATED: usize = 24;
        let step = |config: &mut courier_store::config::CoreConfig| config.simulator_step = Duration::from_millis(100);
        let Some(app) = TestApp::spawn_with(Backend::Postgres, step).await else {
            return;
        };
        let second = CoreProcess::start(
            &app,
            &[("COURIER_DISPATCH", "external"), ("COURIER_SIMULATOR_STEP", "100ms")],
        );
        let second_app = CourierAppServiceClient::connect(second.grpc_url.clone())
            .await
            .expect("the second core's courier app API");

        // The same FailHandover through both cores at once: both answer it,
        // one books the return.
        let mut live = Vec::new();
        for n in 0..LIVE {
            let id = id_of(&app.create_delivery(&app.live_key, &berlin_delivery()).await);
            let courier = join(
                &app,
                "",
                &format!("Replica Courier {n}"),
                &format!("replica.{n}.{}@example.com", unique_suffix()),
                "car",
            )
            .await;
            to_the_dropoff(&app, &courier, &id).await;
            live.push((id, courier));
        }
        let answers = together(live.iter().flat_map(|(id, courier)| {
            [courier.client.clone(), second_app.clone()].map(|client| {
                let courier = App {
                    client,
                    token: courier.token.clone(),
                    courier: courier.courier.clone(),
                };
                let id = id.clone();
                async move {
                    // The loser of the race may be told the job changed
                    // meanwhile; sent again, as the phone's outbox does, it
                    // is answered as the courier's own move.
                    let mut client = courier.client.clone();
                    let request = || courier.request(apb::FailHandoverRequest { job_id: id.clone() });
                    let answer = match client.fail_handover(request()).await {
                        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                            client.fail_handover(request()).await
                        }
                        answer => answer,
                    };
                    answer.expect("failed handover").into_inner().job.expect("job")
                }
            })
        }))
        .await;
        for (pair, (id, _)) in answers.chunks(2).zip(&live) {
            assert_eq!(
                pair[0].return_job_id, pair[1].return_job_id,
                "{id}: both answers name the one return"
            );
            assert!(pair[0].return_job_id.is_some(), "{id}");
        }
        let live_ids: Vec<String> = live.iter().map(|(id, _)| id.clone()).collect();
        for (id, returns) in live_ids.iter().zip(returns_of(&app, &live_ids).await) {
            assert_eq!(returns.len(), 1, "{id}: {returns:?}");
            let events = app.delivery_events(&app.live_key, id).await;
            assert_eq!(
                events.iter().filter(|e| e.0 == "delivery.cancelled").count(),
                1,
                "{id}: {events:?}"
            );
        }

        // Simulated by both; the second killed once some returns exist.
        let app = Arc::new(app);
        let simulated: Vec<String> = together((0..SIMULATED).map(|_| {
            let app = app.clone();
            async move {
                id_of(
                    &app.create_delivery(&app.test_key, &with("test_scenario", "returned"))
                        .await,
                )
            }
        }))
        .await;
        wait_until("a quarter of the returns booked", RUN_LIMIT, async || {
            let booked = returns_of(&app, &simulated)
                .await
                .iter()
                .filter(|r| !r.is_empty())
                .count();
            if booked >= SIMULATED / 4 {
                Ok(())
            } else {
                Err(format!("{booked} booked"))
            }
        })
        .await;
        second.kill();

        let mut return_ids = HashSet::new();
        for id in &simulated {
            let ended = app.wait_for_status(&app.test_key, id, "cancelled", RUN_LIMIT).await;
            let return_id = ended["return_delivery_id"].as_str().expect("return").to_owned();
            let back = app
                .wait_for_status(&app.test_key, &return_id, "delivered", RUN_LIMIT)
                .await;
            assert_eq!(back["return_of"], id.as_str());
            let events = app.delivery_events(&app.test_key, id).await;
            assert_eq!(
                events.iter().filter(|e| e.0 == "delivery.cancelled").count(),
                1,
                "{id}: {events:?}"
            );
            let events = app.delivery_events(&app.test_key, &return_id).await;
            let created = events.iter().filter(|e| e.0 == "delivery.created").count();
            let delivered = events.iter().filter(|e| e.0 == "delivery.delivered").count();
            assert_eq!((created, delivered), (1, 1), "{return_id}: {events:?}");
            return_ids.insert(return_id);
        }
        assert_eq!(return_ids.len(), SIMULATED);
        for (id, returns) in simulated.iter().zip(returns_of(&app, &simulated).await) {
            assert_eq!(returns.len(), 1, "{id}: {returns:?}");
        }
        // The live returns are still in their couriers' hands.
        for (id, courier) in &live {
            let jobs = courier
                .client
                .clone()
                .list_jobs(courier.request(apb::ListJobsRequest::default()))
                .await
                .expect("jobs")
                .into_inner()
                .jobs;
            let held: Vec<_> = jobs.iter().filter(|j| j.active).collect();
            assert_eq!(held.len(), 1, "{id}: {jobs:?}");
            assert_eq!(held[0].return_of.as_deref(), Some(id.as_str()));
        }
    })
    .await;
}
