//! Key authentication (docs/guide.md "Authentication").

use std::time::Duration;

use courier::internal::v1 as admin_pb;
use courier::v1::Mode;
use courier_store::db::ServeLock;
use serde_json::json;

e2e! {
    async fn missing_key_is_401(app: TestApp) {
        let answer = app.send(app.http.get(app.url("/v1/vehicle-types"))).await;
        answer.assert_error(401, "missing_api_key", None);
        let answer = app.send(app.http.get(app.url("/v1/vehicle-types")).header("x-api-key", "")).await;
        answer.assert_error(401, "missing_api_key", None);
    }

    async fn unknown_or_malformed_keys_are_401(app: TestApp) {
        for key in ["mm_test_doesnotexist000000000000000000", "sk_live_abc", "mm_live_"] {
            app.get("/v1/vehicle-types", key).await.assert_error(401, "invalid_api_key", None);
        }
        let answer = app.send(app.http.get(app.url("/v1/vehicle-types")).header("authorization", "Basic abc")).await;
        answer.assert_error(401, "invalid_api_key", Some("Authorization"));
    }

    async fn bearer_works_and_x_api_key_wins(app: TestApp) {
        let bearer = |key: &str| format!("Bearer {key}");
        let answer = app.send(app.http.get(app.url("/v1/vehicle-types")).header("authorization", bearer(&app.test_key))).await;
        assert_eq!(answer.status, 200);
        let answer = app
            .send(app.http.get(app.url("/v1/vehicle-types")).header("x-api-key", &app.test_key).header("authorization", bearer("mm_test_wrong")))
            .await;
        assert_eq!(answer.status, 200);
        let answer = app
            .send(app.http.get(app.url("/v1/vehicle-types")).header("x-api-key", "mm_test_wrong").header("authorization", bearer(&app.test_key)))
            .await;
        answer.assert_error(401, "invalid_api_key", None);
    }

    async fn expired_key_is_refused_on_the_next_request(app: TestApp) {
        let (_, key) = app.create_key_with(&app.workspace_id, Mode::Test, &[], admin_pb::KeyExpiry::Days30).await;
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        app.clock.advance(Duration::from_secs(29 * 86_400));
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        app.clock.advance(Duration::from_secs(86_400 + 1));
        app.get("/v1/vehicle-types", &key).await.assert_error(401, "invalid_api_key", None);
    }

    async fn revoked_key_is_refused_on_the_next_request(app: TestApp) {
        let (id, key) = app.create_key_with(&app.workspace_id, Mode::Live, &[], admin_pb::KeyExpiry::Never).await;
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        let request = app.admin_request(admin_pb::RevokeApiKeyRequest { api_key_id: id });
        let revoked = app.admin().await.revoke_api_key(request).await.expect("revoke").into_inner();
        assert!(revoked.api_key.expect("key").revoked_at.is_some());
        app.get("/v1/vehicle-types", &key).await.assert_error(401, "invalid_api_key", None);
    }

    // `courier-core key revoke` runs as a second process on the database;
    // on SQLite it sends the revocation to the serving core, whose key
    // cache would otherwise go on accepting the key.
    async fn revoked_by_the_admin_command_is_refused_on_the_next_request(app: TestApp) {
        let (id, key) = app.create_key_with(&app.workspace_id, Mode::Live, &[], admin_pb::KeyExpiry::Never).await;
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        let command = courier_server::serving::open_core((*app.core.config).clone(), app.clock.clone()).await.expect("admin command starts");
        let revoked = courier_server::command_line::revoke_api_key(&command, &id).await.expect("revoked");
        assert_eq!(revoked, id);
        // SQLite: sent to the serving process, refused at once. PostgreSQL:
        // the serving replica hears of it by its cache feed, in
        // milliseconds, at most `cache_feed::MAX_AGE` later.
        if app.core.config.database_url.starts_with("postgres") {
            let limit = courier_store::cache_feed::MAX_AGE * 2;
            crate::harness::wait_until("the revocation to reach the serving replica", limit, async || {
                let answer = app.get("/v1/vehicle-types", &key).await;
                if answer.status == 401 { Ok(()) } else { Err(format!("{}", answer.status)) }
            })
            .await;
        }
        app.get("/v1/vehicle-types", &key).await.assert_error(401, "invalid_api_key", None);
        let unknown = courier_server::command_line::revoke_api_key(&command, "key_unknown").await.expect_err("no such key");
        assert_eq!(unknown.code().as_str(), "not_found");
    }

    // One process serves a SQLite database (its caches see every change);
    // PostgreSQL takes any number of replicas.
    async fn a_second_core_cannot_serve_the_same_sqlite_database(app: TestApp) {
        let url = &app.core.config.database_url;
        let claimed = ServeLock::claim(url, "127.0.0.1:1".parse().expect("addr"));
        if url.starts_with("sqlite:") {
            let refused = claimed.expect_err("already served");
            assert!(refused.to_string().contains("another courier-core process serves"), "{refused}");
            let serving = courier_store::db::serving_process(url).expect("readable").expect("served");
            assert_eq!(format!("http://{serving}"), app.grpc_url);
        } else {
            claimed.expect("replicas share PostgreSQL");
            assert!(courier_store::db::serving_process(url).expect("readable").is_none());
        }
    }

    async fn missing_permission_is_403(app: TestApp) {
        let key = app.create_key(&app.workspace_id, Mode::Test, &["deliveries:read"]).await;
        // The vehicle type list works with every valid key.
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        let answer = app.post("/v1/quotes", &key, &json!({})).await;
        answer.assert_error(403, "permission_denied", None);
    }

    async fn fleet_without_api_access_is_403(app: TestApp) {
        let plan = admin_pb::Plan { api_access: false, ..Default::default() };
        let fleet = app.create_workspace(admin_pb::WorkspaceKind::Fleet, plan).await;
        let key = app.create_key(&fleet, Mode::Live, &[]).await;
        app.get("/v1/vehicle-types", &key).await.assert_error(403, "api_access_disabled", None);

        let plan = admin_pb::Plan { api_access: true, ..Default::default() };
        let request = app.admin_request(admin_pb::UpdateWorkspacePlanRequest { workspace_id: fleet, plan: Some(plan) });
        app.admin().await.update_workspace_plan(request).await.expect("plan updated");
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
    }

    async fn fleet_permissions_only_for_fleet_keys(app: TestApp) {
        let request = app.admin_request(admin_pb::CreateApiKeyRequest {
            workspace_id: app.workspace_id.clone(),
            mode: Mode::Live as i32,
            label: "x".into(),
            permissions: vec!["fleet_orders:create".into()],
            expiry: admin_pb::KeyExpiry::Never as i32,
        });
        let status = app.admin().await.create_api_key(request).await.expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(courier::errors::from_status(&status).0.as_str(), "invalid_request");

        let fleet = app.create_workspace(admin_pb::WorkspaceKind::Fleet, admin_pb::Plan { api_access: true, ..Default::default() }).await;
        let request = app.admin_request(admin_pb::ListApiKeysRequest { workspace_id: fleet.clone() });
        assert!(app.admin().await.list_api_keys(request).await.expect("list").into_inner().api_keys.is_empty());
        app.create_key(&fleet, Mode::Live, &["fleet_orders:create", "fleet_orders:read"]).await;
        let request = app.admin_request(admin_pb::ListApiKeysRequest { workspace_id: fleet });
        let keys = app.admin().await.list_api_keys(request).await.expect("list").into_inner().api_keys;
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].permissions, vec!["fleet_orders:create", "fleet_orders:read"]);
        assert!(keys[0].prefix.starts_with("mm_live_"));
    }
}
