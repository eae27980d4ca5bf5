//! The courier web app in a real headless Chromium at phone size, driven over
//! WebDriver (chromedriver), with the browser's location fixed through the
//! DevTools protocol: a courier joins by the invitation link, goes online,
//! gets a live delivery booked through /v1 as an offer without a reload,
//! accepts and moves it to delivered with photos set on the camera inputs and
//! a signature drawn on the canvas; a dropoff proof made with the network cut
//! is sent once the network returns, and sending it again changes nothing;
//! the dropoff PIN is asked, a wrong one refused with the tries left; a
//! failed handover leads the courier to the return's page;
//! another courier's job does not open; a pickup no-show is reported behind a
//! confirmation; location blocked is said; a suspended courier is signed out.
//!
//! With `COURIER_APP_SCREENSHOTS=<dir>` every page visited is saved there as
//! a PNG at 390 and 768 px.

use std::time::Duration;

use base64::Engine;
use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier_store::config::DispatchMode;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use serde_json::{Value, json};

use crate::browser::{Browser, Driver, PAGE_WAIT};
use crate::couriers::{PASSWORD, assign, couriers, join, vehicle};
use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, unique_suffix, wait_until};
use crate::proofs::pod_workspace;

/// Near Alexanderplatz, the pickup of `berlin_delivery`.
const NEAR_PICKUP: (f64, f64) = (52.5200, 13.4050);

/// The courier app's own steps in the browser.
impl Browser {
    /// Lets the app read the phone's position, fixed at `at`.
    async fn locate_at(&self, app: &TestApp, at: (f64, f64)) {
        let permission = json!({ "origin": app.base_url, "permissions": ["geolocation"] });
        self.devtools("Browser.grantPermissions", permission).await;
        let position = json!({ "latitude": at.0, "longitude": at.1, "accuracy": 8 });
        self.devtools("Emulation.setGeolocationOverride", position).await;
    }

    /// Cuts the network of this window, as DevTools' network conditions do:
    /// for the page, and for the app's service worker (which fetches the
    /// pages it serves itself); what [`Browser::reconnect`] needs.
    async fn disconnect(&self) -> Vec<Value> {
        self.devtools("Network.emulateNetworkConditions", conditions(true))
            .await;
        let targets = self.devtools("Target.getTargets", json!({})).await;
        let workers = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "service_worker");
        let mut sessions = Vec::new();
        for worker in workers {
            let attached = self
                .devtools(
                    "Target.attachToTarget",
                    json!({ "targetId": worker["targetId"], "flatten": false }),
                )
                .await;
            self.in_worker(&attached["sessionId"], "Network.enable", json!({}))
                .await;
            self.in_worker(
                &attached["sessionId"],
                "Network.emulateNetworkConditions",
                conditions(true),
            )
            .await;
            sessions.push(attached["sessionId"].clone());
        }
        sessions
    }

    /// Brings the network back where [`Browser::disconnect`] cut it.
    async fn reconnect(&self, workers: &[Value]) {
        self.devtools("Network.emulateNetworkConditions", conditions(false))
            .await;
        for session in workers {
            self.in_worker(session, "Network.emulateNetworkConditions", conditions(false))
                .await;
        }
    }

    async fn in_worker(&self, session: &Value, method: &str, params: Value) {
        let message = json!({ "id": 1, "method": method, "params": params }).to_string();
        self.devtools(
            "Target.sendMessageToTarget",
            json!({ "sessionId": session, "message": message }),
        )
        .await;
    }

    async fn sign_in_as_courier(&self, app: &TestApp, login: &str) {
        self.open(&app.url("/courier/sign-in")).await;
        self.fill("#login", login).await;
        self.fill("#password", PASSWORD).await;
        self.click_to("//button[text()='Sign in']", "#hello").await;
    }

    /// Clicks the job page's one button and waits for the job at `status`.
    async fn next_move(&self, label: &str, status: &str) {
        self.click_to(
            &format!("//*[@id='next-move'][normalize-space()=\"{label}\"]"),
            &format!("#job-status[data-status='{status}']"),
        )
        .await;
    }

    /// Sets `path` as the file taken by the camera input `css`.
    async fn take_photo(&self, css: &str, path: &std::path::Path) {
        let input = self.find(css).await;
        input.send_keys(&path.display().to_string()).await.expect("photo set");
    }

    /// Draws a stroke on the signature canvas; the PNG the canvas holds.
    async fn sign(&self) -> Vec<u8> {
        let canvas = self.find("#signature").await;
        let stroke = MouseActions::new("finger".into())
            .then(PointerAction::MoveToElement {
                element: canvas,
                duration: None,
                x: -110.0,
                y: 30.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            });
        let stroke = [(60.0, -60.0), (50.0, 70.0), (40.0, -50.0), (60.0, 30.0)]
            .into_iter()
            .fold(stroke, |stroke, (x, y)| {
                stroke.then(PointerAction::MoveBy {
                    duration: Some(Duration::from_millis(80)),
                    x,
                    y,
                })
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client.perform_actions(stroke).await.expect("a stroke drawn");
        let data_url = self
            .client
            .execute(
                "return document.getElementById('signature').toDataURL('image/png')",
                vec![],
            )
            .await
            .expect("the canvas");
        let data_url = data_url.as_str().expect("a data URL");
        let encoded = data_url.strip_prefix("data:image/png;base64,").expect("a PNG");
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .expect("base64")
    }

    /// Runs `script` (an async function body) in the page; its result.
    async fn run(&self, script: &str) -> Value {
        let wrapped = format!(
            "const done = arguments[arguments.length - 1]; (async () => {{ {script} }})().then(done, (e) => done({{ error: String(e) }}));"
        );
        self.client.execute_async(&wrapped, vec![]).await.expect("script ran")
    }
}

fn conditions(offline: bool) -> Value {
    json!({ "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 })
}

/// A camera photo as a phone takes it: 2400 × 1800 px, 13 MB as an
/// uncompressed PNG (more than the core takes as one file, so it is sent
/// only because the app resizes it).
fn camera_photo(seed: u8) -> std::path::PathBuf {
    let png = courier_orders::proofs::sample::png(2400, 1800, |x, y| {
        [(x / 10) as u8 ^ seed, (y / 10) as u8, 120u8.wrapping_add(seed)]
    });
    let path = std::env::temp_dir().join(format!("courier-e2e-photo-{}.png", unique_suffix()));
    std::fs::write(&path, png).expect("photo written");
    path
}

/// A JPEG's width and height, from its frame header.
fn jpeg_size(bytes: &[u8]) -> Option<(u16, u16)> {
    let mut at = 2;
    while at + 9 < bytes.len() {
        if bytes[at] != 0xFF {
            return None;
        }
        let marker = bytes[at + 1];
        let length = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        if (0xC0..=0xC3).contains(&marker) {
            let height = u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]);
            let width = u16::from_be_bytes([bytes[at + 7], bytes[at + 8]]);
            return Some((width, height));
        }
        at += 2 + length;
    }
    None
}

/// Waits until the core holds a position of courier `courier_id`.
async fn position_reported(app: &TestApp, courier_id: &str) {
    wait_until(
        "the browser's position in the core",
        PAGE_WAIT,
        async || match courier_core::positions::latest(&app.core, courier_id).await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err("no position yet".to_owned()),
            Err(e) => Err(e.to_string()),
        },
    )
    .await;
}

