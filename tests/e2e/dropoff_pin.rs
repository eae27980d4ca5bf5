//! The dropoff PIN (docs/guide.md "Dropoff PIN"): booked with
//! `proof_of_delivery.dropoff.pin`, shown to the client and on the tracking
//! page, entered by the courier at the handover; 5 wrong tries block it
//! until a dispatcher resets the count; never with `leave_at_door`.

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::v1 as pb;
use serde_json::{Value, json};

use crate::couriers::{App, assign, file, join, png, proof, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::TestApp;
use crate::lifecycle::RUN_LIMIT;
use crate::proofs::pod_workspace;

fn with_pin() -> Value {
    let mut body = berlin_delivery();
    body["proof_of_delivery"] = json!({ "dropoff": { "photos": 1, "pin": true } });
    body
}

async fn tracking_page(app: &TestApp, delivery: &Value) -> String {
    let url = delivery["tracking_url"].as_str().expect("tracking_url");
    let token = url.rsplit('/').next().expect("token");
    let answer = app.send(app.http.get(app.url(&format!("/t/{token}")))).await;
    assert_eq!(answer.status, 200);
    answer.body.as_str().expect("html").to_owned()
}

/// The dropoff proof as the courier app sends it, with `pin` entered.
pub fn dropoff(id: &str, pin: Option<&str>, submission: usize) -> apb::SubmitProofRequest {
    apb::SubmitProofRequest {
        pin: pin.map(str::to_owned),
        person_name: None,
        ..proof(
            id,
            pb::CheckpointKind::Dropoff,
            vec![file(pb::ArtifactKind::Photo, "door.png", png(7))],
            &format!("pin-{submission:04}"),
        )
    }
}

/// Kim takes `id` to its dropoff (the pickup asks for one photo).
pub async fn to_the_dropoff(app: &TestApp, kim: &App, id: &str) {
    assign(app, id, &kim.courier.id).await.expect("assign");
    carry_to_the_dropoff(kim, id).await;
}

/// Kim, who holds `id`, carries it from the way to its pickup to its
/// dropoff, a photo at the pickup.
pub async fn carry_to_the_dropoff(kim: &App, id: &str) {
    let mut client = kim.client.clone();
    let job = || id.to_owned();
    client
        .arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: job() }))
        .await
        .expect("arrive");
    let pickup = proof(
        id,
        pb::CheckpointKind::Pickup,
        vec![file(pb::ArtifactKind::Photo, "parcel.png", png(1))],
        "pickup-0001",
    );
    client.submit_proof(kim.request(pickup)).await.expect("pickup proof");
    client
        .pick_up(kim.request(apb::PickUpRequest { job_id: job() }))
        .await
        .expect("pick up");
    client
        .start_transit(kim.request(apb::StartTransitRequest { job_id: job() }))
        .await
        .expect("transit");
    client
        .arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: job() }))
        .await
        .expect("at dropoff");
}

pub fn wrong(pin: &str) -> String {
    let digit = |c: char| char::from(b'0' + (c as u8 - b'0' + 1) % 10);
    pin.chars().map(digit).collect()
}

