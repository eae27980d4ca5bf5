//! The console in a real headless Chromium, driven over WebDriver
//! (chromedriver): signing in by keyboard, a key created, used on /v1 and
//! revoked; a webhook endpoint registered against a loopback receiver and a
//! test event sent; a member invited, joining and signing in, and kept out of
//! the key pages by link and by a forged form post; a live delivery changed
//! on its page.
//!
//! With `COURIER_CONSOLE_SCREENSHOTS=<dir>` every page visited is saved
//! there as a PNG at desktop and at phone width (390 px).

use std::time::Duration;

use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};
use fantoccini::Locator;
use serde_json::json;

use crate::browser::{Browser, Driver, PAGE_WAIT};
use crate::harness::{TestApp, wait_until};
use crate::webhooks::{Receiver, signature_is_valid};

const PASSWORD: &str = "correct horse battery";
const ENTER: &str = "\u{E007}";
const TAB: &str = "\u{E004}";

/// The console's own steps in the browser.
impl Browser {
    /// Signs in by keyboard alone: type, Tab, type, Enter.
    async fn sign_in(&self, app: &TestApp, email: &str) {
        self.open(&app.url("/console/sign-in")).await;
        self.find("#email").await.send_keys(email).await.expect("email");
        self.mark().await;
        self.client
            .active_element()
            .await
            .expect("focus")
            .send_keys(&format!("{TAB}{PASSWORD}{ENTER}"))
            .await
            .expect("password");
        self.arrived("nav").await;
    }
}

async fn user(app: &TestApp, email: &str, role: Role) {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Browser User".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    let user = accounts::create_user(&app.core.writer, now, new).await.expect("user");
    memberships::add(&app.core.writer, now, &app.workspace_id, &user.id, role)
        .await
        .expect("membership");
}

e2e! {
    async fn an_owner_creates_a_key_in_the_browser_uses_it_and_revokes_it(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;

        owner.click_to("//nav//a[text()='API keys']", "#label").await;
        assert_eq!(owner.heading().await, "API keys (test)");
        assert!(owner.page().await.contains("Test data"), "test data is marked");
        owner.fill("#label", "Warehouse <backend>").await;
        owner.click("//label[contains(., 'Read deliveries and events')]/input").await;
        owner.find("#expiry").await.select_by_value("30").await.expect("expiry");
        owner.click_to("//button[text()='Create key']", "#secret").await;
        let secret = owner.text("#secret").await;
        assert!(secret.starts_with("mm_test_"), "{secret}");
        assert_eq!(app.get("/v1/deliveries", &secret).await.status, 200);
        app.post("/v1/quotes", &secret, &json!({})).await.assert_error(403, "permission_denied", None);

        // A reload shows the keys, not the secret again, and creates no
        // second key.
        owner.mark().await;
        owner.client.refresh().await.expect("reload");
        owner.arrived("table").await;
        assert!(!owner.page().await.contains(&secret), "the secret is shown once");
        assert_eq!(owner.text("table").await.matches("Warehouse <backend>").count(), 1, "one key");
        let row = format!("//tr[td[contains(., '{}')]]", &secret[..12]);
        assert!(owner.text("table").await.contains("Warehouse <backend>"), "the label, escaped and shown");
        // On the clock of the workspace's service area (Berlin: no delivery
        // yet, the catalogue's first area), UTC on hover.
        let used = owner.client.find(Locator::XPath(&format!("{row}/td[@data-label='Last used']/time"))).await.expect("last used");
        let (text, utc) = (used.text().await.expect("text"), used.attr("title").await.expect("title").unwrap_or_default());
        assert!(text.ends_with(" CET") || text.ends_with(" CEST"), "the key's use, in Berlin's time: {text}");
        assert!(utc.ends_with(" UTC"), "and in UTC on hover: {utc}");
        assert!(!owner.page().await.contains("fleet_orders:create"), "a business workspace offers no fleet permission");
        owner.click(&format!("{row}//input[@name='confirm']")).await;
        owner.click_to(&format!("{row}//button[text()='Revoke']"), "table").await;
        assert!(owner.find("table").await.text().await.expect("text").contains("revoked"));
        app.get("/v1/deliveries", &secret).await.assert_error(401, "invalid_api_key", None);

        // The live switch shows the live keys only.
        owner.click_to("//nav//a[text()='Live']", "h1").await;
        assert_eq!(owner.heading().await, "API keys (live)");
        assert!(!owner.page().await.contains(&secret[..12]));
        owner.close().await;
    }

    async fn an_owner_registers_a_webhook_in_the_browser_and_sends_a_test_event(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let receiver = Receiver::start().await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;

        owner.click_to("//nav//a[text()='Webhooks']", "#url").await;
        // The core's refusal is shown next to the field it names.
        owner.fill("#url", "ftp://example.com/hooks").await;
        owner.mark().await;
        owner.find("#url").await.send_keys(ENTER).await.expect("submit");
        owner.arrived("#url-error").await;
        let error = owner.text("#url-error").await;
        assert!(!error.is_empty());
        assert_eq!(app.get("/v1/webhooks", &app.test_key).await.body["webhooks"].as_array().map(Vec::len), Some(0));

        owner.fill("#url", &receiver.url).await;
        owner.click("//label[contains(., 'Delivery booked')]/input").await;
        owner.fill("#description", "Order system").await;
        owner.click_to("//button[text()='Add endpoint']", "#secret").await;
        let secret = owner.text("#secret").await;
        assert!(secret.starts_with("whsec_"), "{secret}");
        let listed = app.get("/v1/webhooks", &app.test_key).await;
        assert_eq!(listed.body["webhooks"][0]["url"], receiver.url.as_str(), "{:#}", listed.body);
        assert_eq!(listed.body["webhooks"][0]["events"], json!(["delivery.created"]));

        owner.click_to("//a[text()='Open the endpoint']", "h1").await;
        owner.click_to("//button[text()='Send test event']", ".notice").await;
        let result = owner.text(".notice").await;
        assert!(result.contains("delivered") && result.contains("200"), "{result}");
        let received = receiver.wait_for(1, Duration::from_secs(10)).await;
        assert!(signature_is_valid(&secret, &received[0]), "signed with the secret shown once");

        owner.click("//form[contains(@action, '/status')]//input[@name='confirm']").await;
        owner.click_to("//button[text()='Disable']", "h1").await;
        assert_eq!(app.get("/v1/webhooks", &app.test_key).await.body["webhooks"][0]["status"], "disabled");
        owner.click_to("//button[text()='Replay failed events']", ".banner").await;
        assert!(owner.text(".banner").await.contains("disabled"), "the API's endpoint_disabled refusal");
        owner.click_to("//button[text()='Enable']", "h1").await;
        owner.click("//form[contains(@action, '/delete')]//input[@name='confirm']").await;
        owner.click_to("//button[text()='Delete endpoint']", "h1").await;
        assert_eq!(owner.heading().await, "Webhooks (test)");
        assert_eq!(app.get("/v1/webhooks", &app.test_key).await.body["webhooks"].as_array().map(Vec::len), Some(0));
        owner.close().await;
    }

    async fn an_invited_member_signs_in_and_cannot_reach_the_key_pages(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        owner.click_to("//nav//a[text()='Members']", "#invite-role").await;
        owner.find("#invite-role").await.select_by_value("member").await.expect("role");
        owner.click_to("//button[text()='Create an invitation link']", "#invitation-link").await;
        let link = owner.text("#invitation-link").await;

        let member = driver.browser().await;
        member.open(&link).await;
        assert!(member.heading().await.starts_with("Join "), "{}", member.heading().await);
        member.fill("#name", "Mia Member").await;
        member.fill("#email", "mia@example.com").await;
        member.fill("#password", PASSWORD).await;
        // Joining lands signed in on the workspace's overview, with a welcome.
        member.click_to("//button[text()='Create account and join']", "nav").await;
        let url = member.client.current_url().await.expect("url");
        assert_eq!(url.path(), format!("/console/w/{}/overview", app.workspace_id));
        let welcome = member.text(".notice").await;
        assert!(welcome.starts_with("Welcome to ") && welcome.ends_with("you joined as member."), "{welcome}");
        // The link works once, and says so.
        let used = driver.browser().await;
        used.open(&link).await;
        assert!(used.text("main").await.contains("already used"), "{}", used.text("main").await);
        used.close().await;
        member.click_to("//nav//a[text()='Members']", "table").await;
        assert!(member.text("table").await.contains("mia@example.com"));
        let nav = member.text("nav").await;
        assert!(!nav.contains("API keys") && !nav.contains("Webhooks"), "{nav}");

        // By link: not allowed.
        member.open(&app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id))).await;
        assert_eq!(member.heading().await, "Not allowed");
        // By a forged form post, with the member's own valid CSRF token: refused, nothing created.
        member.open(&app.url(&format!("/console/w/{}/members", app.workspace_id))).await;
        let forged = format!(
            "const form = document.createElement('form'); form.method = 'post'; form.action = '{}';\
             for (const [name, value] of [['csrf', document.querySelector('input[name=csrf]').value], ['label', 'forged'], ['mode', 'test']]) {{\
             const input = document.createElement('input'); input.name = name; input.value = value; form.appendChild(input); }}\
             document.body.appendChild(form); form.submit();",
            app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id))
        );
        member.mark().await;
        member.client.execute(&forged, vec![]).await.expect("forged post");
        member.arrived("h1").await;
        assert_eq!(member.heading().await, "Not allowed");
        owner.open(&app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id))).await;
        assert!(!owner.page().await.contains("forged"), "no key was created");

        // Signed out, the pages send to sign-in.
        member.open(&app.url(&format!("/console/w/{}/members", app.workspace_id))).await;
        member.click_to("//button[text()='Sign out']", "#email").await;
        member.open(&app.url(&format!("/console/w/{}/members", app.workspace_id))).await;
        assert_eq!(member.heading().await, "Sign in");
        member.close().await;
        owner.close().await;
    }
}