/// The proof of delivery `id`, and its files' bytes by kind and checkpoint.
async fn proof_files(app: &TestApp, key: &str, id: &str) -> Vec<(String, String, String, Vec<u8>)> {
    let answer = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    let mut files = Vec::new();
    for checkpoint in answer.body["checkpoints"].as_array().expect("checkpoints") {
        for artifact in checkpoint["artifacts"].as_array().expect("artifacts") {
            let url = artifact["download_url"].as_str().expect("download_url");
            let bytes = app
                .http
                .get(url)
                .send()
                .await
                .expect("download")
                .bytes()
                .await
                .expect("bytes");
            files.push((
                checkpoint["kind"].as_str().unwrap_or_default().to_owned(),
                artifact["kind"].as_str().unwrap_or_default().to_owned(),
                artifact["content_type"].as_str().unwrap_or_default().to_owned(),
                bytes.to_vec(),
            ));
        }
    }
    files
}

e2e! {
    with |config| config.dispatch = DispatchMode::Auto;

    async fn a_courier_gets_a_live_delivery_offered_on_the_phone_and_delivers_it(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let pod = pod_workspace(&app).await;
        let invited = couriers(&app).await.invite_courier(app.admin_request(ipb::InviteCourierRequest {
            workspace_id: String::new(), name: "Kim Courier".into(), phone: Some("+49 151 1234 5678".into()),
            email: Some("kim@example.com".into()), vehicle: Some(vehicle("car")),
        })).await.expect("invite").into_inner();
        let courier_id = invited.courier.expect("courier").id;

        // Joining: the invitation link, a password, and the shift page.
        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.open(&invited.invitation_url).await;
        assert_eq!(phone.heading().await, "Welcome, Kim Courier");
        phone.fill("#password", "short").await;
        phone.click_to("//button[text()='Set password and start']", "#password-error").await;
        phone.fill("#password", PASSWORD).await;
        phone.click_to("//button[text()='Set password and start']", "#hello").await;
        assert!(phone.text("#availability").await.starts_with("Offline"));
        assert_eq!(phone.text("#no-job").await, "No job right now.");

        // Online: the phone's position reaches the core before any offer.
        phone.click_to("//button[text()='Go online']", "#location").await;
        position_reported(&app, &courier_id).await;
        let shared = phone.find("#location[data-state='ok']").await.text().await.expect("text");
        assert!(shared.starts_with("Sharing your location"), "{shared}");
        phone.screenshot().await;

        // A live delivery booked through the API arrives as an offer, no reload.
        phone.mark().await;
        let mut body = berlin_delivery();
        body["items"] = json!([{ "description": "Flowers <fragile>", "quantity": 2, "weight_kg": 1.5, "length_cm": 40, "width_cm": 30, "height_cm": 20 }]);
        body["notes"] = json!("Back door, not the shop");
        body["proof_of_delivery"] = json!({ "pickup": { "photos": 1 }, "dropoff": { "photos": 1, "signature": true, "recipient_name": true } });
        let created = app.create_delivery(&pod.live_key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let offer = phone.client.wait().at_most(PAGE_WAIT).for_element(fantoccini::Locator::Css("article.offer")).await.expect("an offer on the page");
        let offered = offer.text().await.expect("text");
        assert!(offered.contains("Alexanderplatz 1") && offered.contains("Oranienstraße 25") && offered.contains("2 × Flowers <fragile>"), "{offered}");
        assert!(phone.text("[data-countdown]").await.ends_with("s left to answer"));
        let same_page = phone.client.execute("return window.courierOldPage === true", vec![]).await.expect("script");
        assert_eq!(same_page, Value::Bool(true), "the offer came without a reload");
        phone.screenshot().await;

        // Accepted: the job's page, its next stop, contact and maps.
        phone.click_to("//button[text()='Accept']", "#job-status[data-status='courier_assigned']").await;
        assert_eq!(phone.text("#next-address").await, "Alexanderplatz 1, 10178 Berlin");
        assert_eq!(phone.text("#contact-name").await, "Ana Sender");
        let call = phone.find("#call").await.attr("href").await.expect("href").expect("a tel: link");
        assert!(call.starts_with("tel:+49"), "{call}");
        let geo = phone.find("#geo").await.attr("href").await.expect("href").expect("a geo: link");
        assert!(geo.starts_with("geo:52.5219,13.4132"), "{geo}");
        let osm = phone.find("#osm").await.attr("href").await.expect("href").expect("a link");
        assert!(osm.starts_with("https://www.openstreetmap.org/?mlat=52.5219&mlon=13.4132"), "{osm}");
        assert_eq!(phone.text("#notes").await, "Back door, not the shop");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "courier_assigned");

        phone.next_move("I'm at the pickup", "at_pickup").await;
        phone.click_to("//a[text()='Take the pickup proof']", "#proof-form").await;
        let pickup_photo = camera_photo(1);
        phone.take_photo("#photos", &pickup_photo).await;
        phone.click_to("//button[text()='Picked up']", "#job-status[data-status='picked_up']").await;
        phone.next_move("Start driving to the dropoff", "in_transit").await;
        assert_eq!(phone.text("#next-address").await, "Oranienstraße 25, 10999 Berlin");
        phone.next_move("I'm at the dropoff", "at_dropoff").await;
        assert!(phone.page().await.contains("The handover failed"), "a failed handover can be reported");
        phone.click_to("//a[text()='Take the delivery proof']", "#proof-form").await;

        // Without the signature and the name the core refuses, in its words.
        let dropoff_photo = camera_photo(2);
        phone.take_photo("#photos", &dropoff_photo).await;
        phone.click("//button[text()='Delivered']").await;
        let refused = phone.find(".form-status.refused").await.text().await.expect("text");
        assert!(refused.contains("signature"), "{refused}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "at_dropoff");
        phone.screenshot().await;

        let drawn = phone.sign().await;
        phone.fill("#person_name", "Rui Receiver").await;
        phone.screenshot().await;
        // Delivered: the app is back on the shift, where the next offer comes.
        phone.click_to("//button[text()='Delivered']", "#ended").await;
        assert_eq!(phone.text("#ended").await, "Job to Oranienstraße 25, 10999 Berlin finished: Delivered. New offers come to this page.");
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        assert!(phone.text("#outcome").await.starts_with("Delivered at "));
        let calls = phone.client.find_all(fantoccini::Locator::Css("#call")).await.expect("find");
        assert!(calls.is_empty(), "no call link once the job ended");

        // What the client sees: delivered, with the photos and the signature drawn.
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "delivered");
        let files = proof_files(&app, &pod.live_key, &id).await;
        let kinds: Vec<(&str, &str)> = files.iter().map(|(c, k, _, _)| (c.as_str(), k.as_str())).collect();
        assert_eq!(kinds.iter().filter(|k| **k == ("pickup", "photo")).count(), 1, "{kinds:?}");
        assert_eq!(kinds.iter().filter(|k| **k == ("dropoff", "photo")).count(), 1, "{kinds:?}");
        let signature = files.iter().find(|(c, k, _, _)| c == "dropoff" && k == "signature").expect("the signature");
        assert_eq!(signature.2, "image/png");
        assert_eq!(signature.3, drawn, "the signature's bytes are the PNG drawn");
        for (_, _, content_type, bytes) in files.iter().filter(|(_, k, _, _)| k == "photo") {
            assert_eq!(content_type, "image/jpeg", "resized on the phone");
            assert_eq!(jpeg_size(bytes), Some((1600, 1200)), "resized to 1600 px");
        }

        // The recipient's tracking page, delivered: checked like every page.
        let tracking = created["tracking_url"].as_str().expect("a tracking link").to_owned();
        phone.open(&tracking).await;
        assert_eq!(phone.heading().await, "Delivered");
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;

        // The shift: today's finished job, and no job in hand.
        phone.click_to("//a[text()='← Shift']", "#finished").await;
        assert!(phone.client.find_all(fantoccini::Locator::Css("#ended")).await.expect("find").is_empty(), "said once");
        assert_eq!(phone.text("#finished-title").await, "Finished today: 1");
        assert_eq!(phone.text("#no-job").await, "No job right now.");
        for path in [pickup_photo, dropoff_photo] {
            let _ = std::fs::remove_file(path);
        }
        phone.close().await;
    }

    async fn a_courier_walks_a_route_of_two_jobs_on_the_phone_and_the_dispatchers_map_draws_it(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let rae = join(&app, "", "Rae Route", "rae@example.com", "car").await;
        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "rae@example.com").await;
        phone.click_to("//button[text()='Go online']", "#location").await;
        position_reported(&app, &rae.courier.id).await;

        // Two deliveries on one way, given to Rae by hand: the shift lists
        // the route, the next stop first, without a reload.
        let mut on_the_way = berlin_delivery();
        on_the_way["pickup"]["latitude"] = json!(52.5110);
        on_the_way["pickup"]["longitude"] = json!(13.4160);
        let mut ids = Vec::new();
        for body in [berlin_delivery(), on_the_way] {
            let id = app.create_delivery(&app.live_key, &body).await["id"].as_str().expect("id").to_owned();
            assign(&app, &id, &rae.courier.id).await.expect("room in a car");
            ids.push(id);
        }
        let stops = async |count: usize| {
            wait_until("the route on the shift page", PAGE_WAIT, async || {
                let found = phone.client.find_all(fantoccini::Locator::Css("#route li")).await.map_err(|e| e.to_string())?;
                if found.len() == count { Ok(found) } else { Err(format!("{} stops", found.len())) }
            })
            .await
        };
        let listed = stops(4).await;
        let first = listed[0].text().await.expect("text");
        assert!(first.starts_with("1. Pick up") && first.contains("about "), "{first}");
        phone.screenshot().await;

        // The dispatcher's map draws Rae's route: from Rae through the four stops.
        let now = app.clock.now_micros();
        let operator = courier_identity::accounts::NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: crate::couriers::PASSWORD.into(), operator: true };
        courier_identity::accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        let ops = driver.browser().await;
        ops.open(&app.url("/console/sign-in")).await;
        ops.fill("#email", "ops@example.com").await;
        ops.fill("#password", crate::couriers::PASSWORD).await;
        ops.click_to("//button[text()='Sign in']", "header").await;
        ops.click_to("//header//a[text()='Live dispatch']", "#dispatch-map").await;
        let drawn = ops.client.find_all(fantoccini::Locator::Css("#dispatch-map line.courier-route")).await.expect("find");
        assert_eq!(drawn.len(), 4, "a line to each stop in turn");
        let title = ops.find(&format!("#courier-{} title", rae.courier.id)).await.html(true).await.expect("title");
        assert!(title.contains("2 jobs (1. Pickup"), "{title}");
        ops.screenshot().await;
        ops.close().await;

        // Rae walks the route stop by stop, as the shift lists it.
        for left in (2..=4).rev() {
            let next = stops(left).await.remove(0);
            let job = next.attr("data-job").await.expect("attr").expect("a job");
            let pickup = next.attr("class").await.expect("attr").as_deref() == Some("stop-pickup");
            phone.open(&app.url(&format!("/courier/jobs/{job}"))).await;
            if pickup {
                phone.next_move("I'm at the pickup", "at_pickup").await;
                phone.next_move("Picked up", "picked_up").await;
            } else {
                phone.next_move("Start driving to the dropoff", "in_transit").await;
                phone.next_move("I'm at the dropoff", "at_dropoff").await;
                phone.click_to("//*[@id='next-move'][normalize-space()='Handed over']", "#ended").await;
            }
            phone.open(&app.url("/courier/")).await;
        }
        // One stop left: no route to list, the job in hand.
        wait_until("the last stop", PAGE_WAIT, async || {
            let listed = phone.client.find_all(fantoccini::Locator::Css("#route li")).await.map_err(|e| e.to_string())?;
            if listed.is_empty() { Ok(()) } else { Err(format!("{} stops", listed.len())) }
        })
        .await;
        let remaining = crate::batching::route_of(&rae).await;
        assert_eq!(remaining.len(), 1, "{remaining:?}");
        assert_eq!(remaining[0].kind(), apb::StopKind::Dropoff);
        phone.open(&app.url(&format!("/courier/jobs/{}", remaining[0].job_id))).await;
        phone.next_move("Start driving to the dropoff", "in_transit").await;
        phone.next_move("I'm at the dropoff", "at_dropoff").await;
        phone.click_to("//*[@id='next-move'][normalize-space()='Handed over']", "#ended").await;
        for id in &ids {
            assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "delivered");
        }
        phone.close().await;
    }

    async fn the_offer_shows_its_pay_and_the_earnings_page_adds_up_the_day_and_the_week(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        crate::pay::set_rule(&app, "car", "", crate::pay::RULE).await.expect("rule");
        let kim = join(&app, "", "Kim Earner", "kim.earner@example.com", "car").await;
        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim.earner@example.com").await;
        phone.click_to("//button[text()='Go online']", "#location").await;
        position_reported(&app, &kim.courier.id).await;

        let mut tipped = berlin_delivery();
        tipped["tip_cents"] = serde_json::json!(150);
        let created = app.create_delivery(&app.live_key, &tipped).await;
        let id = created["id"].as_str().expect("id").to_owned();
        phone.client.wait().at_most(PAGE_WAIT).for_element(fantoccini::Locator::Css("#offer-pay")).await.expect("the offer's pay");
        let offered = phone.text("#offer-pay").await;
        assert!(offered.starts_with("Pays ") && offered.contains(" EUR") && offered.contains("Base 3.00 EUR"), "{offered}");
        assert!(phone.text("#offer-tip").await.starts_with("+ Tip 1.50 EUR"), "the tip beside the pay");
        phone.screenshot().await;
        phone.click_to("//button[text()='Accept']", "#job-status[data-status='courier_assigned']").await;
        let total = phone.text("#job-pay").await;
        assert!(offered.starts_with(&format!("Pays {total}")), "{offered} / {total}");
        assert!(phone.text("#job-tip").await.contains("1.50 EUR"));

        crate::dropoff_pin::carry_to_the_dropoff(&kim, &id).await;
        let mut client = kim.client.clone();
        let photo = crate::couriers::proof(&id, courier::v1::CheckpointKind::Dropoff, vec![crate::couriers::file(courier::v1::ArtifactKind::Photo, "door.png", crate::couriers::png(2))], "earnings-dropoff");
        client.submit_proof(kim.request(photo)).await.expect("dropoff proof");
        client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover");
        couriers(&app).await.adjust_earnings(app.admin_request(ipb::AdjustEarningsRequest {
            courier_id: kim.courier.id.clone(), amount_cents: 250, reason: "Welcome bonus".into(),
        })).await.expect("bonus");

        let cents = |text: &str| -> i64 {
            let amount = text.trim_end_matches(" EUR").replace('.', "");
            amount.parse().expect("an amount")
        };
        let words = |cents: i64| format!("{}.{:02} EUR", cents / 100, cents % 100);
        phone.open(&app.url("/courier/")).await;
        let finished = phone.text("#finished").await;
        assert!(finished.contains(&format!("Delivered · {}", words(cents(&total) + 150))), "the pay and the tip: {finished}");
        phone.click_to("//a[@id='earnings']", "#earnings-title").await;
        assert_eq!(cents(&phone.text("#earned").await), cents(&total) + 150 + 250);
        assert_eq!(phone.text("#earned-jobs").await, "1 job");
        let lines = phone.text("#lines").await;
        assert!(lines.contains("Job") && lines.contains("Tip") && lines.contains("Adjustment: Welcome bonus"), "{lines}");
        phone.accessible().await;
        phone.screenshot().await;
        phone.click_to("//a[@id='show-week']", "#show-week[aria-current='page']").await;
        assert!(phone.text("#span").await.contains(" – "));
        assert_eq!(cents(&phone.text("#earned").await), cents(&total) + 150 + 250);
        phone.screenshot().await;
        // The week before: nothing earned.
        phone.click_to("//a[@id='earlier']", "#earned").await;
        assert_eq!(phone.text("#earned").await, "0.00");

        // The week closed: its statement, printable.
        let zone = app.core.catalog.home_time_zone();
        let week = courier_orders::pay::statements::week_of(zone, app.clock.now().with_timezone(&zone).date_naive());
        courier_orders::pay::statements::close(&app.core, week, courier_orders::pay::statements::Closer::Worker).await.expect("closed");
        phone.open(&app.url("/courier/earnings")).await;
        let listed = phone.text("#statements").await;
        assert!(listed.contains(&words(cents(&total) + 150 + 250)), "{listed}");
        phone.screenshot().await;
        phone.click_to("//ul[@id='statements']//a[contains(@href, '/print')]", "table").await;
        let printed = phone.page().await;
        assert!(printed.contains("Courier statement cst_") && printed.contains("Kim Earner") && printed.contains("Welcome bonus"), "{printed}");
        phone.close().await;
    }

    async fn offers_and_changes_reach_the_courier_on_any_page_and_declining_asks_once(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim@example.com").await;
        phone.click_to("//button[text()='Go online']", "#location").await;
        position_reported(&app, &kim.courier.id).await;

        // A first job, offered on the shift, accepted and carried to the end.
        let first = app.create_delivery(&app.live_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        phone.click_to("//button[text()='Accept']", "#job-status[data-status='courier_assigned']").await;
        let mut client = kim.client.clone();
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: first.clone() })).await.expect("arrive");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: first.clone() })).await.expect("pick up");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: first.clone() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: first.clone() })).await.expect("at dropoff");
        client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: first.clone() })).await.expect("handover");

        // On the delivered job's page, online: the position is still shared,
        // and the next offer shows on top, with its countdown.
        phone.open(&app.url(&format!("/courier/jobs/{first}"))).await;
        assert_eq!(phone.text("#job-status").await, "Delivered");
        // A page not yet touched may not ring: it asks for a tap.
        assert_eq!(phone.text("#alerts-prompt").await, "Tap once to hear offers");
        let sharing = phone.client.execute("return 'shareLocation' in document.body.dataset", vec![]).await.expect("script");
        assert_eq!(sharing, Value::Bool(true), "an online courier's every page shares the position");
        phone.mark().await;
        let second = app.create_delivery(&app.live_key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let offered = phone.text("#offer-banner article.offer").await;
        assert!(offered.contains("Alexanderplatz 1"), "{offered}");
        assert!(phone.text("#offer-banner [data-countdown]").await.ends_with("s left to answer"));
        phone.screenshot().await;

        // Declining asks once; only the confirmation declines.
        phone.click("//summary[@id='decline']").await;
        let confirm = phone.find("#confirm-decline").await;
        assert!(confirm.is_displayed().await.expect("displayed"), "the confirmation shows");
        phone.screenshot().await;
        let offer = app.get(&format!("/v1/deliveries/{second}"), &app.live_key).await;
        assert_eq!(offer.body["status"], "pending", "nothing declined yet");
        phone.click_to("//button[@id='confirm-decline']", "#hello").await;

        // The declined job, given by hand: an alert on the page; then cancelled: another.
        assign(&app, &second, &kim.courier.id).await.expect("assign");
        // The alert is on the page before its text: the text comes with the push.
        wait_until("the hand assignment said", PAGE_WAIT, async || {
            let told = phone.text("#alert").await;
            let said = told.starts_with("Dispatch gave you a job: pick up at Alexanderplatz 1");
            if said { Ok(()) } else { Err(told) }
        })
        .await;
        phone.screenshot().await;
        let cancelled = app.post(&format!("/v1/deliveries/{second}/cancel"), &app.live_key, &json!({})).await;
        assert_eq!(cancelled.status, 200, "{}", cancelled.body);
        wait_until("the cancellation said", PAGE_WAIT, async || {
            let told = phone.text("#alert").await;
            if told.contains("was cancelled") { Ok(()) } else { Err(told) }
        })
        .await;
        phone.close().await;
    }
}

