//! Console accounts (docs/console.md): users who sign in with an email and a
//! password, their memberships of workspaces with a role, sessions, and
//! invitation links.
//!
//! - this module: users (table `users`): create, find, passwords (argon2id,
//!   only the hash is stored);
//! - `memberships`: who belongs to which workspace as `owner`, `admin` or
//!   `member` (table `memberships`), and the last-owner rule;
//! - `sessions`: sign-in (throttled per email and per address), sessions
//!   with an idle expiry and a CSRF token, sign-out (table `sessions`,
//!   `sign_in_failures`);
//! - `invitations`: links an owner or admin copies to let someone join
//!   (table `invitations`).

pub mod invitations;
pub mod memberships;
pub mod sessions;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::RngCore;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::{CoreError, CoreResult, validate};
use courier::errors::ErrorCode;

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

/// The shortest and longest password accepted.
pub const PASSWORD_CHARS: (usize, usize) = (10, 200);

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

/// Creates a user; an email already taken is `409 conflict`.
pub async fn create_user(db: &impl ConnectionTrait, now: i64, new: NewUser) -> CoreResult<User> {
    let email = normalized_email(&new.email)?;
    let name = new.name.trim();
    validate::text_length("name", name, 1, 200)?;
    let password_hash = hash_password(&new.password)?;
    if find_by_email(db, &email).await?.is_some() {
        return Err(CoreError::at(
            ErrorCode::Conflict,
            "email",
            "A user with this email already exists.",
        ));
    }
    let model = entity::ActiveModel {
        id: Set(crate::ids::new_id("usr")),
        email: Set(email),
        name: Set(name.to_owned()),
        password_hash: Set(password_hash),
        operator: Set(new.operator),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(from_model(model))
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
    let hash = user.as_ref().map_or(decoy_hash(), |u| u.password_hash.as_str());
    let matches = verify_password(password, hash);
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
    let password_hash = hash_password(password)?;
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
    validate::email("email", &email)?;
    Ok(email)
}

/// The argon2id hash of `password` (10 to 200 characters) with a fresh
/// random salt, in PHC string form.
fn hash_password(password: &str) -> CoreResult<String> {
    let (min, max) = PASSWORD_CHARS;
    let chars = password.chars().count();
    if chars < min || chars > max {
        return Err(CoreError::invalid(
            "password",
            format!("password must be {min} to {max} characters."),
        ));
    }
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| CoreError::Internal(format!("salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| CoreError::Internal(format!("password hash: {e}")))
}

/// Whether `password` matches the stored `hash`.
fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A hash to check a password against when the email is unknown, so that a
/// wrong email costs as long as a wrong password.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password("decoy password that matches nothing").unwrap_or_default())
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

    #[test]
    fn passwords_hash_with_argon2id_and_verify() {
        let hash = hash_password("correct horse battery").expect("hash");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password("correct horse battery", &hash));
        assert!(!verify_password("correct horse battery!", &hash));
        assert_ne!(hash, hash_password("correct horse battery").expect("hash"), "salted");
        assert!(hash_password("short").is_err());
        assert!(!verify_password("anything", "not a hash"));
    }
}
