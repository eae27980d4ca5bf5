//! Couriers through the courier app's API, as an app would use it: joining
//! by invitation, signing in, going online, reporting positions, following
//! the assignment stream and moving a job to its end with proof; a courier
//! sees and moves only their own jobs, a fleet's drivers only their fleet's
//! board orders; suspension signs a courier out; positions are written in
//! batches.

use std::time::Duration;

use courier::app::v1 as apb;
use courier::app::v1::courier_app_service_client::CourierAppServiceClient;
use courier::internal::v1 as ipb;
use courier::internal::v1::courier_service_client::CourierServiceClient;
use courier::v1 as pb;
use sea_orm::EntityTrait;
use serde_json::json;
use tonic::transport::Channel;

use crate::deliveries::berlin_delivery;
use crate::fleet::{fleet, minimal_order};
use crate::harness::{TestApp, wait_until};
use crate::proofs::pod_workspace;

pub const PASSWORD: &str = "tram stop at dawn";

/// A courier signed in to the app.
pub struct App {
    pub client: CourierAppServiceClient<Channel>,
    pub token: String,
    pub courier: apb::Courier,
}

impl App {
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let value = format!("Bearer {}", self.token).parse().expect("metadata");
        request.metadata_mut().insert("authorization", value);
        request
    }
}

pub fn refusal(status: &tonic::Status) -> (tonic::Code, &'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (status.code(), code.as_str(), param)
}

pub async fn couriers(app: &TestApp) -> CourierServiceClient<Channel> {
    CourierServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("courier service")
}

pub async fn app_client(app: &TestApp) -> CourierAppServiceClient<Channel> {
    CourierAppServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("courier app")
}

pub fn vehicle(vehicle_type_id: &str) -> ipb::CourierVehicleInput {
    ipb::CourierVehicleInput {
        vehicle_type_id: vehicle_type_id.into(),
        make: Some("Volkswagen".into()),
        model: Some("Caddy".into()),
        color: Some("white".into()),
        license_plate: Some("B-KC 4711".into()),
    }
}

/// Invites a courier (of `workspace_id`'s fleet, or the platform's) and has
/// them join with [`PASSWORD`]; the courier is signed in.
pub async fn join(app: &TestApp, workspace_id: &str, name: &str, email: &str, vehicle_type_id: &str) -> App {
    let invited = couriers(app)
        .await
        .invite_courier(app.admin_request(ipb::InviteCourierRequest {
            workspace_id: workspace_id.into(),
            name: name.into(),
            phone: None,
            email: Some(email.into()),
            vehicle: Some(vehicle(vehicle_type_id)),
        }))
        .await
        .expect("invite")
        .into_inner();
    let token = invited.invitation_url.rsplit('/').next().expect("token").to_owned();
    assert!(
        invited.invitation_url.contains("/courier/join/"),
        "{}",
        invited.invitation_url
    );
    let mut client = app_client(app).await;
    let joined = client
        .accept_invitation(apb::AcceptInvitationRequest {
            token,
            password: PASSWORD.into(),
        })
        .await
        .expect("join")
        .into_inner();
    App {
        client,
        token: joined.session_token,
        courier: joined.courier.expect("courier"),
    }
}

/// Waits for the next message of an assignment stream (10 s at most).
/// The stream's next message other than a route (the route tests read
/// those with [`next_message`]).
pub async fn next(stream: &mut tonic::Streaming<apb::WatchAssignmentsResponse>) -> apb::WatchAssignmentsResponse {
    loop {
        let message = next_message(stream).await;
        if !matches!(message.update, Some(apb::watch_assignments_response::Update::Route(_))) {
            return message;
        }
    }
}

/// The stream's next message, whatever it is.
pub async fn next_message(
    stream: &mut tonic::Streaming<apb::WatchAssignmentsResponse>,
) -> apb::WatchAssignmentsResponse {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("a stream message in time")
        .expect("stream")
        .expect("message")
}