e2e! {
    async fn a_dropoff_proof_made_offline_is_sent_once_when_the_network_returns(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let (pod, id, kim) = photo_job_for_kim(&app).await;
        let mut client = kim.client.clone();
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        let parcel = apb::ProofFile { kind: courier::v1::ArtifactKind::Photo as i32, file_name: "parcel.png".into(), content_type: "image/png".into(), content: courier_orders::proofs::sample::png(4, 4, |_, _| [200, 100, 50]) };
        let pickup = apb::SubmitProofRequest { job_id: id.clone(), checkpoint: courier::v1::CheckpointKind::Pickup as i32, files: vec![parcel], submission_id: "pickup-0001".into(), ..Default::default() };
        client.submit_proof(kim.request(pickup)).await.expect("pickup proof");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("pick up");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect("at dropoff");

        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim@example.com").await;
        phone.click_to(&format!("//a[contains(@href, '/jobs/{id}')]"), "#job-status[data-status='at_dropoff']").await;
        phone.click_to("//a[text()='Take the delivery proof']", "#proof-form").await;
        let photo = camera_photo(3);
        phone.take_photo("#photos", &photo).await;

        // No network: the proof is kept on the phone, and nothing reaches the core.
        let cut = phone.disconnect().await;
        phone.click("//button[text()='Delivered']").await;
        let saved = phone.find(".form-status.waiting").await.text().await.expect("text");
        assert!(saved.starts_with("No network: saved on this phone"), "{saved}");
        assert!(phone.text("#network").await.starts_with("No network"));
        phone.screenshot().await;
        // The item as kept, to send it again afterwards as a phone would that
        // never heard the answer.
        let kept = phone.run(KEEP_A_COPY).await;
        assert_eq!(kept["count"], 1, "{kept}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "at_dropoff");

        // The network returns: the proof and the handover are sent by themselves.
        phone.reconnect(&cut).await;
        phone.arrived("#ended").await;
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "delivered");
        let events = app.delivery_events(&pod.live_key, &id).await;

        // Sent again (the same item, by the app's own outbox): nothing changes.
        let again = phone.run(&SEND_THE_COPY_AGAIN.replace("__ITEM__", &kept["item"].to_string())).await;
        assert!(again["redirect"].as_str().is_some_and(|r| r.ends_with(&format!("/courier/?ended={id}"))), "{again}");
        assert_eq!(app.delivery_events(&pod.live_key, &id).await, events, "no second event");
        let files = proof_files(&app, &pod.live_key, &id).await;
        assert_eq!(files.iter().filter(|(c, k, _, _)| c == "dropoff" && k == "photo").count(), 1, "the proof is stored once");

        // Offline, the app still opens: its shell says so, a job page kept
        // shows the job as last seen.
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        assert_eq!(phone.text("#job-status").await, "Delivered");
        let cut = phone.disconnect().await;
        phone.open(&app.url("/courier/")).await;
        assert_eq!(phone.heading().await, "No network");
        let kept = phone.find("#kept-jobs a").await.attr("href").await.expect("href").expect("a link");
        assert_eq!(kept, format!("/courier/jobs/{id}"), "the no-network page leads to the jobs kept");
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        assert_eq!(phone.text("#job-status").await, "Delivered");
        // The no-network page goes back by itself when the network returns.
        phone.open(&app.url("/courier/")).await;
        assert_eq!(phone.heading().await, "No network");
        phone.reconnect(&cut).await;
        phone.arrived("#hello").await;

        // Signing out ends the session and deletes the job pages kept.
        phone.open(&app.url("/courier/")).await;
        phone.click_to("//button[text()='Sign out']", "#login").await;
        let kept = phone.run("return await caches.has('courier-pages');").await;
        assert_eq!(kept, Value::Bool(false), "the kept job pages are gone");
        phone.open(&app.url("/courier/")).await;
        assert_eq!(phone.heading().await, "Sign in");
        let _ = std::fs::remove_file(photo);
        phone.close().await;
    }

    async fn a_job_accepted_online_is_carried_to_the_end_without_network_and_sent_once_when_it_returns(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let (pod, id, _) = photo_job_for_kim(&app).await;

        // The job page opened once with network keeps it and its proof pages.
        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim@example.com").await;
        phone.click_to(&format!("//a[contains(@href, '/jobs/{id}')]"), "#job-status[data-status='courier_assigned']").await;
        wait_until("the proof pages kept", PAGE_WAIT, async || {
            let kept = phone.run(&format!("const c = await caches.open('courier-pages'); return (await c.keys()).filter((r) => r.url.includes('/jobs/{id}/proof/')).length;")).await;
            if kept == 2 { Ok(()) } else { Err(kept) }
        })
        .await;

        // No network from here to the handover: each step waits on the phone
        // and the next one shows.
        let cut = phone.disconnect().await;
        phone.click("//button[normalize-space()=\"I'm at the pickup\"]").await;
        phone.click_to("//a[text()='Take the pickup proof']", "#proof-form").await;
        let (pickup_photo, dropoff_photo) = (camera_photo(5), camera_photo(6));
        phone.take_photo("#photos", &pickup_photo).await;
        phone.click("//button[text()='Picked up']").await;
        phone.find(".form-status.waiting").await;
        phone.click_to("//a[text()='← Job']", "#job-status").await;
        phone.click("//button[text()='Start driving to the dropoff']").await;
        phone.click("//button[normalize-space()=\"I'm at the dropoff\"]").await;
        phone.click_to("//a[text()='Take the delivery proof']", "#proof-form").await;
        phone.take_photo("#photos", &dropoff_photo).await;
        phone.click("//button[text()='Delivered']").await;
        phone.find(".form-status.waiting").await;
        // A reload of the kept job page shows no step already made.
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        let shown = phone.client.execute("return [...document.querySelectorAll('[data-step]')].filter((s) => !s.hidden).length", vec![]).await.expect("script");
        assert_eq!(shown, json!(0), "every step waits on the phone");
        assert!(phone.text("#outbox").await.starts_with("5 actions wait on this phone"), "{}", phone.text("#outbox").await);
        phone.screenshot().await;
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "courier_assigned");

        // The network returns: everything is sent, in order, once.
        phone.reconnect(&cut).await;
        phone.arrived("#ended").await;
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "delivered");
        let moves = ["pending", "courier_assigned", "at_pickup", "picked_up", "in_transit", "at_dropoff", "delivered"];
        let events = app.delivery_events(&pod.live_key, &id).await;
        let statuses: Vec<String> = events.iter().filter(|(kind, _)| kind != "delivery.eta_updated" && kind != "delivery.pod_submitted")
            .map(|(_, status)| status.clone()).collect();
        assert_eq!(statuses, moves.map(String::from).to_vec(), "each move once, in order: {events:?}");
        let files = proof_files(&app, &pod.live_key, &id).await;
        assert_eq!(files.len(), 2, "one photo at each end");
        for photo in [pickup_photo, dropoff_photo] {
            let _ = std::fs::remove_file(photo);
        }
        phone.close().await;
    }

    async fn a_courier_cannot_open_anothers_job_reports_a_no_show_and_is_signed_out_when_suspended(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let lou = join(&app, "", "Lou Courier", "lou@example.com", "car").await;
        assign(&app, &id, &kim.courier.id).await.expect("assign");

        let phone = driver.phone().await;
        // A wrong password: the core's words on the sign-in page.
        phone.open(&app.url("/courier/sign-in")).await;
        phone.fill("#login", "lou@example.com").await;
        phone.fill("#password", "not the password").await;
        phone.click_to("//button[text()='Sign in']", "#page-error").await;
        assert_eq!(phone.text("#page-error").await, "The phone number, the email or the password is wrong.");
        phone.sign_in_as_courier(&app, "lou@example.com").await;

        // Kim's job, by its address: not found, nothing of it shown.
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        assert_eq!(phone.heading().await, "Not found");
        assert!(!phone.page().await.contains("Alexanderplatz"), "nothing of the job leaks");

        // A pickup where nobody hands the goods over: reported behind a
        // confirmation box, and the job ends.
        let second = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let second = second["id"].as_str().expect("id").to_owned();
        assign(&app, &second, &lou.courier.id).await.expect("assign");
        phone.open(&app.url(&format!("/courier/jobs/{second}"))).await;
        phone.next_move("I'm at the pickup", "at_pickup").await;
        phone.click("//summary[text()='Nobody hands the goods over']").await;
        let valid = phone.client.execute("return document.querySelector('#problem form').checkValidity()", vec![]).await.expect("script");
        assert_eq!(valid, Value::Bool(false), "not sent without the box ticked");
        phone.click("//input[@id='confirm-problem']").await;
        phone.click_to("//button[@id='report-problem']", "#ended").await;
        assert!(phone.text("#ended").await.contains("finished: Cancelled: nobody handed the goods over."));
        let cancelled = app.get(&format!("/v1/deliveries/{second}"), &app.live_key).await;
        assert_eq!((cancelled.body["status"].as_str(), cancelled.body["cancellation_reason"].as_str()), (Some("cancelled"), Some("pickup_no_show")));

        // Location blocked: the page says so.
        let denied = json!({ "permission": { "name": "geolocation" }, "setting": "denied", "origin": app.base_url });
        phone.devtools("Browser.setPermission", denied).await;
        phone.open(&app.url("/courier/")).await;
        phone.click_to("//button[text()='Go online']", "#location").await;
        let blocked = phone.find("#location[data-state='denied']").await.text().await.expect("text");
        assert!(blocked.starts_with("Location is blocked"), "{blocked}");
        phone.screenshot().await;

        // Suspended: the next action signs Lou out, with the core's words.
        // (From a page that follows no live stream: an open shift or job
        // page is signed out by the stream itself within a second.)
        phone.open(&app.url(&format!("/courier/jobs/{id}"))).await;
        let request = app.admin_request(ipb::SuspendCourierRequest { courier_id: lou.courier.id.clone() });
        couriers(&app).await.suspend_courier(request).await.expect("suspend");
        phone.click_to("//a[text()='Back to the shift']", "#login").await;
        assert_eq!(phone.heading().await, "Sign in");
        assert!(!phone.text("#page-error").await.is_empty());
        phone.open(&app.url("/courier/")).await;
        assert_eq!(phone.heading().await, "Sign in", "the session cookie is gone");
        phone.close().await;
    }
}

