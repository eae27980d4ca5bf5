//! Recipient notifications against real protocol peers on loopback
//! (docs/notifications.md): a Twilio stand-in answering as Twilio's
//! Messages API does (and sending its signed status callbacks and inbound
//! `STOP`), and a real SMTP server (Debian's `python3-aiosmtpd`). Live
//! deliveries are driven through `DispatchService`; each trigger sends once
//! per delivery, quiet hours hold what can wait until morning (the test
//! clock), an opted-out number gets nothing, a failing provider is retried
//! and sends once, a core killed mid-send resends and Twilio's idempotency
//! token keeps it to one SMS, and test mode sends nothing out.

use std::time::Duration;

use chrono::Timelike;
use courier::internal::v1 as ipb;
use courier::internal::v1::notification_settings_service_client::NotificationSettingsServiceClient;
use courier::v1 as pb;
use courier_messaging::testing::{SmtpServer, TwilioStandIn};
use serde_json::Value;

use crate::billing::proof;
use crate::deliveries::berlin_delivery;
use crate::harness::{Backend, TestApp, limited, wait_until};

const ACCOUNT_SID: &str = "AC00000000000000000000000000000001";
const AUTH_TOKEN: &str = "twilio-test-auth-token";
const FROM: &str = "+15005550006";
const FORM: &str = "application/x-www-form-urlencoded";
/// The recipient of `berlin_delivery`, as SMS providers spell it.
const RECIPIENT: &str = "+491512345678";

/// A core and edge whose SMS go to a Twilio stand-in and whose emails go to
/// a real SMTP server, both started first.
struct Notifying {
    app: TestApp,
    twilio: TwilioStandIn,
    smtp: SmtpServer,
}

async fn notifying(backend: Backend) -> Option<Notifying> {
    let twilio = TwilioStandIn::start(ACCOUNT_SID, AUTH_TOKEN).await;
    let smtp = SmtpServer::start().await;
    let (twilio_url, smtp_url) = (twilio.base_url(), smtp.url());
    let app = TestApp::spawn_with(backend, move |config| {
        let n = &mut config.notifications;
        n.twilio_base_url = twilio_url;
        n.twilio_account_sid = Some(ACCOUNT_SID.into());
        n.twilio_auth_token = Some(AUTH_TOKEN.into());
        n.twilio_from = Some(FROM.into());
        n.smtp_url = Some(smtp_url);
    })
    .await?;
    Some(Notifying { app, twilio, smtp })
}

/// Declares each test once and runs it on SQLite and PostgreSQL with its
/// peers, within the test limit.
macro_rules! notifying {
    ($(async fn $name:ident($n:ident: Notifying) $body:block)*) => {$(
        mod $name {
            use super::*;

            async fn run($n: Notifying) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                limited(async { run(notifying(Backend::Sqlite).await.expect("sqlite app")).await }).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                limited(async {
                    if let Some(n) = notifying(Backend::Postgres).await {
                        run(n).await;
                    }
                })
                .await;
            }
        }
    )*};
}

/// Every trigger to the recipient by SMS and email, no quiet hours (unless
/// `quiet` gives them), saved over gRPC as the console saves them.
pub async fn configure(app: &TestApp, quiet: Option<(String, String)>) {
    configure_channels(
        app,
        quiet,
        &[pb::NotificationChannel::Sms, pb::NotificationChannel::Email],
    )
    .await;
}

/// [`configure`] with only `channels`.
async fn configure_channels(app: &TestApp, quiet: Option<(String, String)>, channels: &[pb::NotificationChannel]) {
    let mut client = NotificationSettingsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("settings client");
    let mut rules = Vec::new();
    for trigger in 1..=6 {
        for &channel in channels {
            rules.push(ipb::NotificationRule {
                trigger,
                audience: pb::NotificationAudience::Recipient as i32,
                channel: channel as i32,
            });
        }
    }
    let settings = ipb::NotificationSettings {
        workspace_id: app.workspace_id.clone(),
        rules,
        texts: vec![],
        language: "en".into(),
        quiet_hours: quiet.map(|(start, end)| ipb::QuietHours { start, end }),
        email_from_name: Some("Corner Bakery".into()),
        reply_to: Some("help@bakery.example".into()),
    };
    client
        .update_notification_settings(app.admin_request(ipb::UpdateNotificationSettingsRequest {
            settings: Some(settings),
        }))
        .await
        .expect("settings saved");
}

