use courier::internal::v1 as pb;
use courier::internal::v1::console_service_server::ConsoleService;
use courier::time::micros_to_proto;
use tonic::{Request, Response, Status};

use super::admin::{expiry_in, key_out, kind_out, mode_in, permissions_in};
use super::dispatch_map_out::area_out;
use crate::caller;
use courier_core::{Core, CoreError, CoreResult, dispatch_map};
use courier_identity::access::{Act, Granted, act};
use courier_identity::accounts;
use courier_identity::accounts::invitations::{self, Invitation, Joiner};
use courier_identity::accounts::memberships::{self, Member, Role};
use courier_identity::accounts::{NewUser, User};
use courier_identity::auth::api_keys::{self, NewApiKey};
use courier_identity::sessions::{self, Session};
use courier_identity::workspaces;
use courier_orders::deliveries;

pub struct ConsoleApi(pub Core);

impl ConsoleApi {
    /// The grant of `A` in `workspace_id` to the session of `request` (a
    /// workspace the user is no member of is `not_found`).
    async fn granted<A: Act, T>(&self, request: &Request<T>, workspace_id: &str) -> CoreResult<Granted<A>> {
        caller::grant(&self.0, request, Some(workspace_id), "workspace").await
    }

    async fn session_out(&self, session: &Session<User>) -> Result<pb::ConsoleSession, Status> {
        let mut memberships_out = Vec::new();
        for m in memberships::of_user(&self.0.db, &session.subject.id).await? {
            let time_zone = deliveries::time_zone_of_workspace(&self.0, &m.workspace_id).await?;
            memberships_out.push(pb::WorkspaceMembership {
                workspace_id: m.workspace_id,
                workspace_name: m.workspace_name,
                role: role_out(m.role) as i32,
                workspace_kind: kind_out(m.workspace_kind) as i32,
                time_zone: time_zone.name().to_owned(),
            });
        }
        Ok(pb::ConsoleSession {
            user: Some(user_out(&session.subject)),
            memberships: memberships_out,
            csrf_token: session.csrf_token.clone().unwrap_or_default(),
            expires_at: Some(micros_to_proto(session.expires_at)),
            time_zone: self.0.catalog.home_time_zone().name().to_owned(),
            visiting: None,
        })
    }

    /// Workspace `workspace_id` as a support visit shows it, when the
    /// caller may administer it without being a member (an operator); `None`
    /// for a member (their memberships name it), anyone else, or no such
    /// workspace.
    async fn visiting<T>(&self, request: &Request<T>, workspace_id: &str) -> Option<pb::WorkspaceMembership> {
        if !caller::could::<act::Administer, T>(&self.0, request, workspace_id).await {
            return None;
        }
        let workspace = workspaces::get(&self.0.db, workspace_id).await.ok()?;
        let time_zone = deliveries::time_zone_of_workspace(&self.0, workspace_id).await.ok()?;
        Some(pb::WorkspaceMembership {
            workspace_id: workspace.id,
            workspace_name: workspace.name,
            role: pb::MemberRole::Unspecified as i32,
            workspace_kind: kind_out(workspace.kind) as i32,
            time_zone: time_zone.name().to_owned(),
        })
    }

    async fn members(&self, workspace_id: &str) -> Result<Vec<pb::Member>, Status> {
        Ok(memberships::list(&self.0.db, workspace_id)
            .await?
            .iter()
            .map(member_out)
            .collect())
    }
}

fn user_out(user: &User) -> pb::ConsoleUser {
    pb::ConsoleUser {
        id: user.id.clone(),
        email: user.email.clone(),
        name: user.name.clone(),
        operator: user.operator,
    }
}

fn member_out(member: &Member) -> pb::Member {
    pb::Member {
        user: Some(user_out(&member.user)),
        role: role_out(member.role) as i32,
        since: Some(micros_to_proto(member.since)),
    }
}

fn role_out(role: Role) -> pb::MemberRole {
    match role {
        Role::Owner => pb::MemberRole::Owner,
        Role::Admin => pb::MemberRole::Admin,
        Role::Member => pb::MemberRole::Member,
    }
}

fn role_in(role: i32) -> Result<Role, CoreError> {
    match pb::MemberRole::try_from(role) {
        Ok(pb::MemberRole::Owner) => Ok(Role::Owner),
        Ok(pb::MemberRole::Admin) => Ok(Role::Admin),
        Ok(pb::MemberRole::Member) => Ok(Role::Member),
        _ => Err(CoreError::invalid("role", "role must be OWNER, ADMIN or MEMBER.")),
    }
}

