//! Live dispatch over the internal gRPC `DispatchService`: a test dispatcher
//! drives a live delivery through its whole lifecycle with proof, while a
//! `WatchDelivery` stream sees each change; illegal moves are refused and
//! change nothing.

use std::time::Duration;

use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier::v1::tracking_service_client::TrackingServiceClient;
use serde_json::json;

use crate::deliveries::berlin_delivery;
use crate::proofs::pod_workspace;

fn code_of(status: &tonic::Status) -> (tonic::Code, &'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (status.code(), code.as_str(), param)
}

fn refused(status: tonic::Status) -> (tonic::Code, &'static str) {
    let (code, name, _) = code_of(&status);
    (code, name)
}

const CONFLICT: (tonic::Code, &str) = (tonic::Code::FailedPrecondition, "conflict");

fn courier() -> pb::Courier {
    pb::Courier {
        name: Some("Kim Courier".into()),
        photo_url: Some("https://cdn.example.com/kim.jpg".into()),
        rating: Some(4.8),
        vehicle: Some(pb::CourierVehicle {
            make: Some("Urban Arrow".into()),
            model: Some("Cargo L".into()),
            color: Some("green".into()),
            license_plate: Some("B-KC 4711".into()),
            photo_url: None,
        }),
        location: None,
    }
}

fn file(kind: pb::ArtifactKind, name: &str, content: &[u8]) -> ipb::ProofFile {
    ipb::ProofFile {
        kind: kind as i32,
        file_name: name.into(),
        content_type: if kind == pb::ArtifactKind::Signature {
            "image/png"
        } else {
            "image/jpeg"
        }
        .into(),
        content: content.to_vec(),
    }
}

/// A pickup proof of one photo (what the default rules ask).
fn photo_proof(id: &str) -> ipb::SubmitProofRequest {
    ipb::SubmitProofRequest {
        delivery_id: id.into(),
        checkpoint: pb::CheckpointKind::Pickup as i32,
        files: vec![file(pb::ArtifactKind::Photo, "parcel.jpg", b"\xff\xd8\xff parcel")],
        person_name: None,
        barcode: None,
        age_checked: false,
        left_at_door: false,
        pin: None,
    }
}

fn id_request(id: &str) -> ipb::ArriveAtPickupRequest {
    ipb::ArriveAtPickupRequest { delivery_id: id.into() }
}

