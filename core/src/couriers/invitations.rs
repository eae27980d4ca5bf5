//! Courier invitation links: whoever manages a courier makes one (when
//! inviting them, or later for a courier who has not joined or forgot
//! their password) and sends it; opening it within 7 days, the courier sets
//! a password and is signed in (docs/couriers.md "A courier's life"). The
//! link itself (its token, its one use, its expiry) is
//! `courier_identity::invitations`'.

use sea_orm::ActiveValue::Set;

use super::{Courier, Fleet};
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::invitations::{self as links, LinkTable};
use courier_identity::sessions;
use courier_identity::workspaces;
use courier_store::db::WriteTransaction;

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

impl LinkTable for entity::Entity {
    courier_identity::link_columns!(entity::Column);
    // The courier is who accepts.
    const ACCEPTED_BY: Option<entity::Column> = None;
    const USED: &'static str = "This invitation link was already used; sign in, or ask for a new link.";
    const EXPIRED: &'static str = "This invitation link has expired; ask for a new one.";

    /// The courier who joins by the link.
    type Target = String;

    fn row(courier_id: String) -> entity::ActiveModel {
        entity::ActiveModel {
            courier_id: Set(courier_id),
            ..Default::default()
        }
    }
}

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
    let (token, _) = links::create::<entity::Entity>(core, &**tx, created_by, courier.id).await?;
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
    // A link pasted with the space around it still works.
    let row = links::open::<entity::Entity>(core, &core.db, token.trim()).await?;
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

/// Accepts the invitation of `token`: sets the courier's `password` (which
/// ends their other sessions) and signs them in; the link then stops
/// working.
pub async fn accept(core: &Core, token: &str, password: &str) -> CoreResult<(String, Courier)> {
    let token = token.trim();
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let row = links::open::<entity::Entity>(core, &*tx, token).await?;
    let courier = super::find(&*tx, &row.courier_id).await?;
    if super::Status::parse(&courier.status) == super::Status::Suspended {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            "This courier is suspended; ask whoever manages couriers to reactivate you first.",
        ));
    }
    let courier = super::set_password(core, &tx, &row.courier_id, password).await?;
    if !links::use_once::<entity::Entity>(&*tx, token, &courier.id, now).await? {
        return Err(CoreError::new(ErrorCode::NotFound, <entity::Entity as LinkTable>::USED));
    }
    let (session_token, session) = sessions::create(core, &*tx, courier).await?;
    tx.commit().await?;
    Ok((session_token, session.subject))
}
