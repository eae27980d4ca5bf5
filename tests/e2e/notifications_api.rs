//! Recipient notifications through the public API (docs/guide.md
//! "Notifications"): the `notifications` member of a delivery, a test
//! delivery's messages in `GET /v1/deliveries/{id}/notifications` (the test
//! inbox: nothing is sent), and the unsubscribe page of emails. Live SMS
//! and Twilio's signed callbacks: `notifications.rs`.

use std::time::Duration;

use courier::internal::v1 as ipb;
use courier::internal::v1::notification_settings_service_client::NotificationSettingsServiceClient;
use courier::v1::Mode;
use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, wait_until};
use crate::lifecycle::RUN_LIMIT;

/// `berlin_delivery`'s dropoff phone, `+49 151 2345678`, as lists show it.
const MASKED_DROPOFF_PHONE: &str = "+49********78";

/// Turns off the workspace's quiet hours (21:00 to 08:00 in Berlin by
/// default), which would hold the messages that can wait when the test
/// runs at night.
async fn no_quiet_hours(app: &TestApp, workspace_id: &str) {
    let mut client = NotificationSettingsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("settings client");
    let current = client
        .get_notification_settings(app.admin_request(ipb::GetNotificationSettingsRequest {
            workspace_id: workspace_id.to_owned(),
        }))
        .await
        .expect("settings")
        .into_inner()
        .settings
        .expect("settings");
    let settings = ipb::NotificationSettings {
        quiet_hours: None,
        // The texts are kept as they are.
        texts: Vec::new(),
        ..current
    };
    client
        .update_notification_settings(app.admin_request(ipb::UpdateNotificationSettingsRequest {
            settings: Some(settings),
        }))
        .await
        .expect("quiet hours off");
}

fn triggers(list: &Value) -> Vec<&str> {
    list["notifications"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| n["trigger"].as_str())
        .collect()
}

e2e! {
    // A step slow enough that the sender puts each message in the test
    // inbox before the delivery ends (a progress message after the end is
    // dropped), fast enough for a run in seconds.
    with |config| config.simulator_step = Duration::from_millis(500);

    async fn a_test_delivery_s_messages_are_listed_sent_masked_and_in_its_language(app: TestApp) {
        no_quiet_hours(&app, &app.workspace_id).await;
        let key = &app.test_key;
        let mut body = berlin_delivery();
        body["notifications"] = json!({ "language": "de" });
        let created = app.create_delivery(key, &body).await;
        assert_eq!(created["notifications"], json!({ "recipient": null, "sender": null, "language": "de" }));
        let id = created["id"].as_str().expect("id").to_owned();
        let path = format!("/v1/deliveries/{id}/notifications");

        app.wait_for_status(key, &id, "delivered", RUN_LIMIT).await;
        let list = wait_until(format!("the SMS of {id} sent"), RUN_LIMIT, async || {
            let answer = app.get(&path, key).await;
            assert_eq!(answer.status, 200, "{:#}", answer.body);
            let sent = answer.body["notifications"]
                .as_array()
                .is_some_and(|all| all.len() == 3 && all.iter().all(|n| n["status"] == "sent"));
            if sent { Ok(answer.body) } else { Err(answer.body) }
        })
        .await;

        // The defaults: an SMS to the recipient at these three moments, in
        // German, to the masked number, in the test inbox.
        // The shape of the API's lists; one page.
        assert_eq!(list.as_object().map(|o| o.len()), Some(2), "{list:#}");
        assert!(list["next_page_token"].is_null(), "{list:#}");
        assert_eq!(triggers(&list), ["courier_assigned", "arriving", "delivered"], "{list:#}");
        let german = ["ist mit Ihrer Lieferung unterwegs", "ist in wenigen Minuten", "wurde zugestellt"];
        for (n, words) in list["notifications"].as_array().expect("notifications").iter().zip(german) {
            let fields: Vec<&str> = n.as_object().expect("object").keys().map(String::as_str).collect();
            let mut expected = vec![
                "id", "delivery_id", "channel", "audience", "trigger", "address", "status", "language", "subject",
                "body", "attempts", "error", "created_at", "sent_at",
            ];
            let mut found = fields.clone();
            expected.sort_unstable();
            found.sort_unstable();
            assert_eq!(found, expected, "{n:#}");
            assert!(n["id"].as_str().is_some_and(|id| id.starts_with("ntf_")), "{n:#}");
            assert_eq!(n["delivery_id"], id.as_str());
            assert_eq!((&n["channel"], &n["audience"]), (&json!("sms"), &json!("recipient")), "{n:#}");
            assert_eq!(n["address"], MASKED_DROPOFF_PHONE, "{n:#}");
            assert_eq!(n["language"], "de");
            assert!(n["subject"].is_null() && n["error"].is_null(), "{n:#}");
            let text = n["body"].as_str().expect("body");
            assert!(text.contains(words) && !text.contains("2345678"), "{n:#}");
            assert!(n["attempts"].as_i64().is_some(), "{n:#}");
            // RFC 3339 in UTC, as every time of the API.
            for time in ["created_at", "sent_at"] {
                assert!(n[time].as_str().is_some_and(|t| t.ends_with('Z') && t.contains('T')), "{time}: {n:#}");
            }
        }

        // A delivery that chose nothing shows null.
        let plain = app.create_delivery(key, &berlin_delivery()).await;
        assert!(plain["notifications"].is_null(), "{plain:#}");
        let fetched = app.get(&format!("/v1/deliveries/{}", plain["id"].as_str().expect("id")), key).await;
        assert!(fetched.body.as_object().is_some_and(|d| d.contains_key("notifications") && d["notifications"].is_null()));
    }
}

