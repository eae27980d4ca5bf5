//! The console's pages over HTTP, as a browser without JavaScript uses them:
//! sign in, create a key and use it on /v1, revoke it; CSRF, roles and
//! sessions enforced; every page under a strict Content-Security-Policy.

use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};

use crate::harness::TestApp;

pub const PASSWORD: &str = "correct horse battery";

/// A browser with its own cookie jar that follows no redirects.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .expect("browser")
}

pub async fn user(app: &TestApp, email: &str, role: Role) {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Page User".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    let user = accounts::create_user(&app.core.writer, now, new).await.expect("user");
    memberships::add(&app.core.writer, now, &app.workspace_id, &user.id, role)
        .await
        .expect("membership");
}

/// Posts a form (`application/x-www-form-urlencoded`); status, location and body.
pub async fn post(browser: &reqwest::Client, url: &str, form: &[(&str, &str)]) -> (u16, String, String) {
    post_from(browser, url, form, &[]).await
}

/// Posts a form with the request `headers` a browser adds (`Origin`,
/// `Sec-Fetch-Site`).
pub async fn post_from(
    browser: &reqwest::Client,
    url: &str,
    form: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> (u16, String, String) {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut request = browser
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body).send().await.expect("post");
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (
        response.status().as_u16(),
        location,
        response.text().await.expect("body"),
    )
}

pub async fn get(browser: &reqwest::Client, url: &str) -> (u16, String, reqwest::header::HeaderMap) {
    let response = browser.get(url).send().await.expect("get");
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    let page = response.text().await.expect("body");
    assert_local_and_strict(url, &page, &headers);
    assert_plain_words(url, &page, &headers);
    (status, page, headers)
}

/// The API's own words, which no page shows as text: every public name
/// with an underscore, a dot or a colon (`courier_assigned`,
/// `delivery.created`, `deliveries:write`, `cargo_bike`), and the company's
/// internal name.
fn api_words() -> Vec<String> {
    use courier::names::PublicName;
    use courier::v1 as pb;
    let mut words: Vec<String> = Vec::new();
    words.extend(pb::DeliveryStatus::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::CancellationReason::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::CancelReason::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::TestScenario::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::EventType::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::ArtifactKind::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::NotificationTrigger::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(pb::NotificationStatus::NAMES.iter().map(|(_, n)| n.to_string()));
    words.extend(
        courier_identity::access::Permission::ALL
            .iter()
            .map(|p| p.as_str().to_owned()),
    );
    words.extend(["cargo_bike", "small_van", "large_van"].map(String::from));
    words.retain(|w| w.contains(['_', '.', ':']));
    words.push("maxmove".into());
    words
}

/// The text a person reads on `page`: without tags (so without attribute
/// values such as form values and links), scripts, styles and the API
/// payloads shown as such (`<pre>`).
pub fn visible_text(page: &str) -> String {
    let mut text = page.to_owned();
    for element in ["pre", "script", "style", "title"] {
        while let Some(start) = text.find(&format!("<{element}")) {
            let end = text[start..]
                .find(&format!("</{element}>"))
                .map_or(text.len(), |e| start + e + element.len() + 3);
            text.replace_range(start..end, " ");
        }
    }
    let mut visible = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                visible.push(' ');
            }
            c if !in_tag => visible.push(c),
            _ => {}
        }
    }
    visible.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// No HTML page shows an API word ([`api_words`]) as text.
fn assert_plain_words(url: &str, page: &str, headers: &reqwest::header::HeaderMap) {
    let html = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    if !html {
        return;
    }
    let text = visible_text(page).to_lowercase();
    for word in api_words() {
        assert!(
            !text.contains(&word),
            "{url} shows the API word {word:?}: {}",
            visible_text(page)
        );
    }
}

/// Every page carries the strict Content-Security-Policy and neither loads
/// nor links anything of another origin (a `tel:` or `mailto:` link opens
/// the phone or the mail program, no site); and it has no style attribute, which the policy would
/// block (the page would look other than designed).
fn assert_local_and_strict(url: &str, page: &str, headers: &reqwest::header::HeaderMap) {
    if !headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"))
    {
        return;
    }
    let policy = headers
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"),
        "{url}: {policy}"
    );
    assert!(!page.contains("style=\""), "a style attribute on {url}");
    let origin = url.split("/console").next().unwrap_or_default();
    for resource in ["src=\"", "href=\""] {
        for (at, _) in page.match_indices(resource) {
            let target = &page[at + resource.len()..];
            let local = target.starts_with(&format!("{origin}/")) || target.starts_with('#') || target.starts_with('?');
            let call = resource == "href=\"" && (target.starts_with("tel:") || target.starts_with("mailto:"));
            assert!(
                local || call,
                "{url} refers elsewhere: {}",
                target.chars().take(40).collect::<String>()
            );
        }
    }
}

pub fn csrf(page: &str) -> String {
    let start = page.find("name=\"csrf\" value=\"").expect("csrf field") + 19;
    page[start..start + page[start..].find('"').expect("end")].to_owned()
}

/// The sum of a statement CSV's amounts (its eighth column, `units.cents`),
/// in cents.
pub fn statement_csv_cents(csv: &str) -> i64 {
    csv::Reader::from_reader(csv.as_bytes())
        .records()
        .map(|record| {
            let record = record.expect("a CSV row");
            let (units, fraction) = record
                .get(7)
                .and_then(|a| a.split_once('.'))
                .expect("an amount with two decimals");
            units.parse::<i64>().expect("units") * 100 + fraction.parse::<i64>().expect("cents")
        })
        .sum()
}

/// Opens the sign-in page in `browser` (which keeps its pre-session
/// cookie) and sends its form; status, location and body.
pub async fn sign_in_form(
    app: &TestApp,
    browser: &reqwest::Client,
    email: &str,
    password: &str,
) -> (u16, String, String) {
    let (status, page, _) = get(browser, &app.url("/console/sign-in")).await;
    assert_eq!(status, 200, "{page}");
    let form = [
        ("csrf", csrf(&page)),
        ("email", email.into()),
        ("password", password.into()),
    ];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(browser, &app.url("/console/sign-in"), &form).await
}

pub async fn sign_in(app: &TestApp, email: &str) -> reqwest::Client {
    let browser = browser();
    let (status, location, _) = sign_in_form(app, &browser, email, PASSWORD).await;
    assert_eq!((status, location.as_str()), (303, app.url("/console").as_str()));
    browser
}