e2e! {
    async fn an_owner_changes_a_live_delivery_on_its_page_and_its_history_shows_the_change(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let created = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        owner.open(&app.url(&format!("/console/w/{}/deliveries/{id}?mode=live", app.workspace_id))).await;
        owner.click("//summary[h2[text()='Change the delivery']]").await;
        owner.screenshot().await;

        // A phone that is none: refused at the field, nothing changed.
        owner.fill("#change-dropoff-phone", "call me").await;
        owner.click_to("//button[text()='Save the change']", "#change-dropoff-phone-error").await;
        assert_eq!(owner.find("#change-dropoff-phone").await.attr("aria-invalid").await.expect("attr").as_deref(), Some("true"));
        assert_eq!(owner.find("#change-dropoff-phone").await.prop("value").await.expect("value").as_deref(), Some("call me"), "the form keeps what was sent");
        owner.screenshot().await;
        let read = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!(read["dropoff"]["contact"], created["dropoff"]["contact"]);

        owner.fill("#change-dropoff-phone", "+49 151 9876543").await;
        owner.fill("#change-dropoff-instructions", "Ring the back door").await;
        owner.click_to("//button[text()='Save the change']", ".notice").await;
        assert_eq!(owner.text(".notice").await, "Delivery changed: dropoff contact, dropoff instructions.");
        assert!(owner.text(".waypoints").await.contains("Ring the back door"));
        let timeline = owner.text(".timeline").await;
        assert!(timeline.contains("dropoff.contact, dropoff.instructions"), "{timeline}");
        owner.screenshot().await;
        let read = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!(read["dropoff"]["contact"]["phone"], "+49 151 9876543");
        assert_eq!(read["dropoff"]["instructions"], "Ring the back door");
        let events = app.delivery_events(&app.live_key, &id).await;
        assert_eq!(events.iter().filter(|(t, _)| t == "delivery.updated").count(), 1, "{events:?}");

        // Sent again as it is: nothing to change, no second event.
        owner.click("//summary[h2[text()='Change the delivery']]").await;
        owner.click_to("//button[text()='Save the change']", ".notice").await;
        assert!(owner.text(".notice").await.starts_with("Nothing to change"));
        assert_eq!(app.delivery_events(&app.live_key, &id).await, events);

        // A moved dropoff costs more: the new price is shown, nothing
        // changes until it is saved again.
        owner.click("//summary[h2[text()='Change the delivery']]").await;
        owner.fill("#change-dropoff-position", "52.4900, 13.4400").await;
        owner.fill("#change-dropoff-address", "Sonnenallee 100, 12045 Berlin").await;
        owner.click_to("//button[text()='Save the change']", "#change-new-price").await;
        let offered = owner.text("#change-new-price").await;
        assert!(offered.contains("Save again to accept"), "{offered}");
        owner.screenshot().await;
        let read = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!((&read["dropoff"]["latitude"], &read["amount_cents"]), (&created["dropoff"]["latitude"], &created["amount_cents"]));
        owner.click_to("//button[text()='Save the change']", ".notice").await;
        assert_eq!(owner.text(".notice").await, "Delivery changed: dropoff address, dropoff position.");
        let moved = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!((moved["dropoff"]["latitude"].as_f64(), moved["dropoff"]["address"].as_str()), (Some(52.49), Some("Sonnenallee 100, 12045 Berlin")));
        assert_ne!(moved["amount_cents"], created["amount_cents"], "priced again");
        let total = owner.text("#delivery-total").await;
        assert!(offered.contains(&total), "the price accepted ({offered}) is the one charged ({total})");

        // A dropoff window, typed on Berlin's clock.
        let berlin = |minutes: i64| {
            let at = app.clock.now() + chrono::Duration::minutes(minutes);
            at.with_timezone(&chrono_tz::Europe::Berlin).format("%Y-%m-%dT%H:%M").to_string()
        };
        owner.click("//summary[h2[text()='Change the delivery']]").await;
        let set = async |id: &str, value: String| {
            owner.client.execute("document.getElementById(arguments[0]).value = arguments[1]", vec![json!(id), json!(value)]).await.expect("a time");
        };
        set("change-dropoff-window-start", berlin(120)).await;
        owner.click_to("//button[text()='Save the change']", "#change-dropoff-window-end-error").await;
        set("change-dropoff-window-end", berlin(240)).await;
        owner.click_to("//button[text()='Save the change']", ".notice").await;
        assert_eq!(owner.text(".notice").await, "Delivery changed: dropoff window.");
        assert!(owner.text("main").await.contains("Deliver between"), "the window is shown");
        let windowed = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert!(windowed["dropoff_window"]["start"].is_string(), "{windowed:#}");

        // A tip for the courier: an amount that is none is refused at the
        // field; a good one is saved and shown beside the price.
        owner.fill("#tip-amount", "three euros").await;
        owner.click_to("//button[text()='Save the tip']", "#tip-error").await;
        assert_eq!(owner.find("#tip-amount").await.attr("aria-invalid").await.expect("attr").as_deref(), Some("true"));
        owner.fill("#tip-amount", "3.50").await;
        owner.click_to("//button[text()='Save the tip']", ".notice").await;
        assert_eq!(owner.text(".notice").await, "Tip saved.");
        assert!(owner.text("#delivery-tip").await.contains("3.50"), "the tip beside the price");
        owner.screenshot().await;
        let tipped = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body;
        assert_eq!(tipped["tip_cents"], 350);
        owner.close().await;
    }
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(1500);

    async fn a_test_delivery_booked_in_the_browser_moves_on_its_page_until_delivered(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let plan = courier::internal::v1::Plan { proof_of_delivery: true, ..Default::default() };
        let request = app.admin_request(courier::internal::v1::UpdateWorkspacePlanRequest { workspace_id: app.workspace_id.clone(), plan: Some(plan) });
        app.admin().await.update_workspace_plan(request).await.expect("plan with proof of delivery");
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        assert_eq!(owner.heading().await, "Overview (test)", "a workspace opens on its overview");
        owner.click_to("//nav//a[text()='Deliveries']", "table").await;
        owner.click_to("//a[text()='Book a test delivery']", "#pickup_address").await;
        owner.fill("#tip", "2").await;
        owner.click_to("//button[text()='Get the price']", "#quote").await;
        owner.click_to("//button[starts-with(text(), 'Book for ')]", "#delivery-status").await;
        let url = owner.client.current_url().await.expect("url");
        let id = url.path().rsplit('/').next().expect("id").to_owned();
        assert!(id.starts_with("del_"), "{url}");
        let booked = app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body;
        assert_eq!(booked["tip_cents"], 200, "the tip booked with it");

        // The page follows the delivery without a reload: the marked
        // document is still the one shown when it says delivered.
        owner.mark().await;
        let mut seen = Vec::new();
        wait_until(format!("{id} delivered on its page"), Duration::from_secs(60), async || {
            let status = match owner.client.find(Locator::Id("delivery-status")).await {
                Ok(element) => element.text().await.ok(),
                // Replaced between the find and the read: read again.
                Err(_) => None,
            };
            if let Some(status) = status {
                if seen.last() != Some(&status) {
                    seen.push(status.clone());
                    owner.screenshot().await;
                }
                if status == "Delivered" {
                    return Ok(());
                }
            }
            Err(format!("statuses seen {seen:?}"))
        })
        .await;
        assert!(seen.len() > 2, "the page showed the statuses in between: {seen:?}");
        let same_page = owner.client.execute("return window.courierOldPage === true", vec![]).await.expect("script");
        assert_eq!(same_page, serde_json::Value::Bool(true), "the page was not reloaded");
        assert!(owner.text(".timeline").await.contains("Delivered"), "the timeline shows the delivery");
        assert!(!owner.page().await.contains("Cancel delivery"), "a delivered delivery offers no cancel");
        let timeline = owner.text(".timeline").await;
        assert!(!timeline.contains("Courier assigned → Courier assigned"), "each thing said once: {timeline}");
        assert!(!owner.page().await.contains("A courier is being found"), "said only while one is");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.test_key).await.body["status"], "delivered");

        // Its photos show as thumbnails that open at full size, read through
        // the console, which asks the core for a fresh signed link: still
        // an image once the links the page was given have expired.
        let thumbnail = owner.find("#proof img.thumb").await;
        let loaded = owner.client.execute("return document.querySelector('#proof img.thumb').naturalWidth > 0", vec![]).await.expect("script");
        assert_eq!(loaded, serde_json::Value::Bool(true), "the thumbnail shows");
        let link = thumbnail.attr("src").await.expect("src").expect("a link");
        assert!(link.contains("/console/w/") && link.contains("/proof/"), "{link}");
        app.clock.advance(Duration::from_secs(20 * 60));
        let fetch = format!("return fetch('{link}').then(r => r.status + ' ' + r.headers.get('content-type'))");
        let answer = owner.client.execute(&fetch, vec![]).await.expect("the file, with the owner's session");
        assert!(answer.as_str().is_some_and(|a| a.starts_with("200 image/")), "{answer}");
        owner.close().await;
    }
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(300);

    async fn a_delivery_booked_with_windows_shows_its_plan_and_then_the_at_risk_flag(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        owner.open(&format!("{base}/deliveries/new?mode=test")).await;

        // Half a window is refused at its end before the core is asked.
        let berlin = |minutes: i64| {
            let at = app.clock.now() + chrono::Duration::minutes(minutes);
            at.with_timezone(&chrono_tz::Europe::Berlin).format("%Y-%m-%dT%H:%M").to_string()
        };
        let set = async |id: &str, value: String| {
            owner.client.execute("document.getElementById(arguments[0]).value = arguments[1]", vec![json!(id), json!(value)]).await.expect("a time");
        };
        // The window as entered: a minute may turn while the page works.
        let opens = berlin(60);
        set("dropoff_window_start", opens.clone()).await;
        owner.click_to("//button[text()='Get the price']", "#dropoff_window-error").await;
        assert!(owner.text("#dropoff_window-error").await.contains("both the start and the end"), "{}", owner.text("#dropoff_window-error").await);

        // A dropoff window in an hour; the courier of the `delayed`
        // scenario runs late.
        set("dropoff_window_end", berlin(120)).await;
        owner.client.execute("document.getElementById('scenario').value = 'delayed'", vec![]).await.expect("scenario");
        owner.click_to("//button[text()='Get the price']", "#quote").await;
        let planned = owner.text("#planned-dropoff").await;
        assert!(planned.contains(&opens[11..]), "planned as the window opens ({opens}): {planned}");
        let total = owner.text("#quote-total").await;
        owner.click_to(&format!("//button[text()='Book for {total}']"), "#delivery-status").await;
        assert!(owner.text("main").await.contains("Deliver between"), "the window is shown");

        // The page follows the delivery: the flag appears without a reload.
        owner.mark().await;
        let flag = wait_until("the at-risk flag", Duration::from_secs(30), async || match owner.client.find(Locator::Id("promise-flag")).await {
            Ok(element) => element.text().await.map_err(|e| e.to_string()),
            Err(_) => Err("no flag yet".to_owned()),
        })
        .await;
        assert!(flag.starts_with("At risk"), "{flag}");
        owner.screenshot().await;
        let same_page = owner.client.execute("return window.courierOldPage === true", vec![]).await.expect("script");
        assert_eq!(same_page, serde_json::Value::Bool(true), "the page was not reloaded");

        // The list's promise filter finds it, flagged.
        owner.open(&format!("{base}/deliveries?mode=test&promise=at_risk")).await;
        let rows = owner.text("table tbody").await;
        assert!(rows.contains("At risk"), "{rows}");
        owner.screenshot().await;
        owner.close().await;
    }
}

