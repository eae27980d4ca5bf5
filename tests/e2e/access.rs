//! Who may do what (docs/access.md): every gRPC method called by every kind
//! of caller gets exactly the answer of the access table on that page; and
//! an audited change whose audit entry cannot be written is not made.

use std::collections::HashMap;

use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};
use courier_identity::auth::service_token::{self, Role as ServiceRole};
use prost::Message;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;

use crate::harness::{TestApp, unique_suffix};

const PASSWORD: &str = "correct horse battery";

/// Messages as bytes, so that one loop can call every method.
#[derive(Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;

    fn encoder(&mut self) -> Raw {
        Raw
    }

    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        let mut bytes = vec![0; prost::bytes::Buf::remaining(src)];
        prost::bytes::Buf::copy_to_slice(src, &mut bytes);
        Ok(Some(bytes))
    }
}

/// The columns of the table, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Column {
    Nobody,
    Key,
    Member,
    Admin,
    Owner,
    Operator,
    Outsider,
    AdminService,
    DispatchService,
    BillingService,
    CommandLine,
    Courier,
}

const COLUMNS: [Column; 12] = [
    Column::Nobody,
    Column::Key,
    Column::Member,
    Column::Admin,
    Column::Owner,
    Column::Operator,
    Column::Outsider,
    Column::AdminService,
    Column::DispatchService,
    Column::BillingService,
    Column::CommandLine,
    Column::Courier,
];

/// A console session: its token and CSRF token.
#[derive(Clone)]
struct Session {
    token: String,
    csrf: String,
}

/// What a caller sends.
#[derive(Clone)]
enum Credential {
    Nothing,
    Key(String),
    /// A console session, acting in the world's workspace in live mode on
    /// the public services.
    Session(Session),
    Bearer(String),
}

/// Everything the calls refer to: a fleet workspace with API access, order
/// intake and proof of delivery, a caller of each kind, and one of each
/// resource, so that an allowed caller never meets `not_found`.
struct World {
    workspace: String,
    /// A live key with every permission.
    key: String,
    /// Per permission: a live key with only it, and one with all but it.
    with: HashMap<String, String>,
    without: HashMap<String, String>,
    users: HashMap<Column, String>,
    sessions: HashMap<Column, Session>,
    bearers: HashMap<Column, String>,
    /// A delivered live delivery with proof, on a statement.
    delivery: String,
    tracking_token: String,
    proof_file: pb::GetProofFileRequest,
    /// The link to the managed courier's photo.
    courier_photo: pb::GetCourierPhotoRequest,
    event: String,
    webhook: String,
    fleet_order: String,
    board_order: String,
    statement: String,
    invitation: String,
    /// A member whose role the calls set to what it is.
    bystander: String,
    /// A key the calls revoke (again and again).
    revoked_key: String,
    /// A driver of the workspace, signed in to the courier app (the
    /// courier column's caller), and their login.
    courier_token: String,
    courier_login: String,
    /// Another driver the management calls change, and an open invitation
    /// link's token of theirs.
    managed_courier: String,
    courier_invitation: String,
    /// A closed statement of the managed driver.
    courier_statement: String,
    /// A plan of the fleet's day (no drivers on shift: empty).
    plan: String,
}

/// The day the world's plans and shifts are of.
const PLAN_DAY: &str = "2026-12-01";

/// The password of the world's courier.
const COURIER_PASSWORD: &str = "tram stop at dawn";

async fn channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("url")
        .connect()
        .await
        .expect("channel")
}

/// A user with `role` in `workspace` (none: `None`), `operator` or not.
async fn user(app: &TestApp, email: &str, joins: Option<(&str, Role)>, operator: bool) -> String {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Access User".into(),
        password: PASSWORD.into(),
        operator,
    };
    let user = accounts::create_user(&app.core.writer, now, new).await.expect("user");
    if let Some((workspace, role)) = joins {
        memberships::add(&app.core.writer, now, workspace, &user.id, role)
            .await
            .expect("membership");
    }
    user.id
}

async fn sign_in(app: &TestApp, email: &str) -> Session {
    let client = &mut ipb::console_service_client::ConsoleServiceClient::new(channel(app).await);
    let request = ipb::SignInRequest {
        email: email.into(),
        password: PASSWORD.into(),
        client_address: "access-test".into(),
    };
    let answer = client.sign_in(request).await.expect("sign in").into_inner();
    Session {
        token: answer.session_token,
        csrf: answer.session.expect("session").csrf_token,
    }
}

