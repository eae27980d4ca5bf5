//! Console accounts over the internal gRPC `ConsoleService`: sign-in with
//! throttling, sessions with idle expiry and CSRF, members and invitation
//! links with the last-owner rule, and API keys that owners and admins
//! manage and members cannot reach; the public services called with a
//! session in place of a key, as the console's webhook pages call them.

use std::time::Duration;

use courier::internal::v1 as ipb;
use courier::internal::v1::console_service_client::ConsoleServiceClient;
use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};
use tonic::Code;
use tonic::transport::Channel;

use crate::harness::TestApp;

const PASSWORD: &str = "correct horse battery";

fn refusal(status: &tonic::Status) -> (Code, &'static str) {
    (status.code(), courier::errors::from_status(status).0.as_str())
}

async fn client(app: &TestApp) -> ConsoleServiceClient<Channel> {
    ConsoleServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("console client")
}

/// A user of `workspace` with `role`.
async fn user(app: &TestApp, email: &str, workspace: &str, role: Role) -> String {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "E2E User".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    let user = accounts::create_user(&app.core.writer, now, new).await.expect("user");
    memberships::add(&app.core.writer, now, workspace, &user.id, role)
        .await
        .expect("membership");
    user.id
}

/// A signed-in session: its token and CSRF token.
struct Signed {
    token: String,
    csrf: String,
}

impl Signed {
    /// `message` for a public service, acting in `workspace` and `mode`,
    /// with the CSRF token (every such call carries it).
    fn acting<T>(&self, message: T, workspace: &str, mode: &str) -> tonic::Request<T> {
        let mut request = self.request(message, true);
        let metadata = request.metadata_mut();
        metadata.insert("x-console-workspace", workspace.parse().expect("meta"));
        metadata.insert("x-console-mode", mode.parse().expect("meta"));
        request
    }

    /// `message` as this session sends it; `change` adds the CSRF token.
    fn request<T>(&self, message: T, change: bool) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request
            .metadata_mut()
            .insert("x-console-session", self.token.parse().expect("meta"));
        if change {
            request
                .metadata_mut()
                .insert("x-csrf-token", self.csrf.parse().expect("meta"));
        }
        request
    }
}

async fn sign_in(app: &TestApp, email: &str, password: &str) -> Result<Signed, tonic::Status> {
    let request = ipb::SignInRequest {
        email: email.into(),
        password: password.into(),
        client_address: "127.0.0.1".into(),
    };
    let answer = client(app).await.sign_in(request).await?.into_inner();
    let session = answer.session.expect("session");
    Ok(Signed {
        token: answer.session_token,
        csrf: session.csrf_token,
    })
}