e2e! {
    async fn a_fleet_order_from_the_api_appears_on_the_board_and_moves_by_a_click(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        let now = app.clock.now_micros();
        let dispatcher = NewUser { email: "dispatch@example.com".into(), name: "Dana Dispatch".into(), password: PASSWORD.into(), operator: false };
        let dispatcher = accounts::create_user(&app.core.writer, now, dispatcher).await.expect("user");
        memberships::add(&app.core.writer, now, &fleet, &dispatcher.id, Role::Admin).await.expect("membership");
        let browser = driver.browser().await;
        browser.sign_in(&app, "dispatch@example.com").await;
        browser.click_to("//nav//a[text()='Dispatch board']", "#board").await;

        // An order pushed through the API appears without a reload.
        browser.mark().await;
        let mut order = crate::fleet::minimal_order();
        order["reference"] = json!("SO-77");
        let created = crate::fleet::create(&app, &key, &order).await;
        let card = "//article[h3[.='SO-77']]";
        browser
            .client
            .wait()
            .at_most(PAGE_WAIT)
            .for_element(Locator::XPath(&format!("//section[@aria-labelledby='column-pending']{card}")))
            .await
            .expect("the new order in the pending column");
        let same_page = browser.client.execute("return window.courierOldPage === true", vec![]).await.expect("script");
        assert_eq!(same_page, serde_json::Value::Bool(true), "the board was not reloaded");
        browser.screenshot().await;

        // One click moves it to the next status; the API shows the move.
        browser.click_to(&format!("{card}//button[contains(., 'Courier assigned')]"), "#board").await;
        browser.find("section[aria-labelledby='column-courier_assigned'] article").await;
        let fetched = app.get(&format!("/v1/fleet/orders/{}", created["id"].as_str().expect("id")), &key).await;
        assert_eq!(fetched.body["status"], "courier_assigned", "{:#}", fetched.body);

        // The order's page has what the customer sent.
        browser.click_to(&format!("{card}//a"), "dl.facts").await;
        let facts = browser.text("dl.facts").await;
        assert!(facts.contains("Lea Kundin") && facts.contains("Alexanderplatz"), "{facts}");
        // ... and its history names who moved it.
        let history = browser.text("ol.timeline").await;
        assert!(history.contains("Waiting for a courier → Courier assigned by dispatch@example.com"), "{history}");
        browser.close().await;
    }
}

e2e! {
    async fn an_operator_creates_a_workspace_whose_owner_signs_in_and_creates_a_key(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let now = app.clock.now_micros();
        let operator = NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        let ops = driver.browser().await;
        ops.open(&app.url("/console/sign-in")).await;
        ops.fill("#email", "ops@example.com").await;
        ops.fill("#password", PASSWORD).await;
        ops.click_to("//button[text()='Sign in']", "header").await;
        ops.click_to("//header//a[text()='Back office']", "#name").await;

        // A refused form keeps every value, with the reason at its field; the
        // second submit creates the fleet that was meant.
        ops.fill("#name", "Fleet North").await;
        ops.find("#kind").await.select_by_value("fleet").await.expect("kind");
        ops.click("//input[@name='api_access']").await;
        ops.click("//input[@name='fleet_order_intake']").await;
        ops.fill("#discount", "lots").await;
        ops.fill("#credit_limit", "2500").await;
        ops.click_to("//button[text()='Create workspace']", "#discount-error").await;
        let value = |css: &'static str| {
            let ops = &ops;
            async move { ops.find(css).await.prop("value").await.expect("value").unwrap_or_default() }
        };
        let ticked = |name: &'static str| {
            let ops = &ops;
            async move { ops.find(&format!("input[name={name}]")).await.prop("checked").await.expect("checked").as_deref() == Some("true") }
        };
        assert_eq!((value("#name").await, value("#kind").await, value("#discount").await, value("#credit_limit").await), ("Fleet North".to_owned(), "fleet".to_owned(), "lots".to_owned(), "2500".to_owned()));
        assert!(ticked("api_access").await && ticked("fleet_order_intake").await && ticked("invoice_billing").await && !ticked("proof_of_delivery").await);
        assert!(ops.text("#discount-error").await.contains("percentage"));
        ops.fill("#discount", "12.5").await;
        ops.click_to("//button[text()='Create workspace']", ".notice").await;
        assert_eq!(ops.heading().await, "Fleet North (Fleet)");
        assert_eq!(value("#discount").await, "12.5");
        assert!(ops.text(".notice").await.contains("Fleet workspace “Fleet North” created."));

        ops.click_to("//header//a[text()='Back office']", "#name").await;
        ops.fill("#name", "Acme Couriers").await;
        ops.fill("#credit_limit", "1500.50").await;
        ops.click_to("//button[text()='Create workspace']", "h1").await;
        assert_eq!(ops.heading().await, "Acme Couriers (Business)");
        let workspace = ops.client.current_url().await.expect("url").path().rsplit('/').next().expect("id").to_owned();
        assert!(workspace.starts_with("wks_"), "{workspace}");
        assert_eq!(ops.find("#credit_limit").await.prop("value").await.expect("value").as_deref(), Some("1500.50"));

        // The operator invites the owner from the workspace's members page.
        ops.click_to("//main//a[text()='Members']", "#invite-role").await;
        let nav = ops.text("nav").await;
        assert!(nav.contains("Acme Couriers") && !nav.contains(&workspace), "a support visit names the workspace: {nav}");
        ops.find("#invite-role").await.select_by_value("owner").await.expect("role");
        ops.click_to("//button[text()='Create an invitation link']", "#invitation-link").await;
        let link = ops.text("#invitation-link").await;

        let owner = driver.browser().await;
        owner.open(&link).await;
        owner.fill("#name", "Otto Owner").await;
        owner.fill("#email", "otto@example.com").await;
        owner.fill("#password", PASSWORD).await;
        owner.click_to("//button[text()='Create account and join']", "nav").await;
        assert!(owner.text(".notice").await.contains("Welcome to Acme Couriers"), "signed in on the new workspace");
        owner.click_to("//nav//a[text()='API keys']", "#label").await;
        owner.fill("#label", "Shop backend").await;
        owner.click_to("//button[text()='Create key']", "#secret").await;
        let secret = owner.text("#secret").await;
        assert_eq!(app.get("/v1/deliveries", &secret).await.status, 200);

        // The audit log names who created the workspace.
        ops.click_to("//header//a[text()='Back office']", "h1").await;
        ops.click_to("//a[text()='Audit log']", "table").await;
        let log = ops.text("table").await;
        assert!(log.contains("operator:ops@example.com") && log.contains("workspace.create") && log.contains(&workspace), "{log}");
        owner.close().await;
        ops.close().await;
    }
}