fn with_metadata<T>(message: T, pairs: &[(&'static str, &str)]) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    for (name, value) in pairs {
        request.metadata_mut().insert(*name, value.parse().expect("metadata"));
    }
    request
}

impl World {
    /// A statement of courier `courier_id`, closed over one line.
    async fn statement_of(app: &TestApp, courier_id: &str) -> String {
        use courier_orders::pay::{earnings, statements};
        let line = earnings::NewLine {
            courier_id,
            kind: earnings::Kind::Adjustment,
            job_id: None,
            assignment_id: None,
            currency: "EUR",
            amount_cents: 100,
            reason: Some("Access"),
            created_by: None,
        };
        earnings::record(&app.core.writer, &[line], app.clock.now_micros())
            .await
            .expect("a line");
        let closed = statements::close(&app.core, (0, i64::MAX), statements::Closer::Worker)
            .await
            .expect("closed");
        closed.into_iter().next().expect("a statement").id
    }

    async fn build(app: &TestApp) -> World {
        let plan = ipb::Plan {
            api_access: true,
            fleet_order_intake: true,
            proof_of_delivery: true,
            discount_bps: 0,
            auto_dispatch: false,
        };
        let workspace = app.create_workspace(ipb::WorkspaceKind::Fleet, plan).await;
        let live = pb::Mode::Live;
        let key = app.create_key(&workspace, live, &[]).await;
        let (mut with, mut without) = (HashMap::new(), HashMap::new());
        for permission in courier_identity::access::Permission::ALL.map(|p| p.as_str()) {
            with.insert(
                permission.to_owned(),
                app.create_key(&workspace, live, &[permission]).await,
            );
            let others: Vec<&str> = courier_identity::access::Permission::ALL
                .map(|p| p.as_str())
                .into_iter()
                .filter(|p| *p != permission)
                .collect();
            without.insert(permission.to_owned(), app.create_key(&workspace, live, &others).await);
        }

        let mut users = HashMap::new();
        for (column, role) in [
            (Column::Member, Role::Member),
            (Column::Admin, Role::Admin),
            (Column::Owner, Role::Owner),
        ] {
            let email = format!("{column:?}@example.com").to_lowercase();
            user(app, &email, Some((&workspace, role)), false).await;
            users.insert(column, email);
        }
        user(app, "operator@example.com", None, true).await;
        users.insert(Column::Operator, "operator@example.com".into());
        // Of another workspace only.
        user(
            app,
            "outsider@example.com",
            Some((&app.workspace_id, Role::Owner)),
            false,
        )
        .await;
        users.insert(Column::Outsider, "outsider@example.com".into());
        user(app, "signer@example.com", None, false).await;
        let mut sessions = HashMap::new();
        for (column, email) in &users {
            sessions.insert(*column, sign_in(app, email).await);
        }

        let now = app.clock.now().timestamp();
        let key_of = &app.core.secrets.service_token;
        let mut bearers = HashMap::new();
        for (column, role) in [
            (Column::AdminService, ServiceRole::Admin),
            (Column::DispatchService, ServiceRole::Dispatch),
            (Column::BillingService, ServiceRole::Billing),
        ] {
            bearers.insert(
                column,
                service_token::mint(key_of, role, "access-test", now, 3600).expect("token"),
            );
        }
        let cli = service_token::mint_command_line(key_of, "olga", now, 3600).expect("token");
        bearers.insert(Column::CommandLine, cli);

        // A live delivery, delivered with proof and billed on a statement.
        let delivery = app.create_delivery(&key, &crate::deliveries::berlin_delivery()).await;
        let id = delivery["id"].as_str().expect("id").to_owned();
        let tracking_token = delivery["tracking_url"]
            .as_str()
            .and_then(|url| url.rsplit('/').next())
            .expect("tracking token")
            .to_owned();
        crate::billing::deliver(app, &id).await;
        let pod = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &key).await;
        let link = pod.body["checkpoints"][0]["artifacts"][0]["download_url"]
            .as_str()
            .expect("download url");
        let link = url::Url::parse(link).expect("link");
        let param = |name: &str| {
            link.query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
                .expect("link parameter")
        };
        let proof_file = pb::GetProofFileRequest {
            artifact_id: link.path().rsplit('/').next().expect("artifact").to_owned(),
            expires: param("expires").parse().expect("expires"),
            signature: param("signature"),
        };
        let events = pb::event_service_client::EventServiceClient::new(channel(app).await)
            .list_events(with_metadata(
                pb::ListEventsRequest {
                    delivery_id: Some(id.clone()),
                    ..Default::default()
                },
                &[("x-api-key", &key)],
            ))
            .await
            .expect("events")
            .into_inner()
            .events;
        let event = events.first().expect("an event").id.clone();
        let closed = app
            .billing()
            .await
            .close_statement(app.billing_request(ipb::CloseStatementRequest {
                workspace_id: workspace.clone(),
            }))
            .await
            .expect("statement")
            .into_inner();
        let statement = closed.statements.first().expect("statement").id.clone();

        let webhook = World::webhook_of(app, &key).await;
        let order = app
            .post_idempotent(
                "/v1/fleet/orders",
                &key,
                &unique_suffix(),
                &crate::fleet::minimal_order(),
            )
            .await;
        assert_eq!(order.status, 201, "{:#}", order.body);
        let fleet_order = order.body["id"].as_str().expect("id").to_owned();
        let board_order = order.body["order_id"].as_str().expect("order id").to_owned();
        let owner = sessions[&Column::Owner].clone();
        let invitation = World::invitation_by(app, &owner, &workspace).await;
        let bystander = user(app, "bystander@example.com", Some((&workspace, Role::Member)), false).await;
        let revoked = app
            .create_key_with(&workspace, pb::Mode::Test, &[], ipb::KeyExpiry::Never)
            .await
            .0;
        let courier_login = "driver@example.com".to_owned();
        let (courier_token, _) = World::driver(app, &workspace, &courier_login, true).await;
        let (managed_courier, courier_invitation) = World::driver(app, &workspace, "managed@example.com", false).await;
        let courier_photo = World::photo_of(app, &managed_courier).await;
        let courier_statement = World::statement_of(app, &managed_courier).await;
        let plan = app
            .dispatch()
            .await
            .plan_routes(app.dispatch_request(ipb::PlanRoutesRequest {
                workspace_id: workspace.clone(),
                day: PLAN_DAY.into(),
                courier_ids: Vec::new(),
                budget_seconds: 1,
                area_id: String::new(),
                pins: Vec::new(),
            }))
            .await
            .expect("plan")
            .into_inner()
            .plan
            .expect("plan")
            .plan_id;
        World {
            plan,
            courier_token,
            courier_login,
            managed_courier,
            courier_invitation,
            courier_statement,
            workspace,
            key,
            with,
            without,
            users,
            sessions,
            bearers,
            delivery: id,
            tracking_token,
            proof_file,
            courier_photo,
            event,
            webhook,
            fleet_order,
            board_order,
            statement,
            invitation,
            bystander,
            revoked_key: revoked,
        }
    }

    /// A driver of `workspace` with the login `email`: joined (their session
    /// token) or only invited (their id and the link's token).
    async fn driver(app: &TestApp, workspace: &str, email: &str, joins: bool) -> (String, String) {
        let invited = courier::internal::v1::courier_service_client::CourierServiceClient::new(channel(app).await)
            .invite_courier(app.admin_request(ipb::InviteCourierRequest {
                workspace_id: workspace.to_owned(),
                name: "Dara Driver".into(),
                phone: None,
                email: Some(email.to_owned()),
                vehicle: Some(ipb::CourierVehicleInput {
                    vehicle_type_id: "cargo_bike".into(),
                    ..Default::default()
                }),
            }))
            .await
            .expect("invite")
            .into_inner();
        let token = invited.invitation_url.rsplit('/').next().expect("token").to_owned();
        if !joins {
            return (invited.courier.expect("courier").id, token);
        }
        let joined = courier::app::v1::courier_app_service_client::CourierAppServiceClient::new(channel(app).await)
            .accept_invitation(courier::app::v1::AcceptInvitationRequest {
                token,
                password: COURIER_PASSWORD.into(),
            })
            .await
            .expect("join")
            .into_inner();
        (joined.session_token, String::new())
    }

    /// Gives courier `courier_id` a photo; the link a delivery would show.
    /// A new shift of `courier_id` on [`PLAN_DAY`] (what a deletion takes).
    async fn shift_of(app: &TestApp, courier_id: &str) -> String {
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T08:00:00Z").expect("time");
        courier::internal::v1::courier_service_client::CourierServiceClient::new(channel(app).await)
            .set_shift(app.admin_request(ipb::SetShiftRequest {
                courier_id: courier_id.to_owned(),
                day: PLAN_DAY.into(),
                start_time: Some(courier::time::to_proto(start.to_utc())),
                end_time: Some(courier::time::to_proto((start + chrono::Duration::hours(8)).to_utc())),
                start_place: Some(ipb::ShiftPlace {
                    address: "Depot".into(),
                    latitude: 52.52,
                    longitude: 13.40,
                }),
                end_place: None,
                rest_minutes: None,
            }))
            .await
            .expect("shift")
            .into_inner()
            .shift
            .expect("shift")
            .shift_id
    }

    async fn photo_of(app: &TestApp, courier_id: &str) -> pb::GetCourierPhotoRequest {
        courier::internal::v1::courier_service_client::CourierServiceClient::new(channel(app).await)
            .update_courier(app.admin_request(ipb::UpdateCourierRequest {
                courier_id: courier_id.to_owned(),
                photo: Some(b"\x89PNG\r\n\x1a\n".to_vec()),
                photo_content_type: Some("image/png".into()),
                ..Default::default()
            }))
            .await
            .expect("photo");
        let courier = courier_core::couriers::get(&app.core.db, courier_id)
            .await
            .expect("courier");
        let link = courier_core::couriers::photo_url(&app.core, &courier).expect("photo url");
        let link = url::Url::parse(&link).expect("link");
        pb::GetCourierPhotoRequest {
            courier_id: courier_id.to_owned(),
            signature: link
                .query_pairs()
                .find(|(key, _)| key == "signature")
                .map(|(_, value)| value.into_owned())
                .expect("signature"),
        }
    }

    /// A new session of the world's courier.
    async fn courier_session(&self, app: &TestApp) -> String {
        courier::app::v1::courier_app_service_client::CourierAppServiceClient::new(channel(app).await)
            .sign_in(courier::app::v1::SignInRequest {
                login: self.courier_login.clone(),
                password: COURIER_PASSWORD.into(),
                client_address: String::new(),
            })
            .await
            .expect("courier sign-in")
            .into_inner()
            .session_token
    }

    /// A new webhook endpoint of the key's workspace (live).
    async fn webhook_of(app: &TestApp, key: &str) -> String {
        let request = pb::CreateWebhookEndpointRequest {
            url: "http://127.0.0.1:9/hook".into(),
            events: vec![pb::EventType::DeliveryCreated as i32],
            description: None,
        };
        pb::webhook_service_client::WebhookServiceClient::new(channel(app).await)
            .create_webhook_endpoint(with_metadata(request, &[("x-api-key", key)]))
            .await
            .expect("webhook endpoint")
            .into_inner()
            .endpoint
            .expect("endpoint")
            .id
    }

    /// A new invitation link's token, made by `owner`.
    async fn invitation_by(app: &TestApp, owner: &Session, workspace: &str) -> String {
        let request = ipb::CreateInvitationRequest {
            workspace_id: workspace.into(),
            role: ipb::MemberRole::Member as i32,
        };
        let pairs = [
            ("x-console-session", owner.token.as_str()),
            ("x-csrf-token", owner.csrf.as_str()),
        ];
        ipb::console_service_client::ConsoleServiceClient::new(channel(app).await)
            .create_invitation(with_metadata(request, &pairs))
            .await
            .expect("invitation")
            .into_inner()
            .token
    }

    /// The request body of `path` for one call: one of each resource, or,
    /// for the calls that use one up (deleting an endpoint, joining by an
    /// invitation, removing a member), a new one.
    /// A valid unsubscribe link's token of the world's workspace.
    fn unsubscribe_token(&self, app: &TestApp) -> String {
        courier_orders::notifications::opt_outs::unsubscribe_token(
            &app.core.secrets.unsubscribe_link,
            &self.workspace,
            "someone@example.com",
        )
    }

    async fn body(&self, app: &TestApp, path: &str) -> Vec<u8> {
        let w = || self.workspace.clone();
        let d = || self.delivery.clone();
        let method = path.rsplit('/').next().expect("method");
        let service = path.trim_start_matches('/').split('/').next().expect("service");
        match (service.rsplit('.').next().expect("service name"), method) {
            ("VehicleTypeService", _) => pb::ListVehicleTypesRequest {}.encode_to_vec(),
            ("QuoteService", _) => pb::CreateQuoteRequest::default().encode_to_vec(),
            ("DeliveryService", "CreateDelivery") => pb::CreateDeliveryRequest::default().encode_to_vec(),
            ("DeliveryService", "BatchCreateDeliveries") => pb::BatchCreateDeliveriesRequest::default().encode_to_vec(),
            ("DeliveryService", "GetDelivery") => pb::GetDeliveryRequest { delivery_id: d() }.encode_to_vec(),
            ("DeliveryService", "ListDeliveries") => pb::ListDeliveriesRequest::default().encode_to_vec(),
            ("DeliveryService", "CancelDelivery") => pb::CancelDeliveryRequest {
                delivery_id: d(),
                reason: 0,
            }
            .encode_to_vec(),
            ("DeliveryService", "UpdateDelivery") => pb::UpdateDeliveryRequest {
                delivery_id: d(),
                notes: Some("Access check.".into()),
                ..Default::default()
            }
            .encode_to_vec(),
            ("DeliveryService", "RedeliverDelivery") => pb::RedeliverDeliveryRequest {
                delivery_id: d(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("TrackingService", "GetDeliveryTracking") => {
                pb::GetDeliveryTrackingRequest { delivery_id: d() }.encode_to_vec()
            }
            ("TrackingService", "GetProofOfDelivery") => {
                pb::GetProofOfDeliveryRequest { delivery_id: d() }.encode_to_vec()
            }
            ("TrackingService", "WatchDelivery") => pb::WatchDeliveryRequest { delivery_id: d() }.encode_to_vec(),
            ("EventService", "ListEvents") => pb::ListEventsRequest::default().encode_to_vec(),
            ("EventService", "StreamEvents") => pb::StreamEventsRequest::default().encode_to_vec(),
            ("EventService", "GetEvent") => pb::GetEventRequest {
                event_id: self.event.clone(),
            }
            .encode_to_vec(),
            ("WebhookService", "CreateWebhookEndpoint") => pb::CreateWebhookEndpointRequest::default().encode_to_vec(),
            ("WebhookService", "ListWebhookEndpoints") => pb::ListWebhookEndpointsRequest {}.encode_to_vec(),
            ("WebhookService", "UpdateWebhookEndpoint") => pb::UpdateWebhookEndpointRequest {
                webhook_id: self.webhook.clone(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("WebhookService", "DeleteWebhookEndpoint") => pb::DeleteWebhookEndpointRequest {
                webhook_id: World::webhook_of(app, &self.key).await,
            }
            .encode_to_vec(),
            ("WebhookService", "TestWebhookEndpoint") => pb::TestWebhookEndpointRequest {
                webhook_id: self.webhook.clone(),
            }
            .encode_to_vec(),
            ("WebhookService", "ReplayWebhookEndpoint") => pb::ReplayWebhookEndpointRequest {
                webhook_id: self.webhook.clone(),
            }
            .encode_to_vec(),
            ("WebhookService", "ListWebhookEndpointAttempts") => pb::ListWebhookEndpointAttemptsRequest {
                webhook_id: self.webhook.clone(),
                page_size: None,
            }
            .encode_to_vec(),
            ("FleetOrderService", "CreateFleetOrder") => pb::CreateFleetOrderRequest::default().encode_to_vec(),
            ("FleetOrderService", "UpdateFleetOrder") => pb::UpdateFleetOrderRequest {
                fleet_order_id: self.fleet_order.clone(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("FleetOrderService", "GetFleetOrder") => pb::GetFleetOrderRequest {
                fleet_order_id: self.fleet_order.clone(),
            }
            .encode_to_vec(),
            ("PublicService", "GetProofFile") => self.proof_file.encode_to_vec(),
            ("PublicService", "GetCourierPhoto") => self.courier_photo.encode_to_vec(),
            ("PublicService", "GetPublicTracking") => pb::GetPublicTrackingRequest {
                token: self.tracking_token.clone(),
            }
            .encode_to_vec(),
            // Of no kind: refused as a request (the signature is checked
            // after), by everyone alike.
            ("PublicService", "ReceiveSmsCallback") => pb::ReceiveSmsCallbackRequest::default().encode_to_vec(),
            ("PublicService", "GetUnsubscribeLink") => pb::GetUnsubscribeLinkRequest {
                token: self.unsubscribe_token(app),
            }
            .encode_to_vec(),
            ("PublicService", "Unsubscribe") => pb::UnsubscribeRequest {
                token: self.unsubscribe_token(app),
            }
            .encode_to_vec(),
            ("NotificationService", "ListDeliveryNotifications") => {
                pb::ListDeliveryNotificationsRequest { delivery_id: d() }.encode_to_vec()
            }
            ("NotificationSettingsService", "GetNotificationSettings") => {
                ipb::GetNotificationSettingsRequest { workspace_id: w() }.encode_to_vec()
            }
            ("NotificationSettingsService", "UpdateNotificationSettings") => ipb::UpdateNotificationSettingsRequest {
                settings: Some(ipb::NotificationSettings {
                    workspace_id: w(),
                    language: "en".into(),
                    ..Default::default()
                }),
            }
            .encode_to_vec(),
            ("NotificationSettingsService", "PreviewNotification") => ipb::PreviewNotificationRequest {
                workspace_id: w(),
                trigger: pb::NotificationTrigger::Arriving as i32,
                language: "en".into(),
                text: None,
            }
            .encode_to_vec(),
            ("NotificationSettingsService", "ListTestMessages") => ipb::ListTestMessagesRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("ReportService", "GetDeliveryReport") => ipb::GetDeliveryReportRequest {
                workspace_id: w(),
                mode: "test".into(),
                first_day: "2026-12-01".into(),
                last_day: "2026-12-07".into(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("ReportService", "GetCourierReport") => ipb::GetCourierReportRequest {
                workspace_id: w(),
                first_day: "2026-12-01".into(),
                last_day: "2026-12-07".into(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("AdminService", "CreateWorkspace") => ipb::CreateWorkspaceRequest::default().encode_to_vec(),
            ("AdminService", "GetWorkspace") => ipb::GetWorkspaceRequest { workspace_id: w() }.encode_to_vec(),
            ("AdminService", "ListWorkspaces") => ipb::ListWorkspacesRequest {}.encode_to_vec(),
            ("AdminService", "UpdateWorkspacePlan") => ipb::UpdateWorkspacePlanRequest {
                workspace_id: w(),
                plan: Some(ipb::Plan {
                    api_access: true,
                    fleet_order_intake: true,
                    proof_of_delivery: true,
                    discount_bps: 0,
                    auto_dispatch: false,
                }),
            }
            .encode_to_vec(),
            ("AdminService", "CreateApiKey") => ipb::CreateApiKeyRequest::default().encode_to_vec(),
            ("AdminService", "ListApiKeys") => ipb::ListApiKeysRequest { workspace_id: w() }.encode_to_vec(),
            ("AdminService", "RevokeApiKey") => ipb::RevokeApiKeyRequest {
                api_key_id: self.revoked_key.clone(),
            }
            .encode_to_vec(),
            ("AdminService", "ListAuditEntries") => ipb::ListAuditEntriesRequest::default().encode_to_vec(),
            ("BillingService", "GetBillingState") => ipb::GetBillingStateRequest { workspace_id: w() }.encode_to_vec(),
            ("BillingService", "UpdateBillingState") => ipb::UpdateBillingStateRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("BillingService", "ListBillableDeliveries") => ipb::ListBillableDeliveriesRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("BillingService", "CloseStatement") => ipb::CloseStatementRequest { workspace_id: w() }.encode_to_vec(),
            ("BillingService", "ListStatements") => ipb::ListStatementsRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("BillingService", "GetStatement") => ipb::GetStatementRequest {
                statement_id: self.statement.clone(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("BillingService", "MarkStatementPaid") => ipb::MarkStatementPaidRequest {
                statement_id: self.statement.clone(),
            }
            .encode_to_vec(),
            ("BillingService", "VoidStatement") => ipb::VoidStatementRequest {
                statement_id: self.statement.clone(),
            }
            .encode_to_vec(),
            ("ConsoleService", "SignIn") => ipb::SignInRequest {
                email: "signer@example.com".into(),
                password: PASSWORD.into(),
                client_address: "access-test".into(),
            }
            .encode_to_vec(),
            ("ConsoleService", "GetSession") => ipb::GetSessionRequest::default().encode_to_vec(),
            ("ConsoleService", "ListServiceAreas") => ipb::ListServiceAreasRequest {}.encode_to_vec(),
            ("ConsoleService", "SignOut") => ipb::SignOutRequest {}.encode_to_vec(),
            // The current password is wrong: the refusal comes after the
            // access check, and no session ends.
            ("ConsoleService", "ChangePassword") => ipb::ChangePasswordRequest {
                current_password: "not the password".into(),
                new_password: "another good password".into(),
            }
            .encode_to_vec(),
            ("ConsoleService", "CreateInvitation") => ipb::CreateInvitationRequest {
                workspace_id: w(),
                role: ipb::MemberRole::Member as i32,
            }
            .encode_to_vec(),
            ("ConsoleService", "GetInvitation") => ipb::GetInvitationRequest {
                token: self.invitation.clone(),
            }
            .encode_to_vec(),
            ("ConsoleService", "AcceptInvitation") => ipb::AcceptInvitationRequest {
                token: World::invitation_by(app, &self.sessions[&Column::Owner], &self.workspace).await,
                joiner: Some(ipb::accept_invitation_request::Joiner::NewAccount(ipb::NewAccount {
                    email: format!("joiner-{}@example.com", unique_suffix()),
                    name: "Joiner".into(),
                    password: PASSWORD.into(),
                })),
                client_address: "access-test".into(),
            }
            .encode_to_vec(),
            ("ConsoleService", "ListMembers") => ipb::ListMembersRequest { workspace_id: w() }.encode_to_vec(),
            ("ConsoleService", "UpdateMemberRole") => ipb::UpdateMemberRoleRequest {
                workspace_id: w(),
                user_id: self.bystander.clone(),
                role: ipb::MemberRole::Member as i32,
            }
            .encode_to_vec(),
            ("ConsoleService", "RemoveMember") => ipb::RemoveMemberRequest {
                workspace_id: w(),
                user_id: user(
                    app,
                    &format!("leaver-{}@example.com", unique_suffix()),
                    Some((&self.workspace, Role::Member)),
                    false,
                )
                .await,
            }
            .encode_to_vec(),
            ("ConsoleService", "ListWorkspaceApiKeys") => {
                ipb::ListWorkspaceApiKeysRequest { workspace_id: w() }.encode_to_vec()
            }
            ("ConsoleService", "CreateWorkspaceApiKey") => ipb::CreateWorkspaceApiKeyRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("ConsoleService", "RevokeWorkspaceApiKey") => ipb::RevokeWorkspaceApiKeyRequest {
                workspace_id: w(),
                api_key_id: self.revoked_key.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "ListOpenJobs") => ipb::ListOpenJobsRequest::default().encode_to_vec(),
            ("DispatchService", "ListBoardOrders") => ipb::ListBoardOrdersRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("DispatchService", "GetBoardOrder") => ipb::GetBoardOrderRequest {
                order_id: self.board_order.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "MoveBoardOrder") => ipb::MoveBoardOrderRequest {
                order_id: self.board_order.clone(),
                status: 0,
            }
            .encode_to_vec(),
            // The delivered delivery: a courier's move on it is a conflict,
            // after the access check.
            ("DispatchService", "StreamCourierLocations") => Vec::new(),
            ("DispatchService", "AssignJob") => ipb::AssignJobRequest {
                job_id: self.board_order.clone(),
                courier_id: self.managed_courier.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "WatchDispatchMap") => {
                ipb::WatchDispatchMapRequest { workspace_id: w() }.encode_to_vec()
            }
            ("DispatchService", "RankCouriers") => ipb::RankCouriersRequest {
                job_id: self.board_order.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "UnassignJob") => ipb::UnassignJobRequest {
                job_id: self.board_order.clone(),
            }
            .encode_to_vec(),
            // A board order has no PIN: refused after the access check.
            ("DispatchService", "ResetDropoffPin") => ipb::ResetDropoffPinRequest {
                delivery_id: self.board_order.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "GetFleetSettings") => {
                ipb::GetFleetSettingsRequest { workspace_id: w() }.encode_to_vec()
            }
            ("DispatchService", "UpdateFleetSettings") => ipb::UpdateFleetSettingsRequest {
                settings: Some(ipb::FleetSettings {
                    workspace_id: w(),
                    auto_dispatch: false,
                }),
            }
            .encode_to_vec(),
            ("CourierService", "InviteCourier") => ipb::InviteCourierRequest {
                workspace_id: w(),
                name: "New Driver".into(),
                phone: None,
                email: Some(format!("new-{}@example.com", unique_suffix())),
                vehicle: Some(ipb::CourierVehicleInput {
                    vehicle_type_id: "car".into(),
                    ..Default::default()
                }),
            }
            .encode_to_vec(),
            ("CourierService", "ListCouriers") => ipb::ListCouriersRequest {
                workspace_id: w(),
                ..Default::default()
            }
            .encode_to_vec(),
            ("CourierService", "UpdateCourier") => ipb::UpdateCourierRequest {
                courier_id: self.managed_courier.clone(),
                name: Some("Dara D.".into()),
                ..Default::default()
            }
            .encode_to_vec(),
            ("CourierService", "ListShifts") => ipb::ListShiftsRequest {
                workspace_id: w(),
                day: PLAN_DAY.into(),
            }
            .encode_to_vec(),
            ("CourierService", "DeleteShift") => ipb::DeleteShiftRequest {
                shift_id: World::shift_of(app, &self.managed_courier).await,
            }
            .encode_to_vec(),
            ("CourierService", "SetPayRule") => ipb::SetPayRuleRequest {
                vehicle_type_id: String::new(),
                fleet_id: w(),
                parts: Some(ipb::PayRuleParts {
                    base_cents: 300,
                    ..Default::default()
                }),
            }
            .encode_to_vec(),
            ("CourierService", "ListPayRules") => ipb::ListPayRulesRequest { fleet_id: w() }.encode_to_vec(),
            ("CourierService", "GetCourierStatement") => ipb::GetCourierStatementRequest {
                statement_id: self.courier_statement.clone(),
            }
            .encode_to_vec(),
            // A week not over yet: refused after the access check.
            ("CourierService", "CloseCourierStatements") => {
                ipb::CloseCourierStatementsRequest { day: PLAN_DAY.into() }.encode_to_vec()
            }
            ("CourierService", "AdjustEarnings") => ipb::AdjustEarningsRequest {
                courier_id: self.managed_courier.clone(),
                amount_cents: 100,
                reason: "Access check".into(),
            }
            .encode_to_vec(),
            ("DispatchService", "PlanRoutes") => ipb::PlanRoutesRequest {
                workspace_id: w(),
                day: PLAN_DAY.into(),
                courier_ids: Vec::new(),
                budget_seconds: 1,
                area_id: String::new(),
                pins: Vec::new(),
            }
            .encode_to_vec(),
            ("DispatchService", "GetPlan") => ipb::GetPlanRequest {
                plan_id: self.plan.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", "PublishPlan") => ipb::PublishPlanRequest {
                plan_id: self.plan.clone(),
            }
            .encode_to_vec(),
            ("CourierService", _) => ipb::GetCourierRequest {
                courier_id: self.managed_courier.clone(),
            }
            .encode_to_vec(),
            ("CourierAppService", "GetInvitation") => courier::app::v1::GetInvitationRequest {
                token: self.courier_invitation.clone(),
            }
            .encode_to_vec(),
            ("CourierAppService", "AcceptInvitation") => courier::app::v1::AcceptInvitationRequest {
                token: self.courier_invitation.clone(),
                password: "short".into(),
            }
            .encode_to_vec(),
            ("CourierAppService", "SignIn") => courier::app::v1::SignInRequest {
                login: "nobody@example.com".into(),
                password: "a wrong password".into(),
                client_address: String::new(),
            }
            .encode_to_vec(),
            ("CourierAppService", "SetAvailability") => courier::app::v1::SetAvailabilityRequest {
                availability: courier::app::v1::Availability::Offline as i32,
            }
            .encode_to_vec(),
            ("CourierAppService", "ReportLocations") => Vec::new(),
            // The rest name a job or an offer: the world's board order, never
            // this courier's, so `jobs` answers not_found once the access
            // layer let the call through (see `cell`).
            ("CourierAppService", _) => courier::app::v1::GetJobRequest {
                job_id: self.board_order.clone(),
            }
            .encode_to_vec(),
            ("DispatchService", _) => ipb::ArriveAtPickupRequest { delivery_id: d() }.encode_to_vec(),
            other => panic!("no request for {other:?}"),
        }
    }

    /// What `column` sends to `path`, and, for `API key` and a method
    /// behind a permission, which key (`holding` it or not). Sign-out ends
    /// a session: it gets one of its own.
    async fn credential(&self, app: &TestApp, column: Column, path: &str, holding: Option<(&str, bool)>) -> Credential {
        match column {
            Column::Nobody => Credential::Nothing,
            Column::Key => Credential::Key(match holding {
                Some((permission, true)) => self.with[permission].clone(),
                Some((permission, false)) => self.without[permission].clone(),
                None => self.key.clone(),
            }),
            Column::AdminService | Column::DispatchService | Column::BillingService | Column::CommandLine => {
                Credential::Bearer(self.bearers[&column].clone())
            }
            Column::Courier if path.ends_with("/SignOut") => Credential::Bearer(self.courier_session(app).await),
            Column::Courier => Credential::Bearer(self.courier_token.clone()),
            _ if path.ends_with("/SignOut") => Credential::Session(sign_in(app, &self.users[&column]).await),
            _ => Credential::Session(self.sessions[&column].clone()),
        }
    }
}

/// Calls `path` with `body` as `credential`; `Ok` when the call was
/// answered (a stream's first answer included).
async fn call(
    app: &TestApp,
    path: &str,
    body: Vec<u8>,
    credential: &Credential,
    workspace: &str,
) -> Result<(), tonic::Status> {
    let mut pairs: Vec<(&'static str, String)> = Vec::new();
    match credential {
        Credential::Nothing => {}
        Credential::Key(key) => pairs.push(("x-api-key", key.clone())),
        Credential::Bearer(token) => pairs.push(("authorization", format!("Bearer {token}"))),
        Credential::Session(session) => {
            pairs.push(("x-console-session", session.token.clone()));
            pairs.push(("x-csrf-token", session.csrf.clone()));
            pairs.push(("x-console-workspace", workspace.to_owned()));
            pairs.push(("x-console-mode", "live".to_owned()));
        }
    }
    let pairs: Vec<(&'static str, &str)> = pairs.iter().map(|(name, value)| (*name, value.as_str())).collect();
    let mut grpc = tonic::client::Grpc::new(channel(app).await);
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path: tonic::codegen::http::uri::PathAndQuery = path.parse().expect("path");
    if path.path().ends_with("/WatchDelivery")
        || path.path().ends_with("/WatchAssignments")
        || path.path().ends_with("/StreamEvents")
        || path.path().ends_with("/WatchDispatchMap")
    {
        grpc.server_streaming(with_metadata(body, &pairs), path, Raw)
            .await
            .map(drop)
    } else if path.path().ends_with("/StreamCourierLocations") || path.path().ends_with("/ReportLocations") {
        let none = tokio_stream::iter(Vec::<Vec<u8>>::new());
        grpc.client_streaming(with_metadata(none, &pairs), path, Raw)
            .await
            .map(drop)
    } else {
        grpc.unary(with_metadata(body, &pairs), path, Raw).await.map(drop)
    }
}

/// A call's answer as the table writes it: `✓` for an answer or a refusal
/// of the request itself (made after the access check), else the access
/// refusal's status.
fn cell(path: &str, answer: &Result<(), tonic::Status>) -> String {
    let Err(status) = answer else {
        return "✓".into();
    };
    let code = courier::errors::from_status(status).0.as_str();
    match code {
        "permission_denied" => "403".into(),
        // A courier's call the access layer let through: the job, offer
        // or invitation it names is not theirs (`jobs` answers that).
        "not_found" if path.starts_with("/courier.app.v1.") => "✓".into(),
        "not_found" => "404".into(),
        "missing_api_key"
        | "invalid_api_key"
        | "missing_service_token"
        | "invalid_service_token"
        | "invalid_session"
        | "invalid_courier_session" => "401".into(),
        "internal_error" | "service_unavailable" | "invalid_csrf_token" => format!("{code}: {}", status.message()),
        _ => "✓".into(),
    }
}

/// The access table of docs/access.md: per method path, a cell per column.
fn documented_table() -> Vec<(String, Vec<String>)> {
    let page = include_str!("../../docs/access.md");
    page.lines()
        .filter(|line| line.starts_with("| `courier."))
        .map(|line| {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect();
            let path = format!("/{}", cells[0].trim_matches('`'));
            (path, cells[1..].to_vec())
        })
        .collect()
}

e2e! {
    async fn the_access_table_holds_for_every_caller_and_method(app: TestApp) {
        let table = documented_table();
        assert_eq!(table.len(), courier_identity::access::methods::METHODS.len(), "a row per method");
        let world = World::build(&app).await;
        let mut wrong = Vec::new();
        for (path, cells) in &table {
            assert_eq!(cells.len(), COLUMNS.len(), "{path}");
            for (column, expected) in COLUMNS.iter().zip(cells) {
                // A permission in the key column: a key holding it is
                // allowed, one holding every other one is not.
                let tries: Vec<(Option<(&str, bool)>, &str)> = match expected.strip_prefix('`') {
                    Some(permission) => {
                        let permission = permission.trim_end_matches('`');
                        vec![(Some((permission, true)), "✓"), (Some((permission, false)), "403")]
                    }
                    None => vec![(None, expected.as_str())],
                };
                for (holding, expected) in tries {
                    let credential = world.credential(&app, *column, path, holding).await;
                    let body = world.body(&app, path).await;
                    let answer = call(&app, path, body, &credential, &world.workspace).await;
                    let got = cell(path, &answer);
                    if got != expected {
                        wrong.push(format!("{path} as {column:?} {holding:?}: table {expected}, got {got} ({answer:?})"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{} cells differ:\n{}", wrong.len(), wrong.join("\n"));
    }
}

e2e! {
    async fn a_change_whose_audit_entry_cannot_be_written_is_not_made(app: TestApp) {
        let fail_next_audit = || app.core.faults.fail_audit_write.store(true, std::sync::atomic::Ordering::SeqCst);
        let internal = |answer: Result<(), tonic::Status>| {
            let status = answer.expect_err("the audit write failed");
            assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
        };
        let mut admin = app.admin().await;
        let workspaces = || async {
            let request = app.admin_request(ipb::ListWorkspacesRequest {});
            app.admin().await.list_workspaces(request).await.expect("workspaces").into_inner().workspaces.len()
        };

        // The back office (a service token): a workspace, a revocation.
        let before = workspaces().await;
        let create = || {
            app.admin_request(ipb::CreateWorkspaceRequest {
                name: "Audited".into(),
                kind: ipb::WorkspaceKind::Business as i32,
                ..Default::default()
            })
        };
        fail_next_audit();
        internal(admin.create_workspace(create()).await.map(drop));
        assert_eq!(workspaces().await, before, "no workspace without its audit entry");
        let (key_id, key) = app.create_key_with(&app.workspace_id, pb::Mode::Test, &[], ipb::KeyExpiry::Never).await;
        let revoke = ipb::RevokeApiKeyRequest { api_key_id: key_id.clone() };
        fail_next_audit();
        internal(admin.revoke_api_key(app.admin_request(revoke.clone())).await.map(drop));
        assert_eq!(app.get("/v1/deliveries", &key).await.status, 200, "the key still works");

        // The billing system.
        let billing_state = || async {
            let request = app.billing_request(ipb::GetBillingStateRequest { workspace_id: app.workspace_id.clone() });
            app.billing().await.get_billing_state(request).await.expect("state").into_inner().billing.expect("billing")
        };
        let state = billing_state().await;
        let update = ipb::UpdateBillingStateRequest {
            workspace_id: app.workspace_id.clone(),
            billing: Some(ipb::BillingState { credit_limit_cents: 1, ..state }),
            update_mask: Some(prost_types::FieldMask { paths: vec!["credit_limit_cents".into()] }),
        };
        fail_next_audit();
        internal(app.billing().await.update_billing_state(app.billing_request(update)).await.map(drop));
        assert_eq!(billing_state().await, state, "the billing settings are as they were");

        // An operator in a workspace's own pages: a key, a webhook endpoint.
        user(&app, "ops@example.com", None, true).await;
        let ops = sign_in(&app, "ops@example.com").await;
        let as_ops = [("x-console-session", ops.token.as_str()), ("x-csrf-token", ops.csrf.as_str())];
        let mut console = ipb::console_service_client::ConsoleServiceClient::new(channel(&app).await);
        let new_key = || ipb::CreateWorkspaceApiKeyRequest {
            workspace_id: app.workspace_id.clone(),
            mode: pb::Mode::Test as i32,
            label: "by support".into(),
            permissions: Vec::new(),
            expiry: ipb::KeyExpiry::Never as i32,
        };
        let keys = || async {
            let request = app.admin_request(ipb::ListApiKeysRequest { workspace_id: app.workspace_id.clone() });
            app.admin().await.list_api_keys(request).await.expect("keys").into_inner().api_keys.len()
        };
        let keys_before = keys().await;
        fail_next_audit();
        internal(console.create_workspace_api_key(with_metadata(new_key(), &as_ops)).await.map(drop));
        assert_eq!(keys().await, keys_before, "no key without its audit entry");
        let acting = [as_ops[0], as_ops[1], ("x-console-workspace", app.workspace_id.as_str()), ("x-console-mode", "test")];
        let endpoint = || pb::CreateWebhookEndpointRequest {
            url: "http://127.0.0.1:9/hook".into(),
            events: vec![pb::EventType::DeliveryCreated as i32],
            description: None,
        };
        let mut webhooks = pb::webhook_service_client::WebhookServiceClient::new(channel(&app).await);
        fail_next_audit();
        internal(webhooks.create_webhook_endpoint(with_metadata(endpoint(), &acting)).await.map(drop));
        let listed = webhooks
            .list_webhook_endpoints(with_metadata(pb::ListWebhookEndpointsRequest {}, &acting))
            .await
            .expect("endpoints")
            .into_inner();
        assert!(listed.endpoints.is_empty(), "no endpoint without its audit entry");

        // Without the failure the same changes are made, each with its entry.
        let workspace = admin.create_workspace(create()).await.expect("created").into_inner().workspace.expect("workspace").id;
        admin.revoke_api_key(app.admin_request(revoke)).await.expect("revoked");
        let made = console.create_workspace_api_key(with_metadata(new_key(), &as_ops)).await.expect("key").into_inner();
        let made = made.api_key.expect("key").id;
        let hook = webhooks.create_webhook_endpoint(with_metadata(endpoint(), &acting)).await.expect("endpoint");
        let hook = hook.into_inner().endpoint.expect("endpoint").id;
        let request = app.admin_request(ipb::ListAuditEntriesRequest { page_size: 10, page_token: String::new() });
        let entries = admin.list_audit_entries(request).await.expect("audit log").into_inner().entries;
        let logged: Vec<(&str, &str, &str)> =
            entries.iter().map(|e| (e.actor.as_str(), e.action.as_str(), e.target.as_str())).collect();
        assert_eq!(
            &logged[..4],
            [
                ("operator:ops@example.com", "webhook_endpoint.create", hook.as_str()),
                ("operator:ops@example.com", "api_key.create", made.as_str()),
                ("service:e2e", "api_key.revoke", key_id.as_str()),
                ("service:e2e", "workspace.create", workspace.as_str()),
            ]
        );
        assert_eq!(app.get("/v1/deliveries", &key).await.status, 401, "revoked now");
    }
}