fn invitation_out(invitation: &Invitation) -> pb::Invitation {
    pb::Invitation {
        workspace_id: invitation.workspace_id.clone(),
        workspace_name: invitation.workspace_name.clone(),
        role: role_out(invitation.role) as i32,
        expires_at: Some(micros_to_proto(invitation.expires_at)),
    }
}

#[tonic::async_trait]
impl ConsoleService for ConsoleApi {
    async fn sign_in(&self, request: Request<pb::SignInRequest>) -> Result<Response<pb::SignInResponse>, Status> {
        let address = caller::sign_in_address(&request, &request.get_ref().client_address)?;
        let r = request.into_inner();
        let (token, session) = sessions::sign_in::<User>(&self.0, &r.email, &r.password, &address).await?;
        Ok(Response::new(pb::SignInResponse {
            session_token: token,
            session: Some(self.session_out(&session).await?),
        }))
    }

    async fn get_session(
        &self,
        request: Request<pb::GetSessionRequest>,
    ) -> Result<Response<pb::GetSessionResponse>, Status> {
        let console = caller::console(&request)?;
        let mut session = self.session_out(&console.session).await?;
        let asked = request.get_ref().workspace_id.as_str();
        if !asked.is_empty() && !session.memberships.iter().any(|m| m.workspace_id == asked) {
            session.visiting = self.visiting(&request, asked).await;
        }
        Ok(Response::new(pb::GetSessionResponse { session: Some(session) }))
    }

    async fn sign_out(&self, request: Request<pb::SignOutRequest>) -> Result<Response<pb::SignOutResponse>, Status> {
        sessions::sign_out::<User>(&self.0, &caller::console(&request)?.token).await?;
        Ok(Response::new(pb::SignOutResponse {}))
    }

    async fn change_password(
        &self,
        request: Request<pb::ChangePasswordRequest>,
    ) -> Result<Response<pb::ChangePasswordResponse>, Status> {
        let console = caller::console(&request)?;
        let r = request.get_ref();
        accounts::sessions::change_password(
            &self.0,
            &console.session,
            &console.token,
            &r.current_password,
            &r.new_password,
        )
        .await?;
        Ok(Response::new(pb::ChangePasswordResponse {}))
    }

    async fn create_invitation(
        &self,
        request: Request<pb::CreateInvitationRequest>,
    ) -> Result<Response<pb::CreateInvitationResponse>, Status> {
        let workspace_id = &request.get_ref().workspace_id;
        let granted = self.granted::<act::ManageMembers, _>(&request, workspace_id).await?;
        let role = role_in(request.get_ref().role)?;
        let user_id = &caller::console(&request)?.session.subject.id;
        let (token, invitation) = invitations::create(&self.0, &granted, workspace_id, role, user_id).await?;
        Ok(Response::new(pb::CreateInvitationResponse {
            token,
            invitation: Some(invitation_out(&invitation)),
        }))
    }

    async fn get_invitation(
        &self,
        request: Request<pb::GetInvitationRequest>,
    ) -> Result<Response<pb::GetInvitationResponse>, Status> {
        let invitation = invitations::get(&self.0, &request.into_inner().token).await?;
        Ok(Response::new(pb::GetInvitationResponse {
            invitation: Some(invitation_out(&invitation)),
        }))
    }

    async fn accept_invitation(
        &self,
        request: Request<pb::AcceptInvitationRequest>,
    ) -> Result<Response<pb::AcceptInvitationResponse>, Status> {
        use pb::accept_invitation_request::Joiner as PbJoiner;
        let address = caller::sign_in_address(&request, &request.get_ref().client_address)?;
        let r = request.into_inner();
        let joiner = match r.joiner {
            Some(PbJoiner::NewAccount(account)) => Joiner::New(NewUser {
                email: account.email,
                name: account.name,
                password: account.password,
                operator: false,
            }),
            Some(PbJoiner::ExistingAccount(account)) => Joiner::Existing {
                email: account.email,
                password: account.password,
                address,
            },
            None => {
                return Err(CoreError::invalid("joiner", "Send new_account or existing_account.").into());
            }
        };
        let user = invitations::accept(&self.0, &r.token, joiner).await?;
        Ok(Response::new(pb::AcceptInvitationResponse {
            user: Some(user_out(&user)),
        }))
    }