e2e! {
    async fn a_statement_closed_in_the_back_office_shows_to_a_member_who_cannot_cancel(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let now = app.clock.now_micros();
        let operator = NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        user(&app, "member@example.com", Role::Member).await;
        let mut amounts = 0;
        for _ in 0..2 {
            let created = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
            amounts += created["amount_cents"].as_i64().expect("amount_cents");
            crate::billing::deliver(&app, created["id"].as_str().expect("id")).await;
        }
        let pending = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
        let pending = pending["id"].as_str().expect("id").to_owned();

        // The operator closes a statement from the workspace's back-office page.
        let ops = driver.browser().await;
        ops.open(&app.url("/console/sign-in")).await;
        ops.fill("#email", "ops@example.com").await;
        ops.fill("#password", PASSWORD).await;
        ops.click_to("//button[text()='Sign in']", "header").await;
        ops.open(&app.url(&format!("/console/ops/w/{}", app.workspace_id))).await;
        ops.click_to("//button[text()='Close a statement now']", "table").await;
        let statement = ops.text("td[data-label='Statement'] code").await;
        assert!(statement.starts_with("stm_"), "{statement}");

        // A member finds it on the billing page; its CSV adds up to its total.
        let member = driver.browser().await;
        member.sign_in(&app, "member@example.com").await;
        member.click_to("//nav//a[text()='Billing']", "table").await;
        member.click_to(&format!("//a[code='{statement}']"), "p.actions").await;
        let total = format!("{}.{:02} EUR", amounts / 100, amounts % 100);
        assert!(member.page().await.contains(&total), "{total}");
        let csv_link = member.find("a[href$='/csv']").await.attr("href").await.expect("href").expect("a link");
        let fetch = format!("return fetch('{csv_link}').then(r => r.text())");
        let csv = member.client.execute(&fetch, vec![]).await.expect("the CSV, fetched with the member's session");
        let csv = csv.as_str().expect("text").to_owned();
        assert_eq!(crate::console_pages::statement_csv_cents(&csv), amounts, "{csv}");

        // The member can read a pending delivery but not cancel it, and has
        // no back office.
        member.open(&app.url(&format!("/console/w/{}/deliveries/{pending}?mode=live", app.workspace_id))).await;
        member.find("#delivery-status").await;
        assert!(!member.page().await.contains("Cancel delivery"), "members read only");
        assert!(!member.text("header").await.contains("Back office"));
        member.open(&app.url("/console/ops")).await;
        assert_eq!(member.heading().await, "Not allowed");
        assert_eq!(app.get(&format!("/v1/deliveries/{pending}"), &app.live_key).await.body["status"], "pending");
        member.close().await;
        ops.close().await;
    }
}

/// A site of another origin (`http://localhost:<port>`, while the console
/// is at `127.0.0.1`): it serves one page, whatever [`OtherSite::show`]
/// last set.
struct OtherSite {
    url: String,
    page: std::sync::Arc<std::sync::Mutex<String>>,
    stop: tokio_util::sync::CancellationToken,
}

impl OtherSite {
    async fn start() -> OtherSite {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let page = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let served = page.clone();
        let app = axum::Router::new().route(
            "/",
            axum::routing::get(move || {
                let html = served.lock().expect("page").clone();
                async move { axum::response::Html(html) }
            }),
        );
        let stop = tokio_util::sync::CancellationToken::new();
        let stopped = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(stopped.cancelled_owned())
                .await;
        });
        OtherSite {
            url: format!("http://localhost:{port}/"),
            page,
            stop,
        }
    }

    /// Serves a page with a form posting `fields` to `action`, sent by its
    /// button `#go`.
    fn show(&self, action: &str, fields: &[(&str, &str)]) {
        let inputs: String = fields
            .iter()
            .map(|(name, value)| format!("<input type=\"hidden\" name=\"{name}\" value=\"{value}\">"))
            .collect();
        *self.page.lock().expect("page") = format!(
            "<!doctype html><title>Win a prize</title><form method=\"post\" action=\"{action}\">{inputs}\
             <button id=\"go\" type=\"submit\">Claim your prize</button></form>"
        );
    }
}

impl Drop for OtherSite {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

e2e! {
    async fn a_page_of_another_site_neither_signs_in_nor_posts_a_console_form(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        user(&app, "mallory@example.com", Role::Member).await;
        let other = OtherSite::start().await;
        let victim = driver.browser().await;

        // Login forgery: the other site posts the sign-in form with its
        // author's account and even the victim's own pre-session token.
        victim.open(&app.url("/console/sign-in")).await;
        let token = victim.find("input[name=csrf]").await.attr("value").await.expect("attr").expect("token");
        let sign_in = app.url("/console/sign-in");
        other.show(&sign_in, &[("csrf", &token), ("email", "mallory@example.com"), ("password", PASSWORD)]);
        victim.open(&other.url).await;
        victim.click_to("//button[@id='go']", "h1").await;
        assert_eq!(victim.heading().await, "Form refused");
        assert!(victim.page().await.contains("nothing was done"));
        victim.open(&app.url(&format!("/console/w/{}/members", app.workspace_id))).await;
        assert_eq!(victim.heading().await, "Sign in", "the browser is signed in to no account");

        // Signed in, the victim's session CSRF token (as if stolen) on a
        // console form posted from the other site changes nothing.
        victim.sign_in(&app, "owner@example.com").await;
        let keys_url = app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id));
        victim.open(&keys_url).await;
        let csrf = victim.find("input[name=csrf]").await.attr("value").await.expect("attr").expect("token");
        let keys = || async {
            let request = app.admin_request(courier::internal::v1::ListApiKeysRequest { workspace_id: app.workspace_id.clone() });
            app.admin().await.list_api_keys(request).await.expect("keys").into_inner().api_keys.len()
        };
        let before = keys().await;
        other.show(&keys_url, &[("csrf", &csrf), ("label", "forged"), ("mode", "test")]);
        victim.open(&other.url).await;
        victim.click_to("//button[@id='go']", "h1").await;
        assert_eq!(victim.heading().await, "Form refused");
        assert_eq!(keys().await, before, "no key was created");
        victim.open(&keys_url).await;
        assert_eq!(victim.heading().await, "API keys (test)", "still signed in, as the owner");
        assert!(!victim.page().await.contains("forged"));
        victim.close().await;
    }
}

