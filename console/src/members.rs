//! Members of a workspace (list, invite by link, change role, remove) and
//! the invitation page a new member opens.

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use courier::client_address::Peer;
use courier::internal::v1 as pb;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::forms::{PreSession, pre_session_matches, refused};
use crate::page::{
    Layout, ModeQuery, Refusal, Signed, bare_layout, failure, field, fields, render, role_in, role_name, unconfirmed,
};
use crate::times::Moment;

/// The roles, as offered in the member forms (the least first).
const ROLES: [&str; 3] = ["member", "admin", "owner"];

pub(crate) struct MemberRow {
    id: String,
    name: String,
    email: String,
    role: &'static str,
    since: Moment,
    /// The role choices, the member's own selected.
    options: Vec<(&'static str, bool)>,
}

#[derive(Template)]
#[template(path = "members.html")]
pub(crate) struct MembersPage {
    layout: Layout,
    workspace_id: String,
    members: Vec<MemberRow>,
    manages: bool,
    roles: [&'static str; 3],
    invitation_link: Option<String>,
}

pub(crate) async fn members_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    invitation_link: Option<String>,
    error: Option<String>,
) -> Response {
    let request = signed.request(
        pb::ListMembersRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let members = match state.core.clone().list_members(request).await {
        Ok(answer) => answer.into_inner().members,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let mut layout = signed.layout(state, "Members", Some(workspace), mode);
    layout.section = "members";
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    layout.error = error;
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let zone = signed.zone(Some(workspace));
    let rows = members
        .iter()
        .map(|m| {
            let user = m.user.clone().unwrap_or_default();
            let role = role_name(m.role());
            MemberRow {
                id: user.id,
                name: user.name,
                email: user.email,
                role,
                since: zone.day(m.since.as_ref(), ""),
                options: ROLES.iter().map(|r| (*r, *r == role)).collect(),
            }
        })
        .collect();
    render(
        MembersPage {
            layout,
            workspace_id: workspace.to_owned(),
            members: rows,
            manages,
            roles: ROLES,
            invitation_link,
        },
        status,
    )
}

pub(crate) async fn members_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    // A new invitation's link, shown once after it was created.
    let link = signed
        .flash
        .as_ref()
        .and_then(|f| f.secret_of("invitation"))
        .map(str::to_owned);
    members_view(&state, &signed, (&workspace, query.mode()), link, None).await
}

fn members_url(state: &ConsoleState, workspace: &str, mode: &str) -> String {
    format!("{}/w/{workspace}/members?mode={mode}", state.root)
}

pub(crate) async fn invite(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let form = fields(&body);
    let message = pb::CreateInvitationRequest {
        workspace_id: workspace.clone(),
        role: role_in(field(&form, "role")) as i32,
    };
    match state
        .core
        .clone()
        .create_invitation(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let link = format!("{}/invitations/{}", state.root, answer.into_inner().token);
            let role = crate::labels::role(role_in(field(&form, "role"))).to_lowercase();
            let flash = Flash::secret("invitation", format!("Invitation for a new {role} created."), link);
            signed.redirect_with(flash, &members_url(&state, &workspace, mode))
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

pub(crate) async fn change_role(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, user)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let form = fields(&body);
    let message = pb::UpdateMemberRoleRequest {
        workspace_id: workspace.clone(),
        user_id: user,
        role: role_in(field(&form, "role")) as i32,
    };
    let answer = state
        .core
        .clone()
        .update_member_role(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    let role = crate::labels::role(role_in(field(&form, "role"))).to_lowercase();
    member_change_answer(
        &state,
        &signed,
        (&workspace, mode),
        answer.map(|_| format!("Role changed to {role}.")),
    )
    .await
}

pub(crate) async fn remove_member(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, user)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let form = fields(&body);
    if let Some(refusal) = unconfirmed(&form, "remove the member") {
        return members_view(&state, &signed, (&workspace, mode), None, Some(refusal.message)).await;
    }
    let message = pb::RemoveMemberRequest {
        workspace_id: workspace.clone(),
        user_id: user,
    };
    let answer = state
        .core
        .clone()
        .remove_member(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    member_change_answer(
        &state,
        &signed,
        (&workspace, mode),
        answer.map(|_| "Member removed.".to_owned()),
    )
    .await
}

/// After a change of members: the page again, saying what was done, or
/// with the core's refusal (the last owner) when there is one.
pub(crate) async fn member_change_answer(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    answer: Result<String, tonic::Status>,
) -> Response {
    match answer {
        Ok(done) => signed.redirect_with(Flash::notice(done), &members_url(state, workspace, mode)),
        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
            members_view(
                state,
                signed,
                (workspace, mode),
                None,
                Some(status.message().to_owned()),
            )
            .await
        }
        Err(status) => signed.failure(state, &status, workspace),
    }
}

#[derive(Template)]
#[template(path = "invitation.html")]
pub(crate) struct InvitationPage {
    layout: Layout,
    token: String,
    workspace_name: String,
    role: &'static str,
    name: String,
    email: String,
    /// The signed-in user's email: they join with their own account.
    signed_in: String,
    refusal: Option<Refusal>,
}

impl InvitationPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

/// The invitation's page, its forms bound to the browser's pre-session
/// cookie.
pub(crate) async fn invitation_view(
    state: &ConsoleState,
    headers: &HeaderMap,
    token: String,
    name: String,
    email: String,
    refusal: Option<Refusal>,
) -> Response {
    let request = pb::GetInvitationRequest { token: token.clone() };
    let invitation = match state.core.clone().get_invitation(request).await {
        Ok(answer) => answer.into_inner().invitation.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let signed_in = match Signed::of(state, headers).await {
        Ok(signed) => signed.session.user.map(|u| u.email).unwrap_or_default(),
        Err(_) => String::new(),
    };
    let pre_session = PreSession::of(headers);
    let mut layout = bare_layout(state, "Join a workspace");
    layout.csrf = pre_session.token.clone();
    if let Some(refusal) = refusal.as_ref().filter(|r| r.param.is_none()) {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let page = InvitationPage {
        layout,
        token,
        workspace_name: invitation.workspace_name.clone(),
        role: role_name(invitation.role()),
        name,
        email,
        signed_in,
        refusal,
    };
    pre_session.set_cookie(state, render(page, status))
}

pub(crate) async fn invitation_page(
    State(state): State<ConsoleState>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    invitation_view(&state, &headers, token, String::new(), String::new(), None).await
}

pub(crate) async fn accept_invitation(
    State(state): State<ConsoleState>,
    Path(token): Path<String>,
    peer: Option<Peer>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if !pre_session_matches(&headers, field(&form, "csrf")) {
        return refused(&state);
    }
    let (name, email) = (field(&form, "name").to_owned(), field(&form, "email").to_owned());
    let password = field(&form, "password").to_owned();
    // Someone with an account already proves it with their password;
    // anyone else creates one.
    let joiner = if field(&form, "joiner") == "existing" {
        pb::accept_invitation_request::Joiner::ExistingAccount(pb::ExistingAccount {
            email: email.clone(),
            password,
        })
    } else {
        pb::accept_invitation_request::Joiner::NewAccount(pb::NewAccount {
            email: email.clone(),
            name: name.clone(),
            password,
        })
    };
    // Where the new member lands: the workspace's overview, signed in.
    let invitation = match state
        .core
        .clone()
        .get_invitation(pb::GetInvitationRequest { token: token.clone() })
        .await
    {
        Ok(answer) => answer.into_inner().invitation.unwrap_or_default(),
        Err(status) => return failure(&state, &status),
    };
    let request = pb::AcceptInvitationRequest {
        token: token.clone(),
        joiner: Some(joiner),
        client_address: state.front.client_address(peer, &headers),
    };
    match state.core.clone().accept_invitation(state.front.sign_in(request)).await {
        Ok(_) => {
            let sign_in = pb::SignInRequest {
                email,
                password: field(&form, "password").to_owned(),
                client_address: state.front.client_address(peer, &headers),
            };
            let Ok(answer) = state.core.clone().sign_in(state.front.sign_in(sign_in)).await else {
                return Redirect::to(&format!("{}/sign-in", state.root)).into_response();
            };
            let token = answer.into_inner().session_token;
            let role = crate::labels::role(invitation.role()).to_lowercase();
            let welcome = Flash::notice(format!(
                "Welcome to {}: you joined as {role}.",
                invitation.workspace_name
            ));
            let to = format!("{}/w/{}/overview", state.root, invitation.workspace_id);
            crate::session::with_session_cookie(&state, welcome.redirect(&token, &to), &token)
        }
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument
                    | tonic::Code::FailedPrecondition
                    | tonic::Code::Unauthenticated
                    | tonic::Code::ResourceExhausted
            ) =>
        {
            invitation_view(&state, &headers, token, name, email, Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}
