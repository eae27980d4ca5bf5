//! The audit log (docs/access.md, "Audit"): every change made by the
//! platform's side (operators in the console, service systems, the
//! operator's command line) with who made it, what it was, in which
//! workspace, and when. An entry is written in the transaction of the
//! change it records (`access::Granted::record`, `auth::Principal::audit`):
//! both are kept or neither. Owns the `audit_log` table; entries are only
//! ever added.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, Condition, ConnectionTrait};

use crate::pagination::{self, Keyset};
use crate::{Core, CoreResult, ids};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "audit_log")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub created_at: i64,
        pub actor: String,
        pub action: String,
        pub workspace_id: Option<String>,
        pub target: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One change: `action` (such as `workspace.create`) on `target` (the id
/// changed), in `workspace_id` when it belongs to one.
pub struct Change<'a> {
    pub action: &'a str,
    pub workspace_id: Option<&'a str>,
    pub target: &'a str,
}

pub type Entry = entity::Model;

/// Records `change` made by `actor` (`operator:<email>`,
/// `service:<subject>`, `cli:<os user>`, …) now, on `tx`: the transaction
/// of the change itself.
pub async fn record(core: &Core, tx: &impl ConnectionTrait, actor: &str, change: Change<'_>) -> CoreResult<()> {
    core.faults.audit_write()?;
    let now = core.clock.now_micros();
    entity::ActiveModel {
        id: Set(ids::new_id("aud")),
        created_at: Set(now),
        actor: Set(actor.to_owned()),
        action: Set(change.action.to_owned()),
        workspace_id: Set(change.workspace_id.map(str::to_owned)),
        target: Set(change.target.to_owned()),
    }
    .insert(tx)
    .await?;
    Ok(())
}

/// The log, newest first, in keyset pages.
pub async fn list(core: &Core, page_size: i32, page_token: Option<&str>) -> CoreResult<(Vec<Entry>, Option<String>)> {
    let limit = pagination::page_size_of("page_size", page_size, 50, 100)?;
    Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first: true,
    }
    .page(core, "audit", Condition::all(), limit, page_token)
    .await
}