e2e! {
    async fn a_deep_link_survives_signing_in_and_the_mode_survives_every_menu_link(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let browser = driver.browser().await;
        let deep = app.url(&format!("/console/w/{}/events?mode=live", app.workspace_id));
        browser.open(&deep).await;
        browser.fill("#email", "owner@example.com").await;
        browser.fill("#password", PASSWORD).await;
        browser.click_to("//button[text()='Sign in']", "nav").await;
        assert_eq!(browser.client.current_url().await.expect("url").as_str(), deep, "back on the page asked for");
        assert_eq!(browser.heading().await, "Events (live)");

        for link in ["Members", "Deliveries", "Billing", "API keys", "Overview", "Webhooks", "Notifications", "Members", "Events"] {
            browser.click_to(&format!("//nav//a[text()='{link}']"), "nav").await;
            let url = browser.client.current_url().await.expect("url");
            assert!(url.query().is_some_and(|q| q.contains("mode=live")), "{link}: {url}");
            assert!(!browser.text("nav").await.contains("Test data"), "{link} stayed live");
        }
        browser.close().await;
    }

    async fn a_fleet_admin_invites_a_driver_who_signs_in_and_gets_the_order_assigned_on_the_board(app: TestApp) {
        use courier::app::v1 as apb;
        let Some(driver) = Driver::start().await else { return };
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        let now = app.clock.now_micros();
        let admin = NewUser { email: "fleet-admin@example.com".into(), name: "Ada Admin".into(), password: PASSWORD.into(), operator: false };
        let admin = accounts::create_user(&app.core.writer, now, admin).await.expect("user");
        memberships::add(&app.core.writer, now, &fleet, &admin.id, Role::Admin).await.expect("membership");
        let browser = driver.browser().await;
        browser.sign_in(&app, "fleet-admin@example.com").await;

        // The invitation, by keyboard-reachable fields; the link shown once.
        browser.click_to("//nav//a[text()='Drivers']", "#invite-courier").await;
        browser.fill("#courier-name", "Dara Driver").await;
        browser.fill("#courier-email", "dara@example.com").await;
        browser.find("#vehicle-type").await.select_by_value("cargo_bike").await.expect("vehicle type");
        browser.fill("#vehicle-make", "Urban Arrow").await;
        browser.click_to("//button[contains(., 'invitation link')]", "#invitation-link").await;
        let link = browser.text("#invitation-link").await;
        assert!(link.contains("/courier/join/"), "{link}");

        // The driver joins, signs in, goes online and follows their assignments.
        let mut client = crate::couriers::app_client(&app).await;
        client.accept_invitation(apb::AcceptInvitationRequest {
            token: link.rsplit('/').next().expect("token").into(),
            password: crate::couriers::PASSWORD.into(),
        }).await.expect("join");
        let signed = client.sign_in(apb::SignInRequest {
            login: "dara@example.com".into(), password: crate::couriers::PASSWORD.into(), client_address: String::new(),
        }).await.expect("sign in").into_inner();
        let dara = crate::couriers::App { client, token: signed.session_token, courier: signed.courier.expect("courier") };
        let mut client = dara.client.clone();
        client.set_availability(dara.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        client.report_locations(dara.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![crate::couriers::at(&app, 52.5219, 13.4132)] },
        ]))).await.expect("positions");
        let mut stream = client.watch_assignments(dara.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        crate::couriers::next(&mut stream).await;

        // An order from the API, given to Dara on the board.
        let mut order = crate::fleet::minimal_order();
        order["reference"] = json!("SO-88");
        crate::fleet::create(&app, &key, &order).await;
        browser.click_to("//nav//a[text()='Dispatch board']", "#board").await;
        let card = "//section[@aria-labelledby='column-pending']//article[h3[.='SO-88']]";
        browser.click(&format!("{card}//select")).await;
        browser.click_to(&format!("{card}//button[.='Assign']"), "#board").await;
        let pushed = crate::couriers::next(&mut stream).await;
        match pushed.update {
            Some(apb::watch_assignments_response::Update::Job(job)) => {
                assert_eq!(job.reference.as_deref(), Some("SO-88"));
                assert_eq!(job.next_move(), apb::JobMove::ArriveAtPickup);
            }
            other => panic!("expected the order, got {other:?}"),
        }
        let assigned = browser.text("section[aria-labelledby='column-courier_assigned'] article").await;
        assert!(assigned.contains("Driver: Dara Driver"), "{assigned}");

        // The driver's page shows the order in hand.
        browser.click_to("//nav//a[text()='Drivers']", "#couriers").await;
        assert!(browser.text("#couriers").await.contains("Courier assigned"));
        browser.click_to("//a[text()='Dara Driver']", "#jobs").await;
        assert!(browser.text("#jobs").await.contains("Courier assigned"));
        browser.close().await;
    }

    async fn an_operator_watches_a_courier_come_online_and_move_then_assigns_them_a_waiting_delivery(app: TestApp) {
        use courier::app::v1 as apb;
        let Some(driver) = Driver::start().await else { return };
        let now = app.clock.now_micros();
        let operator = NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        let created = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let kim = crate::couriers::join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let ops = driver.browser().await;
        ops.open(&app.url("/console/sign-in")).await;
        ops.fill("#email", "ops@example.com").await;
        ops.fill("#password", PASSWORD).await;
        ops.click_to("//button[text()='Sign in']", "header").await;
        ops.click_to("//header//a[text()='Live dispatch']", "#dispatch-map").await;
        assert!(ops.text(&format!("#waiting-{id}")).await.contains("waiting"));
        let marker = format!("#courier-{}", kim.courier.id);
        assert!(ops.client.find(Locator::Css(&marker)).await.is_err(), "Kim is offline");

        // Kim's app goes online and reports a position: the marker appears, no reload.
        let mut client = kim.client.clone();
        client.set_availability(kim.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        client.report_locations(kim.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![crate::couriers::at(&app, 52.5219, 13.4132)] },
        ]))).await.expect("position");
        let at = async || -> (String, String) {
            let found = ops.find(&marker).await;
            (found.attr("cx").await.ok().flatten().unwrap_or_default(), found.attr("cy").await.ok().flatten().unwrap_or_default())
        };
        wait_until("Kim's marker on the map", PAGE_WAIT, async || {
            ops.client.find(Locator::Css(&marker)).await.map(|_| ()).map_err(|e| e.to_string())
        }).await;
        let before = at().await;
        ops.screenshot().await;

        // Positions arrive: the marker moves.
        client.report_locations(kim.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![crate::couriers::at(&app, 52.5100, 13.3900)] },
        ]))).await.expect("position");
        wait_until("Kim's marker moved", PAGE_WAIT, async || {
            let now = at().await;
            if now != before && !now.0.is_empty() { Ok(()) } else { Err(format!("{now:?}")) }
        }).await;

        // The waiting delivery's page ranks Kim; the operator assigns by keyboard-reachable controls.
        let mut stream = client.watch_assignments(kim.request(apb::WatchAssignmentsRequest::default())).await.expect("watch").into_inner();
        crate::couriers::next(&mut stream).await;
        ops.click_to(&format!("//li[@id='waiting-{id}']//a"), "#courier-choice").await;
        assert!(ops.text("#courier-choice").await.contains("Kim Courier"));
        ops.click(&format!("//input[@value='{}']", kim.courier.id)).await;
        ops.click_to("//button[.='Assign']", "#dispatch-map").await;
        match crate::couriers::next(&mut stream).await.update {
            Some(apb::watch_assignments_response::Update::Job(job)) => assert_eq!(job.id, id),
            other => panic!("expected the delivery, got {other:?}"),
        }
        wait_until("the delivery under way on the page", PAGE_WAIT, async || {
            let active = ops.text("#active").await;
            if active.contains("Kim Courier") { Ok(()) } else { Err(active) }
        }).await;
        ops.screenshot().await;
        ops.close().await;
    }
}

/// "12.34 EUR", as the console writes an amount.
fn euros(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02} EUR", cents.abs() / 100, cents.abs() % 100)
}

