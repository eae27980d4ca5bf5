//! Console accounts (docs/console.md): users who sign in with an email and a
//! password, their memberships of workspaces with a role, sessions, and
//! invitation links.
//!
//! - this module: users (table `users`): create, find, passwords (argon2id,
//!   only the hash is stored);
//! - `memberships`: who belongs to which workspace as `owner`, `admin` or
//!   `member` (table `memberships`), and the last-owner rule;
//! - `sessions`: console users as `courier_identity::sessions` signs them in: by email, with
//!   12-hour sessions that carry a CSRF token (table `sessions`), and the
//!   change of password;
//! - `invitations`: links an owner or admin copies to let someone join
//!   (table `invitations`), made and used through `courier_identity::invitations`.

pub mod invitations;
pub mod memberships;
pub mod sessions;

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::access::{Granted, act};
use crate::passwords;
use crate::{CoreError, CoreResult, Identity, audit, text, workspaces};
use courier::errors::ErrorCode;
use memberships::Role;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        /// Lower case, unique.
        pub email: String,
        pub name: String,
        /// argon2id in PHC string form.
        pub password_hash: String,
        /// Operators manage workspaces, plans, billing and statements.
        pub operator: bool,
        pub created_at: i64,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A person who signs in to the console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
    pub operator: bool,
    pub created_at: i64,
}

/// A user to create.
pub struct NewUser {
    pub email: String,
    pub name: String,
    pub password: String,
    pub operator: bool,
}

/// Creates a user; an email already taken (also by a create at the same
/// moment) is `409 conflict`.
pub async fn create_user(db: &impl ConnectionTrait, now: i64, new: NewUser) -> CoreResult<User> {
    let email = normalized_email(&new.email)?;
    let name = new.name.trim();
    text::text_length("name", name, 1, 200)?;
    let password_hash = hash_password(&new.password, &[name, &email]).await?;
    let taken = || CoreError::at(ErrorCode::Conflict, "email", "A user with this email already exists.");
    if find_by_email(db, &email).await?.is_some() {
        return Err(taken());
    }
    let model = entity::ActiveModel {
        id: Set(courier_store::ids::new_id("usr")),
        email: Set(email),
        name: Set(name.to_owned()),
        password_hash: Set(password_hash),
        operator: Set(new.operator),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .map_err(|error| match error.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => taken(),
        _ => error.into(),
    })?;
    Ok(from_model(model))
}

/// Creates a user for the back office (`courier-core user create`, the
/// demo login), who joins `joins` (a workspace and role) if given: the
/// user, the membership and the audit entry in one transaction.
pub async fn create_for_operator(
    identity: &Identity,
    granted: &Granted<act::Administer>,
    new: NewUser,
    joins: Option<(&str, Role)>,
) -> CoreResult<User> {
    let now = identity.clock.now_micros();
    let tx = identity.begin().await?;
    if let Some((workspace_id, _)) = joins {
        workspaces::get(&*tx, workspace_id).await?;
    }
    let user = create_user(&*tx, now, new).await?;
    if let Some((workspace_id, role)) = joins {
        memberships::add(&*tx, now, workspace_id, &user.id, role).await?;
    }
    let change = audit::Change {
        action: "user.create",
        workspace_id: joins.map(|(workspace_id, _)| workspace_id),
        target: &user.id,
        courier_id: None,
    };
    granted.record(identity, &*tx, change).await?;
    tx.commit().await?;
    Ok(user)
}

pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<User> {
    entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .map(from_model)
        .ok_or_else(|| CoreError::not_found("user"))
}

pub(crate) async fn find_by_email(db: &impl ConnectionTrait, email: &str) -> CoreResult<Option<entity::Model>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::Email.eq(email.trim().to_lowercase()))
        .one(db)
        .await?)
}

/// The user of `email` when `password` is theirs. An unknown email is
/// checked against a decoy hash, so it costs as long as a wrong password.
pub(crate) async fn user_with_password(
    db: &impl ConnectionTrait,
    email: &str,
    password: &str,
) -> CoreResult<Option<entity::Model>> {
    let user = find_by_email(db, email).await?;
    let hash = user.as_ref().map(|u| u.password_hash.clone());
    let matches = verify_password(password.to_owned(), hash).await?;
    Ok(user.filter(|_| matches))
}

/// The users of `ids` (unknown ids left out), in one read.
pub(crate) async fn get_many(db: &impl ConnectionTrait, ids: Vec<String>) -> CoreResult<Vec<User>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// Changes a user's password once the current one is confirmed.
pub(crate) async fn set_password(db: &impl ConnectionTrait, now: i64, user_id: &str, password: &str) -> CoreResult<()> {
    let user = entity::Entity::find_by_id(user_id).one(db).await?;
    let context: Vec<&str> = user.iter().flat_map(|u| [u.name.as_str(), u.email.as_str()]).collect();
    let password_hash = hash_password(password, &context).await?;
    entity::ActiveModel {
        id: Set(user_id.to_owned()),
        password_hash: Set(password_hash),
        updated_at: Set(now),
        ..Default::default()
    }
    .update(db)
    .await?;
    Ok(())
}

/// An email as stored: trimmed, lower case, and a plausible address.
fn normalized_email(email: &str) -> CoreResult<String> {
    let email = email.trim().to_lowercase();
    text::email("email", &email)?;
    Ok(email)
}

/// The argon2id hash of `password`, once it passes the rule that couriers'
/// passwords pass too (`passwords::check`: length, not common, not the
/// user's own `context` words).
async fn hash_password(password: &str, context: &[&str]) -> CoreResult<String> {
    passwords::check(password, context)?;
    passwords::hash(password).await
}

/// Whether `password` matches the stored `hash` (`None`: the email is
/// unknown; `passwords` checks a decoy so that it costs as long).
async fn verify_password(password: String, hash: Option<String>) -> CoreResult<bool> {
    passwords::verify(&password, hash.as_deref()).await
}

fn from_model(model: entity::Model) -> User {
    User {
        id: model.id,
        email: model.email,
        name: model.name,
        operator: model.operator,
        created_at: model.created_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn passwords_hash_with_argon2id_and_verify() {
        async fn hash_of(password: &str) -> CoreResult<String> {
            hash_password(password, &[]).await
        }
        let verify = |password: &str, hash: &str| verify_password(password.to_owned(), Some(hash.to_owned()));
        let hash = hash_of("correct horse battery").await.expect("hash");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify("correct horse battery", &hash).await.expect("verified"));
        assert!(!verify("correct horse battery!", &hash).await.expect("verified"));
        assert_ne!(hash, hash_of("correct horse battery").await.expect("hash"), "salted");
        assert!(hash_of("short").await.is_err());
        assert!(hash_of("password1234").await.is_err(), "a common one");
        assert!(hash_of("ada.lovelace").await.is_ok());
        assert!(
            hash_password("lovelace2026", &["Ada Lovelace", "ada@example.com"])
                .await
                .is_err(),
            "their name"
        );
        assert!(!verify("anything", "not a hash").await.expect("verified"));
        assert!(
            !verify_password("anything".into(), None).await.expect("verified"),
            "the decoy"
        );
    }
}
