//! Invitation links: an owner or admin creates one for a role and copies the
//! link (no mail server needed); whoever opens it within 7 days joins the
//! workspace, with a new account or by signing in to theirs
//! (docs/console.md "Invitations"). The link itself (its token, its one
//! use, its expiry) is `courier_identity::invitations`'.

use super::memberships::{self, Role};
use super::{NewUser, User};
use crate::access::{Granted, act};
use crate::invitations::{self as links, LinkTable};
use crate::sessions;
use crate::{CoreError, CoreResult, Identity, audit, workspaces};
use sea_orm::ActiveValue::Set;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "invitations")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub token_hash: String,
        pub workspace_id: String,
        pub role: String,
        pub created_by: String,
        pub created_at: i64,
        pub expires_at: i64,
        pub accepted_by: Option<String>,
        pub accepted_at: Option<i64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

impl LinkTable for entity::Entity {
    crate::link_columns!(entity::Column);
    const ACCEPTED_BY: Option<entity::Column> = Some(entity::Column::AcceptedBy);
    const USED: &'static str =
        "This invitation link was already used: it works once. Ask the workspace's owner for a new one.";
    const EXPIRED: &'static str =
        "This invitation link has expired: it works for 7 days. Ask the workspace's owner for a new one.";

    /// The workspace and the role the link joins as.
    type Target = (String, Role);

    fn row((workspace_id, role): (String, Role)) -> entity::ActiveModel {
        entity::ActiveModel {
            workspace_id: Set(workspace_id),
            role: Set(role.as_str().to_owned()),
            ..Default::default()
        }
    }
}

/// An invitation the link names, before it is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub workspace_id: String,
    pub workspace_name: String,
    pub role: Role,
    pub expires_at: i64,
}

/// Creates an invitation to `workspace_id` as `role` by the user
/// `created_by`, with its audit entry; the link's token, shown once.
pub async fn create(
    identity: &Identity,
    granted: &Granted<act::ManageMembers>,
    workspace_id: &str,
    role: Role,
    created_by: &str,
) -> CoreResult<(String, Invitation)> {
    let tx = identity.begin().await?;
    let workspace = workspaces::get(&*tx, workspace_id).await?;
    let (token, expires_at) =
        links::create::<entity::Entity>(identity, &*tx, created_by, (workspace.id.clone(), role)).await?;
    let change = audit::Change {
        action: "invitation.create",
        workspace_id: Some(&workspace.id),
        target: role.as_str(),
        courier_id: None,
    };
    granted.record(identity, &*tx, change).await?;
    tx.commit().await?;
    let invitation = Invitation {
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        role,
        expires_at,
    };
    Ok((token, invitation))
}

/// The open invitation of `token`; `404 not_found` when unknown, used or
/// expired, saying which, so that the person holding the link knows to ask
/// for a new one.
pub async fn get(identity: &Identity, token: &str) -> CoreResult<Invitation> {
    let row = links::open::<entity::Entity>(identity, &identity.db, token).await?;
    let workspace = workspaces::get(&identity.db, &row.workspace_id).await?;
    Ok(Invitation {
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        role: Role::parse(&row.role).ok_or_else(|| CoreError::Internal(format!("unknown role {}", row.role)))?,
        expires_at: row.expires_at,
    })
}

/// Who accepts: someone new, or a user proving their password.
pub enum Joiner {
    New(NewUser),
    /// From the client `address`: wrong passwords count towards the sign-in
    /// throttle, as on the sign-in form.
    Existing {
        email: String,
        password: String,
        address: String,
    },
}

/// Accepts the invitation of `token`: the joiner becomes a member with the
/// invitation's role, and the link stops working.
pub async fn accept(identity: &Identity, token: &str, joiner: Joiner) -> CoreResult<User> {
    let invitation = get(identity, token).await?;
    let existing = match joiner {
        Joiner::Existing {
            email,
            password,
            address,
        } => Ok(sessions::check_password::<User>(identity, &email, &password, &address).await?),
        Joiner::New(new) => Err(new),
    };
    let now = identity.clock.now_micros();
    let tx = identity.begin().await?;
    let user = match existing {
        Ok(user) => user,
        Err(new) => super::create_user(&*tx, now, new).await?,
    };
    if !links::use_once::<entity::Entity>(&*tx, token, &user.id, now).await? {
        return Err(CoreError::not_found("invitation"));
    }
    memberships::add(&*tx, now, &invitation.workspace_id, &user.id, invitation.role).await?;
    tx.commit().await?;
    Ok(user)
}