e2e! {
    async fn a_quote_in_the_console_shows_the_api_breakdown_and_books_one_live_delivery(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        owner.open(&format!("{base}/deliveries?mode=live")).await;
        owner.click_to("//a[text()='Book a delivery']", "#pickup_address").await;
        assert_eq!(owner.heading().await, "Book a delivery");
        // A live form starts empty: no sample people in a real booking.
        assert_eq!(owner.find("#dropoff_name").await.prop("value").await.expect("value").as_deref(), Some(""));
        for (field, value) in [
            ("#pickup_address", "Alexanderplatz 1, 10178 Berlin"), ("#pickup_latitude", "52.5219"), ("#pickup_longitude", "13.4132"),
            ("#pickup_name", "Warehouse desk"), ("#pickup_phone", "+493012345678"),
            ("#dropoff_address", "Oranienstraße 25, 10999 Berlin"), ("#dropoff_latitude", "52.5010"), ("#dropoff_longitude", "13.4190"),
            ("#dropoff_name", "Rui Receiver"), ("#dropoff_phone", "+493087654321"),
        ] {
            owner.fill(field, value).await;
        }

        // A stop, an extra with a quantity and an item; what the form was
        // sent is kept on every answer.
        owner.click_to("//button[text()='Add a stop']", "#stop0_address").await;
        owner.fill("#stop0_address", "Rosenthaler Straße 40, 10119 Berlin").await;
        owner.fill("#stop0_latitude", "52.5262").await;
        owner.fill("#stop0_longitude", "13.4021").await;
        owner.click("//input[@name='extra' and @value='waiting_time']").await;
        owner.fill("#extra_waiting_time_quantity", "2").await;
        owner.fill("#item0_description", "Crate of books").await;
        owner.fill("#item0_quantity", "2").await;
        owner.fill("#item0_weight_kg", "8").await;
        owner.fill("#item0_length_cm", "40").await;
        owner.fill("#item0_width_cm", "30").await;
        owner.fill("#item0_height_cm", "25").await;
        owner.click_to("//button[text()='Get the price']", "#quote").await;
        assert_eq!(owner.find("#stop0_address").await.prop("value").await.expect("value").as_deref(), Some("Rosenthaler Straße 40, 10119 Berlin"));

        // The same input on the API: the same breakdown, line by line.
        let quote = app
            .post("/v1/quotes", &app.live_key, &json!({
                "pickup": { "address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.5219, "longitude": 13.4132 },
                "stops": [{ "address": "Rosenthaler Straße 40, 10119 Berlin", "latitude": 52.5262, "longitude": 13.4021 }],
                "dropoff": { "address": "Oranienstraße 25, 10999 Berlin", "latitude": 52.5010, "longitude": 13.4190 },
                "vehicle_type_id": "cargo_bike",
                "extras": [{ "extra_id": "waiting_time", "quantity": 2 }],
                "items": [{ "description": "Crate of books", "quantity": 2, "weight_kg": 8, "length_cm": 40, "width_cm": 30, "height_cm": 25 }]
            }))
            .await;
        assert_eq!(quote.status, 201, "{:#}", quote.body);
        let breakdown = &quote.body["breakdown"];
        let cents = |v: &serde_json::Value| v.as_i64().expect("cents");
        // The route, then its surcharges "of which" (included in it), then
        // what is added to it.
        let mut expected = vec![euros(cents(&breakdown["route_cents"]))];
        expected.extend(breakdown["surcharges"].as_array().expect("surcharges").iter().map(|s| euros(cents(&s["amount_cents"]))));
        expected.extend(breakdown["extras"].as_array().expect("extras").iter().map(|e| euros(cents(&e["amount_cents"]))));
        if cents(&breakdown["discount_cents"]) != 0 {
            expected.push(euros(-cents(&breakdown["discount_cents"])));
        }
        if cents(&breakdown["service_fee_cents"]) != 0 {
            expected.push(euros(cents(&breakdown["service_fee_cents"])));
        }
        expected.push(euros(cents(&quote.body["amount_cents"])));
        let mut shown = Vec::new();
        for dd in owner.client.find_all(Locator::Css("#breakdown dd")).await.expect("the breakdown") {
            shown.push(dd.text().await.expect("text"));
        }
        shown.pop(); // "Price held until"
        assert_eq!(shown, expected, "the console's breakdown is the API's");
        assert!(owner.text("#quote").await.contains("Waiting time (per 5 minutes) × 2"), "{}", owner.text("#quote").await);
        for surcharge in breakdown["surcharges"].as_array().expect("surcharges") {
            let line = format!("of which {}", surcharge["label"].as_str().expect("label"));
            assert!(owner.text("#quote").await.contains(&line), "{line}: {}", owner.text("#quote").await);
        }

        // Booked: one live delivery, also after a reload of the answer.
        let total = euros(cents(&quote.body["amount_cents"]));
        owner.click_to(&format!("//button[text()='Book for {total}']"), "#delivery-status").await;
        assert!(owner.text("main").await.contains("Delivery booked"), "{}", owner.text("main").await);
        owner.mark().await;
        owner.client.refresh().await.expect("reload");
        owner.arrived("#delivery-status").await;
        let live = app.get("/v1/deliveries", &app.live_key).await.body;
        let deliveries = live["deliveries"].as_array().expect("deliveries");
        assert_eq!(deliveries.len(), 1, "one live delivery: {live:#}");
        assert_eq!(deliveries[0]["amount_cents"], quote.body["amount_cents"]);
        assert_eq!(deliveries[0]["stops"].as_array().map(Vec::len), Some(1));
        assert!(deliveries[0]["quote_id"].as_str().is_some_and(|q| q.starts_with("quo_")), "booked at the quote");
        owner.close().await;
    }
}

e2e! {
    async fn a_booking_finds_places_by_address_and_on_the_map_and_asks_for_proof_schedule_and_instructions(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        owner.open(&format!("{base}/deliveries/new?mode=live")).await;
        let value = async |css: &str| owner.find(css).await.prop("value").await.expect("value").unwrap_or_default();

        // An address found: its coordinates filled in, the other match offered.
        owner.fill("#pickup_address", "Alexanderplatz 1").await;
        owner.click_to("//button[@id='pickup_find']", "#pickup_found").await;
        assert_eq!((value("#pickup_latitude").await, value("#pickup_longitude").await), ("52.5219".into(), "13.4132".into()));
        assert!(owner.text("#pickup_found").await.contains("1, Alexanderplatz, Mitte, Berlin"), "{}", owner.text("#pickup_found").await);
        owner.click_to("//button[@name='place' and contains(., 'Bahnhof')]", "#pickup_found").await;
        assert_eq!((value("#pickup_latitude").await, value("#pickup_longitude").await), ("52.5215".into(), "13.411".into()));
        assert_eq!(value("#pickup_address").await, "Alexanderplatz 1", "the address stays as typed");

        // An address nothing matches is said at its field; Enter in it finds.
        owner.fill("#dropoff_address", "Nowhere Lane 9").await;
        owner.mark().await;
        owner.find("#dropoff_address").await.send_keys(ENTER).await.expect("enter");
        owner.arrived("#dropoff_address-error").await;
        assert!(owner.text("#dropoff_address-error").await.contains("No place found for"), "{}", owner.text("#dropoff_address-error").await);

        // A click on the map sets the dropoff: the map shows the pickup's
        // service area, and its middle is in Berlin.
        owner.click("//input[@name='map_sets' and @value='dropoff']").await;
        owner.click("//*[name()='svg' and @id='booking-map']").await;
        let (latitude, longitude) = wait_until("the dropoff set by the click", PAGE_WAIT, async || {
            match (value("#dropoff_latitude").await.parse::<f64>(), value("#dropoff_longitude").await.parse::<f64>()) {
                (Ok(latitude), Ok(longitude)) => Ok((latitude, longitude)),
                _ => Err("no coordinates yet"),
            }
        })
        .await;
        assert!((52.35..52.7).contains(&latitude) && (13.1..13.75).contains(&longitude), "{latitude}, {longitude}");

        // Contacts, instructions, a pickup time tomorrow, proof asked for.
        for (field, text) in [
            ("#pickup_name", "Warehouse desk"), ("#pickup_phone", "+493012345678"),
            ("#dropoff_address", "Somewhere in Berlin"), ("#dropoff_name", "Rui Receiver"), ("#dropoff_phone", "+493087654321"),
            ("#dropoff_instructions", "Ring twice, 3rd floor"), ("#proof_dropoff_photos", "2"),
        ] {
            owner.fill(field, text).await;
        }
        assert!(owner.text("main").await.contains("on the Europe/Berlin clock"), "the pickup time's clock is named");
        let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).date_naive();
        owner
            .client
            .execute("document.getElementById('scheduled_at').value = arguments[0]", vec![json!(format!("{tomorrow}T10:00"))])
            .await
            .expect("a pickup time");
        owner.click("//input[@name='proof_dropoff_signature']").await;
        owner.click_to("//button[text()='Get the price']", "#quote").await;
        assert_eq!(value("#dropoff_instructions").await, "Ring twice, 3rd floor");
        let total = owner.text("#quote-total").await;
        owner.click_to(&format!("//button[text()='Book for {total}']"), "#delivery-status").await;

        let live = app.get("/v1/deliveries", &app.live_key).await.body;
        let delivery = &live["deliveries"][0];
        assert_eq!(delivery["dropoff"]["instructions"], "Ring twice, 3rd floor", "{delivery:#}");
        assert_eq!(delivery["pickup"]["latitude"], 52.5215);
        assert_eq!(delivery["proof_of_delivery"]["dropoff"]["photos"], 2, "{delivery:#}");
        assert_eq!(delivery["proof_of_delivery"]["dropoff"]["signature"], true);
        assert_eq!(delivery["proof_of_delivery"]["pickup"]["photos"], 1, "the pickup keeps its default");
        let scheduled = delivery["scheduled_at"].as_str().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()).expect("scheduled");
        assert_eq!(scheduled.date_naive(), tomorrow);
        assert!(matches!(chrono::Timelike::hour(&scheduled), 8 | 9), "10:00 in Berlin: {scheduled}");
        owner.close().await;
    }
}

e2e! {
    async fn an_invitation_opened_by_a_signed_in_user_ends_on_the_new_workspace_with_a_welcome(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        // Ana owns the test workspace; Ben is signed in to a workspace of his own.
        user(&app, "ana@example.com", Role::Owner).await;
        let now = app.clock.now_micros();
        let ben = NewUser { email: "ben@example.com".into(), name: "Ben Other".into(), password: PASSWORD.into(), operator: false };
        let ben_id = accounts::create_user(&app.core.writer, now, ben).await.expect("ben").id;
        let (other, _) = crate::fleet::fleet(&app, true).await;
        memberships::add(&app.core.writer, now, &other, &ben_id, Role::Owner).await.expect("membership");
        let ana = driver.browser().await;
        ana.sign_in(&app, "ana@example.com").await;
        ana.open(&app.url(&format!("/console/w/{}/members?mode=test", app.workspace_id))).await;
        ana.click_to("//button[text()='Create an invitation link']", "#invitation-link").await;
        let link = ana.text("#invitation-link").await;
        assert!(link.contains("/console/invitations/"), "{link}");

        // Ben, signed in, opens it: his email is filled in, his password
        // confirms, and he lands on the new workspace's overview.
        let ben = driver.browser().await;
        ben.sign_in(&app, "ben@example.com").await;
        ben.open(&link).await;
        assert!(ben.heading().await.starts_with("Join "), "{}", ben.heading().await);
        assert_eq!(ben.find("#existing-email").await.prop("value").await.expect("value").as_deref(), Some("ben@example.com"));
        ben.fill("#existing-password", PASSWORD).await;
        ben.click_to("//button[text()='Sign in and join']", "nav").await;
        let url = ben.client.current_url().await.expect("url");
        assert_eq!(url.path(), format!("/console/w/{}/overview", app.workspace_id));
        let welcome = ben.text(".notice").await;
        assert!(welcome.starts_with("Welcome to ") && welcome.ends_with("you joined as member."), "{welcome}");
        // Both workspaces are his now.
        assert!(ben.page().await.contains(&format!("value=\"{other}\"")), "the switcher offers his own workspace too");
        ana.close().await;
        ben.close().await;
    }
}