e2e! {
    async fn the_right_pin_hands_over_five_wrong_ones_block_until_a_dispatcher_resets(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let created = app.create_delivery(&pod.live_key, &with_pin()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        assert_eq!(created["proof_of_delivery"]["dropoff"]["pin"], true, "{created:#}");
        let pin = created["dropoff_pin"].as_str().expect("dropoff_pin").to_owned();
        assert!(pin.len() == 4 && pin.chars().all(|c| c.is_ascii_digit()), "{pin}");
        let read = app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await;
        assert_eq!(read.body["dropoff_pin"], pin.as_str());
        // The recipient, holding the link, sees it.
        let page = tracking_page(&app, &created).await;
        assert!(page.contains(&format!("<p class=\"big pin\">{pin}</p>")), "{page}");

        let kim = join(&app, "", "Kim Courier", "kim-pin@example.com", "car").await;
        to_the_dropoff(&app, &kim, &id).await;
        let mut client = kim.client.clone();
        let shown = client.get_job(kim.request(apb::GetJobRequest { job_id: id.clone() })).await.expect("job").into_inner().job.expect("job");
        assert!(shown.proof.and_then(|p| p.dropoff).is_some_and(|d| d.pin), "the app asks for the PIN");

        // No PIN: refused, naming it, and not counted.
        let status = client.submit_proof(kim.request(dropoff(&id, None, 0))).await.expect_err("no pin");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("pin".into())), "{}", status.message());
        // Four wrong tries, each counting down.
        for (try_no, left) in [(1, "4 tries"), (2, "3 tries"), (3, "2 tries"), (4, "1 try")] {
            let status = client.submit_proof(kim.request(dropoff(&id, Some(&wrong(&pin)), try_no))).await.expect_err("wrong pin");
            assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "pin_incorrect", Some("pin".into())));
            assert!(status.message().contains(&format!("{left} left")), "{try_no}: {}", status.message());
        }
        // The fourth sent again (the phone never heard the answer): answered
        // as it was, not counted twice.
        let status = client.submit_proof(kim.request(dropoff(&id, Some(&wrong(&pin)), 4))).await.expect_err("resent");
        assert_eq!(refusal(&status).1, "pin_incorrect");
        assert!(status.message().contains("1 try left"), "{}", status.message());
        let stored = courier_orders::deliveries::reload(&app.core.db, &id).await.expect("delivery");
        assert_eq!(stored.dropoff_pin_failures, 4);
        let status = client.submit_proof(kim.request(dropoff(&id, Some("9999x"), 5))).await.expect_err("fifth");
        assert_eq!(refusal(&status).1, "pin_incorrect");
        assert!(status.message().contains("waits for a dispatcher"), "{}", status.message());
        // Blocked now: even the right PIN is refused, and the handover waits.
        let status = client.submit_proof(kim.request(dropoff(&id, Some(&pin), 6))).await.expect_err("blocked");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "handover_blocked", None), "{}", status.message());
        let status = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect_err("no proof yet");
        assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{}", status.message());
        let stored = courier_orders::deliveries::reload(&app.core.db, &id).await.expect("delivery");
        assert!(stored.handover_blocked() && stored.dropoff_pin_failures == 5, "{stored:?}");
        // The dispatch map flags it for a dispatcher.
        let mut map = app.dispatch().await.watch_dispatch_map(app.dispatch_request(ipb::WatchDispatchMapRequest::default())).await.expect("map").into_inner();
        let snapshot = tokio::time::timeout(RUN_LIMIT, map.message()).await.expect("in time").expect("map").expect("snapshot");
        let job = snapshot.jobs.iter().find(|j| j.job_id == id).expect("on the map");
        assert!(job.handover_blocked, "{job:?}");

        // A dispatcher lets it go on; a delivery without a PIN has none to reset.
        let reset = app.dispatch().await.reset_dropoff_pin(app.dispatch_request(ipb::ResetDropoffPinRequest { delivery_id: id.clone() })).await.expect("reset").into_inner();
        assert!(!reset.delivery.expect("delivery").handover_blocked);
        let plain = app.create_delivery(&pod.live_key, &berlin_delivery()).await;
        let status = app.dispatch().await.reset_dropoff_pin(app.dispatch_request(ipb::ResetDropoffPinRequest {
            delivery_id: plain["id"].as_str().expect("id").into(),
        })).await.expect_err("no pin");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("delivery_id".into())));

        // The right PIN now hands over.
        client.submit_proof(kim.request(dropoff(&id, Some(&pin), 7))).await.expect("right pin");
        let done = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover");
        assert_eq!(done.into_inner().job.expect("job").status(), pb::DeliveryStatus::Delivered);
        // Once ended, the page no longer shows it.
        let page = tracking_page(&app, &created).await;
        assert!(!page.contains("id=\"dropoff-pin\""), "{page}");
    }

    async fn a_pin_with_leave_at_door_is_refused_and_a_pin_where_none_is_asked_too(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let before = app.get("/v1/deliveries?limit=100", &pod.live_key).await.body["data"].as_array().map(Vec::len);
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({ "dropoff": { "pin": true, "leave_at_door": true } });
        let answer = app.post_idempotent("/v1/deliveries", &pod.live_key, "pin-door-1", &body).await;
        answer.assert_error(400, "invalid_request", Some("proof_of_delivery.dropoff.pin"));
        assert!(answer.body["error"]["message"].as_str().expect("message").contains("leave_at_door"), "{:#}", answer.body);
        body["proof_of_delivery"] = json!({ "dropoff": { "pin": "1234" } });
        let answer = app.post_idempotent("/v1/deliveries", &pod.live_key, "pin-door-2", &body).await;
        answer.assert_error(400, "invalid_request", Some("proof_of_delivery.dropoff.pin"));
        let after = app.get("/v1/deliveries?limit=100", &pod.live_key).await.body["data"].as_array().map(Vec::len);
        assert_eq!(before, after, "nothing stored");

        // Without the rule there is no PIN, and a PIN entered is refused.
        let created = app.create_delivery(&pod.live_key, &berlin_delivery()).await;
        assert!(created["dropoff_pin"].is_null(), "{created:#}");
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Courier", "kim-nopin@example.com", "car").await;
        to_the_dropoff(&app, &kim, &id).await;
        let status = kim.client.clone().submit_proof(kim.request(dropoff(&id, Some("1234"), 1))).await.expect_err("no pin asked");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("pin".into())));
    }

    async fn a_test_delivery_with_a_pin_is_delivered_by_the_simulator(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let created = app.create_delivery(&pod.test_key, &with_pin()).await;
        let id = created["id"].as_str().expect("id");
        assert!(created["dropoff_pin"].is_string(), "{created:#}");
        let delivered = app.wait_for_status(&pod.test_key, id, "delivered", RUN_LIMIT).await;
        assert_eq!(delivered["dropoff_pin"], created["dropoff_pin"]);
    }
}