e2e! {
    async fn the_dropoff_pin_is_asked_on_the_phone_and_a_wrong_one_is_refused_with_the_tries_left(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let pod = pod_workspace(&app).await;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({ "pickup": { "photos": 1 }, "dropoff": { "photos": 1, "pin": true } });
        let created = app.create_delivery(&pod.live_key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let pin = created["dropoff_pin"].as_str().expect("pin").to_owned();
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        crate::dropoff_pin::to_the_dropoff(&app, &kim, &id).await;

        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim@example.com").await;
        phone.click_to(&format!("//a[contains(@href, '/jobs/{id}')]"), "#job-status[data-status='at_dropoff']").await;
        phone.click_to("//a[text()='Take the delivery proof']", "#proof-form").await;
        let input = phone.find("#pin").await;
        assert_eq!(input.attr("inputmode").await.expect("attr").as_deref(), Some("numeric"));
        phone.take_photo("#photos", &camera_photo(5)).await;
        let wrong: String = pin.chars().map(|c| if c == '0' { '1' } else { '0' }).collect();
        phone.fill("#pin", &wrong).await;
        phone.screenshot().await;
        phone.click("//button[text()='Delivered']").await;
        let refused = phone.find(".form-status.refused").await.text().await.expect("text");
        assert!(refused.contains("Wrong PIN: 4 tries left"), "{refused}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "at_dropoff");
        phone.screenshot().await;

        phone.fill("#pin", &pin).await;
        phone.click_to("//button[text()='Delivered']", "#ended").await;
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &pod.live_key).await.body["status"], "delivered");
        phone.close().await;
    }

    async fn a_failed_handover_on_the_phone_leads_the_courier_to_the_return(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        crate::dropoff_pin::to_the_dropoff(&app, &kim, &id).await;

        let phone = driver.phone().await;
        phone.locate_at(&app, NEAR_PICKUP).await;
        phone.sign_in_as_courier(&app, "kim@example.com").await;
        phone.click_to(&format!("//a[contains(@href, '/jobs/{id}')]"), "#job-status[data-status='at_dropoff']").await;
        phone.click("//summary[text()='The handover failed']").await;
        phone.click("//input[@id='confirm-problem']").await;
        phone.screenshot().await;
        phone.click_to("//button[@id='report-problem']", "#job-status[data-status='courier_assigned']").await;
        // The return's page: back to the sender, from where the courier stands.
        let ended = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        let return_id = ended["return_delivery_id"].as_str().expect("the return").to_owned();
        let shown = phone.client.current_url().await.expect("url").to_string();
        assert!(shown.ends_with(&format!("/courier/jobs/{return_id}")), "{shown}");
        assert_eq!(phone.heading().await, "Go to the pickup");
        assert!(phone.page().await.contains("Return to the sender"));
        assert_eq!(phone.text("#next-address").await, created["dropoff"]["address"].as_str().expect("address"));
        phone.screenshot().await;
        phone.close().await;
    }
}

