//! A courier's moves at their edges (docs/couriers.md "Jobs", "Positions"):
//! page sizes out of range, moves on a job that has ended or left the
//! courier (refused as such, while a job never theirs stays not found),
//! proofs resent after the job ended, proof files told by their bytes and
//! served only as attachments, positions dated too far back or ahead, and a
//! workspace without proof of delivery, whose courier is asked for none.

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};
use serde_json::{Value, json};

use crate::console_pages::{self, PASSWORD as CONSOLE_PASSWORD};
use crate::couriers::{App, assign, at, file, join, png, proof, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::TestApp;

/// A business workspace whose plan includes proof of delivery: its id, a
/// live and a test key.
async fn pod_workspace(app: &TestApp) -> (String, String, String) {
    let plan = ipb::Plan {
        proof_of_delivery: true,
        ..Default::default()
    };
    let workspace = app.create_workspace(ipb::WorkspaceKind::Business, plan).await;
    let live = app.create_key(&workspace, pb::Mode::Live, &[]).await;
    let test = app.create_key(&workspace, pb::Mode::Test, &[]).await;
    (workspace, live, test)
}

async fn live_job(app: &TestApp, key: &str) -> String {
    let created = app.create_delivery(key, &berlin_delivery()).await;
    created["id"].as_str().expect("id").to_owned()
}

fn photo_proof(job_id: &str, checkpoint: pb::CheckpointKind, seed: u8, submission_id: &str) -> apb::SubmitProofRequest {
    proof(
        job_id,
        checkpoint,
        vec![file(pb::ArtifactKind::Photo, "parcel.png", png(seed))],
        submission_id,
    )
}

/// What a refused call answered: gRPC code, public code, `param`, and
/// the message.
fn refused(status: &tonic::Status) -> (tonic::Code, &'static str, Option<String>, String) {
    let (code, public, param) = refusal(status);
    (code, public, param, status.message().to_owned())
}

#[track_caller]
fn assert_ended(status: tonic::Status, what: &str) {
    let (code, public, param, message) = refused(&status);
    assert_eq!(
        (code, public, param),
        (tonic::Code::FailedPrecondition, "conflict", None),
        "{what}: {message}"
    );
    assert!(message.contains("has ended"), "{what}: {message}");
}

#[track_caller]
fn assert_not_found(status: tonic::Status, what: &str) {
    let (code, public, _, message) = refused(&status);
    assert_eq!(
        (code, public),
        (tonic::Code::NotFound, "not_found"),
        "{what}: {message}"
    );
    assert_eq!(message, "No such job.", "{what}");
}

e2e! {
    async fn list_jobs_refuses_a_page_size_out_of_range_for_either_list(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        for finished in [false, true] {
            for page_size in [-1, -100, 101, i32::MAX, i32::MIN] {
                let request = apb::ListJobsRequest { finished, page_size, page_token: String::new() };
                let status = client.list_jobs(kim.request(request)).await.expect_err("out of range");
                assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("page_size".into())), "{finished} {page_size}");
                assert!(status.message().contains("1 to 100"), "{}", status.message());
            }
            // 0 keeps its documented meaning (20), 1 and 100 are in range.
            for page_size in [0, 1, 100] {
                let request = apb::ListJobsRequest { finished, page_size, page_token: String::new() };
                client.list_jobs(kim.request(request)).await.expect("in range");
            }
        }
    }

    async fn moves_on_an_ended_job_are_refused_as_such_and_a_job_never_theirs_is_not_found(app: TestApp) {
        let (_, live_key, test_key) = pod_workspace(&app).await;
        let id = live_job(&app, &live_key).await;
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let lou = join(&app, "", "Lou Courier", "lou@example.com", "car").await;
        let mut client = kim.client.clone();
        let job = || apb::GetJobRequest { job_id: id.clone() };

        // In the wrong state while theirs: refused, naming the status.
        assign(&app, &id, &kim.courier.id).await.expect("assign");
        let status = client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect_err("not at the pickup");
        let (code, public, _, message) = refused(&status);
        assert_eq!((code, public), (tonic::Code::FailedPrecondition, "conflict"));
        assert!(message.contains("courier_assigned"), "{message}");
        let status = client.fail_handover(kim.request(apb::FailHandoverRequest { job_id: id.clone() })).await.expect_err("not at the dropoff");
        assert_eq!(refusal(&status).0, tonic::Code::FailedPrecondition);

        // Kim delivers it, with proof.
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        let pickup = photo_proof(&id, pb::CheckpointKind::Pickup, 1, "pickup-0001");
        client.submit_proof(kim.request(pickup.clone())).await.expect("pickup proof");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("pick up");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect("at dropoff");
        let dropoff = photo_proof(&id, pb::CheckpointKind::Dropoff, 2, "dropoff-0001");
        client.submit_proof(kim.request(dropoff.clone())).await.expect("dropoff proof");
        client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover");
        let shown = client.get_job(kim.request(job())).await.expect("their finished job").into_inner().job.expect("job");
        assert_eq!(shown.status(), pb::DeliveryStatus::Delivered);

        // Every other move on it now: FAILED_PRECONDITION, saying it ended.
        let r = || kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() });
        assert_ended(client.arrive_at_pickup(r()).await.expect_err("arrive"), "ArriveAtPickup");
        assert_ended(client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect_err("pick up"), "PickUp");
        assert_ended(client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect_err("transit"), "StartTransit");
        assert_ended(client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect_err("dropoff"), "ArriveAtDropoff");
        assert_ended(client.fail_handover(kim.request(apb::FailHandoverRequest { job_id: id.clone() })).await.expect_err("fail"), "FailHandover");
        assert_ended(client.report_pickup_no_show(kim.request(apb::ReportPickupNoShowRequest { job_id: id.clone() })).await.expect_err("no-show"), "ReportPickupNoShow");
        let fresh = apb::SubmitProofRequest { submission_id: "dropoff-0002".into(), ..dropoff.clone() };
        assert_ended(client.submit_proof(kim.request(fresh)).await.expect_err("a new proof"), "SubmitProof");
        // The move that ended it, and both proofs, resent: as the first time.
        let again = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("resent handover");
        assert_eq!(again.into_inner().job.expect("job").status(), pb::DeliveryStatus::Delivered);
        for resent in [pickup.clone(), dropoff.clone()] {
            let again = client.submit_proof(kim.request(resent)).await.expect("resent proof").into_inner().job.expect("job");
            assert_eq!(again.status(), pb::DeliveryStatus::Delivered);
        }
        let ended = app.get(&format!("/v1/deliveries/{id}"), &live_key).await;
        assert_eq!(ended.body["status"], "delivered", "nothing moved");
        let checkpoints = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &live_key).await;
        assert_eq!(checkpoints.body["checkpoints"].as_array().map(Vec::len), Some(2), "each proof recorded once");

        // A job never theirs, even with the right submission id: NOT_FOUND.
        let mut lou_client = lou.client.clone();
        assert_not_found(lou_client.get_job(lou.request(job())).await.expect_err("get"), "another's GetJob");
        assert_not_found(lou_client.arrive_at_pickup(lou.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect_err("arrive"), "another's move");
        assert_not_found(lou_client.submit_proof(lou.request(dropoff.clone())).await.expect_err("proof"), "another's proof");
        let test_delivery = live_job(&app, &test_key).await;
        for unknown in [test_delivery.as_str(), "del_unknown", "ord_unknown", "job_1"] {
            let status = client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: unknown.into() })).await.expect_err("never theirs");
            assert_not_found(status, unknown);
            let proof = photo_proof(unknown, pb::CheckpointKind::Pickup, 3, "pickup-0001");
            assert_not_found(client.submit_proof(kim.request(proof)).await.expect_err("never theirs"), unknown);
        }

        // Cancelled by the client while at the pickup: the proof resent
        // answers as the first time; a no-show report is refused, not
        // taken for a resend of a cancellation the courier never made.
        let second = live_job(&app, &live_key).await;
        assign(&app, &second, &kim.courier.id).await.expect("assign the next");
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: second.clone() })).await.expect("arrive");
        let pickup = photo_proof(&second, pb::CheckpointKind::Pickup, 4, "pickup-0002");
        client.submit_proof(kim.request(pickup.clone())).await.expect("pickup proof");
        let cancelled = app.post(&format!("/v1/deliveries/{second}/cancel"), &live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        let again = client.submit_proof(kim.request(pickup)).await.expect("resent after the cancel").into_inner().job.expect("job");
        assert_eq!((again.status(), again.outcome.as_deref()), (pb::DeliveryStatus::Cancelled, Some("cancelled:cancelled_by_you")));
        assert_ended(client.report_pickup_no_show(kim.request(apb::ReportPickupNoShowRequest { job_id: second.clone() })).await.expect_err("no-show"), "no-show after the cancel");
        assert_ended(client.pick_up(kim.request(apb::PickUpRequest { job_id: second.clone() })).await.expect_err("pick up"), "pick up after the cancel");
        let shown = app.get(&format!("/v1/deliveries/{second}"), &live_key).await;
        assert_eq!(shown.body["cancellation_reason"], "cancelled_by_you");

        // Taken back by dispatch: no longer theirs, said so.
        let third = live_job(&app, &live_key).await;
        assign(&app, &third, &kim.courier.id).await.expect("assign a third");
        assign(&app, &third, &lou.courier.id).await.expect("reassign");
        let status = client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: third.clone() })).await.expect_err("reassigned");
        let (code, public, _, message) = refused(&status);
        assert_eq!((code, public), (tonic::Code::FailedPrecondition, "conflict"));
        assert!(message.contains("no longer yours"), "{message}");
        client.get_job(kim.request(apb::GetJobRequest { job_id: third.clone() })).await.expect("still theirs to read");
    }

    async fn a_board_order_that_ended_refuses_further_moves(app: TestApp) {
        let (workspace, key) = crate::fleet::fleet(&app, true).await;
        let driver = join(&app, &workspace, "Dara Driver", "dara@example.com", "cargo_bike").await;
        let other = join(&app, &workspace, "Eli Driver", "eli@example.com", "cargo_bike").await;
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let id = order["order_id"].as_str().expect("order id").to_owned();
        assign(&app, &id, &driver.courier.id).await.expect("assign");
        let mut client = driver.client.clone();
        client.arrive_at_pickup(driver.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        client.report_pickup_no_show(driver.request(apb::ReportPickupNoShowRequest { job_id: id.clone() })).await.expect("no-show");
        // Resent: the job as it is; any other move: refused, it ended.
        client.report_pickup_no_show(driver.request(apb::ReportPickupNoShowRequest { job_id: id.clone() })).await.expect("resent");
        assert_ended(client.arrive_at_pickup(driver.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect_err("arrive"), "board ArriveAtPickup");
        assert_ended(client.complete_handover(driver.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect_err("handover"), "board CompleteHandover");
        let mut other_client = other.client.clone();
        let status = other_client.arrive_at_pickup(other.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect_err("never theirs");
        assert_not_found(status, "another driver's order");
    }

    async fn proof_files_are_images_or_pdfs_by_their_bytes_and_served_as_attachments(app: TestApp) {
        let (workspace, live_key, test_key) = pod_workspace(&app).await;
        let id = live_job(&app, &live_key).await;
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        assign(&app, &id, &kim.courier.id).await.expect("assign");
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");

        let html = b"<!doctype html><script>fetch('/console').then(r => r.text()).then(alert)</script>".to_vec();
        let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(document.domain)</script></svg>".to_vec();
        let with = |kind: pb::ArtifactKind, content_type: &str, content: &[u8]| {
            let odd = apb::ProofFile { kind: kind as i32, file_name: "proof".into(), content_type: content_type.into(), content: content.to_vec() };
            proof(&id, pb::CheckpointKind::Pickup, vec![file(pb::ArtifactKind::Photo, "parcel.png", png(1)), odd], "")
        };
        let cases = [
            (with(pb::ArtifactKind::Document, "text/html", &html), "files.1.content_type"),
            (with(pb::ArtifactKind::Signature, "image/svg+xml", &svg), "files.1.content_type"),
            (with(pb::ArtifactKind::Document, "text/html; charset=utf-8", &png(2)), "files.1.content_type"),
            // Declared as an image, the bytes still decide.
            (with(pb::ArtifactKind::Document, "image/jpeg", &html), "files.1.content"),
            (with(pb::ArtifactKind::Signature, "image/png", &svg), "files.1.content"),
            (with(pb::ArtifactKind::Photo, "application/octet-stream", &svg), "files.1.content"),
            // A photo is an image; a PDF is a document.
            (with(pb::ArtifactKind::Photo, "application/pdf", b"%PDF-1.7\n"), "files.1.content"),
        ];
        for (request, param) in cases {
            let status = client.submit_proof(kim.request(request)).await.expect_err("refused");
            let (code, public, got, message) = refused(&status);
            assert_eq!((code, public, got.as_deref()), (tonic::Code::InvalidArgument, "invalid_request", Some(param)), "{message}");
            assert!(message.contains("JPEG, PNG"), "{message}");
        }
        let shown = client.get_job(kim.request(apb::GetJobRequest { job_id: id.clone() })).await.expect("job").into_inner().job.expect("job");
        assert!(!shown.pickup_proof_submitted, "a refused proof records nothing");

        // A PNG sent as bytes of no declared type, and a PDF: stored and
        // served as what they are, as attachments.
        let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF".to_vec();
        let request = proof(&id, pb::CheckpointKind::Pickup, vec![
            apb::ProofFile { kind: pb::ArtifactKind::Photo as i32, file_name: "parcel".into(), content_type: "application/octet-stream".into(), content: png(3) },
            apb::ProofFile { kind: pb::ArtifactKind::Document as i32, file_name: "note.pdf".into(), content_type: "application/pdf".into(), content: pdf.clone() },
        ], "pickup-0001");
        client.submit_proof(kim.request(request)).await.expect("an image and a PDF");
        let read = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &live_key).await;
        assert_eq!(read.status, 200, "{:#}", read.body);
        let artifacts = read.body["checkpoints"][0]["artifacts"].as_array().expect("artifacts").clone();
        let types: Vec<&str> = artifacts.iter().map(|a| a["content_type"].as_str().expect("type")).collect();
        assert_eq!(types, ["image/png", "application/pdf"]);
        for (artifact, bytes) in artifacts.iter().zip([png(3), pdf]) {
            let response = app.http.get(artifact["download_url"].as_str().expect("url")).send().await.expect("download");
            let disposition = response.headers()["content-disposition"].to_str().expect("ascii").to_owned();
            assert!(disposition.starts_with("attachment;"), "{disposition}");
            assert_eq!(response.headers()["x-content-type-options"], "nosniff");
            assert_eq!(response.bytes().await.expect("bytes").to_vec(), bytes);
        }

        // The console serves them as attachments too, never inline.
        let now = app.clock.now_micros();
        let user = NewUser { email: "owner@example.com".into(), name: "Olga Owner".into(), password: CONSOLE_PASSWORD.into(), operator: false };
        let user = accounts::create_user(&app.core.writer, now, user).await.expect("user");
        memberships::add(&app.core.writer, now, &workspace, &user.id, Role::Owner).await.expect("membership");
        let browser = console_pages::sign_in(&app, "owner@example.com").await;
        let artifact_id = artifacts[0]["download_url"].as_str().expect("url").split('?').next().and_then(|p| p.rsplit('/').next()).expect("id").to_owned();
        let page = app.url(&format!("/console/w/{workspace}/deliveries/{id}/proof/{artifact_id}?mode=live"));
        let response = browser.get(&page).send().await.expect("console proof file");
        assert_eq!(response.status(), 200);
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        assert_eq!(header("content-type"), "image/png");
        assert_eq!(header("content-disposition"), "attachment; filename=\"parcel\"; filename*=UTF-8''parcel");
        assert_eq!(header("x-content-type-options"), "nosniff");

        // The simulator's sample proof of a test delivery: PNG photos and a
        // PNG signature, no SVG.
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({ "dropoff": { "signature": true, "recipient_name": true } });
        let created = app.create_delivery(&test_key, &body).await;
        let test_id = created["id"].as_str().expect("id").to_owned();
        app.wait_for_status(&test_key, &test_id, "delivered", std::time::Duration::from_secs(60)).await;
        let read = app.get(&format!("/v1/deliveries/{test_id}/proof-of-delivery"), &test_key).await;
        assert_eq!(read.status, 200, "{:#}", read.body);
        let samples: Vec<&Value> = read.body["checkpoints"].as_array().expect("checkpoints").iter().flat_map(|c| c["artifacts"].as_array().expect("artifacts")).collect();
        assert!(samples.iter().any(|a| a["kind"] == "signature"), "{samples:?}");
        for sample in samples {
            assert_eq!(sample["content_type"], "image/png", "{sample}");
            let response = app.http.get(sample["download_url"].as_str().expect("url")).send().await.expect("download");
            assert!(response.headers()["content-disposition"].to_str().expect("ascii").starts_with("attachment;"));
            assert!(response.bytes().await.expect("bytes").starts_with(b"\x89PNG\r\n\x1a\n"));
        }
    }

    async fn positions_taken_over_a_day_ago_or_ahead_of_time_are_refused_at_their_field(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let now = app.clock.now().timestamp();
        let taken = |seconds: i64| apb::Position {
            recorded_at: Some(prost_types::Timestamp { seconds, nanos: 0 }),
            ..at(&app, 52.52, 13.405)
        };
        let report = |positions: Vec<apb::Position>| kim.request(tokio_stream::iter([apb::ReportLocationsRequest { positions }]));
        // 1970, year 1, a day and a minute ago, ten minutes ahead.
        for (seconds, what) in [(0, "1970"), (-62_135_596_800, "year 1"), (now - 86_460, "a day ago"), (now + 600, "ahead")] {
            let status = client.report_locations(report(vec![taken(now), taken(seconds)])).await.expect_err(what);
            let (code, public, param, message) = refused(&status);
            assert_eq!((code, public, param.as_deref()), (tonic::Code::InvalidArgument, "invalid_request", Some("positions.1.recorded_at")), "{what}: {message}");
        }
        let profile = client.get_profile(kim.request(apb::GetProfileRequest {})).await.expect("profile").into_inner();
        assert!(profile.courier.expect("courier").last_position.is_none(), "nothing of a refused report is kept");
        // Within the bounds: accepted.
        let within = client.report_locations(report(vec![taken(now - 86_340), taken(now + 240), taken(now)])).await.expect("within the bounds");
        assert_eq!(within.into_inner().accepted, 3);

        // The dispatch service's stream takes the same bounds.
        let id = live_job(&app, &app.live_key).await;
        assign(&app, &id, &kim.courier.id).await.expect("assign");
        let at_time = |seconds: i64| ipb::StreamCourierLocationsRequest {
            delivery_id: id.clone(), latitude: 52.52, longitude: 13.405,
            recorded_at: Some(prost_types::Timestamp { seconds, nanos: 0 }), dropoff_eta: None,
        };
        for seconds in [0, now - 86_460, now + 600] {
            let status = app.dispatch().await.stream_courier_locations(app.dispatch_request(tokio_stream::iter([at_time(seconds)]))).await.expect_err("out of bounds");
            assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("recorded_at".into())), "{seconds}");
        }
        app.dispatch().await.stream_courier_locations(app.dispatch_request(tokio_stream::iter([at_time(now - 60)]))).await.expect("within");
    }

    async fn a_workspace_without_proof_of_delivery_asks_the_courier_for_none(app: TestApp) {
        // The harness's own workspace has a plan without proof of delivery.
        let id = live_job(&app, &app.live_key).await;
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let job = assign(&app, &id, &kim.courier.id).await.expect("assign");
        assert!(job.proof.is_none(), "no proof asked: {:?}", job.proof);
        let at_pickup = client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive").into_inner().job.expect("job");
        assert_eq!(at_pickup.next_move(), apb::JobMove::PickUp, "nothing to wait for");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("picked up without photos");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        let at_dropoff = client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect("at dropoff").into_inner().job.expect("job");
        assert_eq!(at_dropoff.next_move(), apb::JobMove::CompleteHandover);
        let done = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handed over without photos").into_inner().job.expect("job");
        assert_eq!(done.status(), pb::DeliveryStatus::Delivered);
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "delivered");

        // With the plan, the same delivery waits for its photos.
        let (_, live_key, _) = pod_workspace(&app).await;
        let id = live_job(&app, &live_key).await;
        let lou: App = join(&app, "", "Lou Courier", "lou@example.com", "car").await;
        let job = assign(&app, &id, &lou.courier.id).await.expect("assign");
        assert_eq!(job.proof.and_then(|p| p.pickup).map(|p| p.photos), Some(1));
        let mut client = lou.client.clone();
        client.arrive_at_pickup(lou.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        let status = client.pick_up(lou.request(apb::PickUpRequest { job_id: id.clone() })).await.expect_err("no photo");
        assert_eq!(refusal(&status).0, tonic::Code::FailedPrecondition);
    }
}