e2e! {
    async fn bad_notification_choices_are_refused_and_others_deliveries_are_not_found(app: TestApp) {
        let key = &app.test_key;
        let post = async |notifications: Value| {
            let mut body = berlin_delivery();
            body["notifications"] = notifications;
            app.post_idempotent("/v1/deliveries", key, &crate::harness::unique_suffix(), &body).await
        };
        post(json!({ "language": "fr" })).await.assert_error(400, "invalid_request", Some("notifications.language"));
        post(json!({ "recipient": true, "channel": "sms" })).await.assert_error(400, "invalid_request", Some("notifications.channel"));
        post(json!({ "recipient": "no" })).await.assert_error(400, "invalid_request", Some("notifications.recipient"));
        post(json!("de")).await.assert_error(400, "invalid_request", Some("notifications"));
        let chosen = post(json!({ "recipient": false, "sender": true })).await;
        assert_eq!(chosen.status, 201, "{:#}", chosen.body);
        assert_eq!(chosen.body["notifications"], json!({ "recipient": false, "sender": true, "language": null }));

        // Another workspace's delivery, the other mode's, and none at all.
        let id = chosen.body["id"].as_str().expect("id");
        let path = format!("/v1/deliveries/{id}/notifications");
        let other = app.create_workspace(ipb::WorkspaceKind::Business, Default::default()).await;
        let other_key = app.create_key(&other, Mode::Test, &[]).await;
        app.get(&path, &other_key).await.assert_error(404, "not_found", None);
        app.get(&path, &app.live_key).await.assert_error(404, "not_found", None);
        app.get("/v1/deliveries/del_unknown/notifications", key).await.assert_error(404, "not_found", None);
        // An id that is not text is refused naming it.
        app.get("/v1/deliveries/%FF/notifications", key).await.assert_error(400, "invalid_request", Some("delivery_id"));
        app.get("/v1/deliveries/del_%00/notifications", key).await.assert_error(400, "invalid_request", Some("delivery_id"));
        // The list takes no query parameters and needs deliveries:read.
        app.get(&format!("{path}?limit=5"), key).await.assert_error(400, "invalid_request", Some("limit"));
        let quotes_only = app.create_key(&app.workspace_id, Mode::Test, &["quotes:create"]).await;
        app.get(&path, &quotes_only).await.assert_error(403, "permission_denied", None);
        let answer = app.get(&path, key).await;
        assert_eq!(answer.status, 200, "{:#}", answer.body);
        assert!(answer.body["notifications"].is_array(), "{:#}", answer.body);
    }

    async fn the_unsubscribe_link_asks_then_opts_out_and_a_forged_one_is_not_found(app: TestApp) {
        let html_answer = |answer: &crate::harness::Answer| -> String {
            assert_eq!(answer.header("content-type"), Some("text/html; charset=utf-8"));
            assert_eq!(answer.header("cache-control"), Some("no-store"));
            let csp = answer.header("content-security-policy").expect("csp");
            assert!(csp.starts_with("default-src 'none'") && csp.contains("form-action 'self'"), "{csp}");
            assert_eq!(answer.header("referrer-policy"), Some("no-referrer"));
            answer.body.as_str().expect("html").to_owned()
        };
        for forged in [
            "/v1/notifications/unsubscribe/forged",
            "/v1/notifications/unsubscribe/Zm9v.YmFy",
            "/v1/notifications/unsubscribe/%FF%FE",
            "/v1/notifications/unsubscribe/tok%00",
        ] {
            let answer = app.send(app.http.get(app.url(forged))).await;
            assert_eq!(answer.status, 404, "{forged}");
            let html = html_answer(&answer);
            assert!(html.contains("Unsubscribe link not found") && !html.contains("<form"), "{html}");
            let posted = app.send(app.http.post(app.url(forged)).body("List-Unsubscribe=One-Click")).await;
            assert_eq!(posted.status, 404, "{forged}");
            assert!(html_answer(&posted).contains("Unsubscribe link not found"));
        }

        // A link the core signed: asked first (a GET changes nothing), then
        // RFC 8058's one-click POST opts the address out.
        let token = courier_orders::notifications::opt_outs::unsubscribe_token(
            &app.core.secrets.unsubscribe_link,
            &app.workspace_id,
            "rui@example.com",
        );
        let path = format!("/v1/notifications/unsubscribe/{token}");
        for _ in 0..2 {
            let asked = app.send(app.http.get(app.url(&path))).await;
            assert_eq!(asked.status, 200, "{:#}", asked.body);
            let html = html_answer(&asked);
            assert!(html.contains("Stop emails from E2E workspace to r***@example.com?"), "{html}");
            assert!(html.contains("<form method=\"post\">") && html.contains("name=\"viewport\""), "{html}");
            assert!(!html.contains("rui@"), "{html}");
        }
        let posted = app
            .send(
                app.http
                    .post(app.url(&path))
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body("List-Unsubscribe=One-Click"),
            )
            .await;
        assert_eq!(posted.status, 200, "{:#}", posted.body);
        assert!(html_answer(&posted).contains("You will not get more emails from E2E workspace at r***@example.com."));
        let after = app.send(app.http.get(app.url(&path))).await;
        let html = html_answer(&after);
        assert!(html.contains("You will not get more emails from E2E workspace") && !html.contains("<form"), "{html}");
    }

    async fn an_unsigned_sms_callback_is_refused_in_the_error_shape(app: TestApp) {
        for kind in ["status", "inbound"] {
            let answer = app
                .send(
                    app.http
                        .post(app.url(&format!("/v1/notifications/sms/{kind}")))
                        .header("content-type", "application/x-www-form-urlencoded")
                        .header("x-twilio-signature", "forged")
                        .body("MessageSid=SM1&MessageStatus=delivered&From=%2B4915112345678&Body=STOP"),
                )
                .await;
            answer.assert_error(403, "permission_denied", None);
        }
    }
}
