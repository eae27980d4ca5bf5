//! The console's pages over HTTP, as a browser without JavaScript uses them:
//! sign in, create a key and use it on /v1, revoke it; CSRF, roles and
//! sessions enforced; every page under a strict Content-Security-Policy.

use courier_core::accounts::memberships::{self, Role};
use courier_core::accounts::{self, NewUser};

use crate::harness::TestApp;

const PASSWORD: &str = "correct horse battery";

/// A browser with its own cookie jar that follows no redirects.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .expect("browser")
}

async fn user(app: &TestApp, email: &str, role: Role) {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Page User".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    let user = accounts::create_user(&app.core.db, now, new).await.expect("user");
    memberships::add(&app.core.db, now, &app.workspace_id, &user.id, role)
        .await
        .expect("membership");
}

/// Posts a form (`application/x-www-form-urlencoded`); status, location and body.
async fn post(browser: &reqwest::Client, url: &str, form: &[(&str, &str)]) -> (u16, String, String) {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = browser
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("post");
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

async fn get(browser: &reqwest::Client, url: &str) -> (u16, String, reqwest::header::HeaderMap) {
    let response = browser.get(url).send().await.expect("get");
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    let page = response.text().await.expect("body");
    // The Content-Security-Policy allows no style attributes: a page with
    // one would look different from what was designed.
    assert!(!page.contains("style=\""), "a style attribute on {url}");
    (status, page, headers)
}

fn csrf(page: &str) -> String {
    let start = page.find("name=\"csrf\" value=\"").expect("csrf field") + 19;
    page[start..start + page[start..].find('"').expect("end")].to_owned()
}

async fn sign_in(app: &TestApp, email: &str) -> reqwest::Client {
    let browser = browser();
    let (status, location, _) = post(
        &browser,
        &app.url("/console/sign-in"),
        &[("email", email), ("password", PASSWORD)],
    )
    .await;
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
        let (status, page, headers) = get(&browser(), &app.url("/console/sign-in")).await;
        assert_eq!(status, 200);
        let policy = headers.get("content-security-policy").and_then(|v| v.to_str().ok()).expect("CSP");
        assert!(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "{policy}");
        for resource in ["src=\"", "href=\""] {
            for (at, _) in page.match_indices(resource) {
                let target = &page[at + resource.len()..];
                assert!(target.starts_with(&app.url("/console")) || target.starts_with('#'), "a resource elsewhere: {}", &target[..40.min(target.len())]);
            }
        }

        let wrong = post(&browser(), &app.url("/console/sign-in"), &[("email", "owner@example.com"), ("password", "nope")]).await;
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

        let (status, _, page) = post(&owner, &keys_url, &[("csrf", &token), ("label", "Backend <b>"), ("mode", "test"), ("expiry", "90")]).await;
        assert_eq!(status, 200, "{page}");
        let start = page.find("id=\"secret\">").expect("secret") + 12;
        let secret = page[start..start + page[start..].find('<').expect("end")].to_owned();
        assert!(secret.starts_with("mm_test_"), "{secret}");
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

        // Another workspace's page is not found.
        let other = app.create_workspace(courier::internal::v1::WorkspaceKind::Business, Default::default()).await;
        let (status, _, _) = get(&member, &app.url(&format!("/console/w/{other}/members"))).await;
        assert_eq!(status, 404);

        let (status, location, _) = post(&member, &app.url("/console/sign-out"), &[("csrf", &token)]).await;
        assert_eq!((status, location), (303, app.url("/console/sign-in")));
        let (status, _, _) = get(&member, &members_url).await;
        assert_eq!(status, 303, "signed out");
    }
}
