//! Proof of delivery (docs/guide.md "Proof of delivery"): requirement checks on
//! submission, the read with signed download links, and the links themselves
//! (keyless, tamper-proof, expiring after 15 minutes).

use std::collections::HashSet;
use std::time::Duration;

use courier::errors::ErrorCode;
use courier::internal::v1 as admin_pb;
use courier::v1::Mode;
use courier_core::CoreError;
use courier_orders::deliveries::Delivery;
use courier_orders::proofs::{self, ArtifactKind, Checkpoint, ProofFile, ProofSubmission};
use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::harness::TestApp;

/// A workspace whose plan includes proof of delivery, with a live and a test
/// key.
pub struct PodWorkspace {
    pub live_key: String,
    pub test_key: String,
}

pub async fn pod_workspace(app: &TestApp) -> PodWorkspace {
    let plan = admin_pb::Plan {
        proof_of_delivery: true,
        ..Default::default()
    };
    let workspace = app.create_workspace(admin_pb::WorkspaceKind::Business, plan).await;
    PodWorkspace {
        live_key: app.create_key(&workspace, Mode::Live, &[]).await,
        test_key: app.create_key(&workspace, Mode::Test, &[]).await,
    }
}

/// A live delivery (no simulator moves it) with `proof` rules, as the core
/// knows it.
async fn live_delivery(app: &TestApp, key: &str, proof: Option<Value>) -> Delivery {
    let mut body = berlin_delivery();
    if let Some(proof) = proof {
        body["proof_of_delivery"] = proof;
    }
    let created = app.create_delivery(key, &body).await;
    let id = created["id"].as_str().expect("id");
    courier_orders::deliveries::reload(&app.core.db, id)
        .await
        .expect("delivery")
}

fn photo(name: &str, bytes: &[u8]) -> ProofFile {
    ProofFile {
        kind: ArtifactKind::Photo,
        file_name: name.into(),
        content_type: "image/jpeg".into(),
        content: bytes.to_vec(),
    }
}

async fn submit(app: &TestApp, delivery: &Delivery, submission: ProofSubmission) -> Result<(), CoreError> {
    let tx = app.core.begin().await?;
    proofs::submit(&app.core, &tx, delivery, submission, app.clock.now_micros()).await?;
    tx.commit().await
}

fn pod_path(id: &str) -> String {
    format!("/v1/deliveries/{id}/proof-of-delivery")
}

/// The `param` of an `invalid_request` refusal.
#[track_caller]
fn invalid_param(result: Result<(), CoreError>) -> String {
    match result {
        Err(CoreError::Rejected {
            code: ErrorCode::InvalidRequest,
            param: Some(param),
            ..
        }) => param,
        other => panic!("expected invalid_request with a param, got {other:?}"),
    }
}

/// Fetches a download link without any key.
async fn fetch(app: &TestApp, url: &str) -> reqwest::Response {
    app.http.get(url).send().await.expect("download")
}