fn job_of(message: &apb::WatchAssignmentsResponse) -> &apb::Job {
    match &message.update {
        Some(apb::watch_assignments_response::Update::Job(job)) => job,
        other => panic!("expected a job, got {other:?}"),
    }
}

pub fn png(seed: u8) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend(std::iter::repeat_n(seed, 64));
    bytes
}

pub fn proof(
    job_id: &str,
    checkpoint: pb::CheckpointKind,
    files: Vec<apb::ProofFile>,
    submission_id: &str,
) -> apb::SubmitProofRequest {
    apb::SubmitProofRequest {
        job_id: job_id.into(),
        checkpoint: checkpoint as i32,
        files,
        person_name: Some("Rui Receiver".into()),
        barcode: None,
        age_checked: false,
        left_at_door: false,
        pin: None,
        submission_id: submission_id.into(),
    }
}

pub fn file(kind: pb::ArtifactKind, name: &str, content: Vec<u8>) -> apb::ProofFile {
    apb::ProofFile {
        kind: kind as i32,
        file_name: name.into(),
        content_type: "image/png".into(),
        content,
    }
}

pub fn at(app: &TestApp, latitude: f64, longitude: f64) -> apb::Position {
    apb::Position {
        latitude,
        longitude,
        accuracy_m: Some(8.0),
        heading_deg: Some(90.0),
        speed_mps: Some(4.0),
        recorded_at: Some(prost_types::Timestamp {
            seconds: app.clock.now().timestamp(),
            nanos: 0,
        }),
    }
}

pub async fn assign(app: &TestApp, job_id: &str, courier_id: &str) -> Result<apb::Job, tonic::Status> {
    let request = ipb::AssignJobRequest {
        job_id: job_id.into(),
        courier_id: courier_id.into(),
    };
    let answer = app.dispatch().await.assign_job(app.dispatch_request(request)).await?;
    Ok(answer.into_inner().job.expect("job"))
}