    async fn list_members(
        &self,
        request: Request<pb::ListMembersRequest>,
    ) -> Result<Response<pb::ListMembersResponse>, Status> {
        let workspace_id = &request.get_ref().workspace_id;
        self.granted::<act::ReadMembers, _>(&request, workspace_id).await?;
        Ok(Response::new(pb::ListMembersResponse {
            members: self.members(workspace_id).await?,
        }))
    }

    async fn update_member_role(
        &self,
        request: Request<pb::UpdateMemberRoleRequest>,
    ) -> Result<Response<pb::UpdateMemberRoleResponse>, Status> {
        let r = request.get_ref();
        let granted = self.granted::<act::ManageMembers, _>(&request, &r.workspace_id).await?;
        let role = role_in(r.role)?;
        memberships::change_role(&self.0, &granted, &r.workspace_id, &r.user_id, role).await?;
        Ok(Response::new(pb::UpdateMemberRoleResponse {
            members: self.members(&r.workspace_id).await?,
        }))
    }

    async fn remove_member(
        &self,
        request: Request<pb::RemoveMemberRequest>,
    ) -> Result<Response<pb::RemoveMemberResponse>, Status> {
        let r = request.get_ref();
        let granted = self.granted::<act::ManageMembers, _>(&request, &r.workspace_id).await?;
        memberships::remove(&self.0, &granted, &r.workspace_id, &r.user_id).await?;
        Ok(Response::new(pb::RemoveMemberResponse {
            members: self.members(&r.workspace_id).await?,
        }))
    }

    async fn list_workspace_api_keys(
        &self,
        request: Request<pb::ListWorkspaceApiKeysRequest>,
    ) -> Result<Response<pb::ListWorkspaceApiKeysResponse>, Status> {
        let workspace_id = &request.get_ref().workspace_id;
        self.granted::<act::ManageKeys, _>(&request, workspace_id).await?;
        let keys = api_keys::list(&self.0.db, workspace_id).await?;
        let workspace = workspaces::get(&self.0.db, workspace_id).await?;
        Ok(Response::new(pb::ListWorkspaceApiKeysResponse {
            api_keys: keys.iter().map(key_out).collect(),
            offered_permissions: workspace
                .kind
                .permissions()
                .into_iter()
                .map(|p| p.as_str().to_owned())
                .collect(),
        }))
    }

    async fn create_workspace_api_key(
        &self,
        request: Request<pb::CreateWorkspaceApiKeyRequest>,
    ) -> Result<Response<pb::CreateWorkspaceApiKeyResponse>, Status> {
        let granted = self
            .granted::<act::ManageKeys, _>(&request, &request.get_ref().workspace_id)
            .await?;
        let r = request.into_inner();
        let new = NewApiKey {
            workspace_id: r.workspace_id,
            mode: mode_in(r.mode)?,
            label: r.label,
            permissions: permissions_in(&r.permissions)?,
            expiry: expiry_in(r.expiry)?,
        };
        let (key, secret) = api_keys::create(&self.0, &granted, new).await?;
        Ok(Response::new(pb::CreateWorkspaceApiKeyResponse {
            api_key: Some(key_out(&key)),
            secret,
        }))
    }

    async fn revoke_workspace_api_key(
        &self,
        request: Request<pb::RevokeWorkspaceApiKeyRequest>,
    ) -> Result<Response<pb::RevokeWorkspaceApiKeyResponse>, Status> {
        let r = request.get_ref();
        let granted = self.granted::<act::ManageKeys, _>(&request, &r.workspace_id).await?;
        let key = api_keys::revoke(&self.0, &granted, &r.api_key_id).await?;
        Ok(Response::new(pb::RevokeWorkspaceApiKeyResponse {
            api_key: Some(key_out(&key)),
        }))
    }

    async fn list_service_areas(
        &self,
        request: Request<pb::ListServiceAreasRequest>,
    ) -> Result<Response<pb::ListServiceAreasResponse>, Status> {
        caller::console(&request)?;
        Ok(Response::new(pb::ListServiceAreasResponse {
            service_areas: dispatch_map::areas(&self.0).into_iter().map(area_out).collect(),
        }))
    }
}
