//! Courier invitation links: whoever manages a courier makes one (when
//! inviting them, or later for a courier who has not joined or forgot
//! their password) and sends it; opening it within 7 days, the courier sets
//! a password and is signed in. Only the SHA-256 of the link's token is
//! stored, and a link works once.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::{Courier, Fleet, sessions};
use crate::db::WriteTransaction;
use crate::secrets::sha256_hex;
use crate::{Core, CoreError, CoreResult, db, ids, workspaces};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_invitations")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub token_hash: String,
        pub courier_id: String,
        /// Who made it, as the audit log names actors.
        pub created_by: String,
        pub created_at: i64,
        pub expires_at: i64,
        pub accepted_at: Option<i64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// How long a link works.
pub const VALID_MICROS: i64 = 7 * 86_400_000_000;

/// What an open link shows before it is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub courier: Courier,
    /// The fleet's name for a driver; `None` for a platform courier.
    pub fleet_name: Option<String>,
    pub expires_at: i64,
}

/// A new link for courier `courier_id`, made by `created_by`, in `tx`: the
/// link's URL, shown once.
pub async fn create(core: &Core, tx: &WriteTransaction, courier_id: &str, created_by: &str) -> CoreResult<String> {
    let courier = super::get(&**tx, courier_id).await?;
    let now = core.clock.now_micros();
    let token = ids::random_base62(32);
    entity::ActiveModel {
        token_hash: Set(sha256_hex(token.as_bytes())),
        courier_id: Set(courier.id),
        created_by: Set(created_by.to_owned()),
        created_at: Set(now),
        expires_at: Set(now + VALID_MICROS),
        accepted_at: Set(None),
    }
    .insert(&**tx)
    .await?;
    Ok(link(core, &token))
}

/// The courier app's page for `token`.
pub fn link(core: &Core, token: &str) -> String {
    format!(
        "{}/courier/join/{token}",
        core.config.public_base_url.trim_end_matches('/')
    )
}

/// The open invitation of `token`: `404 not_found` when unknown, used or
/// expired, with a message saying which.
pub async fn get(core: &Core, token: &str) -> CoreResult<Invitation> {
    let row = open(core, &core.db, token).await?;
    let courier = super::get(&core.db, &row.courier_id).await?;
    let fleet_name = match &courier.fleet {
        Fleet::Platform => None,
        Fleet::Workspace(id) => Some(workspaces::get(&core.db, id).await?.name),
    };
    Ok(Invitation {
        courier,
        fleet_name,
        expires_at: row.expires_at,
    })
}

/// Accepts the invitation of `token`: sets the courier's `password` and
/// signs them in from `address`. The link's use is a compare-and-set, so a
/// link accepted twice at once works once.
pub async fn accept(core: &Core, token: &str, password: &str) -> CoreResult<(String, Courier)> {
    let now = core.clock.now_micros();
    let tx = db::begin(core).await?;
    let row = open(core, &*tx, token).await?;
    let courier = super::find(&*tx, &row.courier_id).await?;
    if super::Status::parse(&courier.status) == super::Status::Suspended {
        return Err(CoreError::new(
            courier::errors::ErrorCode::Conflict,
            "This courier is suspended; ask whoever manages couriers to reactivate you first.",
        ));
    }
    let courier = super::set_password(core, &tx, &row.courier_id, password).await?;
    let used = entity::Entity::update_many()
        .col_expr(entity::Column::AcceptedAt, Expr::value(now))
        .filter(entity::Column::TokenHash.eq(&row.token_hash))
        .filter(entity::Column::AcceptedAt.is_null())
        .exec(&*tx)
        .await?;
    if used.rows_affected != 1 {
        return Err(used_link());
    }
    let session_token = sessions::create(core, &tx, &courier.id).await?;
    tx.commit().await?;
    Ok((session_token, courier))
}

async fn open(core: &Core, db: &impl sea_orm::ConnectionTrait, token: &str) -> CoreResult<entity::Model> {
    let row = entity::Entity::find_by_id(sha256_hex(token.trim().as_bytes()))
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("invitation"))?;
    if row.accepted_at.is_some() {
        return Err(used_link());
    }
    if row.expires_at <= core.clock.now_micros() {
        return Err(CoreError::new(
            courier::errors::ErrorCode::NotFound,
            "This invitation link has expired; ask for a new one.",
        ));
    }
    Ok(row)
}

fn used_link() -> CoreError {
    CoreError::new(
        courier::errors::ErrorCode::NotFound,
        "This invitation link was already used; sign in, or ask for a new link.",
    )
}