e2e! {
    async fn a_courier_joins_and_delivers_a_live_delivery_with_proof(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({ "pickup": { "photos": 1 }, "dropoff": { "photos": 1, "signature": true, "recipient_name": true } });
        let created = app.create_delivery(&pod.live_key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();

        // Joining: a weak password is refused at its field; the link works once.
        let invited = couriers(&app).await.invite_courier(app.admin_request(ipb::InviteCourierRequest {
            workspace_id: String::new(), name: "Kim Courier".into(), phone: Some("+49 151 1234 5678".into()),
            email: Some("Kim@Example.com".into()), vehicle: Some(vehicle("car")),
        })).await.expect("invite").into_inner();
        let token = invited.invitation_url.rsplit('/').next().expect("token").to_owned();
        let mut client = app_client(&app).await;
        let shown = client.get_invitation(apb::GetInvitationRequest { token: token.clone() }).await.expect("invitation").into_inner();
        assert_eq!(shown.name, "Kim Courier");
        assert_eq!(shown.phone.as_deref(), Some("+4915112345678"));
        let status = client.accept_invitation(apb::AcceptInvitationRequest { token: token.clone(), password: "password1234".into() }).await.expect_err("weak");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("password".into())));
        client.accept_invitation(apb::AcceptInvitationRequest { token: token.clone(), password: PASSWORD.into() }).await.expect("join");
        let status = client.accept_invitation(apb::AcceptInvitationRequest { token, password: PASSWORD.into() }).await.expect_err("used");
        assert_eq!(refusal(&status).1, "not_found");
        assert!(status.message().contains("already used"), "{}", status.message());

        // Signing in by phone (any spelling) or email; a wrong password is refused.
        let status = client.sign_in(apb::SignInRequest { login: "kim@example.com".into(), password: "wrong password!".into(), client_address: String::new() }).await.expect_err("wrong");
        assert_eq!(refusal(&status), (tonic::Code::Unauthenticated, "invalid_credentials", None));
        let signed = client.sign_in(apb::SignInRequest { login: "+49 (151) 12345678".into(), password: PASSWORD.into(), client_address: String::new() }).await.expect("sign in").into_inner();
        let kim = App { client, token: signed.session_token, courier: signed.courier.expect("courier") };
        let mut client = kim.client.clone();

        client.set_availability(kim.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        let reported = client.report_locations(kim.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![at(&app, 52.5200, 13.4050), at(&app, 52.5210, 13.4100)] },
        ]))).await.expect("positions").into_inner();
        assert_eq!(reported.accepted, 2);
        let bad = apb::ReportLocationsRequest { positions: vec![apb::Position { latitude: 95.0, ..at(&app, 0.0, 0.0) }] };
        let status = client.report_locations(kim.request(tokio_stream::iter([bad]))).await.expect_err("off the map");
        assert_eq!(refusal(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("positions.0.latitude".into())));

        let mut stream = client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        match next(&mut stream).await.update {
            Some(apb::watch_assignments_response::Update::Snapshot(snapshot)) => assert!(snapshot.jobs.is_empty()),
            other => panic!("expected a snapshot, got {other:?}"),
        }

        // Dispatch gives Kim the job: the app hears of it at once.
        let job = assign(&app, &id, &kim.courier.id).await.expect("assign");
        assert_eq!(job.status(), pb::DeliveryStatus::CourierAssigned);
        let pushed = next(&mut stream).await;
        assert_eq!(job_of(&pushed).id, id);
        assert_eq!(job_of(&pushed).next_move(), apb::JobMove::ArriveAtPickup);
        assert!(!job_of(&pushed).pickup.as_ref().expect("pickup").contact.as_ref().expect("contact").phone.is_empty());

        // The client sees the courier: first name, vehicle, and the last position.
        let seen = app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await;
        assert_eq!(seen.body["status"], "courier_assigned");
        assert_eq!(seen.body["courier"]["name"], "Kim");
        assert_eq!(seen.body["courier"]["vehicle"]["license_plate"], "B-KC 4711");
        assert_eq!(seen.body["courier"]["location"]["latitude"], 52.521);
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), &pod.live_key).await;
        assert_eq!(tracking.body["courier"]["location"]["longitude"], 13.41);

        let moved = client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive").into_inner();
        assert_eq!(moved.job.expect("job").next_move(), apb::JobMove::Unspecified, "waits for the pickup proof");
        // A move resent (its answer lost) answers the job as it is.
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("resent");
        let status = client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect_err("no proof");
        assert_eq!(refusal(&status).1, "conflict");
        let pickup = proof(&id, pb::CheckpointKind::Pickup, vec![file(pb::ArtifactKind::Photo, "parcel.png", png(1))], "pickup-0001");
        client.submit_proof(kim.request(pickup.clone())).await.expect("pickup proof");
        client.submit_proof(kim.request(pickup)).await.expect("the same submission again");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("pick up");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect("at dropoff");
        let status = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect_err("no dropoff proof");
        assert_eq!(refusal(&status).1, "conflict");
        let signature = png(7);
        let dropoff = proof(&id, pb::CheckpointKind::Dropoff, vec![
            file(pb::ArtifactKind::Photo, "door.png", png(2)),
            file(pb::ArtifactKind::Signature, "signature.png", signature.clone()),
        ], "dropoff-0001");
        client.submit_proof(kim.request(dropoff.clone())).await.expect("dropoff proof");
        let done = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover").into_inner().job.expect("job");
        assert_eq!(done.status(), pb::DeliveryStatus::Delivered);
        assert!(!done.active);
        assert_eq!(done.outcome.as_deref(), Some("delivered"));
        // A finished job shows addresses, not phone numbers.
        assert!(done.dropoff.as_ref().expect("dropoff").contact.as_ref().expect("contact").phone.is_empty());
        client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("resent handover");
        // The dropoff proof resent after the job ended (its answer lost)
        // answers as the first time; a new submission is refused: the job
        // has ended.
        let again = client.submit_proof(kim.request(dropoff.clone())).await.expect("resent proof").into_inner().job.expect("job");
        assert_eq!(again.status(), pb::DeliveryStatus::Delivered);
        let status = client.submit_proof(kim.request(apb::SubmitProofRequest { submission_id: "dropoff-0002".into(), ..dropoff })).await.expect_err("a new submission");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "conflict", None));

        let delivered = app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await;
        assert_eq!(delivered.body["status"], "delivered");
        let types: Vec<String> = app.delivery_events(&pod.live_key, &id).await.into_iter().map(|(t, _)| t).collect();
        assert_eq!(types, [
            "delivery.created", "delivery.courier_assigned", "delivery.courier_arrived", "delivery.status_updated",
            "delivery.status_updated", "delivery.eta_updated", "delivery.status_updated", "delivery.pod_submitted", "delivery.delivered",
        ].map(String::from));
        let pod_answer = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &pod.live_key).await;
        assert_eq!(pod_answer.status, 200, "{:#}", pod_answer.body);
        let checkpoints = pod_answer.body["checkpoints"].as_array().expect("checkpoints");
        assert_eq!(checkpoints.len(), 2, "the resent pickup proof is stored once");
        let dropoff = checkpoints.iter().find(|c| c["kind"] == "dropoff").expect("dropoff");
        let signed = dropoff["artifacts"].as_array().expect("artifacts").iter().find(|a| a["kind"] == "signature").expect("signature");
        let bytes = app.http.get(signed["download_url"].as_str().expect("url")).send().await.expect("download").bytes().await.expect("bytes");
        assert_eq!(bytes.to_vec(), signature);

        let finished = client.list_jobs(kim.request(apb::ListJobsRequest { finished: true, page_size: 10, page_token: String::new() })).await.expect("finished").into_inner();
        assert_eq!(finished.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
        let open = client.list_jobs(kim.request(apb::ListJobsRequest::default())).await.expect("open").into_inner();
        assert!(open.jobs.is_empty());
        client.sign_out(kim.request(apb::SignOutRequest {})).await.expect("sign out");
        let status = client.get_profile(kim.request(apb::GetProfileRequest {})).await.expect_err("signed out");
        assert_eq!(refusal(&status), (tonic::Code::Unauthenticated, "invalid_courier_session", None));
    }

    async fn a_courier_sees_and_moves_only_their_own_jobs(app: TestApp) {
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let lou = join(&app, "", "Lou Courier", "lou@example.com", "car").await;
        assign(&app, &id, &kim.courier.id).await.expect("assign");
        let mut client = lou.client.clone();
        let status = client.get_job(lou.request(apb::GetJobRequest { job_id: id.clone() })).await.expect_err("another's job");
        assert_eq!(refusal(&status).1, "not_found");
        let status = client.arrive_at_pickup(lou.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect_err("another's move");
        assert_eq!(refusal(&status).1, "not_found");
        let seen = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
        assert_eq!(seen.body["status"], "courier_assigned", "nothing moved");

        // A car has room for a second job, not for one that rides alone;
        // a reassignment withdraws a job from the first courier.
        let other = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        assign(&app, other["id"].as_str().expect("id"), &kim.courier.id).await.expect("a second job beside the first");
        let mut alone = berlin_delivery();
        alone["batching"] = json!("never");
        let alone = app.create_delivery(&app.live_key, &alone).await;
        assert_eq!(alone["batching"], "never");
        let status = assign(&app, alone["id"].as_str().expect("id"), &kim.courier.id).await.expect_err("rides alone");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "courier_unavailable", Some("courier_id".into())));
        assert!(status.message().contains("rides alone"), "{}", status.message());
        let mut kim_client = kim.client.clone();
        let mut stream = kim_client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        let _snapshot = next(&mut stream).await;
        assign(&app, &id, &lou.courier.id).await.expect("reassign");
        match next(&mut stream).await.update {
            Some(apb::watch_assignments_response::Update::Withdrawal(w)) => {
                assert_eq!((w.job_id.as_str(), w.reason()), (id.as_str(), apb::WithdrawalReason::Reassigned));
            }
            other => panic!("expected a withdrawal, got {other:?}"),
        }
        let status = kim_client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect_err("no longer theirs");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "conflict", None));
        assert!(status.message().contains("no longer yours"), "{}", status.message());
        client.arrive_at_pickup(lou.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("lou's now");
        // A bicycle courier never carries a van's job.
        let cyclist = join(&app, "", "Bo Bike", "bo@example.com", "bicycle").await;
        let mut van = berlin_delivery();
        van["vehicle_type_id"] = json!("small_van");
        let van = app.create_delivery(&app.live_key, &van).await;
        let status = assign(&app, van["id"].as_str().expect("id"), &cyclist.courier.id).await.expect_err("bicycle");
        assert_eq!(refusal(&status), (tonic::Code::FailedPrecondition, "courier_unavailable", Some("courier_id".into())));
    }

    async fn a_cancelled_delivery_is_withdrawn_and_a_cut_stream_resumes(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let first = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let first_id = first["id"].as_str().expect("id").to_owned();
        let mut stream = client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        let snapshot = next(&mut stream).await;
        assign(&app, &first_id, &kim.courier.id).await.expect("assign");
        let assigned = next(&mut stream).await;
        assert!(assigned.resume_token.parse::<i64>().expect("position") > snapshot.resume_token.parse::<i64>().unwrap_or(0));

        // The stream is cut; meanwhile the courier arrives and the client cancels.
        drop(stream);
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: first_id.clone() })).await.expect("arrive");
        let cancelled = app.post(&format!("/v1/deliveries/{first_id}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        let resumed = apb::WatchAssignmentsRequest { resume_token: assigned.resume_token.clone() };
        let mut stream = client.watch_assignments(kim.request(resumed)).await.expect("resume").into_inner();
        let missed = next(&mut stream).await;
        assert_eq!(job_of(&missed).id, first_id, "the move made while cut off comes first, no snapshot");
        match next(&mut stream).await.update {
            Some(apb::watch_assignments_response::Update::Withdrawal(w)) => {
                assert_eq!((w.job_id.as_str(), w.reason()), (first_id.as_str(), apb::WithdrawalReason::Cancelled));
            }
            other => panic!("expected the cancel's withdrawal, got {other:?}"),
        }

        // Live: the next job, then its cancel, arrive while watching.
        let second = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let second_id = second["id"].as_str().expect("id").to_owned();
        assign(&app, &second_id, &kim.courier.id).await.expect("assign again: free after the cancel");
        assert_eq!(job_of(&next(&mut stream).await).id, second_id);
        let started = tokio::time::Instant::now();
        app.post(&format!("/v1/deliveries/{second_id}/cancel"), &app.live_key, &json!({})).await;
        match next(&mut stream).await.update {
            Some(apb::watch_assignments_response::Update::Withdrawal(w)) => assert_eq!(w.job_id, second_id),
            other => panic!("expected a withdrawal, got {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_millis(900), "woken by the commit, not the periodic read: {:?}", started.elapsed());
    }

    async fn a_couriers_photo_is_served_by_a_keyless_link(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let photo = png(9);
        let set_photo = |content: Vec<u8>| ipb::UpdateCourierRequest {
            courier_id: kim.courier.id.clone(), photo: Some(content), photo_content_type: Some("image/png".into()), ..Default::default()
        };
        couriers(&app).await.update_courier(app.admin_request(set_photo(photo.clone()))).await.expect("photo");
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        assert!(created["courier"].is_null(), "{created:#}");
        assign(&app, &id, &kim.courier.id).await.expect("assign");

        let seen = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
        let link = seen.body["courier"]["photo_url"].as_str().expect("photo_url").to_owned();
        assert!(link.starts_with(&format!("{}/v1/courier-photos/", app.base_url)), "{link}");
        assert!(seen.body["courier"]["vehicle"]["photo_url"].is_null(), "no vehicle photo is kept");
        // No key needed: the link is the capability.
        let answer = app.http.get(&link).send().await.expect("photo");
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.headers()["content-type"], "image/png");
        assert_eq!(answer.bytes().await.expect("bytes").to_vec(), photo);

        // A forged or altered link, one without its signature, another
        // courier's id: the contract's error shape.
        app.send(app.http.get(format!("{link}x"))).await.assert_error(404, "not_found", None);
        let unsigned = link.split('?').next().expect("path");
        app.send(app.http.get(unsigned)).await.assert_error(400, "invalid_request", Some("signature"));
        let lou = join(&app, "", "Lou Courier", "lou@example.com", "car").await;
        let elsewhere = link.replace(&kim.courier.id, &lou.courier.id);
        app.send(app.http.get(elsewhere)).await.assert_error(404, "not_found", None);
        // A new photo gets a new link; the old one stops working.
        couriers(&app).await.update_courier(app.admin_request(set_photo(png(10)))).await.expect("new photo");
        app.send(app.http.get(&link)).await.assert_error(404, "not_found", None);
    }

    async fn a_suspended_courier_is_signed_out(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let mut stream = client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        let _snapshot = next(&mut stream).await;
        let suspended = couriers(&app).await.suspend_courier(app.admin_request(ipb::SuspendCourierRequest { courier_id: kim.courier.id.clone() })).await.expect("suspend").into_inner();
        assert_eq!(suspended.courier.expect("courier").status(), apb::CourierStatus::Suspended);
        let status = client.get_profile(kim.request(apb::GetProfileRequest {})).await.expect_err("suspended");
        assert_eq!(refusal(&status), (tonic::Code::Unauthenticated, "invalid_courier_session", None));
        let ended = tokio::time::timeout(Duration::from_secs(10), stream.message()).await.expect("the stream ends in time");
        assert!(ended.is_err(), "the stream ends with the refusal: {ended:?}");
        let status = client.sign_in(apb::SignInRequest { login: "kim@example.com".into(), password: PASSWORD.into(), client_address: String::new() }).await.expect_err("suspended sign-in");
        assert_eq!(refusal(&status).1, "invalid_courier_session");
        // Reactivated, they sign in again.
        couriers(&app).await.activate_courier(app.admin_request(ipb::ActivateCourierRequest { courier_id: kim.courier.id.clone() })).await.expect("activate");
        client.sign_in(apb::SignInRequest { login: "kim@example.com".into(), password: PASSWORD.into(), client_address: String::new() }).await.expect("sign in");
    }

    async fn a_fleet_driver_carries_only_their_fleets_board_orders(app: TestApp) {
        let (workspace, key) = fleet(&app, true).await;
        let driver = join(&app, &workspace, "Dara Driver", "dara@example.com", "cargo_bike").await;
        assert_eq!(driver.courier.workspace_id, workspace);
        // A business's live delivery never goes to a fleet's driver.
        let delivery = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let status = assign(&app, delivery["id"].as_str().expect("id"), &driver.courier.id).await.expect_err("business delivery");
        assert_eq!(refusal(&status).1, "courier_unavailable");
        // …nor a board order to a platform courier.
        let order = crate::fleet::create(&app, &key, &minimal_order()).await;
        let order_id = order["order_id"].as_str().expect("order id").to_owned();
        let platform = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let status = assign(&app, &order_id, &platform.courier.id).await.expect_err("platform courier");
        assert_eq!(refusal(&status).1, "courier_unavailable");

        let job = assign(&app, &order_id, &driver.courier.id).await.expect("assign");
        assert_eq!((job.kind(), job.status()), (apb::JobKind::FleetOrder, pb::DeliveryStatus::CourierAssigned));
        let mut client = driver.client.clone();
        client.arrive_at_pickup(driver.request(apb::ArriveAtPickupRequest { job_id: order_id.clone() })).await.expect("arrive");
        client.pick_up(driver.request(apb::PickUpRequest { job_id: order_id.clone() })).await.expect("pick up");
        client.start_transit(driver.request(apb::StartTransitRequest { job_id: order_id.clone() })).await.expect("transit");
        client.arrive_at_dropoff(driver.request(apb::ArriveAtDropoffRequest { job_id: order_id.clone() })).await.expect("at dropoff");
        client.complete_handover(driver.request(apb::CompleteHandoverRequest { job_id: order_id.clone() })).await.expect("handover");
        let public = app.get(&format!("/v1/fleet/orders/{}", order["id"].as_str().expect("id")), &key).await;
        assert_eq!(public.body["status"], "delivered");
        let history = app.dispatch().await.get_board_order(app.dispatch_request(ipb::GetBoardOrderRequest { order_id })).await.expect("order").into_inner();
        assert!(history.moves.iter().any(|m| m.actor == format!("courier:{}", driver.courier.id)), "{:?}", history.moves);
    }

    async fn positions_from_many_couriers_are_written_in_batches(app: TestApp) {
        const COURIERS: usize = 50;
        const REPORTS: usize = 20;
        const PER_REPORT: usize = 10;
        let mut apps = Vec::new();
        for n in 0..COURIERS {
            apps.push(join(&app, "", &format!("Courier {n}"), &format!("c{n}@example.com"), "car").await);
        }
        let writes_before = app.metric(&app.metrics_url, "courier_core_position_writes_total", "").await;
        let base = app.clock.now().timestamp();
        let sends = apps.iter().enumerate().map(|(n, courier)| {
            let mut client = courier.client.clone();
            let reports: Vec<apb::ReportLocationsRequest> = (0..REPORTS).map(|r| apb::ReportLocationsRequest {
                positions: (0..PER_REPORT).map(|p| {
                    let step = (r * PER_REPORT + p) as f64;
                    apb::Position {
                        latitude: 52.40 + n as f64 * 0.001 + step * 0.00001,
                        longitude: 13.30 + step * 0.00001,
                        accuracy_m: None, heading_deg: None, speed_mps: None,
                        recorded_at: Some(prost_types::Timestamp { seconds: base - 3600 + (r * PER_REPORT + p) as i64, nanos: 0 }),
                    }
                }).collect(),
            }).collect();
            let request = courier.request(tokio_stream::iter(reports));
            async move { client.report_locations(request).await.expect("report").into_inner().accepted }
        });
        let accepted: i64 = crate::harness::together(sends).await.into_iter().sum();
        assert_eq!(accepted as usize, COURIERS * REPORTS * PER_REPORT);
        // Every courier's last position is the last one they sent, and the
        // writes were batches: far fewer transactions than reports.
        let last = (REPORTS * PER_REPORT - 1) as f64;
        let writes = wait_until("every courier's last position written", Duration::from_secs(10), async || {
            let stored: std::collections::HashMap<String, f64> = courier_core::positions::latest::Entity::find()
                .all(&app.core.db).await.map_err(|e| e.to_string())?
                .into_iter().map(|row| (row.courier_id, row.latitude)).collect();
            let writes = app.metric(&app.metrics_url, "courier_core_position_writes_total", "").await - writes_before;
            let behind = apps.iter().enumerate().filter(|(n, a)| {
                !stored.get(&a.courier.id).is_some_and(|latitude| (latitude - (52.40 + *n as f64 * 0.001 + last * 0.00001)).abs() < 1e-9)
            }).count();
            if writes >= 1.0 && behind == 0 { Ok(writes) } else { Err(format!("{behind} couriers behind after {writes} writes")) }
        }).await;
        assert!(writes < (COURIERS * REPORTS) as f64 / 10.0, "{writes} transactions for {} reports", COURIERS * REPORTS);
        let profile = apps[7].client.clone().get_profile(apps[7].request(apb::GetProfileRequest {})).await.expect("profile").into_inner();
        let position = profile.courier.expect("courier").last_position.expect("position");
        assert!((position.latitude - (52.407 + last * 0.00001)).abs() < 1e-9);
    }
}