/// The messages `GET /v1/deliveries/{id}/notifications` lists.
async fn listed(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    let answer = app.get(&format!("/v1/deliveries/{id}/notifications"), key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["notifications"].as_array().cloned().unwrap_or_default()
}

/// Waits until the listed messages of `id` are `count`, every one with a
/// status in `settled`.
async fn wait_listed(app: &TestApp, key: &str, id: &str, count: usize, settled: &[&str]) -> Vec<Value> {
    wait_until(
        format!("{count} notifications of {id} settled"),
        Duration::from_secs(20),
        async || {
            let all = listed(app, key, id).await;
            let done = all
                .iter()
                .all(|m| settled.contains(&m["status"].as_str().unwrap_or_default()));
            match all.len() == count && done {
                true => Ok(all),
                false => Err(format!("{all:#?}")),
            }
        },
    )
    .await
}

fn courier() -> pb::Courier {
    pb::Courier {
        name: Some("Sam Rider".into()),
        ..Default::default()
    }
}

fn at(seconds_from_now: i64, app: &TestApp) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: app.clock.now().timestamp() + seconds_from_now,
        nanos: 0,
    }
}

/// Accepts live delivery `id` for a courier and carries it to in transit,
/// its dropoff `eta_seconds` away.
async fn carry(app: &TestApp, id: &str, eta_seconds: i64) {
    let mut dispatch = app.dispatch().await;
    let accept = ipb::AcceptJobRequest {
        delivery_id: id.into(),
        courier: Some(courier()),
        pickup_eta: Some(at(600, app)),
    };
    dispatch.accept_job(app.dispatch_request(accept)).await.expect("accept");
    let arrive = ipb::ArriveAtPickupRequest { delivery_id: id.into() };
    dispatch
        .arrive_at_pickup(app.dispatch_request(arrive))
        .await
        .expect("at pickup");
    dispatch
        .submit_proof(app.dispatch_request(proof(id, pb::CheckpointKind::Pickup)))
        .await
        .expect("pickup proof");
    let pick_up = ipb::PickUpRequest { delivery_id: id.into() };
    dispatch
        .pick_up(app.dispatch_request(pick_up))
        .await
        .expect("picked up");
    let transit = ipb::StartTransitRequest {
        delivery_id: id.into(),
        dropoff_eta: Some(at(eta_seconds, app)),
    };
    dispatch
        .start_transit(app.dispatch_request(transit))
        .await
        .expect("in transit");
}

/// Reports the courier of `id` at `(latitude, longitude)` with a dropoff
/// ETA `eta_seconds` away.
async fn report(app: &TestApp, id: &str, position: (f64, f64), eta_seconds: i64) {
    let mut dispatch = app.dispatch().await;
    let location = ipb::StreamCourierLocationsRequest {
        delivery_id: id.into(),
        latitude: position.0,
        longitude: position.1,
        recorded_at: None,
        dropoff_eta: Some(at(eta_seconds, app)),
    };
    dispatch
        .stream_courier_locations(app.dispatch_request(tokio_stream::iter([location])))
        .await
        .expect("location");
}

async fn hand_over(app: &TestApp, id: &str) {
    let mut dispatch = app.dispatch().await;
    let arrive = ipb::ArriveAtDropoffRequest { delivery_id: id.into() };
    dispatch
        .arrive_at_dropoff(app.dispatch_request(arrive))
        .await
        .expect("at dropoff");
    dispatch
        .submit_proof(app.dispatch_request(proof(id, pb::CheckpointKind::Dropoff)))
        .await
        .expect("dropoff proof");
    let done = ipb::CompleteHandoverRequest { delivery_id: id.into() };
    dispatch
        .complete_handover(app.dispatch_request(done))
        .await
        .expect("handed over");
}

/// Where `berlin_delivery` drops off, and a place 2 km from it.
const DROPOFF: (f64, f64) = (52.4996, 13.4180);
const FAR: (f64, f64) = (52.5150, 13.4000);

fn triggers(messages: &[Value], channel: &str) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["channel"] == channel)
        .map(|m| m["trigger"].as_str().unwrap_or_default().to_owned())
        .collect()
}