e2e! {
    async fn an_owner_creates_uses_and_revokes_a_key(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        let keys_url = app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id));

        // Signed out: every page sends to sign-in.
        let (status, location, _) = post(&browser(), &keys_url, &[]).await;
        assert_eq!((status, location), (303, app.url("/console/sign-in")));
        let (status, _, _) = get(&browser(), &app.url("/console/sign-in")).await;
        assert_eq!(status, 200);

        let wrong = sign_in_form(&app, &browser(), "owner@example.com", "nope").await;
        assert_eq!(wrong.0, 401);
        assert!(wrong.2.contains("The email or the password is wrong."));

        let owner = sign_in(&app, "owner@example.com").await;
        let (status, page, _) = get(&owner, &keys_url).await;
        assert_eq!(status, 200, "{page}");
        let token = csrf(&page);

        // Without the CSRF token nothing is created.
        let (status, _, _) = post(&owner, &keys_url, &[("label", "forged"), ("mode", "test")]).await;
        assert_eq!(status, 403);
        assert!(!get(&owner, &keys_url).await.1.contains("forged"));

        // Created, then shown once on the page the post redirects to: a
        // reload neither shows the secret again nor creates another key.
        let (status, location, page) = post(&owner, &keys_url, &[("csrf", &token), ("label", "Backend <b>"), ("mode", "test"), ("expiry", "90")]).await;
        assert_eq!((status, location.as_str()), (303, keys_url.as_str()), "{page}");
        let (status, page, _) = get(&owner, &keys_url).await;
        assert_eq!(status, 200, "{page}");
        let start = page.find("id=\"secret\">").expect("secret") + 12;
        let secret = page[start..start + page[start..].find('<').expect("end")].to_owned();
        assert!(secret.starts_with("mm_test_"), "{secret}");
        assert!(page.contains("Key “Backend &#60;b&#62;” created."), "{page}");
        let again = get(&owner, &keys_url).await.1;
        assert!(!again.contains(&secret) && again.matches("Backend &#60;b&#62;").count() == 1, "shown once, created once: {again}");
        assert_eq!(app.get("/v1/deliveries", &secret).await.status, 200);
        let listing = get(&owner, &keys_url).await.1;
        assert!(listing.contains("Backend &#60;b&#62;"), "escaped label");

        // Revoke it, confirmed; the next API call with it fails.
        let prefix = &secret[..12];
        let row = listing.find(prefix).expect("the key's row");
        let action_at = listing[row..].find("/revoke").expect("revoke form") + row;
        let action_start = listing[..action_at].rfind("action=\"").expect("action") + 8;
        let revoke_url = &listing[action_start..action_at + "/revoke?mode=test".len()];
        let (status, _, page) = post(&owner, revoke_url, &[("csrf", &token)]).await;
        assert_eq!(status, 400, "unconfirmed: {page}");
        assert_eq!(app.get("/v1/deliveries", &secret).await.status, 200, "still usable");
        let (status, _, _) = post(&owner, revoke_url, &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        app.get("/v1/deliveries", &secret).await.assert_error(401, "invalid_api_key", None);
    }

    async fn members_reach_no_key_page_and_sign_out_ends_the_session(app: TestApp) {
        user(&app, "member@example.com", Role::Member).await;
        let member = sign_in(&app, "member@example.com").await;
        let keys_url = app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id));
        let (status, page, _) = get(&member, &keys_url).await;
        assert_eq!(status, 403, "{page}");
        let members_url = app.url(&format!("/console/w/{}/members", app.workspace_id));
        let (status, page, _) = get(&member, &members_url).await;
        assert_eq!(status, 200);
        assert!(!page.contains("API keys</a>"), "no link to the key pages");
        let token = csrf(&page);
        // A forged key post by a member changes nothing.
        let (status, _, _) = post(&member, &keys_url, &[("csrf", &token), ("label", "sneaky"), ("mode", "test")]).await;
        assert_eq!(status, 403);

        // Importing books deliveries: not a member's, by link or by a forged form.
        let import_url = app.url(&format!("/console/w/{}/deliveries/import?mode=test", app.workspace_id));
        let (status, page, _) = get(&member, &import_url).await;
        assert_eq!(status, 403, "{page}");
        let external_id = format!("member-{}", crate::harness::unique_suffix());
        let csv = courier_import::EXAMPLE.replace("order-1041", &external_id);
        let run_url = app.url(&format!("/console/w/{}/deliveries/import/run?mode=test", app.workspace_id));
        // The example's columns are ours, in its header's order.
        let mapped: Vec<(String, String)> = csv.lines().next().expect("header").split(',').enumerate().map(|(i, name)| (format!("map_{name}"), i.to_string())).collect();
        let mut form = vec![("csrf", token.as_str()), ("csv", csv.as_str())];
        form.extend(mapped.iter().map(|(name, index)| (name.as_str(), index.as_str())));
        let (_, _, page) = post(&member, &run_url, &form).await;
        assert!(page.contains("an owner or admin can import"), "{page}");
        let listed = app.get(&format!("/v1/deliveries?external_id={external_id}"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"], serde_json::json!([]), "nothing booked");

        // Another workspace's page is not found.
        let other = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        let (status, _, _) = get(&member, &app.url(&format!("/console/w/{other}/members"))).await;
        assert_eq!(status, 404);

        let (status, location, _) = post(&member, &app.url("/console/sign-out"), &[("csrf", &token)]).await;
        assert_eq!((status, location), (303, app.url("/console/sign-in")));
        let (status, _, _) = get(&member, &members_url).await;
        assert_eq!(status, 303, "signed out");
    }

    async fn webhook_pages_act_as_the_api_and_refuse_forged_posts(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        user(&app, "member@example.com", Role::Member).await;
        let receiver = crate::webhooks::Receiver::start().await;
        let owner = sign_in(&app, "owner@example.com").await;
        let list_url = app.url(&format!("/console/w/{}/webhooks?mode=live", app.workspace_id));
        let (status, page, _) = get(&owner, &list_url).await;
        assert_eq!(status, 200, "{page}");
        let token = csrf(&page);
        let endpoints = |key: String| {
            let app = &app;
            async move { app.get("/v1/webhooks", &key).await.body["webhooks"].as_array().cloned().unwrap_or_default() }
        };

        // Without the CSRF token, or with another session's: nothing is created.
        let form = [("url", receiver.url.as_str()), ("event", "delivery.created")];
        let (status, _, _) = post(&owner, &list_url, &form).await;
        assert_eq!(status, 403);
        let member = sign_in(&app, "member@example.com").await;
        let member_token = csrf(&get(&member, &app.url(&format!("/console/w/{}/members", app.workspace_id))).await.1);
        let (status, _, _) = post(&owner, &list_url, &[("csrf", member_token.as_str()), ("url", &receiver.url), ("event", "delivery.created")]).await;
        assert_eq!(status, 403);
        // A member is refused by link and by post.
        assert_eq!(get(&member, &list_url).await.0, 403);
        let (status, _, _) = post(&member, &list_url, &[("csrf", member_token.as_str()), ("url", &receiver.url), ("event", "delivery.created")]).await;
        assert_eq!(status, 403);
        assert!(endpoints(app.live_key.clone()).await.is_empty());

        // The API's refusal, next to its field, with what was typed kept.
        let (status, _, page) = post(&owner, &list_url, &[("csrf", token.as_str()), ("url", "ftp://example.com/<hooks>"), ("event", "delivery.created")]).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"url-error\"") && page.contains("ftp://example.com/&#60;hooks&#62;"), "{page}");

        // Created in live mode: the live key sees it, the test key does not.
        // The signing secret is shown once, on the page the post leads to.
        let (status, created, page) = post(&owner, &list_url, &[("csrf", token.as_str()), ("url", &receiver.url), ("event", "delivery.created"), ("event", "delivery.delivered"), ("description", "ERP")]).await;
        assert_eq!(status, 303, "{page}");
        let page = get(&owner, &created).await.1;
        assert!(page.contains("whsec_") && page.contains("Delivery booked, Delivered"), "{page}");
        let (status, again, _) = get(&owner, &created).await;
        assert!(status == 303 && !again.contains("whsec_"), "shown once");
        let live = endpoints(app.live_key.clone()).await;
        assert_eq!(live.len(), 1);
        assert_eq!(live[0]["events"], serde_json::json!(["delivery.created", "delivery.delivered"]));
        assert!(endpoints(app.test_key.clone()).await.is_empty());
        let id = live[0]["id"].as_str().expect("id").to_owned();
        let endpoint_url = |action: &str| app.url(&format!("/console/w/{}/webhooks/{id}{action}?mode=live", app.workspace_id));

        // Edit: the description cleared, one event fewer.
        let (status, location, _) = post(&owner, &endpoint_url(""), &[("csrf", token.as_str()), ("url", &receiver.url), ("event", "delivery.created"), ("description", "")]).await;
        assert_eq!((status, location), (303, endpoint_url("")));
        let live = endpoints(app.live_key.clone()).await;
        assert_eq!((live[0]["events"].clone(), live[0]["description"].clone()), (serde_json::json!(["delivery.created"]), serde_json::Value::Null));
        // None ticked is every event, as on the API; a refusal shows next to its field.
        let (status, _, page) = post(&owner, &endpoint_url(""), &[("csrf", token.as_str()), ("url", &receiver.url)]).await;
        assert_eq!(status, 303, "{page}");
        assert_eq!(endpoints(app.live_key.clone()).await[0]["events"], serde_json::json!([]), "empty: every event");
        assert!(get(&owner, &endpoint_url("")).await.1.contains("<dd>all events</dd>"));
        let (status, _, page) = post(&owner, &endpoint_url(""), &[("csrf", token.as_str()), ("url", &receiver.url), ("event", "delivery.teleported")]).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"events-error\""), "{page}");

        // The test event's attempt is shown.
        let (status, location, page) = post(&owner, &endpoint_url("/test"), &[("csrf", token.as_str())]).await;
        assert_eq!((status, location.as_str()), (303, endpoint_url("").as_str()), "{page}");
        let page = get(&owner, &location).await.1;
        assert!(page.contains("Test event delivered (answer 200"), "{page}");
        receiver.wait_for(1, std::time::Duration::from_secs(10)).await;

        // Deleting needs the confirmation; the test mode cannot reach it.
        assert_eq!(get(&owner, &app.url(&format!("/console/w/{}/webhooks/{id}?mode=test", app.workspace_id))).await.0, 404);
        let (status, _, _) = post(&owner, &endpoint_url("/delete"), &[("csrf", token.as_str())]).await;
        assert_eq!(status, 400);
        assert_eq!(endpoints(app.live_key.clone()).await.len(), 1);
        let (status, _, _) = post(&owner, &endpoint_url("/delete"), &[("csrf", token.as_str()), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert!(endpoints(app.live_key.clone()).await.is_empty());
    }

    async fn expired_sessions_and_repeated_wrong_passwords_send_back_to_sign_in(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        let owner = sign_in(&app, "owner@example.com").await;
        let members_url = app.url(&format!("/console/w/{}/members", app.workspace_id));
        assert_eq!(get(&owner, &members_url).await.0, 200);
        app.clock.advance(std::time::Duration::from_secs(12 * 3600));
        let response = owner.get(&members_url).send().await.expect("get");
        assert_eq!(response.status().as_u16(), 303, "idle for 12 hours");
        let back = format!("/console/sign-in?next=%2Fconsole%2Fw%2F{}%2Fmembers", app.workspace_id);
        assert_eq!(response.headers().get("location").and_then(|v| v.to_str().ok()), Some(app.url(&back).as_str()), "and back to the page after signing in");

        for _ in 0..courier_identity::sign_ins::MAX_FAILURES_PER_LOGIN {
            let (status, _, _) = sign_in_form(&app, &browser(), "owner@example.com", "wrong guess").await;
            assert_eq!(status, 401);
        }
        let (status, _, page) = sign_in_form(&app, &browser(), "owner@example.com", PASSWORD).await;
        assert_eq!(status, 429, "{page}");
        assert!(page.contains("role=\"alert\""), "the reason is shown: {page}");
    }
}

