//! The core over gRPC: internal callers see the same machine codes as the
//! public API, and internal services need a service token of their role.

use courier::internal::v1 as admin_pb;
use courier::v1 as pb;
use courier::v1::quote_service_client::QuoteServiceClient;
use courier_identity::auth::service_token::{self, Role};

fn code_of(status: &tonic::Status) -> (&'static str, Option<String>) {
    let (code, param) = courier::errors::from_status(status);
    (code.as_str(), param)
}

e2e! {
    async fn admin_needs_an_admin_service_token(app: TestApp) {
        let mut admin = app.admin().await;
        let status = admin.list_workspaces(admin_pb::ListWorkspacesRequest {}).await.expect_err("no token");
        assert_eq!(status.code(), tonic::Code::Unauthenticated);
        assert_eq!(code_of(&status).0, "missing_service_token");
        assert_eq!(status.metadata().get("x-error-code").and_then(|v| v.to_str().ok()), Some("missing_service_token"));

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
        assert_eq!((status.code(), code_of(&status).0), (tonic::Code::Unauthenticated, "invalid_service_token"));

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

/// Every service the protos declare.
fn declared_services() -> Vec<String> {
    use prost::Message;
    let set = prost_types::FileDescriptorSet::decode(courier::FILE_DESCRIPTOR_SET).expect("descriptor set");
    set.file
        .iter()
        .flat_map(|file| {
            file.service
                .iter()
                .map(move |s| format!("{}.{}", file.package(), s.name()))
        })
        .collect()
}

e2e! {
    async fn every_declared_service_is_served_and_reported(app: TestApp) {
        use tonic_health::pb::health_client::HealthClient;
        use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
        let channel = tonic::transport::Channel::from_shared(app.grpc_url.clone()).expect("url").connect().await.expect("connect");
        let mut health = HealthClient::new(channel.clone());
        let services = declared_services();
        assert!(services.contains(&"courier.internal.v1.BillingService".to_owned()), "{services:?}");
        for service in services.iter().map(String::as_str).chain(["", "grpc.health.v1.Health"]) {
            let answer = health.check(HealthCheckRequest { service: service.into() }).await;
            let status = answer.unwrap_or_else(|e| panic!("{service:?}: {e:?}")).into_inner().status();
            assert_eq!(status, ServingStatus::Serving, "{service:?}");
        }

        // Reflection answers in v1 and in v1alpha, listing every service.
        use tonic_reflection::pb::{v1, v1alpha};
        let request = v1::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(String::new())),
        };
        let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
        let mut answers = client.server_reflection_info(tokio_stream::iter([request])).await.expect("v1").into_inner();
        let answer = answers.message().await.expect("v1 answer").expect("message");
        let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("v1: {answer:?}");
        };
        let listed: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
        assert!(services.iter().all(|s| listed.contains(s)), "v1 lists {listed:?}");

        let request = v1alpha::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(v1alpha::server_reflection_request::MessageRequest::ListServices(String::new())),
        };
        let mut client = v1alpha::server_reflection_client::ServerReflectionClient::new(channel);
        let mut answers = client.server_reflection_info(tokio_stream::iter([request])).await.expect("v1alpha").into_inner();
        let answer = answers.message().await.expect("v1alpha answer").expect("message");
        let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("v1alpha: {answer:?}");
        };
        let listed: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
        assert!(services.iter().all(|s| listed.contains(s)), "v1alpha lists {listed:?}");
    }

    async fn errors_decode_with_the_standard_rich_error_model(app: TestApp) {
        use courier::v1::delivery_service_client::DeliveryServiceClient;
        use tonic_types::StatusExt;
        let mut deliveries = DeliveryServiceClient::connect(app.grpc_url.clone()).await.expect("connect");
        let mut request = tonic::Request::new(pb::ListDeliveriesRequest { page_size: Some(101), ..Default::default() });
        request.metadata_mut().insert("x-api-key", app.test_key.parse().expect("meta"));
        let status = deliveries.list_deliveries(request).await.expect_err("page size");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(status.message(), "page_size must be a whole number from 1 to 100.");
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!((info.reason.as_str(), info.domain.as_str()), ("invalid_request", "courier"));
        assert_eq!(info.metadata.get("param").map(String::as_str), Some("page_size"));
        let violation = &details.bad_request().expect("BadRequest").field_violations[0];
        assert_eq!((violation.field.as_str(), violation.description.as_str()), ("page_size", "page_size must be a whole number from 1 to 100."));

        // A refusal of state carries its reason and no field violation.
        let mut request = tonic::Request::new(pb::GetDeliveryRequest { delivery_id: "del_missing".into() });
        request.metadata_mut().insert("x-api-key", app.test_key.parse().expect("meta"));
        let status = deliveries.get_delivery(request).await.expect_err("unknown");
        assert_eq!(status.get_details_error_info().map(|i| i.reason), Some("not_found".to_owned()));
        assert!(status.get_details_bad_request().is_none());

        // REST names its own parameter, `limit`.
        let answer = app.get("/v1/deliveries?limit=101", &app.test_key).await;
        answer.assert_error(400, "invalid_request", Some("limit"));
        assert_eq!(answer.body["error"]["message"], "limit must be a whole number from 1 to 100.");
    }
}