/// A live delivery asking for a photo at each end, given to Kim Courier
/// (joined, a car): the proof workspace, the delivery's id and Kim.
async fn photo_job_for_kim(app: &TestApp) -> (crate::proofs::PodWorkspace, String, crate::couriers::App) {
    let pod = pod_workspace(app).await;
    let mut body = berlin_delivery();
    body["proof_of_delivery"] = json!({ "pickup": { "photos": 1 }, "dropoff": { "photos": 1 } });
    let created = app.create_delivery(&pod.live_key, &body).await;
    let id = created["id"].as_str().expect("id").to_owned();
    let kim = join(app, "", "Kim Courier", "kim@example.com", "car").await;
    assign(app, &id, &kim.courier.id).await.expect("assign");
    (pod, id, kim)
}

/// Reads the outbox's one waiting item, its files as base64.
const KEEP_A_COPY: &str = r#"
const db = await new Promise((ok, no) => { const r = indexedDB.open("courier-app", 1); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
const items = await new Promise((ok) => { const r = db.transaction("outbox").objectStore("outbox").getAll(); r.onsuccess = () => ok(r.result); });
db.close();
const item = items[0];
const fields = [];
for (const [name, value] of item.fields) {
  if (value instanceof Blob) {
    const bytes = new Uint8Array(await value.arrayBuffer());
    let text = ""; for (const b of bytes) text += String.fromCharCode(b);
    fields.push([name, { base64: btoa(text), name: value.name, type: value.type }]);
  } else fields.push([name, value]);
}
return { count: items.length, item: { url: item.url, label: item.label, multipart: item.multipart, fields } };
"#;

/// Puts the copy back into the outbox and has it sent; the answer.
const SEND_THE_COPY_AGAIN: &str = r#"
const copy = __ITEM__;
const outbox = await import(document.body.dataset.root + "/assets/outbox.js");
copy.fields = copy.fields.map(([name, value]) => {
  if (typeof value === "string") return [name, value];
  const bytes = Uint8Array.from(atob(value.base64), (c) => c.charCodeAt(0));
  return [name, new File([bytes], value.name, { type: value.type })];
});
const id = await outbox.add(copy);
const answers = await outbox.flush();
return answers.get(id) || { error: "not sent" };
"#;