e2e! {
    async fn delivery_and_event_pages_read_as_the_api_and_members_cannot_cancel(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        user(&app, "member@example.com", Role::Member).await;
        let mut ids = Vec::new();
        for i in 0..27 {
            let mut body = crate::deliveries::berlin_delivery();
            body["external_id"] = serde_json::json!(format!("order-{i}"));
            ids.push(app.create_delivery(&app.live_key, &body).await["id"].as_str().expect("id").to_owned());
        }
        let member = sign_in(&app, "member@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));

        // Keyset pages of 25, newest first; the next page holds the rest.
        let (status, page, _) = get(&member, &format!("{base}/deliveries?mode=live")).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page.matches("<td data-label=\"Delivery\">").count(), 25);
        assert!(page.contains(&ids[26]) && !page.contains(&format!("{}\"", ids[0])), "newest first");
        let next = page.split("rel=\"next\" href=\"").nth(1).and_then(|rest| rest.split('"').next()).expect("a next page").replace("&#38;", "&");
        let (status, page, _) = get(&member, &next).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page.matches("<td data-label=\"Delivery\">").count(), 2);
        assert!(!page.contains("rel=\"next\""));
        // The API's filters; test mode shows none of the live deliveries.
        let (_, page, _) = get(&member, &format!("{base}/deliveries?mode=live&external_id=order-3")).await;
        assert_eq!(page.matches("<td data-label=\"Delivery\">").count(), 1);
        assert!(page.contains(&ids[3]));
        let (_, page, _) = get(&member, &format!("{base}/deliveries?mode=test")).await;
        assert!(page.contains("No test deliveries match."));
        let (status, page, _) = get(&member, &format!("{base}/deliveries?mode=live&created_from=24.11.2026")).await;
        assert_eq!(status, 400);
        assert!(page.contains("created_from must be a date"), "{page}");

        // The list's CSV: every page of what the filters find, behind a link that keeps them.
        let (_, page, _) = get(&member, &format!("{base}/deliveries?mode=live&external_id=order-3")).await;
        let export = page.split("id=\"export\" href=\"").nth(1).and_then(|rest| rest.split('"').next()).expect("a CSV link").replace("&#38;", "&");
        assert!(export.contains("external_id=order-3"), "{export}");
        let (status, csv, _) = get(&member, &export).await;
        assert_eq!(status, 200, "{csv}");
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].starts_with("id,status,external_id,amount_cents,currency"), "{csv}");
        assert_eq!(lines.len(), 2, "one delivery matches: {csv}");
        assert!(lines[1].starts_with(&format!("{},pending,order-3,", ids[3])), "{csv}");
        let (status, csv, _) = get(&member, &format!("{base}/deliveries.csv?mode=live")).await;
        assert_eq!(status, 200);
        assert_eq!(csv.lines().count(), 28, "all 27 pages' rows and the header: {csv}");
        let (status, refusal, _) = get(&member, &format!("{base}/deliveries.csv?mode=live&created_to=tomorrow")).await;
        assert_eq!(status, 400);
        assert!(refusal.contains("created_to"), "{refusal}");

        // A delivery's page, its live feed, and its events with their payload.
        let (status, page, _) = get(&member, &format!("{base}/deliveries/{}?mode=live", ids[3])).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("order-3") && page.contains("Delivery booked") && page.contains("Alexanderplatz"), "{page}");
        assert!(!page.contains("Cancel delivery"), "members read only");
        assert!(!page.contains("Back office"), "no back office link for a member");
        let (status, back_office, _) = get(&member, &app.url("/console/ops")).await;
        assert_eq!(status, 403, "{back_office}");
        let live = member.get(format!("{base}/deliveries/{}/live?mode=live", ids[3])).send().await.expect("live");
        assert_eq!(live.headers().get("content-type").and_then(|v| v.to_str().ok()), Some("text/event-stream"));
        let mut live = live;
        let first = live.chunk().await.expect("a chunk").expect("an event");
        let first = String::from_utf8_lossy(&first);
        assert!(first.starts_with("event: update") && first.contains("delivery-status"), "{first}");
        drop(live);
        let event_id = page.split("/events/").nth(1).and_then(|rest| rest.split('?').next()).expect("an event link").to_owned();
        let (status, page, _) = get(&member, &format!("{base}/events/{event_id}?mode=live")).await;
        assert_eq!(status, 200, "{page}");
        let shown = page.split("<pre class=\"payload\">").nth(1).and_then(|rest| rest.split("</pre>").next()).expect("the payload");
        let shown = shown.replace("&#34;", "\"").replace("&#39;", "'").replace("&#60;", "<").replace("&#62;", ">").replace("&#38;", "&");
        assert!(shown.trim_start().starts_with("{\n  \"id\""), "in the API's order: {shown}");
        let shown: serde_json::Value = serde_json::from_str(&shown).expect("JSON");
        let mut api = app.get(&format!("/v1/events/{event_id}"), &app.live_key).await.body;
        api.as_object_mut().expect("object").remove("webhook_attempts");
        assert_eq!(shown, api, "the payload as the API shows it");
        let (_, page, _) = get(&member, &format!("{base}/events?mode=live&type=delivery.created")).await;
        assert_eq!(page.matches("<td data-label=\"Event\">").count(), 25);

        // A member's cancel is refused; the owner's goes through, with its reason.
        let token = csrf(&get(&member, &format!("{base}/members")).await.1);
        let cancel_url = format!("{base}/deliveries/{}/cancel?mode=live", ids[3]);
        let (status, _, _) = post(&member, &cancel_url, &[("csrf", token.as_str()), ("reason", "other"), ("confirm", "yes")]).await;
        assert_eq!(status, 403);
        assert_eq!(app.get(&format!("/v1/deliveries/{}", ids[3]), &app.live_key).await.body["status"], "pending");
        let owner = sign_in(&app, "owner@example.com").await;
        let token = csrf(&get(&owner, &format!("{base}/members")).await.1);
        let (status, _, _) = post(&owner, &cancel_url, &[("reason", "other"), ("confirm", "yes")]).await;
        assert_eq!(status, 403, "no CSRF token");
        let (status, location, _) = post(&owner, &cancel_url, &[("csrf", token.as_str()), ("reason", "booked_by_mistake"), ("confirm", "yes")]).await;
        assert_eq!((status, location), (303, format!("{base}/deliveries/{}?mode=live", ids[3])));
        let cancelled = app.get(&format!("/v1/deliveries/{}", ids[3]), &app.live_key).await;
        assert_eq!((cancelled.body["status"].as_str(), cancelled.body["cancellation_reason"].as_str()), (Some("cancelled"), Some("cancelled_by_you")));

        // The overview counts today's deliveries by status; a cancel by the
        // client needs no attention.
        let (status, page, _) = get(&owner, &format!("{base}/overview?mode=live")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(">Waiting for a courier</a></dt><dd>26</dd>") && page.contains(">Cancelled</a></dt><dd>1</dd>"), "{page}");
        assert!(page.contains("Nothing: no delivery is at risk of missing its promised time, none was cancelled by the service today"), "{page}");
        // A courier at the dropoff without the proof needs attention, until
        // the proof is in.
        crate::billing::bring_to_dropoff(&app, &ids[5]).await;
        let (_, page, _) = get(&owner, &format!("{base}/overview?mode=live")).await;
        assert!(page.contains(&format!("<code>{}</code></a> at the dropoff since", ids[5])), "{page}");
        assert!(page.contains("with no proof of delivery yet") && !page.contains("Nothing: "), "{page}");
        let dropoff = crate::billing::proof(&ids[5], courier::v1::CheckpointKind::Dropoff);
        app.dispatch().await.submit_proof(app.dispatch_request(dropoff)).await.expect("dropoff proof");
        let (_, page, _) = get(&owner, &format!("{base}/overview?mode=live")).await;
        assert!(page.contains("Nothing: no delivery is at risk of missing its promised time, none was cancelled by the service today"), "{page}");

        // Another workspace's delivery is not found, by id or by the live feed.
        let other = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        assert_eq!(get(&owner, &app.url(&format!("/console/w/{other}/deliveries/{}?mode=live", ids[4]))).await.0, 404);
        assert_eq!(get(&owner, &format!("{base}/deliveries/{}?mode=test", ids[4])).await.0, 404, "a live delivery is not in test mode");
    }
}

