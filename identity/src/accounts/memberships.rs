//! Who belongs to which workspace, and as what. Owners and admins manage
//! keys, webhooks and members; members read. A workspace keeps at least one
//! owner: the last one can be neither removed nor demoted.

use std::collections::HashMap;

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::User;
pub use crate::access::Role;
use crate::access::{Granted, act};
use crate::{CoreError, CoreResult, Identity, audit, workspaces};
use courier::errors::ErrorCode;
use courier_store::db::WriteTransaction;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "memberships")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub workspace_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: String,
        pub role: String,
        pub created_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A user's place in a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub workspace_id: String,
    pub workspace_name: String,
    pub workspace_kind: workspaces::WorkspaceKind,
    pub role: Role,
}

/// A workspace's member, as the members page lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub user: User,
    pub role: Role,
    pub since: i64,
}

/// Adds `user_id` to `workspace_id` with `role` (or changes nothing when
/// already a member).
pub async fn add(db: &impl ConnectionTrait, now: i64, workspace_id: &str, user_id: &str, role: Role) -> CoreResult<()> {
    workspaces::get(db, workspace_id).await?;
    if find(db, workspace_id, user_id).await?.is_some() {
        return Ok(());
    }
    entity::ActiveModel {
        workspace_id: Set(workspace_id.to_owned()),
        user_id: Set(user_id.to_owned()),
        role: Set(role.as_str().to_owned()),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// The role of `user_id` in `workspace_id`, if a member.
pub async fn role_of(db: &impl ConnectionTrait, workspace_id: &str, user_id: &str) -> CoreResult<Option<Role>> {
    find(db, workspace_id, user_id)
        .await?
        .map(|model| parse_role(&model.role))
        .transpose()
}

/// The workspaces `user_id` belongs to, by name.
pub async fn of_user(db: &impl ConnectionTrait, user_id: &str) -> CoreResult<Vec<Membership>> {
    let rows = entity::Entity::find()
        .filter(entity::Column::UserId.eq(user_id))
        .all(db)
        .await?;
    let workspaces: HashMap<String, workspaces::Workspace> =
        workspaces::get_many(db, rows.iter().map(|r| r.workspace_id.clone()).collect())
            .await?
            .into_iter()
            .map(|w| (w.id.clone(), w))
            .collect();
    let mut memberships = rows
        .into_iter()
        .filter_map(|row| {
            let workspace = workspaces.get(&row.workspace_id)?;
            Some(parse_role(&row.role).map(|role| Membership {
                workspace_name: workspace.name.clone(),
                workspace_kind: workspace.kind,
                workspace_id: row.workspace_id,
                role,
            }))
        })
        .collect::<CoreResult<Vec<_>>>()?;
    memberships.sort_by(|a, b| a.workspace_name.cmp(&b.workspace_name));
    Ok(memberships)
}

/// The members of `workspace_id`, oldest first.
pub async fn list(db: &impl ConnectionTrait, workspace_id: &str) -> CoreResult<Vec<Member>> {
    let rows = entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .order_by_asc(entity::Column::CreatedAt)
        .all(db)
        .await?;
    let mut users: HashMap<String, User> = super::get_many(db, rows.iter().map(|r| r.user_id.clone()).collect())
        .await?
        .into_iter()
        .map(|user| (user.id.clone(), user))
        .collect();
    let mut members = Vec::with_capacity(rows.len());
    for row in rows {
        let user = users
            .remove(&row.user_id)
            .ok_or_else(|| CoreError::Internal(format!("member {} has no user", row.user_id)))?;
        members.push(Member {
            user,
            role: parse_role(&row.role)?,
            since: row.created_at,
        });
    }
    Ok(members)
}

/// Gives `user_id` the role `role` in the workspace, with its audit entry;
/// the last owner keeps the role.
pub async fn change_role(
    identity: &Identity,
    granted: &Granted<act::ManageMembers>,
    workspace_id: &str,
    user_id: &str,
    role: Role,
) -> CoreResult<()> {
    let tx = identity.begin().await?;
    workspaces::get_for_update(&tx, workspace_id).await?;
    let current = role_of(&*tx, workspace_id, user_id)
        .await?
        .ok_or_else(|| CoreError::not_found("member"))?;
    if current == Role::Owner && role != Role::Owner {
        ensure_another_owner(&tx, workspace_id, user_id).await?;
    }
    entity::ActiveModel {
        workspace_id: Set(workspace_id.to_owned()),
        user_id: Set(user_id.to_owned()),
        role: Set(role.as_str().to_owned()),
        ..Default::default()
    }
    .update(&*tx)
    .await?;
    granted
        .record(identity, &*tx, change("member.change_role", workspace_id, user_id))
        .await?;
    tx.commit().await
}

/// Removes `user_id` from the workspace, with its audit entry; the last
/// owner stays.
pub async fn remove(
    identity: &Identity,
    granted: &Granted<act::ManageMembers>,
    workspace_id: &str,
    user_id: &str,
) -> CoreResult<()> {
    let tx = identity.begin().await?;
    workspaces::get_for_update(&tx, workspace_id).await?;
    let current = role_of(&*tx, workspace_id, user_id)
        .await?
        .ok_or_else(|| CoreError::not_found("member"))?;
    if current == Role::Owner {
        ensure_another_owner(&tx, workspace_id, user_id).await?;
    }
    entity::Entity::delete_by_id((workspace_id.to_owned(), user_id.to_owned()))
        .exec(&*tx)
        .await?;
    granted
        .record(identity, &*tx, change("member.remove", workspace_id, user_id))
        .await?;
    tx.commit().await
}

/// The audit entry of a change of member `user_id` of `workspace_id`.
fn change<'a>(action: &'a str, workspace_id: &'a str, user_id: &'a str) -> audit::Change<'a> {
    audit::Change {
        action,
        workspace_id: Some(workspace_id),
        target: user_id,
        courier_id: None,
    }
}

/// The workspace has an owner besides `user_id` (checked under the
/// workspace's row lock, so two demotions cannot leave none).
async fn ensure_another_owner(tx: &WriteTransaction, workspace_id: &str, user_id: &str) -> CoreResult<()> {
    let other_owner = entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .filter(entity::Column::Role.eq(Role::Owner.as_str()))
        .filter(entity::Column::UserId.ne(user_id))
        .one(&**tx)
        .await?;
    if other_owner.is_none() {
        return Err(CoreError::new(
            ErrorCode::LastOwner,
            "A workspace keeps at least one owner: make another member owner first.",
        ));
    }
    Ok(())
}

async fn find(db: &impl ConnectionTrait, workspace_id: &str, user_id: &str) -> CoreResult<Option<entity::Model>> {
    Ok(
        entity::Entity::find_by_id((workspace_id.to_owned(), user_id.to_owned()))
            .one(db)
            .await?,
    )
}

fn parse_role(text: &str) -> CoreResult<Role> {
    Role::parse(text).ok_or_else(|| CoreError::Internal(format!("unknown role {text}")))
}
