//! Invitation links: an owner or admin creates one for a role and copies the
//! link (no mail server needed); whoever opens it within 7 days joins the
//! workspace, with a new account or by signing in to theirs. Only the
//! SHA-256 of the link's token is stored, and a link works once.

use super::memberships::{self, Role};
use super::{NewUser, User, sessions};
use crate::access::{Granted, act};
use crate::secrets::sha256_hex;
use crate::{Core, CoreError, CoreResult, audit, db, ids, workspaces};
use courier::errors::ErrorCode;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

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

/// How long a link works.
pub const VALID_MICROS: i64 = 7 * 86_400_000_000;

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
    core: &Core,
    granted: &Granted<act::ManageMembers>,
    workspace_id: &str,
    role: Role,
    created_by: &str,
) -> CoreResult<(String, Invitation)> {
    let now = core.clock.now_micros();
    let token = ids::random_base62(32);
    let tx = db::begin(core).await?;
    let workspace = workspaces::get(&*tx, workspace_id).await?;
    entity::ActiveModel {
        token_hash: Set(sha256_hex(token.as_bytes())),
        workspace_id: Set(workspace.id.clone()),
        role: Set(role.as_str().to_owned()),
        created_by: Set(created_by.to_owned()),
        created_at: Set(now),
        expires_at: Set(now + VALID_MICROS),
        accepted_by: Set(None),
        accepted_at: Set(None),
    }
    .insert(&*tx)
    .await?;
    let change = audit::Change {
        action: "invitation.create",
        workspace_id: Some(&workspace.id),
        target: role.as_str(),
        courier_id: None,
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    let invitation = Invitation {
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        role,
        expires_at: now + VALID_MICROS,
    };
    Ok((token, invitation))
}

/// The open invitation of `token`; `404 not_found` when unknown, used or
/// expired, saying which, so that the person holding the link knows to ask
/// for a new one.
pub async fn get(core: &Core, token: &str) -> CoreResult<Invitation> {
    let row = open(core, token).await?;
    let workspace = workspaces::get(&core.db, &row.workspace_id).await?;
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
pub async fn accept(core: &Core, token: &str, joiner: Joiner) -> CoreResult<User> {
    let invitation = get(core, token).await?;
    let existing = match joiner {
        Joiner::Existing {
            email,
            password,
            address,
        } => Ok(super::from_model(
            sessions::check_password(core, &email, &password, &address).await?,
        )),
        Joiner::New(new) => Err(new),
    };
    let now = core.clock.now_micros();
    let tx = db::begin(core).await?;
    let user = match existing {
        Ok(user) => user,
        Err(new) => super::create_user(&*tx, now, new).await?,
    };
    let used = entity::Entity::update_many()
        .col_expr(entity::Column::AcceptedBy, Expr::value(user.id.clone()))
        .col_expr(entity::Column::AcceptedAt, Expr::value(now))
        .filter(entity::Column::TokenHash.eq(sha256_hex(token.as_bytes())))
        .filter(entity::Column::AcceptedAt.is_null())
        .exec(&*tx)
        .await?;
    if used.rows_affected != 1 {
        return Err(CoreError::not_found("invitation"));
    }
    memberships::add(&*tx, now, &invitation.workspace_id, &user.id, invitation.role).await?;
    tx.commit().await?;
    Ok(user)
}

async fn open(core: &Core, token: &str) -> CoreResult<entity::Model> {
    let now = core.clock.now_micros();
    let row = entity::Entity::find_by_id(sha256_hex(token.as_bytes()))
        .one(&core.db)
        .await?
        .ok_or_else(|| CoreError::not_found("invitation"))?;
    if row.accepted_at.is_some() {
        return Err(CoreError::new(
            ErrorCode::NotFound,
            "This invitation link was already used: it works once. Ask the workspace's owner for a new one.",
        ));
    }
    if now >= row.expires_at {
        return Err(CoreError::new(
            ErrorCode::NotFound,
            "This invitation link has expired: it works for 7 days. Ask the workspace's owner for a new one.",
        ));
    }
    Ok(row)
}