e2e! {
    async fn a_dispatcher_drives_a_live_delivery_to_delivered(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let key = &pod.live_key;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({
            "pickup": { "photos": 1 },
            "dropoff": { "signature": true, "recipient_name": true }
        });
        let created = app.create_delivery(key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let mut dispatch = app.dispatch().await;

        // Without a dispatch token nothing moves.
        let status = dispatch.list_open_jobs(ipb::ListOpenJobsRequest { page_size: 0 }).await.expect_err("no token");
        assert_eq!(status.code(), tonic::Code::Unauthenticated);

        let jobs = dispatch.list_open_jobs(app.dispatch_request(ipb::ListOpenJobsRequest { page_size: 100 })).await.expect("jobs").into_inner();
        assert!(jobs.jobs.iter().any(|j| j.delivery.as_ref().is_some_and(|d| d.id == id)));
        let status = dispatch.list_open_jobs(app.dispatch_request(ipb::ListOpenJobsRequest { page_size: 101 })).await.expect_err("too many");
        assert_eq!(code_of(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("page_size".into())));

        // Illegal moves are refused and change nothing.
        let status = dispatch.arrive_at_pickup(app.dispatch_request(id_request(&id))).await.expect_err("not assigned");
        assert_eq!(refused(status), CONFLICT);
        let nameless = ipb::AcceptJobRequest { delivery_id: id.clone(), courier: Some(pb::Courier { name: None, ..courier() }), pickup_eta: None };
        let status = dispatch.accept_job(app.dispatch_request(nameless)).await.expect_err("nameless");
        assert_eq!(code_of(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("courier.name".into())));
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), key).await;
        assert_eq!(tracking.status, 200, "{:#}", tracking.body);
        assert_eq!(tracking.body["status"], "pending");
        assert!(tracking.body["tracking_available_at"].is_null());
        assert!(tracking.body["courier"].is_null());
        assert_eq!(tracking.body["eta"], json!({ "pickup_at": null, "dropoff_at": null }));

        let pickup_eta = prost_types::Timestamp { seconds: app.clock.now().timestamp() + 600, nanos: 0 };
        let accept = ipb::AcceptJobRequest { delivery_id: id.clone(), courier: Some(courier()), pickup_eta: Some(pickup_eta) };
        let accepted = dispatch.accept_job(app.dispatch_request(accept.clone())).await.expect("accept").into_inner();
        assert_eq!(accepted.delivery.expect("delivery").status(), pb::DeliveryStatus::CourierAssigned);
        let status = dispatch.accept_job(app.dispatch_request(accept)).await.expect_err("twice");
        assert_eq!(refused(status), CONFLICT);

        // The watcher sees the current state first, then each change.
        let mut tracking_client = TrackingServiceClient::connect(app.grpc_url.clone()).await.expect("tracking client");
        let mut watch_request = tonic::Request::new(pb::WatchDeliveryRequest { delivery_id: id.clone() });
        watch_request.metadata_mut().insert("x-api-key", key.parse().expect("key"));
        let mut watch = tracking_client.watch_delivery(watch_request).await.expect("watch").into_inner();
        let mut next_update = async || {
            tokio::time::timeout(Duration::from_secs(10), watch.message()).await.expect("update in time").expect("stream").expect("message")
        };
        let first = next_update().await;
        assert_eq!(first.delivery.expect("delivery").status(), pb::DeliveryStatus::CourierAssigned);
        assert_eq!(first.eta.expect("eta").pickup_at.map(|t| t.seconds), Some(pickup_eta.seconds));

        // Locations stream in; the last one is the courier's position.
        let positions = [(52.5219, 13.4132), (52.5150, 13.4200), (52.5090, 13.4150)].map(|(latitude, longitude)| ipb::StreamCourierLocationsRequest {
            delivery_id: id.clone(), latitude, longitude, recorded_at: None, dropoff_eta: None,
        });
        let sent = dispatch.stream_courier_locations(app.dispatch_request(tokio_stream::iter(positions))).await.expect("locations").into_inner();
        assert_eq!(sent.accepted, 3);
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), key).await;
        assert!(tracking.body["tracking_available_at"].is_string());
        assert_eq!(tracking.body["courier"]["name"], "Kim Courier");
        assert_eq!(tracking.body["courier"]["vehicle"]["license_plate"], "B-KC 4711");
        assert_eq!(tracking.body["courier"]["location"]["latitude"], 52.509);
        assert!(tracking.body["eta"]["pickup_at"].is_string());
        let moved = next_update().await;
        let location = moved.delivery.expect("delivery").courier.expect("courier").location.expect("location");
        assert!((location.latitude - 52.5219).abs() < 0.1);
        let bad = ipb::StreamCourierLocationsRequest { delivery_id: id.clone(), latitude: 91.0, longitude: 0.0, recorded_at: None, dropoff_eta: None };
        let status = dispatch.stream_courier_locations(app.dispatch_request(tokio_stream::iter([bad]))).await.expect_err("off the map");
        assert_eq!(code_of(&status), (tonic::Code::InvalidArgument, "invalid_request", Some("latitude".into())));

        dispatch.arrive_at_pickup(app.dispatch_request(id_request(&id))).await.expect("arrive");
        // Pick-up waits for the pickup proof; dropoff proof is not taken yet.
        let status = dispatch.pick_up(app.dispatch_request(ipb::PickUpRequest { delivery_id: id.clone() })).await.expect_err("no proof");
        assert_eq!(refused(status), CONFLICT);
        let early = ipb::SubmitProofRequest {
            delivery_id: id.clone(), checkpoint: pb::CheckpointKind::Dropoff as i32,
            files: vec![file(pb::ArtifactKind::Signature, "sig.png", b"\x89PNG\r\n\x1a\n sig")], person_name: Some("Rui".into()),
            barcode: None, age_checked: false, left_at_door: false, pin: None,
        };
        let status = dispatch.submit_proof(app.dispatch_request(early)).await.expect_err("too early");
        assert_eq!(refused(status), CONFLICT);
        let parcel_photo = b"\xff\xd8\xff\xe0 parcel".to_vec();
        let pickup = ipb::SubmitProofRequest {
            delivery_id: id.clone(), checkpoint: pb::CheckpointKind::Pickup as i32,
            files: vec![file(pb::ArtifactKind::Photo, "parcel.jpg", &parcel_photo)], person_name: None,
            barcode: None, age_checked: false, left_at_door: false, pin: None,
        };
        dispatch.submit_proof(app.dispatch_request(pickup)).await.expect("pickup proof");
        dispatch.pick_up(app.dispatch_request(ipb::PickUpRequest { delivery_id: id.clone() })).await.expect("pick up");
        app.post(&format!("/v1/deliveries/{id}/cancel"), key, &json!({})).await.assert_error(409, "not_cancellable", None);

        let dropoff_eta = prost_types::Timestamp { seconds: app.clock.now().timestamp() + 1200, nanos: 0 };
        let transit = ipb::StartTransitRequest { delivery_id: id.clone(), dropoff_eta: Some(dropoff_eta) };
        dispatch.start_transit(app.dispatch_request(transit)).await.expect("transit");
        // A dropoff ETA that moves by a minute or more is announced again.
        let later = prost_types::Timestamp { seconds: dropoff_eta.seconds + 300, nanos: 0 };
        let position = ipb::StreamCourierLocationsRequest { delivery_id: id.clone(), latitude: 52.5, longitude: 13.41, recorded_at: None, dropoff_eta: Some(later) };
        dispatch.stream_courier_locations(app.dispatch_request(tokio_stream::iter([position]))).await.expect("eta");
        dispatch.arrive_at_dropoff(app.dispatch_request(ipb::ArriveAtDropoffRequest { delivery_id: id.clone() })).await.expect("at dropoff");

        let status = dispatch.complete_handover(app.dispatch_request(ipb::CompleteHandoverRequest { delivery_id: id.clone() })).await.expect_err("no proof");
        assert_eq!(refused(status), CONFLICT);
        let unsigned = ipb::SubmitProofRequest {
            delivery_id: id.clone(), checkpoint: pb::CheckpointKind::Dropoff as i32,
            files: vec![], person_name: Some("Rui Receiver".into()), barcode: None, age_checked: false, left_at_door: false, pin: None,
        };
        let status = dispatch.submit_proof(app.dispatch_request(unsigned)).await.expect_err("unsigned");
        assert_eq!(code_of(&status).1, "invalid_request");
        let signature = b"\x89PNG\r\n\x1a\n signature".to_vec();
        let dropoff = ipb::SubmitProofRequest {
            delivery_id: id.clone(), checkpoint: pb::CheckpointKind::Dropoff as i32,
            files: vec![file(pb::ArtifactKind::Signature, "signature.png", &signature), file(pb::ArtifactKind::Photo, "door.jpg", b"\xff\xd8\xff door")],
            person_name: Some("Rui Receiver".into()),
            barcode: None, age_checked: false, left_at_door: false, pin: None,
        };
        dispatch.submit_proof(app.dispatch_request(dropoff.clone())).await.expect("dropoff proof");
        let status = dispatch.submit_proof(app.dispatch_request(dropoff)).await.expect_err("twice");
        assert_eq!(refused(status), CONFLICT);
        let done = dispatch.complete_handover(app.dispatch_request(ipb::CompleteHandoverRequest { delivery_id: id.clone() })).await.expect("handover").into_inner();
        assert_eq!(done.delivery.expect("delivery").status(), pb::DeliveryStatus::Delivered);
        let status = dispatch.fail_handover(app.dispatch_request(ipb::FailHandoverRequest { delivery_id: id.clone() })).await.expect_err("ended");
        assert_eq!(refused(status), CONFLICT);

        // The watcher's last message is the final state, then the stream ends.
        let last = crate::harness::wait_until("the watcher's delivered update", Duration::from_secs(10), async || {
            let update = next_update().await;
            match &update.delivery {
                Some(delivery) if delivery.status() == pb::DeliveryStatus::Delivered => Ok(update),
                _ => Err(format!("{update:?}")),
            }
        })
        .await;
        assert!(last.delivery.expect("delivery").delivered_at.is_some());
        let end = tokio::time::timeout(Duration::from_secs(10), watch.message()).await.expect("ends in time").expect("clean end");
        assert!(end.is_none());

        let delivered = app.get(&format!("/v1/deliveries/{id}"), key).await.body;
        assert_eq!(delivered["status"], "delivered");
        assert!(delivered["delivered_at"].is_string());
        assert_eq!(delivered["courier"]["vehicle"]["license_plate"], "*******11");
        let events: Vec<(String, String)> = app.delivery_events(key, &id).await;
        let types: Vec<&str> = events.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(types, [
            "delivery.created", "delivery.courier_assigned", "delivery.courier_arrived", "delivery.status_updated",
            "delivery.status_updated", "delivery.eta_updated", "delivery.eta_updated", "delivery.status_updated",
            "delivery.pod_submitted", "delivery.delivered",
        ]);

        // The proof, fetched through its signed links.
        let proof = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), key).await;
        assert_eq!(proof.status, 200, "{:#}", proof.body);
        let checkpoints = proof.body["checkpoints"].as_array().expect("checkpoints");
        assert_eq!(checkpoints[1]["recipient_name"], "Rui Receiver");
        for (checkpoint, expected) in checkpoints.iter().zip([&parcel_photo, &signature]) {
            let url = checkpoint["artifacts"][0]["download_url"].as_str().expect("url");
            let download = app.http.get(url).send().await.expect("download");
            assert_eq!(download.status(), 200);
            assert_eq!(&download.bytes().await.expect("bytes").to_vec(), expected);
        }
    }

    async fn dispatch_ends_deliveries_with_their_reasons(app: TestApp) {
        let mut dispatch = app.dispatch().await;
        let new_live = async || app.create_delivery(&app.live_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let accept = |id: &str| ipb::AcceptJobRequest { delivery_id: id.into(), courier: Some(courier()), pickup_eta: None };

        // Nobody at the pickup.
        let no_show = new_live().await;
        dispatch.accept_job(app.dispatch_request(accept(&no_show))).await.expect("accept");
        let status = dispatch.report_pickup_no_show(app.dispatch_request(ipb::ReportPickupNoShowRequest { delivery_id: no_show.clone() })).await.expect_err("not there yet");
        assert_eq!(refused(status), CONFLICT);
        dispatch.arrive_at_pickup(app.dispatch_request(id_request(&no_show))).await.expect("arrive");
        let ended = dispatch.report_pickup_no_show(app.dispatch_request(ipb::ReportPickupNoShowRequest { delivery_id: no_show.clone() })).await.expect("no show").into_inner();
        let ended = ended.delivery.expect("delivery");
        assert_eq!((ended.status(), ended.cancellation_reason()), (pb::DeliveryStatus::Cancelled, pb::CancellationReason::PickupNoShow));

        // The handover failed at the door.
        let failed = new_live().await;
        dispatch.accept_job(app.dispatch_request(accept(&failed))).await.expect("accept");
        dispatch.arrive_at_pickup(app.dispatch_request(id_request(&failed))).await.expect("arrive");
        dispatch.submit_proof(app.dispatch_request(photo_proof(&failed))).await.expect("pickup proof");
        dispatch.pick_up(app.dispatch_request(ipb::PickUpRequest { delivery_id: failed.clone() })).await.expect("pick up");
        let status = dispatch.fail_handover(app.dispatch_request(ipb::FailHandoverRequest { delivery_id: failed.clone() })).await.expect_err("not at the door");
        assert_eq!(refused(status), CONFLICT);
        dispatch.start_transit(app.dispatch_request(ipb::StartTransitRequest { delivery_id: failed.clone(), dropoff_eta: None })).await.expect("transit");
        dispatch.arrive_at_dropoff(app.dispatch_request(ipb::ArriveAtDropoffRequest { delivery_id: failed.clone() })).await.expect("at dropoff");
        let ended = dispatch.fail_handover(app.dispatch_request(ipb::FailHandoverRequest { delivery_id: failed.clone() })).await.expect("fail").into_inner();
        let ended = ended.delivery.expect("delivery");
        assert_eq!((ended.status(), ended.cancellation_reason()), (pb::DeliveryStatus::Cancelled, pb::CancellationReason::CancelledByMaxmove));
        let body = app.get(&format!("/v1/deliveries/{failed}"), &app.live_key).await.body;
        assert_eq!(body["cancellation_reason"], "cancelled_by_maxmove");

        // A client cancel at the pickup wins; the courier's next move is refused.
        let cancelled = new_live().await;
        dispatch.accept_job(app.dispatch_request(accept(&cancelled))).await.expect("accept");
        dispatch.arrive_at_pickup(app.dispatch_request(id_request(&cancelled))).await.expect("arrive");
        let answer = app.post(&format!("/v1/deliveries/{cancelled}/cancel"), &app.live_key, &json!({ "reason": "waited_too_long" })).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let status = dispatch.pick_up(app.dispatch_request(ipb::PickUpRequest { delivery_id: cancelled.clone() })).await.expect_err("cancelled");
        assert_eq!(refused(status), CONFLICT);

        // Test deliveries and unknown ids are not dispatch's.
        let test = app.create_delivery(&app.test_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let status = dispatch.accept_job(app.dispatch_request(accept(&test))).await.expect_err("test mode");
        assert_eq!(refused(status), CONFLICT);
        let status = dispatch.accept_job(app.dispatch_request(accept("del_unknown"))).await.expect_err("unknown");
        assert_eq!(refused(status), (tonic::Code::NotFound, "not_found"));
    }

    async fn a_live_delivery_nobody_accepts_times_out(app: TestApp) {
        let id = app.create_delivery(&app.live_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        app.clock.advance(Duration::from_secs(29 * 60));
        // The worker that times live deliveries out also steps test ones: once
        // a test delivery booked now has moved, it has looked at this one at
        // 29 minutes.
        let witness = app.create_delivery(&app.test_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        app.wait_for_status(&app.test_key, &witness, "courier_assigned", Duration::from_secs(10)).await;
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "pending");
        app.clock.advance(Duration::from_secs(2 * 60));
        let ended = app.wait_for_status(&app.live_key, &id, "cancelled", Duration::from_secs(10)).await;
        assert_eq!(ended["cancellation_reason"], "no_courier_found");
    }
}
