//! The courier app over plain HTTP: what every answer carries (a strict
//! Content-Security-Policy, nothing from another site), the manifest and its
//! icons, the service worker and the assets revalidated by one ETag, forms
//! from another site refused, and a change without the session's CSRF token
//! refused with nothing done.

use serde_json::{Value, json};

use crate::console_pages::{browser, post_from};
use crate::couriers::{PASSWORD, join};

e2e! {
    async fn the_app_serves_its_shell_under_a_strict_policy(app: TestApp) {
        let http = browser();
        let answer = http.get(app.url("/courier")).send().await.expect("answer");
        assert_eq!(answer.status().as_u16(), 308);
        assert_eq!(answer.headers()["location"], app.url("/courier/").as_str());
        let answer = http.get(app.url("/courier/")).header("accept", "text/html").send().await.expect("answer");
        assert_eq!(answer.status().as_u16(), 303, "sign in first");
        assert_eq!(answer.headers()["location"], app.url("/courier/sign-in").as_str());

        let answer = http.get(app.url("/courier/sign-in")).send().await.expect("answer");
        let policy = answer.headers()["content-security-policy"].to_str().expect("text").to_owned();
        assert!(policy.starts_with("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"), "{policy}");
        assert_eq!(answer.headers()["cache-control"], "no-store");
        let page = answer.text().await.expect("page");
        for source in page.split(['"', '\'']).filter(|part| part.starts_with("http")) {
            assert!(source.starts_with(&app.base_url), "every asset is the app's own: {source}");
        }

        // The manifest names icons that are there, within the app's scope.
        let manifest: Value = http.get(app.url("/courier/manifest.webmanifest")).send().await.expect("manifest").json().await.expect("JSON");
        assert_eq!((manifest["start_url"].as_str(), manifest["scope"].as_str(), manifest["display"].as_str()), (Some("./"), Some("./"), Some("standalone")));
        for icon in manifest["icons"].as_array().expect("icons") {
            let src = icon["src"].as_str().expect("src");
            let file = http.get(app.url(&format!("/courier/{src}"))).send().await.expect("icon");
            assert_eq!(file.status().as_u16(), 200, "{src}");
            assert_eq!(file.headers()["content-type"], icon["type"].as_str().expect("type"));
        }

        // The worker and the assets carry one version: unchanged, 304.
        let worker = http.get(app.url("/courier/sw.js")).send().await.expect("worker");
        let etag = worker.headers()["etag"].to_str().expect("etag").to_owned();
        let version = etag.trim_matches('"').to_owned();
        assert!(worker.text().await.expect("script").contains(&format!("const VERSION = \"{version}\"")));
        let again = http.get(app.url("/courier/assets/app.js")).header("if-none-match", &etag).send().await.expect("asset");
        assert_eq!(again.status().as_u16(), 304);
        let missing = http.get(app.url("/courier/assets/nothing.js")).send().await.expect("asset");
        assert_eq!(missing.status().as_u16(), 404);
    }

    async fn forms_from_another_site_and_changes_without_the_token_are_refused(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let http = browser();

        // A sign-in forged on another site: refused, no session made.
        let sign_in = [("login", "kim@example.com"), ("password", PASSWORD)];
        let (status, _, page) = post_from(&http, &app.url("/courier/sign-in"), &sign_in, &[("origin", "https://evil.example")]).await;
        assert_eq!(status, 403);
        assert!(page.contains("did not come from the app"), "{page}");
        let own = [("origin", app.base_url.as_str())];
        let (status, location, _) = post_from(&http, &app.url("/courier/sign-in"), &sign_in, &own).await;
        assert_eq!((status, location.as_str()), (303, app.url("/courier/").as_str()));

        // Going online without the session's CSRF token: refused, still offline.
        let (status, _, _) = post_from(&http, &app.url("/courier/availability"), &[("availability", "online"), ("csrf", "not-the-token")], &own).await;
        assert_eq!(status, 403);
        let positions = http.post(app.url("/courier/positions")).header("origin", &app.base_url)
            .json(&json!({ "positions": [{ "latitude": 52.52, "longitude": 13.40, "timestamp": 0 }] })).send().await.expect("answer");
        assert_eq!(positions.status().as_u16(), 403);
        let profile = kim.client.clone().get_profile(kim.request(courier::app::v1::GetProfileRequest {})).await.expect("profile").into_inner();
        let courier = profile.courier.expect("courier");
        assert_eq!(courier.availability(), courier::app::v1::Availability::Offline);
        assert!(courier.last_position.is_none(), "no position taken");

        // The outbox hears refusals in JSON: a move on a job that is not theirs.
        let page = http.get(app.url("/courier/")).send().await.expect("shift").text().await.expect("page");
        let csrf = page.split("data-csrf=\"").nth(1).and_then(|rest| rest.split('"').next()).expect("the page's token");
        let outbox = [("origin", app.base_url.as_str()), ("x-courier-outbox", "1")];
        let (status, _, body) = post_from(&http, &app.url("/courier/jobs/del_nothing/move"), &[("csrf", csrf), ("move", "arrive_at_pickup")], &outbox).await;
        assert_eq!(status, 404, "{body}");
        let body: Value = serde_json::from_str(&body).expect("JSON");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    }
}