e2e! {
    async fn a_statement_closed_by_an_operator_shows_on_the_billing_page_and_its_csv_adds_up(app: TestApp) {
        use courier::internal::v1::billing_service_client::BillingServiceClient;
        user(&app, "member@example.com", Role::Member).await;
        let now = app.clock.now_micros();
        let operator = NewUser { email: "ops@example.com".into(), name: "Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        let mut amounts = 0;
        for _ in 0..3 {
            let created = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
            amounts += created["amount_cents"].as_i64().expect("amount_cents");
            crate::billing::deliver(&app, created["id"].as_str().expect("id")).await;
        }

        // Closing is the operators': a member's session is refused, an operator's closes.
        let session = |email: &'static str| {
            let app = &app;
            async move {
                let request = courier::internal::v1::SignInRequest { email: email.into(), password: PASSWORD.into(), client_address: "127.0.0.1".into() };
                let answer = courier::internal::v1::console_service_client::ConsoleServiceClient::connect(app.grpc_url.clone()).await.expect("client").sign_in(request).await.expect("sign in").into_inner();
                (answer.session_token, answer.session.expect("session").csrf_token)
            }
        };
        let close = |(token, csrf): &(String, String)| {
            let mut request = tonic::Request::new(courier::internal::v1::CloseStatementRequest { workspace_id: app.workspace_id.clone() });
            request.metadata_mut().insert("x-console-session", token.parse().expect("meta"));
            request.metadata_mut().insert("x-csrf-token", csrf.parse().expect("meta"));
            request
        };
        let mut billing = BillingServiceClient::connect(app.grpc_url.clone()).await.expect("billing");
        let status = billing.close_statement(close(&session("member@example.com").await)).await.expect_err("a member");
        assert_eq!(courier::errors::from_status(&status).0.as_str(), "permission_denied");
        let closed = billing.close_statement(close(&session("ops@example.com").await)).await.expect("an operator closes").into_inner();
        let statement = closed.statements[0].id.clone();
        assert_eq!(closed.statements[0].total_cents, amounts);

        // Every member reads it, with its deliveries, CSV and printable page.
        let member = sign_in(&app, "member@example.com").await;
        let base = app.url(&format!("/console/w/{}/billing", app.workspace_id));
        let (status, page, _) = get(&member, &base).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(&statement) && page.contains("0.00 EUR"), "closed: nothing open any more: {page}");
        // The next close on the area's clock (Berlin: 01:00 or 02:00), UTC on hover.
        let next_close = page.split("id=\"next-close\">").nth(1).and_then(|rest| rest.split("</dd>").next()).unwrap_or_default();
        assert!(next_close.starts_with("next on <time datetime=\"") && next_close.contains(":00:00 UTC\">") && next_close.contains(" 0"), "{next_close}");
        let (status, page, _) = get(&member, &format!("{base}/statements/{statement}")).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page.matches("<td data-label=\"Delivery\">").count(), 3);
        let total = format!("{}.{:02} EUR", amounts / 100, amounts % 100);
        assert!(page.contains(&total), "{total}: {page}");
        let csv = member.get(format!("{base}/statements/{statement}/csv")).send().await.expect("csv");
        assert_eq!(csv.headers().get("content-type").and_then(|v| v.to_str().ok()), Some("text/csv; charset=utf-8"));
        let csv = csv.text().await.expect("text");
        assert_eq!(statement_csv_cents(&csv), amounts, "{csv}");
        let (status, page, headers) = get(&member, &format!("{base}/statements/{statement}/print")).await;
        assert_eq!(status, 200);
        assert!(page.contains(&statement));
        assert!(headers.get("content-security-policy").and_then(|v| v.to_str().ok()).is_some_and(|p| p.contains("form-action 'none'")));

        // Another workspace's statement is not found from this workspace.
        let other = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        assert_eq!(get(&member, &app.url(&format!("/console/w/{other}/billing"))).await.0, 404);
        assert_eq!(get(&member, &app.url(&format!("/console/w/{other}/billing/statements/{statement}"))).await.0, 404);
    }
}