e2e! {
    async fn proof_is_listed_with_working_signed_links(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let rules = json!({ "pickup": { "photos": 2, "signature": true, "sender_name": true }, "dropoff": { "recipient_name": true } });
        let delivery = live_delivery(&app, &pod.live_key, Some(rules)).await;
        let path = pod_path(&delivery.id);

        app.get(&path, &pod.live_key).await.assert_error(404, "no_proof_of_delivery", None);

        let pickup = proofs::sample_submission(&delivery, Checkpoint::Pickup);
        let pickup_files: Vec<(String, Vec<u8>)> = pickup.files.iter().map(|f| (f.content_type.clone(), f.content.clone())).collect();
        submit(&app, &delivery, pickup).await.expect("pickup proof");
        assert!(proofs::is_submitted(&app.core.db, &delivery.id, Checkpoint::Pickup).await.expect("read"));
        assert!(!proofs::is_submitted(&app.core.db, &delivery.id, Checkpoint::Dropoff).await.expect("read"));
        app.clock.advance(Duration::from_secs(60));
        let door_photo = b"\xff\xd8\xff\xe0 not really a jpeg".to_vec();
        let dropoff = ProofSubmission {
            checkpoint: Checkpoint::Dropoff,
            files: vec![
                photo("Haustür 1.jpg", &door_photo),
                ProofFile { kind: ArtifactKind::Document, file_name: "note.pdf".into(), content_type: "application/pdf".into(), content: b"%PDF-1.4".to_vec() },
            ],
            person_name: Some("  Rui Receiver ".into()),
            barcode: None,
            age_checked: false,
            left_at_door: false,
            pin: None,
            submission_id: None,
        };
        submit(&app, &delivery, dropoff).await.expect("dropoff proof");

        let answer = app.get(&path, &pod.live_key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        let body = &answer.body;
        let keys: HashSet<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(keys, HashSet::from(["delivery_id", "checkpoints"]));
        assert_eq!(body["delivery_id"], delivery.id.as_str());
        let checkpoints = body["checkpoints"].as_array().expect("checkpoints");
        assert_eq!(checkpoints.len(), 2);
        assert_eq!((checkpoints[0]["kind"].as_str(), checkpoints[1]["kind"].as_str()), (Some("pickup"), Some("dropoff")));
        assert_eq!(checkpoints[0]["recipient_name"], "Sam Sender");
        assert_eq!(checkpoints[1]["recipient_name"], "Rui Receiver");
        for checkpoint in checkpoints {
            let keys: HashSet<&str> = checkpoint.as_object().expect("object").keys().map(String::as_str).collect();
            assert_eq!(keys, HashSet::from(["kind", "recipient_name", "submitted_at", "artifacts"]));
            assert!(checkpoint["submitted_at"].as_str().expect("time").ends_with('Z'));
        }
        let kinds = |i: usize| -> Vec<&str> {
            checkpoints[i]["artifacts"].as_array().expect("artifacts").iter().map(|a| a["kind"].as_str().expect("kind")).collect()
        };
        assert_eq!(kinds(0), ["photo", "photo", "signature"]);
        assert_eq!(kinds(1), ["photo", "document"]);

        // Every link works without a key and returns the stored bytes.
        let mut expected: Vec<(String, Vec<u8>)> = pickup_files;
        expected.push(("image/jpeg".into(), door_photo.clone()));
        expected.push(("application/pdf".into(), b"%PDF-1.4".to_vec()));
        let artifacts: Vec<&Value> = checkpoints.iter().flat_map(|c| c["artifacts"].as_array().expect("artifacts")).collect();
        assert_eq!(artifacts.len(), expected.len());
        for (artifact, (content_type, bytes)) in artifacts.iter().zip(&expected) {
            let keys: HashSet<&str> = artifact.as_object().expect("object").keys().map(String::as_str).collect();
            assert_eq!(keys, HashSet::from(["kind", "file_name", "content_type", "download_url"]));
            assert_eq!(artifact["content_type"], content_type.as_str());
            let url = artifact["download_url"].as_str().expect("url");
            assert!(url.starts_with(&format!("{}/v1/proof-files/art_", app.base_url)), "{url}");
            assert!(url.contains("?expires=") && url.contains("&signature="), "{url}");
            let response = fetch(&app, url).await;
            assert_eq!(response.status(), 200);
            let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
            assert_eq!(header("content-type").as_deref(), Some(content_type.as_str()));
            assert!(header("content-disposition").expect("disposition").starts_with("attachment; filename="));
            assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
            assert!(header("cache-control").expect("cache-control").contains("no-store"));
            assert_eq!(&response.bytes().await.expect("bytes").to_vec(), bytes);
        }
        let door = artifacts[3]["download_url"].as_str().expect("url").to_owned();
        let response = fetch(&app, &door).await;
        let disposition = response.headers().get("content-disposition").and_then(|v| v.to_str().ok()).expect("disposition").to_owned();
        assert_eq!(disposition, "attachment; filename=\"Haust_r 1.jpg\"; filename*=UTF-8''Haust%C3%BCr%201.jpg");

        // A changed signature, expiry or id is not found, in the JSON error shape.
        let (base, signature) = door.rsplit_once("signature=").expect("signature");
        let flipped = if signature.starts_with('A') { "B" } else { "A" };
        let forged = format!("{base}signature={flipped}{}", &signature[1..]);
        let answer = app.send(app.http.get(&forged)).await;
        answer.assert_error(404, "not_found", None);
        let expires: i64 = door.split("expires=").nth(1).and_then(|s| s.split('&').next()).and_then(|s| s.parse().ok()).expect("expires");
        let extended = door.replace(&format!("expires={expires}"), &format!("expires={}", expires + 3600));
        app.send(app.http.get(&extended)).await.assert_error(404, "not_found", None);
        let other_id = artifacts[0]["download_url"].as_str().expect("url").split('?').next().expect("path").to_owned();
        let swapped = format!("{other_id}?{}", door.split_once('?').expect("query").1);
        app.send(app.http.get(&swapped)).await.assert_error(404, "not_found", None);
        let unsigned = door.split("&signature=").next().expect("url").to_owned();
        app.send(app.http.get(&unsigned)).await.assert_error(400, "invalid_request", Some("signature"));
        let garbled = door.replace(&format!("expires={expires}"), "expires=soon");
        app.send(app.http.get(&garbled)).await.assert_error(400, "invalid_request", Some("expires"));

        // After 15 minutes the link is expired; a fresh read gives new links.
        assert_eq!(fetch(&app, &door).await.status(), 200);
        app.clock.advance(Duration::from_secs(16 * 60));
        let answer = app.send(app.http.get(&door)).await;
        answer.assert_error(404, "not_found", None);
        assert!(answer.body["error"]["message"].as_str().expect("message").contains("expired"), "{:#}", answer.body);
        let fresh = app.get(&path, &pod.live_key).await;
        let url = fresh.body["checkpoints"][1]["artifacts"][0]["download_url"].as_str().expect("url").to_owned();
        let response = fetch(&app, &url).await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.bytes().await.expect("bytes").to_vec(), door_photo);
    }

    async fn requirements_are_checked_and_refusals_change_nothing(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let rules = json!({
            "pickup": { "photos": 2, "signature": true, "sender_name": true, "barcode": true },
            "dropoff": { "signature": true, "recipient_name": true, "age_check": true }
        });
        let delivery = live_delivery(&app, &pod.live_key, Some(rules)).await;
        let signature = ProofFile { kind: ArtifactKind::Signature, file_name: "sig.png".into(), content_type: "image/png".into(), content: b"\x89PNG\r\n\x1a\n sig".to_vec() };
        let good_pickup = ProofSubmission {
            checkpoint: Checkpoint::Pickup,
            files: vec![photo("a.jpg", b"\xff\xd8\xff a"), photo("b.jpg", b"\xff\xd8\xff b"), signature.clone()],
            person_name: Some("Ana Sender".into()),
            barcode: Some("4006381333931".into()),
            age_checked: false,
            left_at_door: false,
            pin: None,
            submission_id: None,
        };
        let spoiled = |spoil: fn(&mut ProofSubmission)| {
            let mut s = good_pickup.clone();
            spoil(&mut s);
            s
        };
        type Spoil = fn(&mut ProofSubmission);
        let cases: [(Spoil, &str); 9] = [
            (|s| { s.files.remove(0); }, "files"),
            (|s| { s.files.pop(); }, "files"),
            (|s| s.person_name = None, "person_name"),
            (|s| s.barcode = Some(" ".into()), "barcode"),
            (|s| s.barcode = None, "barcode"),
            (|s| s.left_at_door = true, "left_at_door"),
            (|s| s.age_checked = true, "age_checked"),
            (|s| s.files[0].content.clear(), "files.0.content"),
            (|s| s.files[1].file_name = "../../etc/passwd".into(), "files.1.file_name"),
        ];
        for (spoil, param) in cases {
            assert_eq!(invalid_param(submit(&app, &delivery, spoiled(spoil)).await), param);
        }
        // Dropoff: age check, and leave_at_door is not offered here.
        let good_dropoff = ProofSubmission {
            checkpoint: Checkpoint::Dropoff,
            files: vec![photo("door.jpg", b"\xff\xd8\xff d"), signature],
            person_name: Some("Rui Receiver".into()),
            barcode: None,
            age_checked: true,
            left_at_door: false,
            pin: None,
            submission_id: None,
        };
        let mut no_age = good_dropoff.clone();
        no_age.age_checked = false;
        assert_eq!(invalid_param(submit(&app, &delivery, no_age).await), "age_checked");
        let mut at_door = good_dropoff.clone();
        at_door.left_at_door = true;
        assert_eq!(invalid_param(submit(&app, &delivery, at_door).await), "left_at_door");

        // Nothing was written.
        for checkpoint in [Checkpoint::Pickup, Checkpoint::Dropoff] {
            assert!(!proofs::is_submitted(&app.core.db, &delivery.id, checkpoint).await.expect("read"));
        }
        app.get(&pod_path(&delivery.id), &pod.live_key).await.assert_error(404, "no_proof_of_delivery", None);

        submit(&app, &delivery, good_pickup.clone()).await.expect("pickup");
        submit(&app, &delivery, good_dropoff).await.expect("dropoff");
        match submit(&app, &delivery, good_pickup).await {
            Err(CoreError::Rejected { code: ErrorCode::Conflict, .. }) => {}
            other => panic!("expected conflict, got {other:?}"),
        }
        let answer = app.get(&pod_path(&delivery.id), &pod.live_key).await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body["checkpoints"][0]["artifacts"].as_array().map(Vec::len), Some(3));
    }

    async fn leave_at_door_skips_signature_and_name(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let rules = json!({ "dropoff": { "signature": true, "recipient_name": true, "leave_at_door": true } });
        let delivery = live_delivery(&app, &pod.live_key, Some(rules)).await;
        let mut left = ProofSubmission {
            checkpoint: Checkpoint::Dropoff,
            files: vec![],
            person_name: None,
            barcode: None,
            age_checked: false,
            left_at_door: true,
            pin: None,
            submission_id: None,
        };
        assert_eq!(invalid_param(submit(&app, &delivery, left.clone()).await), "files");
        left.files.push(photo("where-it-was-left.jpg", b"\xff\xd8\xff porch"));
        submit(&app, &delivery, left).await.expect("left at the door");
        let answer = app.get(&pod_path(&delivery.id), &pod.live_key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert!(answer.body["checkpoints"][0]["recipient_name"].is_null());
    }

    async fn pod_not_available_without_the_plan(app: TestApp) {
        // The harness's own workspace has a plan without proof of delivery.
        let delivery = live_delivery(&app, &app.live_key, None).await;
        submit(&app, &delivery, proofs::sample_submission(&delivery, Checkpoint::Pickup)).await.expect("proof");
        app.get(&pod_path(&delivery.id), &app.live_key).await.assert_error(403, "pod_not_available", None);
        // The delivery is looked up first: unknown ids stay not_found.
        app.get(&pod_path("del_unknown"), &app.live_key).await.assert_error(404, "not_found", None);
    }

    async fn other_modes_and_workspaces_are_not_found(app: TestApp) {
        let pod = pod_workspace(&app).await;
        let delivery = live_delivery(&app, &pod.live_key, None).await;
        submit(&app, &delivery, proofs::sample_submission(&delivery, Checkpoint::Pickup)).await.expect("proof");
        assert_eq!(app.get(&pod_path(&delivery.id), &pod.live_key).await.status, 200);
        app.get(&pod_path(&delivery.id), &pod.test_key).await.assert_error(404, "not_found", None);
        let other = pod_workspace(&app).await;
        app.get(&pod_path(&delivery.id), &other.live_key).await.assert_error(404, "not_found", None);
        app.get(&pod_path("del_unknown"), &pod.live_key).await.assert_error(404, "not_found", None);
        // The read needs a key with deliveries:read.
        let answer = app.send(app.http.get(app.url(&pod_path(&delivery.id)))).await;
        answer.assert_error(401, "missing_api_key", None);
    }
}