e2e! {
    async fn sign_in_is_throttled_and_sessions_end(app: TestApp) {
        user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        let wrong = sign_in(&app, "owner@example.com", "not the password").await.err().expect("wrong password");
        assert_eq!(refusal(&wrong), (Code::Unauthenticated, "invalid_credentials"));
        let unknown = sign_in(&app, "nobody@example.com", PASSWORD).await.err().expect("unknown email");
        assert_eq!(refusal(&unknown), (Code::Unauthenticated, "invalid_credentials"), "the same answer as a wrong password");

        // The email is case-insensitive; the session names its user and workspaces.
        let signed = sign_in(&app, " Owner@Example.com ", PASSWORD).await.expect("sign in");
        let session = client(&app).await.get_session(signed.request(ipb::GetSessionRequest::default(), false)).await.expect("session").into_inner().session.expect("session");
        assert_eq!(session.user.as_ref().map(|u| u.email.as_str()), Some("owner@example.com"));
        assert_eq!(session.memberships.iter().map(|m| (m.workspace_id.as_str(), m.role())).collect::<Vec<_>>(), [(app.workspace_id.as_str(), ipb::MemberRole::Owner)]);

        // Sign-out needs the CSRF token, and ends the session.
        let status = client(&app).await.sign_out(signed.request(ipb::SignOutRequest {}, false)).await.expect_err("no csrf");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "invalid_csrf_token"));
        client(&app).await.sign_out(signed.request(ipb::SignOutRequest {}, true)).await.expect("sign out");
        let status = client(&app).await.get_session(signed.request(ipb::GetSessionRequest::default(), false)).await.expect_err("signed out");
        assert_eq!(refusal(&status), (Code::Unauthenticated, "invalid_session"));
        let status = client(&app).await.get_session(ipb::GetSessionRequest::default()).await.expect_err("no session");
        assert_eq!(refusal(&status), (Code::Unauthenticated, "invalid_session"));

        // Twelve idle hours end a session; use keeps it going.
        let signed = sign_in(&app, "owner@example.com", PASSWORD).await.expect("sign in");
        app.clock.advance(Duration::from_secs(11 * 3600));
        client(&app).await.get_session(signed.request(ipb::GetSessionRequest::default(), false)).await.expect("still on");
        app.clock.advance(Duration::from_secs(11 * 3600));
        client(&app).await.get_session(signed.request(ipb::GetSessionRequest::default(), false)).await.expect("used 11 h ago");
        app.clock.advance(Duration::from_secs(12 * 3600));
        let status = client(&app).await.get_session(signed.request(ipb::GetSessionRequest::default(), false)).await.expect_err("idle");
        assert_eq!(refusal(&status), (Code::Unauthenticated, "invalid_session"));

        // Five wrong passwords for one email: even the right one waits.
        for _ in 0..courier_identity::sign_ins::MAX_FAILURES_PER_LOGIN {
            sign_in(&app, "owner@example.com", "guess").await.err().expect("wrong");
        }
        let throttled = sign_in(&app, "owner@example.com", PASSWORD).await.err().expect("throttled");
        assert_eq!(refusal(&throttled), (Code::ResourceExhausted, "rate_limited"));
        app.clock.advance(Duration::from_secs(15 * 60));
        sign_in(&app, "owner@example.com", PASSWORD).await.expect("the window ended");
    }

    async fn members_invitations_and_keys_follow_roles(app: TestApp) {
        let owner_id = user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let mut console = client(&app).await;

        // An invitation link for an admin, accepted with a new account.
        let invite = ipb::CreateInvitationRequest { workspace_id: app.workspace_id.clone(), role: ipb::MemberRole::Admin as i32 };
        let status = console.create_invitation(owner.request(invite.clone(), false)).await.expect_err("no csrf");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "invalid_csrf_token"));
        let link = console.create_invitation(owner.request(invite, true)).await.expect("invitation").into_inner();
        let offered = console.get_invitation(ipb::GetInvitationRequest { token: link.token.clone() }).await.expect("offer").into_inner();
        assert_eq!(offered.invitation.map(|i| i.role()), Some(ipb::MemberRole::Admin));
        let account = ipb::NewAccount { email: "admin@example.com".into(), name: "Ada Admin".into(), password: PASSWORD.into() };
        let accept = ipb::AcceptInvitationRequest { token: link.token.clone(), joiner: Some(ipb::accept_invitation_request::Joiner::NewAccount(account)), ..Default::default() };
        console.accept_invitation(accept.clone()).await.expect("accepted");
        let status = console.accept_invitation(accept).await.expect_err("a link works once");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));
        let admin = sign_in(&app, "admin@example.com", PASSWORD).await.expect("admin signs in");

        // The admin creates a key; it works on /v1; revoked, the next call fails.
        let create = ipb::CreateWorkspaceApiKeyRequest { workspace_id: app.workspace_id.clone(), mode: courier::v1::Mode::Test as i32, label: "console".into(), permissions: vec![], expiry: ipb::KeyExpiry::Days90 as i32 };
        let created = console.create_workspace_api_key(admin.request(create.clone(), true)).await.expect("key").into_inner();
        assert_eq!(app.get("/v1/deliveries", &created.secret).await.status, 200);
        let key_id = created.api_key.expect("key").id;
        let listed = console.list_workspace_api_keys(admin.request(ipb::ListWorkspaceApiKeysRequest { workspace_id: app.workspace_id.clone() }, false)).await.expect("keys").into_inner();
        assert!(listed.api_keys.iter().any(|k| k.id == key_id));
        let revoke = ipb::RevokeWorkspaceApiKeyRequest { workspace_id: app.workspace_id.clone(), api_key_id: key_id.clone() };
        console.revoke_workspace_api_key(admin.request(revoke, true)).await.expect("revoked");
        app.get("/v1/deliveries", &created.secret).await.assert_error(401, "invalid_api_key", None);

        // A member reads members but reaches no key, by any call.
        user(&app, "member@example.com", &app.workspace_id, Role::Member).await;
        let member = sign_in(&app, "member@example.com", PASSWORD).await.expect("member");
        let members = console.list_members(member.request(ipb::ListMembersRequest { workspace_id: app.workspace_id.clone() }, false)).await.expect("members").into_inner();
        assert_eq!(members.members.len(), 3);
        let status = console.list_workspace_api_keys(member.request(ipb::ListWorkspaceApiKeysRequest { workspace_id: app.workspace_id.clone() }, false)).await.expect_err("member keys");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
        let status = console.create_workspace_api_key(member.request(create.clone(), true)).await.expect_err("member creates");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));

        // Another workspace's user sees nothing of this one.
        let other = app.create_workspace(ipb::WorkspaceKind::Business, Default::default()).await;
        user(&app, "stranger@example.com", &other, Role::Owner).await;
        let stranger = sign_in(&app, "stranger@example.com", PASSWORD).await.expect("stranger");
        let status = console.list_members(stranger.request(ipb::ListMembersRequest { workspace_id: app.workspace_id.clone() }, false)).await.expect_err("foreign");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));
        let status = console.create_workspace_api_key(stranger.request(create, true)).await.expect_err("foreign key");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));

        // The last owner can be neither demoted nor removed.
        let demote = ipb::UpdateMemberRoleRequest { workspace_id: app.workspace_id.clone(), user_id: owner_id.clone(), role: ipb::MemberRole::Admin as i32 };
        let status = console.update_member_role(admin.request(demote.clone(), true)).await.expect_err("last owner");
        assert_eq!(refusal(&status), (Code::FailedPrecondition, "last_owner"));
        let remove = ipb::RemoveMemberRequest { workspace_id: app.workspace_id.clone(), user_id: owner_id.clone() };
        let status = console.remove_member(admin.request(remove.clone(), true)).await.expect_err("last owner");
        assert_eq!(refusal(&status), (Code::FailedPrecondition, "last_owner"));
        // With a second owner, the first may go.
        let admin_id = members.members.iter().find(|m| m.user.as_ref().is_some_and(|u| u.email == "admin@example.com")).and_then(|m| m.user.clone()).expect("admin").id;
        let promote = ipb::UpdateMemberRoleRequest { workspace_id: app.workspace_id.clone(), user_id: admin_id, role: ipb::MemberRole::Owner as i32 };
        console.update_member_role(owner.request(promote, true)).await.expect("promote");
        let left = console.remove_member(admin.request(remove, true)).await.expect("removed").into_inner();
        assert_eq!(left.members.len(), 2);
    }

    async fn a_session_acts_on_the_public_services_by_role_and_mode(app: TestApp) {
        use courier::v1 as pb;
        use courier::v1::webhook_service_client::WebhookServiceClient;
        user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        user(&app, "member@example.com", &app.workspace_id, Role::Member).await;
        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let member = sign_in(&app, "member@example.com", PASSWORD).await.expect("member");
        let mut webhooks = WebhookServiceClient::connect(app.grpc_url.clone()).await.expect("client");
        let receiver = crate::webhooks::Receiver::start().await;
        let create = pb::CreateWebhookEndpointRequest { url: receiver.url.clone(), events: vec![pb::EventType::DeliveryCreated as i32], description: None };

        // The owner's endpoint is the test key's, not the live key's.
        let created = webhooks.create_webhook_endpoint(owner.acting(create.clone(), &app.workspace_id, "test")).await.expect("created").into_inner();
        assert!(created.secret.starts_with("whsec_"));
        let id = created.endpoint.expect("endpoint").id;
        let listed = app.get("/v1/webhooks", &app.test_key).await;
        assert!(listed.body["webhooks"].as_array().expect("list").iter().any(|w| w["id"] == id.as_str()), "{:#}", listed.body);
        let live = app.get("/v1/webhooks", &app.live_key).await;
        assert_eq!(live.body["webhooks"].as_array().map(Vec::len), Some(0));

        // The API's own errors, in the API's words.
        let invalid = pb::CreateWebhookEndpointRequest { url: "not a web address".into(), ..create.clone() };
        let status = webhooks.create_webhook_endpoint(owner.acting(invalid, &app.workspace_id, "test")).await.expect_err("not a URL");
        assert_eq!((status.code(), courier::errors::from_status(&status).1.as_deref()), (Code::InvalidArgument, Some("url")));

        // Without the CSRF token, with a member's session, in another
        // workspace or signed out: refused, and nothing changes.
        let mut unsigned = owner.acting(create.clone(), &app.workspace_id, "test");
        unsigned.metadata_mut().remove("x-csrf-token");
        let status = webhooks.create_webhook_endpoint(unsigned).await.expect_err("no csrf");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "invalid_csrf_token"));
        let status = webhooks.list_webhook_endpoints(member.acting(pb::ListWebhookEndpointsRequest {}, &app.workspace_id, "test")).await.expect_err("member");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
        let status = webhooks.create_webhook_endpoint(member.acting(create.clone(), &app.workspace_id, "test")).await.expect_err("member");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
        let other = app.create_workspace(ipb::WorkspaceKind::Business, Default::default()).await;
        let status = webhooks.list_webhook_endpoints(owner.acting(pb::ListWebhookEndpointsRequest {}, &other, "test")).await.expect_err("foreign");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));
        client(&app).await.sign_out(owner.request(ipb::SignOutRequest {}, true)).await.expect("sign out");
        let status = webhooks.list_webhook_endpoints(owner.acting(pb::ListWebhookEndpointsRequest {}, &app.workspace_id, "test")).await.expect_err("signed out");
        assert_eq!(refusal(&status), (Code::Unauthenticated, "invalid_session"));
        assert_eq!(app.get("/v1/webhooks", &app.test_key).await.body["webhooks"].as_array().map(Vec::len), Some(1));

        // The edge never forwards a session: on /v1 it is no credential.
        let answer = app.send(app.http.get(app.url("/v1/webhooks")).header("x-console-session", &member.token).header("x-console-workspace", &app.workspace_id).header("x-console-mode", "test").header("x-csrf-token", &member.csrf)).await;
        answer.assert_error(401, "missing_api_key", None);
    }

    async fn two_joins_with_one_new_email_at_once_make_one_account(app: TestApp) {
        user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let mut joins = Vec::new();
        for _ in 0..2 {
            let invite = ipb::CreateInvitationRequest { workspace_id: app.workspace_id.clone(), role: ipb::MemberRole::Member as i32 };
            let link = client(&app).await.create_invitation(owner.request(invite, true)).await.expect("invitation").into_inner();
            let account = ipb::NewAccount { email: "twice@example.com".into(), name: "Twice".into(), password: PASSWORD.into() };
            joins.push(ipb::AcceptInvitationRequest { token: link.token, joiner: Some(ipb::accept_invitation_request::Joiner::NewAccount(account)), ..Default::default() });
        }
        let url = app.grpc_url.clone();
        let answers = crate::harness::together(joins.into_iter().map(|join| {
            let url = url.clone();
            async move { ConsoleServiceClient::connect(url).await.expect("client").accept_invitation(join).await.map(drop) }
        }))
        .await;
        let refused: Vec<(Code, &str)> = answers.iter().filter_map(|a| a.as_ref().err()).map(refusal).collect();
        assert_eq!(refused, [(Code::FailedPrecondition, "conflict")], "one joins, the other is told the email is taken: {answers:?}");
        sign_in(&app, "twice@example.com", PASSWORD).await.expect("the one account");
    }

    async fn an_existing_user_joins_by_invitation_with_their_password(app: TestApp) {
        user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        let other = app.create_workspace(ipb::WorkspaceKind::Business, Default::default()).await;
        user(&app, "elsewhere@example.com", &other, Role::Owner).await;
        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let mut console = client(&app).await;
        let invite = ipb::CreateInvitationRequest { workspace_id: app.workspace_id.clone(), role: ipb::MemberRole::Member as i32 };
        let link = console.create_invitation(owner.request(invite, true)).await.expect("invitation").into_inner();
        let joining = |password: &str| ipb::AcceptInvitationRequest {
            token: link.token.clone(),
            joiner: Some(ipb::accept_invitation_request::Joiner::ExistingAccount(ipb::ExistingAccount { email: "elsewhere@example.com".into(), password: password.into() })),
            client_address: "192.0.2.7".into(),
        };
        // Wrong passwords count towards the sign-in throttle.
        for _ in 0..courier_identity::sign_ins::MAX_FAILURES_PER_LOGIN {
            let status = console.accept_invitation(joining("guess")).await.expect_err("wrong");
            assert_eq!(refusal(&status), (Code::Unauthenticated, "invalid_credentials"));
        }
        let status = console.accept_invitation(joining(PASSWORD)).await.expect_err("throttled");
        assert_eq!(refusal(&status), (Code::ResourceExhausted, "rate_limited"));
        app.clock.advance(Duration::from_secs(15 * 60));
        console.accept_invitation(joining(PASSWORD)).await.expect("joined");
        let joined = sign_in(&app, "elsewhere@example.com", PASSWORD).await.expect("signs in");
        let session = console.get_session(joined.request(ipb::GetSessionRequest::default(), false)).await.expect("session").into_inner().session.expect("session");
        let mut workspaces: Vec<_> = session.memberships.iter().map(|m| (m.workspace_id.clone(), m.role())).collect();
        workspaces.sort();
        let mut expected = vec![(app.workspace_id.clone(), ipb::MemberRole::Member), (other, ipb::MemberRole::Owner)];
        expected.sort();
        assert_eq!(workspaces, expected);
    }

    async fn the_board_follows_roles_members_read_and_owners_move(app: TestApp) {
        use courier::internal::v1::dispatch_service_client::DispatchServiceClient;
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        user(&app, "owner@example.com", &fleet, Role::Owner).await;
        user(&app, "member@example.com", &fleet, Role::Member).await;
        user(&app, "stranger@example.com", &app.workspace_id, Role::Owner).await;
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let order_id = order["order_id"].as_str().expect("order_id").to_owned();
        let mut dispatch = DispatchServiceClient::connect(app.grpc_url.clone()).await.expect("client");
        let list = ipb::ListBoardOrdersRequest { workspace_id: fleet.clone(), newest_first: true, ..Default::default() };
        let step = ipb::MoveBoardOrderRequest { order_id: order_id.clone(), status: courier::v1::DeliveryStatus::CourierAssigned as i32 };

        let member = sign_in(&app, "member@example.com", PASSWORD).await.expect("member");
        let listed = dispatch.list_board_orders(member.request(list.clone(), false)).await.expect("members read").into_inner();
        assert_eq!(listed.orders[0].legal_moves, vec![courier::v1::DeliveryStatus::CourierAssigned as i32, courier::v1::DeliveryStatus::Cancelled as i32]);
        let status = dispatch.move_board_order(member.request(step.clone(), true)).await.expect_err("a member moves");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));

        let stranger = sign_in(&app, "stranger@example.com", PASSWORD).await.expect("stranger");
        let status = dispatch.list_board_orders(stranger.request(list.clone(), false)).await.expect_err("another workspace");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));
        let status = dispatch.move_board_order(stranger.request(step.clone(), true)).await.expect_err("another workspace's order");
        assert_eq!(refusal(&status), (Code::NotFound, "not_found"));

        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let status = dispatch.move_board_order(owner.request(step.clone(), false)).await.expect_err("no csrf");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "invalid_csrf_token"));
        let moved = dispatch.move_board_order(owner.request(step.clone(), true)).await.expect("the owner moves").into_inner();
        assert_eq!(moved.order.map(|o| o.status), Some(courier::v1::DeliveryStatus::CourierAssigned as i32));
        let status = dispatch.move_board_order(owner.request(step, true)).await.expect_err("the same move twice");
        assert_eq!(refusal(&status), (Code::FailedPrecondition, "conflict"));
    }

    async fn the_back_office_is_the_operators_and_every_change_is_audited(app: TestApp) {
        user(&app, "owner@example.com", &app.workspace_id, Role::Owner).await;
        let now = app.clock.now_micros();
        let operator = NewUser { email: "ops@example.com".into(), name: "Ops".into(), password: PASSWORD.into(), operator: true };
        accounts::create_user(&app.core.writer, now, operator).await.expect("operator");
        let owner = sign_in(&app, "owner@example.com", PASSWORD).await.expect("owner");
        let ops = sign_in(&app, "ops@example.com", PASSWORD).await.expect("operator");
        // A support visit: the operator's session names the workspace they are
        // no member of (its name, kind and time zone, for the pages); nobody
        // else's does, nor an unknown workspace's.
        let visit = |workspace_id: &str| ipb::GetSessionRequest { workspace_id: workspace_id.into() };
        let session = client(&app).await.get_session(ops.request(visit(&app.workspace_id), false)).await.expect("session").into_inner().session.expect("session");
        let visiting = session.visiting.expect("visiting");
        assert_eq!((visiting.workspace_id.as_str(), visiting.role()), (app.workspace_id.as_str(), ipb::MemberRole::Unspecified));
        assert!(!visiting.workspace_name.is_empty() && visiting.time_zone.contains('/'), "{visiting:?}");
        let session = client(&app).await.get_session(ops.request(visit("wks_unknown"), false)).await.expect("session").into_inner().session.expect("session");
        assert_eq!(session.visiting, None);
        let session = client(&app).await.get_session(owner.request(visit(&app.workspace_id), false)).await.expect("session").into_inner().session.expect("session");
        assert_eq!(session.visiting, None, "a member's workspace is among the memberships");
        let mut admin = app.admin().await;
        let create = ipb::CreateWorkspaceRequest { name: "Ops Made".into(), kind: ipb::WorkspaceKind::Business as i32, plan: None, billing: None };

        // A workspace owner is no operator, by any call.
        let status = admin.list_workspaces(owner.request(ipb::ListWorkspacesRequest {}, false)).await.expect_err("owner lists");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
        let status = admin.create_workspace(owner.request(create.clone(), true)).await.expect_err("owner creates");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
        let status = admin.create_workspace(ops.request(create.clone(), false)).await.expect_err("no csrf");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "invalid_csrf_token"));

        // The operator's change and the admin system's are both recorded.
        let made = admin.create_workspace(ops.request(create.clone(), true)).await.expect("operator creates").into_inner().workspace.expect("workspace").id;
        let by_system = admin.create_workspace(app.admin_request(create)).await.expect("system creates").into_inner().workspace.expect("workspace").id;
        let key = app.create_key(&made, courier::v1::Mode::Live, &[]).await;
        assert_eq!(app.get("/v1/vehicle-types", &key).await.status, 200);
        let listed = admin.list_api_keys(ops.request(ipb::ListApiKeysRequest { workspace_id: made.clone() }, false)).await.expect("keys").into_inner();
        let revoke = ipb::RevokeApiKeyRequest { api_key_id: listed.api_keys[0].id.clone() };
        admin.revoke_api_key(ops.request(revoke, true)).await.expect("revoked");
        app.get("/v1/vehicle-types", &key).await.assert_error(401, "invalid_api_key", None);

        let log = admin.list_audit_entries(ops.request(ipb::ListAuditEntriesRequest::default(), false)).await.expect("log").into_inner();
        let entries: Vec<(String, String, String)> = log.entries.iter().map(|e| (e.actor.clone(), e.action.clone(), e.workspace_id.clone().unwrap_or_default())).collect();
        assert_eq!(entries[0], ("operator:ops@example.com".into(), "api_key.revoke".into(), made.clone()), "newest first: {entries:?}");
        assert!(entries.iter().any(|e| e.1 == "api_key.create" && e.2 == made && e.0.starts_with("service:")), "{entries:?}");
        assert!(entries.contains(&("operator:ops@example.com".into(), "workspace.create".into(), made.clone())), "{entries:?}");
        assert!(entries.iter().any(|e| e.1 == "workspace.create" && e.2 == by_system && e.0.starts_with("service:")), "{entries:?}");
        let status = admin.list_audit_entries(owner.request(ipb::ListAuditEntriesRequest::default(), false)).await.expect_err("owner reads the log");
        assert_eq!(refusal(&status), (Code::PermissionDenied, "permission_denied"));
    }
}