e2e! {
    async fn a_dispatcher_sets_shifts_plans_the_day_moves_an_order_and_publishes(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        let now = app.clock.now_micros();
        let planner = NewUser { email: "planner@example.com".into(), name: "Pia Planner".into(), password: PASSWORD.into(), operator: false };
        let planner = accounts::create_user(&app.core.writer, now, planner).await.expect("user");
        memberships::add(&app.core.writer, now, &fleet, &planner.id, Role::Admin).await.expect("membership");
        for (name, email) in [("Ola Driver", "ola@example.com"), ("Per Driver", "per@example.com")] {
            crate::couriers::join(&app, &fleet, name, email, "car").await;
        }
        for i in 0..8 {
            let mut order = crate::fleet::minimal_order();
            order["reference"] = json!(format!("PL-{i}"));
            order["dropoff"] = crate::quotes::place(&format!("Home {i}"), 52.49 + 0.005 * f64::from(i), 13.40 + 0.004 * f64::from(i));
            crate::fleet::create(&app, &key, &order).await;
        }
        // A day ahead, whatever the hour: the shifts are whole.
        let day = (chrono::Utc::now() + chrono::Duration::days(2)).format("%Y-%m-%d").to_string();
        let browser = driver.browser().await;
        browser.sign_in(&app, "planner@example.com").await;
        browser.click_to("//nav//a[text()='Plans']", "#plan-day").await;
        browser.open(&app.url(&format!("/console/w/{fleet}/plans?day={day}"))).await;
        browser.find("#shift-form").await;

        // A wrong depot is refused with its reason, and nothing is set.
        browser.fill("#depot-address", "Depot Mitte").await;
        browser.fill("#depot-latitude", "152.52").await;
        browser.fill("#depot-longitude", "13.41").await;
        browser.click_to("//button[.='Set the shift']", "#shift-form").await;
        let error = browser.text("p.banner[role=alert]").await;
        assert!(error.contains("latitude"), "{error}");
        assert!(browser.text("#shifts").await.contains("No driver has a shift"));

        for name in ["Ola Driver", "Per Driver"] {
            browser.find("#shift-driver").await
                .select_by_label(name).await.expect("driver");
            browser.fill("#depot-address", "Depot Mitte").await;
            browser.fill("#depot-latitude", "52.5219").await;
            browser.fill("#depot-longitude", "13.4132").await;
            browser.click_to("//button[.='Set the shift']", "#shifts").await;
        }
        let shifts = browser.text("#shifts").await;
        assert!(shifts.contains("Ola Driver") && shifts.contains("Per Driver") && shifts.contains("08:00–16:00"), "{shifts}");

        // No driver ticked is no plan.
        for checkbox in browser.client.find_all(Locator::Css("input[name=courier_id]")).await.expect("drivers") {
            checkbox.click().await.expect("untick");
        }
        browser.click_to("//button[starts-with(., 'Plan ')]", "p.banner[role=alert]").await;
        assert!(browser.text("p.banner[role=alert]").await.contains("at least one driver"));

        // Planning shows its progress, then the plan: two routes at most,
        // every order placed.
        browser.find("#budget").await.select_by_value("5").await.expect("budget");
        // (The click returns once the plan's page loaded: what the form
        // showed meanwhile is kept where the next page can read it.)
        browser.client.execute(
            "document.addEventListener('submit', () => setTimeout(() => { sessionStorage.progress = document.getElementById('plan-progress-text').textContent; }, 300))",
            vec![],
        ).await.expect("script");
        browser.click_to("//button[starts-with(., 'Plan ')]", "#plan-map").await;
        let shown = browser.client.execute("return sessionStorage.progress", vec![]).await.expect("script");
        assert!(shown.as_str().is_some_and(|text| text.starts_with("Planning… 0 s of 5 s")), "{shown}");
        assert!(browser.text("main").await.contains("Every order of the day has a route"));
        let routes = browser.client.find_all(Locator::Css("section.planned-route")).await.expect("routes");
        assert!(!routes.is_empty() && routes.len() <= 2);
        let first_plan = browser.client.current_url().await.expect("url").to_string();

        // An order moved by hand: a new plan with it in Per's route.
        browser.find("#move-order").await.select_by_index(0).await.expect("order");
        let order = browser.find("#move-order").await.prop("value").await.expect("value").expect("an order");
        browser.find("#move-driver").await.select_by_label("Per Driver").await.expect("driver");
        browser.click_to("//button[.='Move and plan again']", "#plan-map").await;
        assert_ne!(browser.client.current_url().await.expect("url").to_string(), first_plan);
        let per_route = browser.client
            .find(Locator::XPath("//section[contains(@class, 'planned-route')][.//h3[contains(., 'Per Driver')]]"))
            .await.expect("Per's route").html(false).await.expect("html");
        assert!(per_route.contains(&order), "{order} in Per's route");

        // Published: the drivers hold the orders.
        browser.click_to("//button[starts-with(., 'Publish')]", "h1").await;
        assert!(browser.heading().await.contains("published"));
        let waiting = courier_orders::fleet::pending_orders(&app.core.db, &fleet, 100).await.expect("board");
        assert!(waiting.is_empty(), "every order given to a driver");
        browser.close().await;
    }
}

e2e! {
    with |config| config.simulator_step = Duration::from_millis(300);

    async fn an_owner_edits_a_template_previews_it_is_refused_an_unknown_placeholder_and_reads_the_test_inbox(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = driver.browser().await;
        owner.sign_in(&app, "owner@example.com").await;
        owner.click_to("//nav//a[text()='Notifications']", "#settings-form").await;
        assert_eq!(owner.heading().await, "Notifications");
        let channels = owner.text("#channels").await;
        assert!(channels.contains("SMS: not set up on this platform") && channels.contains("test inbox"), "{channels}");

        // The grid starts with the defaults; quiet hours turned off, an SMS
        // to the recipient at pickup and an email once delivered added, in
        // one save.
        let ticked = async |value: &str| {
            owner.find(&format!("input[name=rule][value='{value}']")).await.prop("checked").await.expect("checked") == Some("true".into())
        };
        assert!(ticked("courier_assigned.recipient.sms").await && ticked("arriving.recipient.sms").await);
        assert!(!ticked("picked_up.recipient.sms").await);
        owner.click("//input[@name='rule'][@value='picked_up.recipient.sms']").await;
        owner.click("//input[@name='rule'][@value='delivered.recipient.email']").await;
        owner.click("//input[@id='quiet']").await;
        owner.click_to("//button[text()='Save settings']", ".notice").await;
        assert_eq!(owner.text(".notice").await, "Notification settings saved.");
        assert!(ticked("picked_up.recipient.sms").await && ticked("delivered.recipient.email").await, "kept");
        assert_eq!(owner.find("#quiet").await.prop("checked").await.expect("checked"), Some("false".into()));

        // The arriving SMS in English: previewed on the sample delivery,
        // unsaved.
        owner.click_to("//li[span[text()='Arriving']]/a[text()='English']", "#text-form").await;
        assert_eq!(owner.heading().await, "Arriving (English)");
        let shipped = owner.find("#sms").await.prop("value").await.expect("value").unwrap_or_default();
        assert!(shipped.contains("{courier_first_name}"), "{shipped}");
        owner.fill("#sms", "{business_name}: {courier_first_name} is around the corner, ready at {eta}. {tracking_url}").await;
        owner.click_to("//button[text()='Preview']", "#preview-sms").await;
        let bubble = owner.text("#preview-sms").await;
        assert!(bubble.contains("Sam is around the corner, ready at 14:35") && !bubble.contains('{'), "{bubble}");
        assert!(owner.text("#preview").await.contains("Preview of your unsaved text"));
        assert!(owner.text("#preview-email").await.contains("Hello Jana Novak"), "the email rendered too");
        owner.screenshot().await;

        // An unknown placeholder is refused by name at its field, the typed
        // text kept, and nothing saved.
        let unknown = "Hi {nickname}, {courier_first_name} is around the corner.";
        owner.fill("#sms", unknown).await;
        owner.click_to("//button[text()='Save the texts']", "#sms-error").await;
        let error = owner.text("#sms-error").await;
        assert!(error.contains("Unknown placeholder {nickname}") && error.contains("{business_name}"), "{error}");
        assert_eq!(owner.find("#sms").await.prop("value").await.expect("value").as_deref(), Some(unknown));
        assert_eq!(owner.find("#sms").await.attr("aria-invalid").await.expect("attr").as_deref(), Some("true"));
        owner.open(&app.url(&format!("/console/w/{}/notifications/texts/en/arriving", app.workspace_id))).await;
        assert_eq!(owner.find("#sms").await.prop("value").await.expect("value").as_deref(), Some(shipped.as_str()), "nothing was saved");
        assert!(owner.text("main").await.contains("The platform's text"));

        // Fixed and saved: the workspace's own text from now on.
        let edited = "{business_name}: {courier_first_name} is around the corner with your order. {tracking_url}";
        owner.fill("#sms", edited).await;
        owner.click_to("//button[text()='Save the texts']", ".notice").await;
        assert!(owner.text(".notice").await.contains("saved"));
        assert!(owner.text("main").await.contains("Your own text."));
        assert_eq!(owner.find("#sms").await.prop("value").await.expect("value").as_deref(), Some(edited));

        // The test inbox is empty until a test delivery with a drop-off
        // contact moves.
        let inbox = app.url(&format!("/console/w/{}/notifications/inbox?mode=test", app.workspace_id));
        owner.open(&inbox).await;
        assert!(owner.text("#inbox-empty").await.contains("drop-off contact"));
        let delivery = app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await;
        let id = delivery["id"].as_str().expect("id").to_owned();
        let sms_of = |trigger: &str| format!("//li[contains(@class, 'message-sms')][.//a[contains(@href, '/deliveries/{id}')]][p/strong[text()='{trigger}']]");
        let (assigned, arriving) = (sms_of("Courier assigned"), sms_of("Arriving"));
        let delivered = format!("//li[contains(@class, 'message-email')][.//a[contains(@href, '/deliveries/{id}')]][p/strong[text()='Delivered']]");
        wait_until(format!("{id}'s messages in the test inbox"), Duration::from_secs(60), async || {
            owner.client.goto(&inbox).await.map_err(|e| e.to_string())?;
            for xpath in [&assigned, &arriving, &delivered] {
                owner.client.find(Locator::XPath(xpath)).await.map_err(|_| format!("not yet: {xpath}"))?;
            }
            Ok::<_, String>(())
        })
        .await;
        owner.open(&inbox).await;
        let assigned_sms = owner.client.find(Locator::XPath(&format!("{assigned}//p[@class='bubble']"))).await.expect("bubble").text().await.expect("text");
        assert!(assigned_sms.contains("is on the way with your delivery") && assigned_sms.contains("/t/"), "the platform's text, with the tracking link: {assigned_sms}");
        let arriving_sms = owner.client.find(Locator::XPath(&format!("{arriving}//p[@class='bubble']"))).await.expect("bubble").text().await.expect("text");
        assert!(arriving_sms.contains("is around the corner with your order."), "the edited text: {arriving_sms}");
        let email = owner.client.find(Locator::XPath(&delivered)).await.expect("email").text().await.expect("text");
        assert!(email.contains("Email to the recipient") && email.contains("r***@example.com") && email.contains("Hello Rui Receiver,"), "{email}");
        let subject = owner.client.find(Locator::XPath(&format!("{delivered}//p[@class='email-subject']"))).await.expect("subject").text().await.expect("text");
        assert!(subject.ends_with(": delivered"), "{subject}");
        let card = owner.client.find(Locator::XPath(&assigned)).await.expect("card").text().await.expect("text");
        assert!(card.contains("SMS to the recipient") && card.contains("+49*") && card.contains("Sent"), "{card}");
        assert!(!card.contains("2345678"), "the number masked: {card}");

        // Each message links to its delivery.
        owner.click_to(&format!("{assigned}//a[contains(@href, '/deliveries/')]"), "#delivery-status").await;
        assert!(owner.client.current_url().await.expect("url").path().ends_with(&id));
        owner.close().await;
    }
}

