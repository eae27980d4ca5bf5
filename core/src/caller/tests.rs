//! Callers in process ([`crate::testing`]): a console session acting
//! through the public API with its role's permissions (refused without its
//! CSRF token, not found outside its workspaces), and grants by standing.

use std::collections::HashMap;

use courier::errors::ErrorCode;

use super::*;
use crate::testing::TestCore;
use courier_identity::access::{Role, act, methods};
use courier_identity::accounts::{self, NewUser};
use courier_identity::workspaces::Workspace;

const PASSWORD: &str = "correct horse battery";

/// A user of `workspace` with `role`, signed in: their session token and
/// CSRF token.
async fn signed_in(core: &Core, email: &str, workspace: &Workspace, role: Role) -> (String, String) {
    let now = core.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Ada".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    let user = accounts::create_user(&core.writer, now, new).await.expect("user");
    memberships::add(&core.writer, now, &workspace.id, &user.id, role)
        .await
        .expect("member");
    let (token, session) = sessions::sign_in::<User>(core, email, PASSWORD, "192.0.2.10")
        .await
        .expect("signed in");
    (token, session.csrf_token.expect("a console session's CSRF token"))
}

/// The caller of a request to `path` as the server's layer reads it from
/// `headers`.
async fn request(core: &Core, path: &str, headers: &[(&str, &str)]) -> CoreResult<Caller> {
    let method = methods::find(path).expect("a method of the table");
    let headers: HashMap<&str, &str> = headers.iter().copied().collect();
    let actor = authenticate(core, method, |name| headers.get(name).map(|v| v.to_string())).await?;
    Ok(Caller {
        actor: Arc::new(actor),
        method,
    })
}

/// The public API's caller a session is in `workspace_id` and `mode`.
async fn acting(core: &Core, (token, csrf): (&str, &str), workspace_id: &str, mode: &str) -> CoreResult<Principal> {
    let headers = [
        (metadata::CONSOLE_SESSION, token),
        (metadata::CSRF_TOKEN, csrf),
        (metadata::CONSOLE_WORKSPACE, workspace_id),
        (metadata::CONSOLE_MODE, mode),
    ];
    let request = request(core, "/courier.v1.DeliveryService/ListDeliveries", &headers).await?;
    api(core, &request, Some(Permission::DeliveriesRead), |_| Ok(())).await
}

fn code<T: std::fmt::Debug>(result: CoreResult<T>) -> ErrorCode {
    result.expect_err("refused").code()
}

#[tokio::test]
async fn a_session_acts_through_the_api_with_its_roles_permissions() {
    let core = TestCore::open().await;
    let workspace = core.workspace(None).await;
    let (token, csrf) = signed_in(&core, "mia@example.com", &workspace, Role::Member).await;
    let member = acting(&core, (&token, &csrf), &workspace.id, "live")
        .await
        .expect("a member reads");
    assert_eq!(
        (member.workspace.id.as_str(), member.mode),
        (workspace.id.as_str(), Mode::Live)
    );
    assert!(
        member.permissions.iter().all(|p| p.reads_only()),
        "{:?}",
        member.permissions
    );
    assert!(member.permissions.contains(&Permission::DeliveriesRead));
    assert_eq!(member.audited_as, None, "a workspace's own users are not audited");
    assert_eq!(
        code(acting(&core, (&token, "forged"), &workspace.id, "live").await),
        ErrorCode::InvalidCsrfToken
    );
    let other = core.workspace(None).await;
    assert_eq!(
        code(acting(&core, (&token, &csrf), &other.id, "test").await),
        ErrorCode::NotFound,
        "another workspace is not found, as for a key of another workspace"
    );

    let (token, csrf) = signed_in(&core, "otto@example.com", &workspace, Role::Owner).await;
    let owner = acting(&core, (&token, &csrf), &workspace.id, "test")
        .await
        .expect("an owner");
    assert_eq!(owner.permissions, workspace.kind.permissions());
}

#[tokio::test]
async fn grants_follow_the_standing_in_the_workspace() {
    let core = TestCore::open().await;
    let workspace = core.workspace(None).await;
    let keys = "/courier.internal.v1.ConsoleService/CreateWorkspaceApiKey";
    let grant_keys = |token: String, csrf: String| {
        let core = &core;
        let workspace_id = workspace.id.clone();
        async move {
            let headers = [
                (metadata::CONSOLE_SESSION, token.as_str()),
                (metadata::CSRF_TOKEN, csrf.as_str()),
            ];
            let request = request(core, keys, &headers).await?;
            grant::<act::ManageKeys>(core, &request, Some(&workspace_id), "workspace").await
        }
    };
    let (token, csrf) = signed_in(&core, "otto@example.com", &workspace, Role::Owner).await;
    let granted = grant_keys(token, csrf).await.expect("an owner manages keys");
    assert_eq!(granted.actor(), "user:otto@example.com");
    granted.covers(&workspace.id).expect("its workspace");
    assert!(granted.covers("wks_other").is_err(), "only its workspace");

    let (token, csrf) = signed_in(&core, "mia@example.com", &workspace, Role::Member).await;
    assert_eq!(code(grant_keys(token, csrf).await), ErrorCode::PermissionDenied);
    let other = core.workspace(None).await;
    let (token, csrf) = signed_in(&core, "olaf@example.com", &other, Role::Owner).await;
    assert_eq!(code(grant_keys(token, csrf).await), ErrorCode::NotFound);

    // A handler asking for another action than its method's is a bug.
    let (token, csrf) = signed_in(&core, "ole@example.com", &workspace, Role::Owner).await;
    let headers = [
        (metadata::CONSOLE_SESSION, token.as_str()),
        (metadata::CSRF_TOKEN, csrf.as_str()),
    ];
    let request = request(&core, keys, &headers).await.expect("read");
    let wrong = grant::<act::ManageMembers>(&core, &request, Some(&workspace.id), "workspace").await;
    assert_eq!(code(wrong), ErrorCode::InternalError);
}
