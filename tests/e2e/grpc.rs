//! The core over gRPC: internal callers see the same machine codes as the
//! public API, and internal services need a service token of their role.

use courier::internal::v1 as admin_pb;
use courier::v1 as pb;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier_core::auth::service_token::{self, Role};

fn code_of(status: &tonic::Status) -> (&'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (code.as_str(), param)
}

e2e! {
    async fn admin_needs_an_admin_service_token(app: TestApp) {
        let mut admin = app.admin().await;
        let status = admin.list_workspaces(admin_pb::ListWorkspacesRequest {}).await.expect_err("no token");
        assert_eq!(status.code(), tonic::Code::Unauthenticated);
        assert_eq!(code_of(&status).0, "missing_api_key");
        assert_eq!(status.metadata().get("x-error-code").and_then(|v| v.to_str().ok()), Some("missing_api_key"));

        let now = app.clock.now().timestamp();
        let dispatch = service_token::mint(&app.core.secrets.service_token, Role::Dispatch, "dispatch", now, 60).expect("mint");
        let mut request = tonic::Request::new(admin_pb::ListWorkspacesRequest {});
        request.metadata_mut().insert("authorization", format!("Bearer {dispatch}").parse().expect("meta"));
        let status = admin.list_workspaces(request).await.expect_err("wrong role");
        assert_eq!((status.code(), code_of(&status).0), (tonic::Code::PermissionDenied, "permission_denied"));

        let forged = service_token::mint(b"not the secret", Role::Admin, "mallory", now, 60).expect("mint");
        let mut request = tonic::Request::new(admin_pb::ListWorkspacesRequest {});
        request.metadata_mut().insert("authorization", format!("Bearer {forged}").parse().expect("meta"));
        let status = admin.list_workspaces(request).await.expect_err("forged");
        assert_eq!(code_of(&status).0, "invalid_api_key");

        let workspaces = admin.list_workspaces(app.admin_request(admin_pb::ListWorkspacesRequest {})).await.expect("list").into_inner();
        assert!(workspaces.workspaces.iter().any(|w| w.id == app.workspace_id));
    }

    async fn admin_validates_its_input(app: TestApp) {
        let mut admin = app.admin().await;
        let request = app.admin_request(admin_pb::CreateWorkspaceRequest { name: "x".into(), kind: 0, plan: None, billing: None });
        let status = admin.create_workspace(request).await.expect_err("no kind");
        assert_eq!(code_of(&status), ("invalid_request", Some("kind".into())));
        let request = app.admin_request(admin_pb::GetWorkspaceRequest { workspace_id: "wks_nope".into() });
        let status = admin.get_workspace(request).await.expect_err("unknown");
        assert_eq!((status.code(), code_of(&status).0), (tonic::Code::NotFound, "not_found"));
        let request = app.admin_request(admin_pb::CreateApiKeyRequest {
            workspace_id: app.workspace_id.clone(), mode: 0, label: "x".into(), permissions: vec![], expiry: 1,
        });
        let status = admin.create_api_key(request).await.expect_err("no mode");
        assert_eq!(code_of(&status), ("invalid_request", Some("mode".into())));
    }

    async fn quotes_over_grpc_carry_public_codes(app: TestApp) {
        let mut client = QuoteServiceClient::connect(app.grpc_url.clone()).await.expect("connect");
        let waypoint = |lat: f64, lng: f64| pb::Waypoint { address: "Somewhere 1, Berlin".into(), latitude: lat, longitude: lng, contact: None, instructions: None };
        let message = pb::CreateQuoteRequest {
            pickup: Some(waypoint(52.5219, 13.4132)),
            dropoff: Some(waypoint(48.8566, 2.3522)),
            vehicle_type_id: "car".into(),
            ..Default::default()
        };
        let mut request = tonic::Request::new(message.clone());
        request.metadata_mut().insert("x-api-key", app.test_key.parse().expect("meta"));
        let status = client.create_quote(request).await.expect_err("outside");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(code_of(&status), ("service_area_unavailable", Some("dropoff".into())));

        let mut ok = message;
        ok.dropoff = Some(waypoint(52.5010, 13.4190));
        let mut request = tonic::Request::new(ok);
        request.metadata_mut().insert("authorization", format!("Bearer {}", app.live_key).parse().expect("meta"));
        let quote = client.create_quote(request).await.expect("quote").into_inner().quote.expect("quote");
        let b = quote.breakdown.expect("breakdown");
        let extras: i64 = b.extras.iter().map(|e| e.amount_cents).sum();
        assert_eq!(quote.amount_cents, b.route_cents + extras - b.discount_cents + b.service_fee_cents);
    }
}