notifying! {
    async fn every_trigger_sends_once_by_sms_and_email(n: Notifying) {
        let Notifying { app, twilio, smtp } = n;
        configure(&app, None).await;
        let key = app.live_key.clone();
        let delivered = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        carry(&app, &delivered, 1_200).await;
        // Far and 20 minutes away: not arriving yet; then 3 minutes away:
        // arriving, once, however often it is said again.
        report(&app, &delivered, FAR, 1_200).await;
        report(&app, &delivered, FAR, 180).await;
        report(&app, &delivered, DROPOFF, 60).await;
        hand_over(&app, &delivered).await;
        let sent = wait_listed(&app, &key, &delivered, 8, &["sent"]).await;
        let order = ["courier_assigned", "picked_up", "arriving", "delivered"];
        assert_eq!(triggers(&sent, "sms"), order, "{sent:#?}");
        assert_eq!(triggers(&sent, "email"), order, "{sent:#?}");
        for message in &sent {
            assert_eq!(message["audience"], "recipient");
            let masked = message["address"].as_str().expect("address");
            assert!(masked == "+49********78" || masked == "r***@example.com", "{masked}");
        }

        let sms = twilio.wait_for_messages(4, Duration::from_secs(10)).await;
        assert!(sms.iter().all(|m| m.to == RECIPIENT && m.from.as_deref() == Some(FROM)), "{sms:#?}");
        let assigned = &sms[0].body;
        assert!(assigned.starts_with("Corner Bakery: Sam is on the way"), "{assigned}");
        assert!(assigned.contains(&format!("{}/t/", app.base_url)), "the tracking link: {assigned}");
        let callback = sms[0].status_callback.as_deref().expect("a status callback");
        assert_eq!(callback, app.url("/v1/notifications/sms/status"));
        let emails = smtp.wait_for_messages(4, Duration::from_secs(10)).await;
        let first = &emails[0];
        assert_eq!(first.to, "rui@example.com");
        assert_eq!(first.from_name.as_deref(), Some("Corner Bakery"));
        assert_eq!(first.reply_to.as_deref(), Some("help@bakery.example"));
        assert_eq!(first.subject, "Corner Bakery: your delivery is on its way");
        let unsubscribe = first.list_unsubscribe.clone().expect("List-Unsubscribe");
        assert!(unsubscribe.contains("/v1/notifications/unsubscribe/"), "{unsubscribe}");
        assert_eq!(first.list_unsubscribe_post.as_deref(), Some("List-Unsubscribe=One-Click"));
        assert!(first.text.contains("No more emails like this"), "{}", first.text);

        // Twilio reports the first SMS delivered, signed: the list says so.
        // A callback Twilio did not sign changes nothing.
        let forged = app
            .http
            .post(app.url("/v1/notifications/sms/status"))
            .header("x-twilio-signature", "bm90IGEgc2lnbmF0dXJl")
            .header("content-type", FORM)
            .body(format!("MessageSid={}&MessageStatus=failed", sms[1].sid))
            .send()
            .await
            .expect("forged callback");
        assert_eq!(forged.status(), 403);
        assert_eq!(twilio.send_status(&sms[0].sid, "delivered").await, 200);
        let reported = listed(&app, &key, &delivered).await;
        let sms_status = |trigger: &str| {
            let sent = reported.iter().find(|m| m["channel"] == "sms" && m["trigger"] == trigger);
            sent.expect("the SMS")["status"].clone()
        };
        // `sms` are in the order sent: courier_assigned, then picked_up.
        assert_eq!(sms_status("courier_assigned"), "delivered", "{reported:#?}");
        assert_eq!(sms_status("picked_up"), "sent", "the forged callback changed nothing: {reported:#?}");

        // A delivery that fails after its pickup, and one that runs late.
        let failed = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        carry(&app, &failed, 600).await;
        let mut dispatch = app.dispatch().await;
        let arrive = ipb::ArriveAtDropoffRequest { delivery_id: failed.clone() };
        dispatch.arrive_at_dropoff(app.dispatch_request(arrive)).await.expect("at dropoff");
        let fail = ipb::FailHandoverRequest { delivery_id: failed.clone() };
        dispatch.fail_handover(app.dispatch_request(fail)).await.expect("failed");
        let ended = wait_listed(&app, &key, &failed, 8, &["sent"]).await;
        assert_eq!(triggers(&ended, "sms"), ["courier_assigned", "picked_up", "arriving", "failed"], "{ended:#?}");

        let late = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        carry(&app, &late, 4 * 3_600).await;
        report(&app, &late, FAR, 4 * 3_600).await;
        let running = wait_listed(&app, &key, &late, 6, &["sent"]).await;
        assert_eq!(triggers(&running, "sms"), ["courier_assigned", "picked_up", "delayed"], "{running:#?}");
        assert_eq!(twilio.messages().len(), 4 + 4 + 3, "one SMS per trigger and delivery");
    }

    async fn quiet_hours_hold_a_courier_assigned_message_until_morning(n: Notifying) {
        let Notifying { app, twilio, .. } = n;
        // Quiet from an hour ago to an hour from now, on Berlin's clock.
        let berlin = app.clock.now().with_timezone(&chrono_tz::Europe::Berlin);
        let hour = |h: i64| format!("{:02}:00", (i64::from(berlin.hour()) + h).rem_euclid(24));
        configure(&app, Some((hour(0), hour(1)))).await;
        let key = app.live_key.clone();
        let id = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let mut dispatch = app.dispatch().await;
        let accept = ipb::AcceptJobRequest { delivery_id: id.clone(), courier: Some(courier()), pickup_eta: Some(at(600, &app)) };
        dispatch.accept_job(app.dispatch_request(accept)).await.expect("accept");
        let held = wait_listed(&app, &key, &id, 2, &["held"]).await;
        assert!(held.iter().all(|m| m["sent_at"].is_null()), "{held:#?}");
        assert_eq!(twilio.requests(), 0, "nothing goes out in quiet hours");
        // Morning comes: the message goes out, once.
        app.clock.advance(Duration::from_secs(3_600 - u64::from(berlin.minute()) * 60 + 60));
        let sent = wait_listed(&app, &key, &id, 2, &["sent"]).await;
        assert!(sent.iter().all(|m| m["trigger"] == "courier_assigned"));
        assert_eq!(twilio.wait_for_messages(1, Duration::from_secs(5)).await.len(), 1);
    }

    async fn an_opted_out_number_gets_nothing(n: Notifying) {
        let Notifying { app, twilio, .. } = n;
        configure(&app, None).await;
        let key = app.live_key.clone();
        let first = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let mut dispatch = app.dispatch().await;
        let accept = |id: &str| ipb::AcceptJobRequest { delivery_id: id.into(), courier: Some(courier()), pickup_eta: Some(at(600, &app)) };
        dispatch.accept_job(app.dispatch_request(accept(&first))).await.expect("accept");
        twilio.wait_for_messages(1, Duration::from_secs(10)).await;
        // The recipient answers STOP; an unsigned STOP would change nothing.
        let inbound = app.url("/v1/notifications/sms/inbound");
        let unsigned = app.http.post(&inbound).header("content-type", FORM).body("From=%2B491512345678&Body=STOP").send().await.expect("unsigned");
        assert_eq!(unsigned.status(), 403);
        assert_eq!(twilio.send_inbound(&inbound, RECIPIENT, " stop ").await, 200);

        let second = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        dispatch.accept_job(app.dispatch_request(accept(&second))).await.expect("accept");
        let messages = wait_listed(&app, &key, &second, 2, &["sent", "opted_out"]).await;
        let by_channel = |channel: &str| messages.iter().find(|m| m["channel"] == channel).expect("message")["status"].clone();
        assert_eq!(by_channel("sms"), "opted_out", "{messages:#?}");
        assert_eq!(by_channel("email"), "sent", "the opt-out is the number's, not the address's");
        assert_eq!(twilio.messages().len(), 1, "nothing more reached the number");
    }

    async fn a_provider_failing_three_times_then_succeeding_sends_exactly_once(n: Notifying) {
        let Notifying { app, twilio, .. } = n;
        configure(&app, None).await;
        twilio.fail_next(3);
        let key = app.live_key.clone();
        let id = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let mut dispatch = app.dispatch().await;
        let accept = ipb::AcceptJobRequest { delivery_id: id.clone(), courier: Some(courier()), pickup_eta: Some(at(600, &app)) };
        dispatch.accept_job(app.dispatch_request(accept)).await.expect("accept");
        let sent = wait_listed(&app, &key, &id, 2, &["sent"]).await;
        let sms = sent.iter().find(|m| m["channel"] == "sms").expect("the SMS");
        assert_eq!(sms["attempts"], 4, "{sms:#}");
        assert_eq!(twilio.requests(), 4);
        assert_eq!(twilio.messages().len(), 1, "sent exactly once");
        let ntf = sms["id"].as_str().expect("id");
        let attempts = courier_orders::notifications::messages::attempts_of(&app.core.db, ntf).await.expect("attempts");
        let outcomes: Vec<&str> = attempts.iter().map(|a| a.outcome.as_str()).collect();
        assert_eq!(outcomes, ["unavailable", "unavailable", "unavailable", "sent"]);
        assert_eq!(attempts[3].provider_message_id.as_deref(), Some(twilio.messages()[0].sid.as_str()));
    }

    async fn a_test_mode_delivery_fills_the_test_inbox_and_sends_nothing(n: Notifying) {
        let Notifying { app, twilio, smtp } = n;
        configure(&app, None).await;
        let key = app.test_key.clone();
        let id = app.create_delivery(&key, &berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        app.wait_for_status(&key, &id, "delivered", Duration::from_secs(20)).await;
        let sent = wait_listed(&app, &key, &id, 8, &["sent"]).await;
        assert_eq!(triggers(&sent, "sms"), ["courier_assigned", "picked_up", "arriving", "delivered"], "{sent:#?}");
        let mut client = NotificationSettingsServiceClient::connect(app.grpc_url.clone()).await.expect("client");
        let inbox = client
            .list_test_messages(app.admin_request(ipb::ListTestMessagesRequest { workspace_id: app.workspace_id.clone(), page_size: 5, page_token: String::new() }))
            .await
            .expect("inbox")
            .into_inner();
        assert_eq!(inbox.messages.len(), 5);
        assert!(!inbox.next_page_token.is_empty());
        assert_eq!(inbox.messages[0].delivery_id, id);
        assert_eq!(twilio.requests(), 0, "test mode sends nothing out");
        assert!(smtp.messages().is_empty(), "test mode sends nothing out");
    }
}

/// Settings refused at save name the field, and nothing changes.
mod settings {
    use super::*;

    e2e! {
        async fn an_unknown_placeholder_is_refused_by_name(app: TestApp) {
            let mut client = NotificationSettingsServiceClient::connect(app.grpc_url.clone()).await.expect("client");
            let get = |app: &TestApp| app.admin_request(ipb::GetNotificationSettingsRequest { workspace_id: app.workspace_id.clone() });
            let before = client.get_notification_settings(get(&app)).await.expect("settings").into_inner();
            assert!(!before.sms_live && !before.email_live, "no provider in this test");
            let mut settings = before.settings.clone().expect("settings");
            let arriving = settings
                .texts
                .iter_mut()
                .find(|t| t.language == "en" && t.trigger == pb::NotificationTrigger::Arriving as i32)
                .expect("the arriving text");
            arriving.sms = "Hi {nickname}, almost there: {tracking_url}".into();
            let status = client
                .update_notification_settings(app.admin_request(ipb::UpdateNotificationSettingsRequest { settings: Some(settings) }))
                .await
                .expect_err("refused");
            let (code, param) = courier::errors::from_status(&status);
            assert_eq!((code.as_str(), param.as_deref()), ("invalid_request", Some("templates.en.arriving.sms")));
            assert!(status.message().contains("{nickname}"), "{}", status.message());
            let after = client.get_notification_settings(get(&app)).await.expect("settings").into_inner();
            assert_eq!(after.settings, before.settings, "nothing changed");

            // A text of the workspace's own, then the platform's again.
            let arriving = |texts: &[ipb::NotificationText]| {
                texts.iter().find(|t| t.language == "en" && t.trigger == pb::NotificationTrigger::Arriving as i32).cloned().expect("the arriving text")
            };
            let own = ipb::NotificationText { sms: "Nearly there: {tracking_url}".into(), ..arriving(&after.settings.clone().expect("settings").texts) };
            let update = |text: ipb::NotificationText| ipb::UpdateNotificationSettingsRequest {
                settings: Some(ipb::NotificationSettings { texts: vec![text], ..after.settings.clone().expect("settings") }),
            };
            let saved = client.update_notification_settings(app.admin_request(update(own.clone()))).await.expect("saved").into_inner();
            let kept = arriving(&saved.settings.expect("settings").texts);
            assert!(kept.custom && kept.sms == "Nearly there: {tracking_url}", "{kept:?}");
            let reset = ipb::NotificationText { reset: true, ..own };
            let saved = client.update_notification_settings(app.admin_request(update(reset))).await.expect("reset").into_inner();
            assert_eq!(arriving(&saved.settings.expect("settings").texts), arriving(&before.settings.clone().expect("settings").texts));
            let preview = client
                .preview_notification(app.admin_request(ipb::PreviewNotificationRequest {
                    workspace_id: app.workspace_id.clone(),
                    trigger: pb::NotificationTrigger::CourierAssigned as i32,
                    language: "de".into(),
                    text: None,
                }))
                .await
                .expect("preview")
                .into_inner();
            assert!(preview.sms.contains("ist mit Ihrer Lieferung unterwegs, erwartet um 14:35"), "{}", preview.sms);
        }
    }
}

/// A core killed while Twilio holds its SMS unanswered: the next core finds
/// the cut-off send at Twilio (whose Messages API takes no idempotency key)
/// within seconds, and adopts it; the recipient gets one SMS.
mod crash {
    use std::time::Instant;

    use super::*;
    use crate::webhook_crash::CoreProcess;

    e2e! {
        async fn a_core_killed_mid_send_finds_the_sms_at_twilio_and_sends_it_once(app: TestApp) {
            let twilio = TwilioStandIn::start(ACCOUNT_SID, AUTH_TOKEN).await;
            configure_channels(&app, None, &[pb::NotificationChannel::Sms]).await;
            let mut app = app;
            app.shutdown().await;
            let base_url = twilio.base_url();
            let settings = [
                ("COURIER_TWILIO_BASE_URL", base_url.as_str()),
                ("COURIER_TWILIO_ACCOUNT_SID", ACCOUNT_SID),
                ("COURIER_TWILIO_AUTH_TOKEN", AUTH_TOKEN),
                ("COURIER_TWILIO_FROM", FROM),
                ("COURIER_NOTIFICATION_TIMEOUT", "2s"),
                ("COURIER_DISPATCH", "external"),
                ("COURIER_SIMULATOR_STEP", "1h"),
            ];
            let first = CoreProcess::start(&app, &settings);
            let edge = crate::hostile::edge_for(&first.grpc_url, Default::default()).await;
            let http = reqwest::Client::builder().no_proxy().build().expect("client");
            let created: Value = http
                .post(format!("{edge}/v1/deliveries"))
                .header("x-api-key", &app.live_key)
                .header("idempotency-key", crate::harness::unique_suffix())
                .json(&berlin_delivery())
                .send()
                .await
                .expect("create")
                .json()
                .await
                .expect("delivery");
            let id = created["id"].as_str().expect("id").to_owned();
            // Twilio takes the SMS and answers only after the core is gone.
            twilio.hold_next(1, Duration::from_secs(30));
            let mut dispatch = courier::internal::v1::dispatch_service_client::DispatchServiceClient::connect(first.grpc_url.clone())
                .await
                .expect("dispatch client");
            let accept = ipb::AcceptJobRequest { delivery_id: id.clone(), courier: Some(courier()), pickup_eta: None };
            dispatch.accept_job(app.dispatch_request(accept)).await.expect("accept");
            twilio.wait_for_messages(1, Duration::from_secs(10)).await;
            first.kill();

            let second = CoreProcess::start(&app, &settings);
            let started = Instant::now();
            let edge = crate::hostile::edge_for(&second.grpc_url, Default::default()).await;
            let listed = wait_until("the cut-off SMS settled by the next core", Duration::from_secs(20), async || {
                let answer: Value = http
                    .get(format!("{edge}/v1/deliveries/{id}/notifications"))
                    .header("x-api-key", &app.live_key)
                    .send()
                    .await
                    .map_err(|e| e.to_string())?
                    .json()
                    .await
                    .map_err(|e| e.to_string())?;
                match answer["notifications"][0]["status"].as_str() {
                    Some("sent") => Ok(answer),
                    _ => Err(format!("{answer:#}")),
                }
            })
            .await;
            eprintln!("the cut-off SMS settled {:?} after the next core started", started.elapsed());
            assert_eq!(twilio.messages().len(), 1, "one SMS reached the recipient");
            assert_eq!(twilio.requests(), 1, "it was not sent again");
            assert!(twilio.lookups() >= 1, "the next core asked Twilio first");
            let ntf = listed["notifications"][0]["id"].as_str().expect("id");
            let attempts = courier_orders::notifications::messages::attempts_of(&app.core.db, ntf).await.expect("attempts");
            let outcomes: Vec<&str> = attempts.iter().map(|a| a.outcome.as_str()).collect();
            assert_eq!(outcomes, ["cut_off"], "{attempts:#?}");
            assert_eq!(attempts[0].provider_message_id.as_deref(), Some(twilio.messages()[0].sid.as_str()));
            drop(second);
        }
    }
}

/// Live SMS on the workspace's statement (docs/billing.md "SMS
/// notifications"): each SMS Twilio took is charged at the catalogue's
/// price, and `CloseStatement` bills them with the delivery.
mod billing {
    use super::*;

    notifying! {
        async fn a_live_deliverys_sms_are_on_its_statement_at_the_catalogues_price(n: Notifying) {
            let Notifying { app, twilio, .. } = n;
            configure_channels(&app, None, &[pb::NotificationChannel::Sms]).await;
            let key = app.live_key.clone();
            let created = app.create_delivery(&key, &berlin_delivery()).await;
            let id = created["id"].as_str().expect("id").to_owned();
            let price = created["amount_cents"].as_i64().expect("amount");
            carry(&app, &id, 1_200).await;
            hand_over(&app, &id).await;
            let sent = wait_listed(&app, &key, &id, 4, &["sent"]).await;
            assert_eq!(triggers(&sent, "sms"), ["courier_assigned", "picked_up", "arriving", "delivered"], "{sent:#?}");
            assert_eq!(twilio.wait_for_messages(4, Duration::from_secs(10)).await.len(), 4);

            let sms_cents = app.core.catalog.notification_prices().sms_cents;
            assert_eq!(sms_cents, 9, "the built-in catalogue's price");
            app.clock.advance(Duration::from_secs(1));
            let mut billing = app.billing().await;
            let close = ipb::CloseStatementRequest { workspace_id: app.workspace_id.clone() };
            let closed = billing.close_statement(app.billing_request(close)).await.expect("closed").into_inner().statements;
            assert_eq!(closed.len(), 1, "{closed:#?}");
            let statement = &closed[0];
            assert_eq!((statement.delivery_count, statement.sms_count), (1, 4));
            assert_eq!((statement.sms_cents, statement.sms_unit_cents), (4 * sms_cents, Some(sms_cents)));
            assert_eq!(statement.total_cents, price + 4 * sms_cents, "the delivery and its SMS");

            let get = ipb::GetStatementRequest { statement_id: statement.id.clone(), page_size: 0, page_token: String::new() };
            let read = billing.get_statement(app.billing_request(get)).await.expect("statement").into_inner();
            assert_eq!(read.statement.as_ref(), Some(statement));
            assert_eq!(read.deliveries.len(), 1);
            // The documents show them on a line of their own, and add up.
            let page = courier::statements::html("Corner Bakery", statement, &read.deliveries).expect("page");
            assert!(page.contains("SMS notifications: 4 × 0.09 EUR"), "{page}");
            let csv = courier::statements::statement_csv(statement, &read.deliveries).expect("csv");
            assert_eq!(crate::console_pages::statement_csv_cents(&csv), statement.total_cents, "{csv}");
            let state = ipb::GetBillingStateRequest { workspace_id: app.workspace_id.clone() };
            let state = billing.get_billing_state(app.billing_request(state)).await.expect("state").into_inner();
            assert_eq!(state.open_amount_cents, 0, "the delivery's price left it; the SMS were never in it");
        }
    }
}