e2e! {
    async fn forms_from_another_site_are_refused_and_change_nothing(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        let sign_in_url = app.url("/console/sign-in");
        let refused = |(status, _, page): &(u16, String, String)| *status == 403 && page.contains("Form refused");
        let credentials = [("email", "owner@example.com"), ("password", PASSWORD)];

        // Login forgery: a sign-in post without the browser's pre-session
        // token, or from another origin with it, signs nobody in.
        let stranger = browser();
        let answer = post(&stranger, &sign_in_url, &credentials).await;
        assert!(refused(&answer), "{answer:?}");
        let victim = browser();
        let (_, page, headers) = get(&victim, &sign_in_url).await;
        let cookie = headers.get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find(|c| c.starts_with("courier_presession="));
        assert!(cookie.is_some_and(|c| c.contains("HttpOnly") && c.contains("SameSite=Strict")), "{cookie:?}");
        let token = csrf(&page);
        let with_token = [("csrf", token.as_str()), credentials[0], credentials[1]];
        for from in [[("origin", "https://evil.example")], [("sec-fetch-site", "cross-site")], [("origin", "null")]] {
            let answer = post_from(&victim, &sign_in_url, &with_token, &from).await;
            assert!(refused(&answer), "{from:?}: {answer:?}");
        }
        let wrong_token = [("csrf", "x".repeat(token.len())), ("email", "owner@example.com".into()), ("password", PASSWORD.into())];
        let wrong_token: Vec<(&str, &str)> = wrong_token.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert!(refused(&post(&victim, &sign_in_url, &wrong_token).await));
        let members_url = app.url(&format!("/console/w/{}/members", app.workspace_id));
        assert_eq!(get(&victim, &members_url).await.0, 303, "not signed in");
        // From the console itself, the same form signs in.
        let origin = app.base_url.clone();
        let answer = post_from(&victim, &sign_in_url, &with_token, &[("origin", &origin), ("sec-fetch-site", "same-origin")]).await;
        assert_eq!((answer.0, answer.1.as_str()), (303, app.url("/console").as_str()));

        // A signed-in owner's form with its valid CSRF token, posted from
        // another site, changes nothing.
        let keys_url = app.url(&format!("/console/w/{}/keys?mode=test", app.workspace_id));
        let (_, page, _) = get(&victim, &keys_url).await;
        let keys_before = page.matches("<tr").count();
        let token = csrf(&page);
        let form = [("csrf", token.as_str()), ("label", "forged"), ("mode", "test")];
        let answer = post_from(&victim, &keys_url, &form, &[("origin", "https://evil.example")]).await;
        assert!(refused(&answer), "{answer:?}");
        let (_, page, _) = get(&victim, &keys_url).await;
        assert!(!page.contains("forged") && page.matches("<tr").count() == keys_before, "{page}");

        // Joining by invitation needs the pre-session token too.
        let invite_url = app.url(&format!("/console/w/{}/members/invite", app.workspace_id));
        let (_, page, _) = get(&victim, &members_url).await;
        let (status, location, page) = post(&victim, &invite_url, &[("csrf", &csrf(&page)), ("role", "member")]).await;
        assert_eq!(status, 303, "{page}");
        let page = get(&victim, &location).await.1;
        let start = page.find("/console/invitations/").expect("invitation link");
        let link = app.url(&page[start..start + page[start..].find('<').expect("link end")]);
        let joiner = [("name", "Mallory"), ("email", "mallory@example.com"), ("password", PASSWORD)];
        assert!(refused(&post(&browser(), &link, &joiner).await));
        let newcomer = browser();
        let (_, page, _) = get(&newcomer, &link).await;
        let token = csrf(&page);
        let with_token = [("csrf", token.as_str()), joiner[0], joiner[1], joiner[2]];
        assert!(refused(&post_from(&newcomer, &link, &with_token, &[("origin", "https://evil.example")]).await));
        let no_account = courier_identity::sessions::sign_in::<accounts::User>(&app.core, "mallory@example.com", PASSWORD, "test").await;
        assert_eq!(no_account.map(|_| ()).map_err(|e| e.code().as_str()), Err("invalid_credentials"), "no account was made");
        let (status, location, _) = post(&newcomer, &link, &with_token).await;
        assert_eq!((status, location), (303, app.url(&format!("/console/w/{}/overview", app.workspace_id))), "lands signed in");
        let (status, page, _) = get(&newcomer, &app.url(&format!("/console/w/{}/overview", app.workspace_id))).await;
        assert!(status == 200 && page.contains("you joined as member."), "{page}");
        let (status, page, _) = get(&browser(), &link).await;
        assert!(status == 404 && page.contains("already used"), "a used link says so: {page}");
    }
}

e2e! {
    async fn every_page_shows_plain_words_for_data_of_every_status(app: TestApp) {
        use courier::names::PublicName;
        use courier::v1 as pb;
        use std::time::Duration;
        let now = app.clock.now_micros();
        let owner = NewUser { email: "owner@example.com".into(), name: "Owen Owner".into(), password: PASSWORD.into(), operator: false };
        let owner_id = accounts::create_user(&app.core.writer, now, owner).await.expect("owner").id;
        memberships::add(&app.core.writer, now, &app.workspace_id, &owner_id, Role::Owner).await.expect("membership");
        let operator = NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");

        // Test deliveries played out by the simulator, one per ending; live
        // ones waiting, at the dropoff, delivered and cancelled by the client.
        let mut test_ids = Vec::new();
        for scenario in [None, Some("no_courier_found"), Some("courier_cancelled"), Some("pickup_no_show"), Some("delivery_failed")] {
            let mut body = crate::deliveries::berlin_delivery();
            if let Some(scenario) = scenario {
                body["test_scenario"] = serde_json::json!(scenario);
            }
            test_ids.push(app.create_delivery(&app.test_key, &body).await["id"].as_str().expect("id").to_owned());
        }
        let mut live_ids = Vec::new();
        for _ in 0..4 {
            live_ids.push(app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await["id"].as_str().expect("id").to_owned());
        }
        crate::billing::bring_to_dropoff(&app, &live_ids[1]).await;
        crate::billing::deliver(&app, &live_ids[2]).await;
        let cancelled = app.post(&format!("/v1/deliveries/{}/cancel", live_ids[3]), &app.live_key, &serde_json::json!({ "reason": "booked_by_mistake" })).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        for (id, ending) in test_ids.iter().zip(["delivered", "cancelled", "cancelled", "cancelled", "cancelled"]) {
            app.wait_for_status(&app.test_key, id, ending, Duration::from_secs(30)).await;
        }

        let owner = sign_in(&app, "owner@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        let shown = |path: String| {
            let owner = &owner;
            async move {
                let (status, page, _) = get(owner, &path).await;
                assert!(status < 400, "{path}: {status} {page}");
                page
            }
        };
        shown(app.url("/console")).await;
        for mode in ["test", "live"] {
            shown(format!("{base}/overview?mode={mode}")).await;
            shown(format!("{base}/deliveries?mode={mode}")).await;
            for (_, status) in pb::DeliveryStatus::NAMES {
                shown(format!("{base}/deliveries?mode={mode}&status={status}")).await;
            }
            for (_, event_type) in pb::EventType::NAMES {
                let page = shown(format!("{base}/events?mode={mode}&type={event_type}")).await;
                if let Some(event) = page.split("/events/evt_").nth(1).and_then(|rest| rest.split('?').next()) {
                    shown(format!("{base}/events/evt_{event}?mode={mode}")).await;
                }
            }
            shown(format!("{base}/keys?mode={mode}")).await;
            shown(format!("{base}/webhooks?mode={mode}")).await;
            shown(format!("{base}/deliveries/import?mode={mode}")).await;
            shown(format!("{base}/reports?mode={mode}&by=week")).await;
        }
        for id in &test_ids {
            let page = shown(format!("{base}/deliveries/{id}?mode=test")).await;
            assert!(page.contains("class=\"now\""), "{page}");
        }
        for id in &live_ids {
            shown(format!("{base}/deliveries/{id}?mode=live")).await;
        }
        let page = shown(format!("{base}/deliveries/{}?mode=test", test_ids[0])).await;
        assert!(visible_text(&page).contains("Proof of delivery received"), "the timeline in words: {page}");
        let page = shown(format!("{base}/deliveries/{}?mode=live", live_ids[3])).await;
        assert!(visible_text(&page).contains("Cancelled by you"), "{page}");
        // The booking form in both modes, and a priced form (its answer
        // is a page too); times on the service area's clock, UTC on hover.
        for mode in ["test", "live"] {
            let page = shown(format!("{base}/deliveries/new?mode={mode}")).await;
            let mut form: Vec<(String, String)> = Vec::new();
            for (name, value) in [
                ("pickup_address", "Alexanderplatz 1, 10178 Berlin"), ("pickup_latitude", "52.5219"), ("pickup_longitude", "13.4132"),
                ("pickup_name", "Desk"), ("pickup_phone", "+493012345678"),
                ("dropoff_address", "Oranienstraße 25, 10999 Berlin"), ("dropoff_latitude", "52.5010"), ("dropoff_longitude", "13.4190"),
                ("dropoff_name", "Recipient"), ("dropoff_phone", "+493087654321"), ("vehicle_type_id", "small_van"),
                ("extra", "insurance"), ("extra_insurance_option", "premium"),
            ] {
                form.push((name.into(), value.into()));
            }
            form.push(("csrf".into(), csrf(&page)));
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let quote_url = format!("{base}/deliveries/quote?mode={mode}");
            let body: String = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(&form).finish();
            let answer = owner.post(&quote_url).header("content-type", "application/x-www-form-urlencoded").body(body).send().await.expect("post");
            let (status, headers) = (answer.status().as_u16(), answer.headers().clone());
            let page = answer.text().await.expect("body");
            assert_eq!(status, 200, "{page}");
            assert_plain_words(&quote_url, &page, &headers);
            assert_local_and_strict(&quote_url, &page, &headers);
            assert!(visible_text(&page).contains("Book for "), "{page}");
            assert!(visible_text(&page).contains("Goods insurance (Premium, goods up to 5,000 EUR) × 1"), "{page}");
        }
        let page = shown(format!("{base}/deliveries/{}?mode=test", test_ids[0])).await;
        let created = page.split("<dt>Created</dt><dd>").nth(1).and_then(|rest| rest.split("</dd>").next()).expect("the creation time");
        assert!(created.starts_with("<time datetime=\"") && created.contains(" UTC\">"), "UTC on hover: {created}");
        assert!(created.ends_with(" CET</time>") || created.ends_with(" CEST</time>"), "Berlin's clock, as the tracking page: {created}");
        shown(format!("{base}/members")).await;
        shown(format!("{base}/billing")).await;

        // A webhook endpoint of every event, and its page.
        let receiver = crate::webhooks::Receiver::start().await;
        let page = shown(format!("{base}/webhooks?mode=test")).await;
        let (status, _, page) = post(&owner, &format!("{base}/webhooks?mode=test"), &[("csrf", &csrf(&page)), ("url", &receiver.url)]).await;
        assert!(status == 200 || status == 303, "{page}");
        let endpoints = app.get("/v1/webhooks", &app.test_key).await.body;
        let endpoint = endpoints["webhooks"][0]["id"].as_str().expect("an endpoint").to_owned();
        shown(format!("{base}/webhooks/{endpoint}?mode=test")).await;

        // A fleet's board and an order moved once on it.
        let (fleet, fleet_key) = crate::fleet::fleet(&app, true).await;
        memberships::add(&app.core.writer, now, &fleet, &owner_id, Role::Owner).await.expect("membership");
        let order = crate::fleet::create(&app, &fleet_key, &crate::fleet::full_order()).await;
        let board = app.url(&format!("/console/w/{fleet}/board"));
        let page = shown(board.clone()).await;
        let order_id = page.split("/board/ord_").nth(1).and_then(|rest| rest.split(['"', '?']).next()).map(|id| format!("ord_{id}")).expect("the order's card");
        let (status, _, _) = post(&owner, &format!("{board}/{order_id}/move"), &[("csrf", &csrf(&page)), ("status", "courier_assigned")]).await;
        assert_eq!(status, 303);
        let page = shown(format!("{board}/{order_id}")).await;
        assert!(visible_text(&page).contains("Waiting for a courier → Courier assigned by owner@example.com"), "{page}");
        assert!(order["id"].is_string());
        shown(app.url(&format!("/console/w/{fleet}/overview?mode=live"))).await;

        // The console's address as typed with a slash, and its icon.
        let (status, _, headers) = get(&owner, &app.url("/console/")).await;
        assert_eq!((status, headers["location"].to_str().ok()), (308, Some("/console")));
        let (status, icon, headers) = get(&owner, &app.url("/console/assets/icon.svg")).await;
        assert_eq!((status, headers["content-type"].to_str().ok()), (200, Some("image/svg+xml")), "{icon}");

        // The back office.
        let operator = sign_in(&app, "ops@example.com").await;
        for path in ["/console/ops".to_owned(), "/console/ops/audit".to_owned(), format!("/console/ops/w/{}", app.workspace_id), format!("/console/ops/w/{fleet}")] {
            let (status, page, _) = get(&operator, &app.url(&path)).await;
            assert_eq!(status, 200, "{path}: {page}");
        }
    }
}