e2e! {
    async fn a_fleet_admin_sets_pay_in_the_browser_and_prints_a_drivers_statement(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        let (fleet, _) = crate::fleet::fleet(&app, true).await;
        let now = app.clock.now_micros();
        let admin = NewUser { email: "payroll@example.com".into(), name: "Pat Payroll".into(), password: PASSWORD.into(), operator: false };
        let admin = accounts::create_user(&app.core.writer, now, admin).await.expect("user");
        memberships::add(&app.core.writer, now, &fleet, &admin.id, Role::Admin).await.expect("membership");
        let dara = crate::couriers::join(&app, &fleet, "Dara Printed", "dara.printed@example.com", "car").await;
        let browser = driver.browser().await;
        browser.sign_in(&app, "payroll@example.com").await;

        // The drivers' pay rule, set from the form.
        browser.open(&app.url(&format!("/console/w/{fleet}/couriers"))).await;
        browser.click_to("//a[@id='pay-rules-link']", "#pay-rules").await;
        browser.fill("#base", "3.50").await;
        browser.fill("#per_km", "0.80").await;
        browser.fill("#surcharge_share_percent", "40").await;
        browser.click_to("//button[.='Save as a new version']", "#pay-rules").await;
        let rules = browser.text("#pay-rules").await;
        assert!(rules.contains("3.50 EUR") && rules.contains("0.80 EUR") && rules.contains("40 %") && rules.contains("in force"), "{rules}");
        browser.screenshot().await;

        // A bonus on the driver's page, then the week closed: its statement.
        browser.open(&app.url(&format!("/console/w/{fleet}/couriers/{}", dara.courier.id))).await;
        browser.fill("#adjust-amount", "12.00").await;
        browser.fill("#adjust-reason", "Christmas <bonus>").await;
        browser.click_to("//button[.='Add to the earnings']", "#earnings").await;
        assert!(browser.text("#earnings").await.contains("Adjustment: Christmas <bonus>"));
        // This week, closed early here (the worker waits for its end).
        let zone = app.core.catalog.home_time_zone();
        let week = courier_orders::pay::statements::week_of(zone, app.clock.now().with_timezone(&zone).date_naive());
        courier_orders::pay::statements::close(&app.core, week, courier_orders::pay::statements::Closer::Worker).await.expect("closed");
        browser.open(&app.url(&format!("/console/w/{fleet}/couriers/{}", dara.courier.id))).await;
        let listed = browser.text("#statements").await;
        assert!(listed.contains("12.00 EUR") && listed.contains("Printable"), "{listed}");
        browser.accessible().await;
        browser.screenshot().await;
        browser.click_to("//a[starts-with(@id, 'print-cst_')]", "table").await;
        let printed = browser.page().await;
        assert!(printed.contains("Courier statement cst_") && printed.contains("Dara Printed") && printed.contains("Christmas &lt;bonus&gt;"), "{printed}");
        browser.screenshot().await;
        browser.close().await;
    }
}

e2e! {
    async fn an_owner_imports_a_csv_file_maps_a_column_sees_the_mistakes_and_books_the_rest(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "importer@example.com", Role::Owner).await;
        let suffix = crate::harness::unique_suffix();
        let header = "Order;Sender;Sender phone;Pickup;Pickup lat;Pickup lng;Recipient;Mobile;Address;Lat;Lng;Vehicle";
        let row = |order: &str, lat: &str| {
            format!("{order}-{suffix};Ana;+49 30 1234567;Alexanderplatz 1;52,5219;13,4132;Rui;+49 151 2345678;Oranienstr. 25;{lat};13,4190;cargo_bike")
        };
        let file = std::env::temp_dir().join(format!("import-{suffix}.csv"));
        std::fs::write(&file, [header.to_owned(), row("a", "52,5010"), row("b", "north"), row("c", "52,5010")].join("\n")).expect("csv");

        let owner = driver.browser().await;
        owner.sign_in(&app, "importer@example.com").await;
        owner.click_to("//nav//a[text()='Deliveries']", "table").await;
        owner.click_to("//a[text()='Import a CSV file']", "#file").await;
        let example = owner
            .client
            .execute("return fetch(document.querySelector('a[download]').href).then(r => r.headers.get('content-type'))", vec![])
            .await
            .expect("the example file");
        assert_eq!(example, json!("text/csv; charset=utf-8"));
        owner.find("#file").await.send_keys(file.to_str().expect("path")).await.expect("file chosen");
        owner.click_to("//button[text()='Read the file']", "#map_dropoff_phone").await;
        assert!(owner.text("main").await.contains("3 rows, 12 columns."));
        // Named as ours or as a known other name: chosen already; "Mobile" is not.
        assert_eq!(owner.find("#map_dropoff_latitude").await.prop("value").await.expect("value").as_deref(), Some("9"));
        assert_eq!(owner.find("#map_dropoff_phone").await.prop("value").await.expect("value").as_deref(), Some(""));
        owner.click_to("//button[text()='Check every row']", "#import-problem").await;
        assert!(owner.text("#import-problem").await.contains("dropoff_phone"), "a required column unmapped is named");
        owner.find("#map_dropoff_phone").await.select_by_label("Mobile").await.expect("Mobile chosen");
        owner.click_to("//button[text()='Preview again']", "table.preview").await;
        assert!(owner.text("table.preview").await.contains("+49 151 2345678"), "the preview reads the chosen column");
        owner.click_to("//button[text()='Check every row']", "#import-said").await;
        let said = owner.text("#import-said").await;
        assert!(said.starts_with("2 of 3 rows ready to book for ") && said.contains("1 with problems"), "{said}");
        assert_eq!(owner.text("#import-rows").await, "3 Refused Lat: \"north\" is not a number.");
        let listed = app.get(&format!("/v1/deliveries?external_id=a-{suffix}"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"], json!([]), "the check books nothing");

        // The script books the rows a part at a time, on the same page.
        owner.mark().await;
        owner.click("//button[text()='Import 2 deliveries']").await;
        wait_until("the import to finish", PAGE_WAIT, async || {
            let said = owner.text("#import-said").await;
            if said.starts_with("2 of 3 rows booked, 1 refused.") { Ok(()) } else { Err(said) }
        })
        .await;
        owner.screenshot().await;
        let same_page = owner.client.execute("return window.courierOldPage === true", vec![]).await.expect("script");
        assert_eq!(same_page, json!(true), "booked without leaving the page");
        let rows = owner.text("#import-rows").await;
        assert!(rows.contains("2 Booked del_") && rows.contains("4 Booked del_") && rows.contains("3 Refused"), "{rows}");
        for order in ["a", "c"] {
            let listed = app.get(&format!("/v1/deliveries?external_id={order}-{suffix}"), &app.test_key).await;
            assert_eq!(listed.body["deliveries"].as_array().map(Vec::len), Some(1), "{order} booked once");
        }
        owner.click_to("//a[text()[contains(., 'See the deliveries')]]", "table").await;
        owner.close().await;
        let _ = std::fs::remove_file(&file);
    }
}

e2e! {
    async fn an_owner_reads_the_reports_chart_and_downloads_its_csv(app: TestApp) {
        let Some(driver) = Driver::start().await else { return };
        user(&app, "reader@example.com", Role::Owner).await;
        for _ in 0..3 {
            app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await;
        }
        let owner = driver.browser().await;
        owner.sign_in(&app, "reader@example.com").await;
        owner.click_to("//nav//a[text()='Reports']", "#delivery-report").await;
        // The worker counts the day within a pass or two.
        wait_until("the report to count today's deliveries", PAGE_WAIT, async || {
            let booked = owner.text("#delivery-report dl.facts dd").await;
            if booked == "3" {
                return Ok(());
            }
            owner.client.refresh().await.map_err(|e| e.to_string())?;
            Err(format!("booked {booked}"))
        })
        .await;
        let bars = owner.client.execute("return document.querySelectorAll('#delivery-report svg rect').length", vec![]).await.expect("script");
        assert!(bars.as_u64().is_some_and(|n| n >= 1), "the chart draws today's bar: {bars}");
        let csv = owner
            .client
            .execute("return fetch(document.querySelector('#delivery-report a[download]').href).then(r => r.text())", vec![])
            .await
            .expect("the CSV");
        let csv = csv.as_str().expect("text");
        let mut lines = csv.lines();
        assert!(lines.next().is_some_and(|h| h.starts_with("period_start,deliveries,delivered,cancelled,on_time")), "{csv}");
        assert!(lines.any(|line| line.split(',').nth(1) == Some("3")), "today's row books 3: {csv}");
        // By week, the same three.
        owner.find("#by").await.select_by_value("week").await.expect("by week");
        owner.click_to("//button[text()='Show']", "#delivery-report").await;
        assert_eq!(owner.text("#delivery-report dl.facts dd").await, "3");
        owner.close().await;
    }
}