e2e! {
    // The first retry comes long after the test: the page is read with one
    // finished attempt, never with a retry under way.
    with |config| config.webhook_retry_scale = 100.0;

    async fn a_failing_endpoint_shows_its_attempts_streak_and_retries(app: TestApp) {
        use crate::webhooks::{Receiver, Reply, live_delivery};
        user(&app, "owner@example.com", Role::Owner).await;
        let receiver = Receiver::start().await;
        receiver.always(Reply::status(500));
        let owner = sign_in(&app, "owner@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        let (_, page, _) = get(&owner, &format!("{base}/webhooks?mode=live")).await;
        let token = csrf(&page);
        let (status, _, page) = post(&owner, &format!("{base}/webhooks?mode=live"), &[("csrf", &token), ("url", &receiver.url)]).await;
        assert_eq!(status, 303, "{page}");
        let endpoints = app.get("/v1/webhooks", &app.live_key).await.body;
        let id = endpoints["webhooks"][0]["id"].as_str().expect("an endpoint").to_owned();
        let endpoint_url = |action: &str| format!("{base}/webhooks/{id}{action}?mode=live");

        // Before any event: no attempt, no streak.
        let page = get(&owner, &endpoint_url("")).await.1;
        assert!(page.contains("No attempt yet") && page.contains("None: no event has failed"), "{page}");

        // The receiver answers 500: the attempt shows its event in words,
        // its result, code and latency, and the event waits for a retry.
        live_delivery(&app).await;
        receiver.wait_for(1, std::time::Duration::from_secs(10)).await;
        let page = crate::harness::wait_until("the failed attempt on the endpoint's page", std::time::Duration::from_secs(10), async || {
            let page = get(&owner, &endpoint_url("")).await.1;
            if page.contains("1 event failed and waits for a retry") { Ok(page) } else { Err(page) }
        })
        .await;
        let attempts = page.split("id=\"attempts\"").nth(1).expect("the attempts table");
        assert!(attempts.contains("Delivery booked") && attempts.contains("Failed"), "{attempts}");
        assert!(attempts.contains("<td data-label=\"HTTP code\">500</td>"), "{attempts}");
        let latency = attempts.split("<td data-label=\"Latency\">").nth(1).expect("a latency").split("</td>").next().unwrap_or_default();
        assert!(latency.ends_with(" ms") && latency.trim_end_matches(" ms").parse::<u64>().is_ok(), "{latency}");
        assert!(page.contains("the endpoint is disabled on its own after 20 in a row, once the first is 1 day old"), "{page}");
        assert!(page.contains("including the 1 waiting for a retry"), "{page}");

        // Replay names the event still being retried rather than "0 queued".
        let (status, location, _) = post(&owner, &endpoint_url("/replay"), &[("csrf", &token)]).await;
        assert_eq!((status, location.as_str()), (303, endpoint_url("").as_str()));
        let page = get(&owner, &location).await.1;
        assert!(page.contains("No failed event to send again; 1 event is still being retried and is sent on its own schedule."), "{page}");

        // Disabled by hand: the waiting event ends failed, which starts the
        // failing streak; enabled again, replay queues it again.
        let (status, _, _) = post(&owner, &endpoint_url("/status"), &[("csrf", &token), ("status", "disabled"), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        let page = get(&owner, &endpoint_url("")).await.1;
        assert!(page.contains("1 event failed since the last success") && page.contains("No event waiting for a retry"), "{page}");
        let (status, _, _) = post(&owner, &endpoint_url("/status"), &[("csrf", &token), ("status", "active")]).await;
        assert_eq!(status, 303);
        let (_, location, _) = post(&owner, &endpoint_url("/replay"), &[("csrf", &token)]).await;
        let page = get(&owner, &location).await.1;
        assert!(page.contains("1 failed event queued again"), "{page}");

        // The event's page names the endpoint by its URL.
        let event_id = attempts.split("/events/").nth(1).expect("a link to the event").split('?').next().unwrap_or_default().to_owned();
        let (status, page, _) = get(&owner, &format!("{base}/events/{event_id}?mode=live")).await;
        assert_eq!(status, 200, "{page}");
        let table = page.split("<h2>Webhook attempts</h2>").nth(1).expect("the attempts table");
        assert!(table.contains(&format!(">{}</a>", receiver.url)) && table.contains(&format!("title=\"{id}\"")), "{table}");
    }
}

e2e! {
    async fn every_destructive_action_is_refused_unconfirmed_and_done_confirmed(app: TestApp) {
        let now = app.clock.now_micros();
        let ops = NewUser { email: "ops@example.com".into(), name: "Olga Ops".into(), password: PASSWORD.into(), operator: true };
        let ops_id = accounts::create_user(&app.core.writer, now, ops).await.expect("operator").id;
        memberships::add(&app.core.writer, now, &app.workspace_id, &ops_id, Role::Owner).await.expect("membership");
        let member = NewUser { email: "mia@example.com".into(), name: "Mia Member".into(), password: PASSWORD.into(), operator: false };
        let member_id = accounts::create_user(&app.core.writer, now, member).await.expect("member").id;
        memberships::add(&app.core.writer, now, &app.workspace_id, &member_id, Role::Member).await.expect("membership");
        let ops = sign_in(&app, "ops@example.com").await;
        let base = app.url(&format!("/console/w/{}", app.workspace_id));
        let token = csrf(&get(&ops, &format!("{base}/members")).await.1);
        // Each action: refused without the ticked box (nothing done, the
        // reason at the box), done with it.
        let refused = |status: u16, page: &str| {
            assert!(status == 400 || status == 409, "{status}: {page}");
            assert!(visible_text(page).contains("Tick “Yes” to "), "{page}");
        };

        // A delivery's cancel keeps the reason chosen.
        let id = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let cancel = format!("{base}/deliveries/{id}/cancel?mode=live");
        let (status, _, page) = post(&ops, &cancel, &[("csrf", &token), ("reason", "booked_by_mistake")]).await;
        refused(status, &page);
        assert!(page.contains("id=\"cancel-confirm-error\"") && page.contains("value=\"booked_by_mistake\" selected"), "{page}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "pending");
        let (status, _, _) = post(&ops, &cancel, &[("csrf", &token), ("reason", "booked_by_mistake"), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "cancelled");

        // Once picked up, a delivery cannot be cancelled: no form offers it,
        // and the pickup's ETA is gone.
        let picked = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        let kim = crate::couriers::join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        crate::couriers::assign(&app, &picked, &kim.courier.id).await.expect("assign");
        let mut client = kim.client.clone();
        client.arrive_at_pickup(kim.request(courier::app::v1::ArriveAtPickupRequest { job_id: picked.clone() })).await.expect("arrive");
        let (_, page, _) = get(&ops, &format!("{base}/deliveries/{picked}?mode=live")).await;
        assert!(page.contains("Cancel delivery"), "at the pickup it still can: {page}");
        client.pick_up(kim.request(courier::app::v1::PickUpRequest { job_id: picked.clone() })).await.expect("pick up");
        let (_, page, _) = get(&ops, &format!("{base}/deliveries/{picked}?mode=live")).await;
        assert!(!page.contains("Cancel delivery") && !page.contains("Pickup ETA"), "{page}");

        // A webhook endpoint disabled.
        let receiver = crate::webhooks::Receiver::start().await;
        let created = app.post("/v1/webhooks", &app.live_key, &serde_json::json!({ "url": receiver.url })).await;
        let endpoint = created.body["id"].as_str().expect("an endpoint").to_owned();
        let disable = format!("{base}/webhooks/{endpoint}/status?mode=live");
        let (status, _, page) = post(&ops, &disable, &[("csrf", &token), ("status", "disabled")]).await;
        refused(status, &page);
        assert!(page.contains("id=\"disable-confirm-error\""), "{page}");
        assert_eq!(app.get("/v1/webhooks", &app.live_key).await.body["webhooks"][0]["status"], "active");
        let (status, _, _) = post(&ops, &disable, &[("csrf", &token), ("status", "disabled"), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert_eq!(app.get("/v1/webhooks", &app.live_key).await.body["webhooks"][0]["status"], "disabled");

        // A member removed.
        let remove = format!("{base}/members/{member_id}/remove?mode=test");
        let (status, _, page) = post(&ops, &remove, &[("csrf", &token)]).await;
        refused(status, &page);
        assert!(get(&ops, &format!("{base}/members")).await.1.contains("mia@example.com"));
        let (status, _, _) = post(&ops, &remove, &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert!(!get(&ops, &format!("{base}/members")).await.1.contains("mia@example.com"));

        // A board order cancelled.
        let (fleet, fleet_key) = crate::fleet::fleet(&app, true).await;
        let order = crate::fleet::create(&app, &fleet_key, &crate::fleet::full_order()).await;
        let board = app.url(&format!("/console/w/{fleet}/board"));
        let page = get(&ops, &board).await.1;
        let order_id = page.split("/board/ord_").nth(1).and_then(|rest| rest.split(['"', '?']).next()).map(|id| format!("ord_{id}")).expect("the order's card");
        let move_url = format!("{board}/{order_id}/move?mode=live");
        let (status, _, page) = post(&ops, &move_url, &[("csrf", &token), ("status", "cancelled")]).await;
        refused(status, &page);
        let order_url = format!("/v1/fleet/orders/{}", order["id"].as_str().expect("id"));
        assert_eq!(app.get(&order_url, &fleet_key).await.body["status"], "pending");
        let (status, _, _) = post(&ops, &move_url, &[("csrf", &token), ("status", "cancelled"), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert_eq!(app.get(&order_url, &fleet_key).await.body["status"], "cancelled");

        // In the back office: a statement voided, a customer's key revoked.
        let delivered = app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await["id"].as_str().expect("id").to_owned();
        crate::billing::deliver(&app, &delivered).await;
        let office = app.url(&format!("/console/ops/w/{}", app.workspace_id));
        let (status, _, _) = post(&ops, &format!("{office}/statements/close"), &[("csrf", &token)]).await;
        assert_eq!(status, 303);
        let page = get(&ops, &office).await.1;
        let void = page.split("action=\"").filter_map(|a| a.split('"').next()).find(|a| a.ends_with("/void")).expect("a void form").to_owned();
        let (status, _, page) = post(&ops, &void, &[("csrf", &token)]).await;
        refused(status, &page);
        assert!(get(&ops, &office).await.1.contains(&void), "still open");
        let (status, _, _) = post(&ops, &void, &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert!(!get(&ops, &office).await.1.contains(&void), "voided");
        let page = get(&ops, &office).await.1;
        let revoke = page.split("action=\"").filter_map(|a| a.split('"').next()).find(|a| a.ends_with("/revoke")).expect("a revoke form").to_owned();
        let (status, _, page) = post(&ops, &revoke, &[("csrf", &token)]).await;
        refused(status, &page);
        let usable = async |key: &str| app.get("/v1/deliveries", key).await.status == 200;
        assert!(usable(&app.test_key).await && usable(&app.live_key).await, "no key revoked");
        let (status, _, _) = post(&ops, &revoke, &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        assert!(!(usable(&app.test_key).await && usable(&app.live_key).await), "one key revoked");
    }
}

e2e! {
    async fn a_workspace_with_live_deliveries_opens_in_live_mode(app: TestApp) {
        // One owner of two workspaces: the harness's, which gets a live
        // delivery, and a new one with none.
        let quiet = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        let busy = app.workspace_id.clone();
        let now = app.clock.now_micros();
        let new = NewUser { email: "owner@example.com".into(), name: "Olga Owner".into(), password: PASSWORD.into(), operator: false };
        let owner_id = accounts::create_user(&app.core.writer, now, new).await.expect("user").id;
        for workspace in [&busy, &quiet] {
            memberships::add(&app.core.writer, now, workspace, &owner_id, Role::Owner).await.expect("membership");
        }
        let owner = sign_in(&app, "owner@example.com").await;
        let opens_in = async |workspace: &str| {
            let (status, page, _) = get(&owner, &app.url(&format!("/console/w/{workspace}/overview"))).await;
            assert_eq!(status, 200, "{page}");
            let mode = ["test", "live"].into_iter().find(|mode| page.contains(&format!("<h1>Overview <span class=\"muted\">({mode})</span></h1>"))).expect("a mode in the heading");
            // The menu carries the mode it opened in.
            assert!(page.contains(&format!("/console/w/{workspace}/deliveries?mode={mode}\"")), "{page}");
            mode
        };

        // Before any delivery both open in test, as a new workspace does.
        assert_eq!(opens_in(&busy).await, "test");
        let test_only = app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await;
        assert!(test_only["id"].is_string());
        assert_eq!(opens_in(&busy).await, "test", "test deliveries alone keep it in test");

        // With a live delivery it opens in live; the other stays in test.
        app.create_delivery(&app.live_key, &crate::deliveries::berlin_delivery()).await;
        assert_eq!(opens_in(&busy).await, "live");
        assert_eq!(opens_in(&quiet).await, "test");
        // A mode asked for is kept.
        let (_, page, _) = get(&owner, &app.url(&format!("/console/w/{busy}/overview?mode=test"))).await;
        assert!(page.contains("<h1>Overview <span class=\"muted\">(test)</span></h1>"), "{page}");

        // Every way into a workspace leads to its overview, which decides:
        // the list of workspaces and the switcher.
        let (_, home, _) = get(&owner, &app.url("/console")).await;
        for workspace in [&busy, &quiet] {
            let link = app.url(&format!("/console/w/{workspace}/overview"));
            assert!(home.contains(&format!("href=\"{link}\"")), "{home}");
        }
        let switched = owner.get(app.url(&format!("/console/switch?workspace={busy}"))).send().await.expect("switch");
        assert_eq!(switched.headers()["location"].to_str().expect("location"), app.url(&format!("/console/w/{busy}/overview")));
    }
}

e2e! {
    async fn notification_pages_are_read_by_members_and_changed_by_owners_with_refusals_at_their_field(app: TestApp) {
        user(&app, "owner@example.com", Role::Owner).await;
        user(&app, "member@example.com", Role::Member).await;
        let base = app.url(&format!("/console/w/{}/notifications", app.workspace_id));
        let text_url = format!("{base}/texts/en/courier_assigned?mode=test");

        // A member reads the settings, a text with its preview and the test
        // inbox, without a form to change them.
        let member = sign_in(&app, "member@example.com").await;
        let (status, page, _) = get(&member, &format!("{base}?mode=test")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(">Notifications</a>") && page.contains("SMS: not set up on this platform"), "{page}");
        assert!(page.contains("value=\"courier_assigned.recipient.sms\" aria-label=\"Courier assigned: SMS to the recipient\" checked disabled"), "the defaults, read only: {page}");
        assert!(!page.contains("id=\"settings-form\"") && !page.contains("Save settings"), "no form for a member");
        let (status, page, _) = get(&member, &text_url).await;
        assert_eq!(status, 200, "{page}");
        assert!(!page.contains("id=\"text-form\"") && page.contains("id=\"preview-sms\""), "{page}");
        assert!(page.contains("{tracking_url}") && page.contains("the delivery&#39;s tracking page"), "the placeholders, described: {page}");
        let (status, page, _) = get(&member, &format!("{base}/inbox?mode=test")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("No test messages yet."), "{page}");

        // A member's post, with their own CSRF token, is refused; nothing changes.
        let token = csrf(&get(&member, &app.url(&format!("/console/w/{}/members", app.workspace_id))).await.1);
        let (status, _, page) = post(&member, &format!("{base}?mode=test"), &[("csrf", token.as_str()), ("language", "de")]).await;
        assert_eq!(status, 403, "{page}");
        let (status, _, page) = post(&member, &text_url, &[("csrf", token.as_str()), ("action", "save"), ("sms", "Hi"), ("email_subject", "Hi"), ("email_body", "Hi")]).await;
        assert_eq!(status, 403, "{page}");
        assert!(get(&member, &format!("{base}?mode=test")).await.1.contains("<option value=\"en\" selected>"), "unchanged");

        // Another workspace's notifications are not found.
        let other = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        for url in [format!("/console/w/{other}/notifications"), format!("/console/w/{other}/notifications/inbox"), format!("/console/w/{other}/notifications/texts/en/arriving")] {
            assert_eq!(get(&member, &app.url(&url)).await.0, 404, "{url}");
        }
        assert_eq!(get(&member, &format!("{base}/texts/fr/arriving")).await.0, 404, "no such language");

        // The owner's refusals show at their field with what was typed kept.
        let owner = sign_in(&app, "owner@example.com").await;
        let (status, page, _) = get(&owner, &format!("{base}?mode=test")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("id=\"settings-form\""), "{page}");
        let token = csrf(&page);
        let settings = [("csrf", token.as_str()), ("rule", "delivered.sender.email"), ("language", "de"), ("quiet", "on"), ("quiet_start", "22:00"), ("quiet_end", "07:00"), ("email_from_name", "Bäckerei <Eck>"), ("reply_to", "hello@example.com")];
        let (status, _, page) = post(&owner, &format!("{base}?mode=test"), &settings).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"email_from_name-error\"") && page.contains("value=\"Bäckerei &#60;Eck&#62;\""), "{page}");
        assert!(page.contains("value=\"delivered.sender.email\" aria-label=\"Delivered: Email to the sender\" checked"), "kept: {page}");
        let settings = [("csrf", token.as_str()), ("rule", "delivered.sender.email"), ("language", "de"), ("quiet", "on"), ("quiet_start", "22:00"), ("quiet_end", "07:00"), ("email_from_name", "Bäckerei am Eck"), ("reply_to", "not an address")];
        let (status, _, page) = post(&owner, &format!("{base}?mode=test"), &settings).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"reply_to-error\"") && page.contains("value=\"not an address\""), "{page}");
        let mut settings = settings;
        settings[7] = ("reply_to", "hello@example.com");
        let (status, location, page) = post(&owner, &format!("{base}?mode=test"), &settings).await;
        assert_eq!((status, location.as_str()), (303, format!("{base}?mode=test").as_str()), "{page}");
        let page = get(&owner, &location).await.1;
        assert!(page.contains("Notification settings saved.") && page.contains("<option value=\"de\" selected>"), "{page}");
        assert!(page.contains("value=\"22:00\"") && page.contains("value=\"hello@example.com\""), "{page}");
        assert!(!page.contains("value=\"courier_assigned.recipient.sms\" aria-label=\"Courier assigned: SMS to the recipient\" checked"), "only the rule ticked: {page}");

        // A text: previewed unsaved with the sender name as the business,
        // an unknown placeholder refused in plain words, then saved.
        let text = [("csrf", token.as_str()), ("action", "preview"), ("sms", "{business_name}: {courier_first_name} is coming."), ("email_subject", "On its way"), ("email_body", "Hello {recipient_name},\r\n\r\nsee {tracking_url}")];
        let (status, _, page) = post(&owner, &text_url, &text).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Preview of your unsaved text") && page.contains("Bäckerei am Eck: Sam is coming."), "{page}");
        assert!(page.contains("Hello Jana Novak,\n\nsee https://"), "line breaks kept: {page}");
        let mut unknown = text;
        unknown[1] = ("action", "save");
        unknown[2] = ("sms", "Hi {nickname}!");
        let (status, _, page) = post(&owner, &text_url, &unknown).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"sms-error\">Unknown placeholder {nickname} in the SMS text; use {business_name}"), "{page}");
        assert!(page.contains(">Hi {nickname}!</textarea>"), "kept: {page}");
        assert!(!get(&owner, &text_url).await.1.contains("nickname"), "nothing saved");
        let mut saved = text;
        saved[1] = ("action", "save");
        let (status, location, page) = post(&owner, &text_url, &saved).await;
        assert_eq!((status, location.as_str()), (303, text_url.as_str()), "{page}");
        let page = get(&owner, &location).await.1;
        assert!(page.contains("are saved.") && page.contains("Your own text.") && page.contains(">{business_name}: {courier_first_name} is coming.</textarea>"), "{page}");
        let page = get(&owner, &format!("{base}?mode=test")).await.1;
        assert!(page.contains("courier_assigned?mode=test\">English</a> <span class=\"muted\">(your text)</span>"), "{page}");
        assert!(page.contains("value=\"hello@example.com\""), "the settings kept by a text's save: {page}");
    }
}
