//! The audit log (docs/console.md, "Back office"): every change made through
//! the internal admin and billing services, with who made it (an operator
//! signed in to the console, or a service system by its token's subject),
//! what it was, in which workspace, and when. Owns the `audit_log` table;
//! entries are only ever added.

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

/// Who made a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    /// A service system, by its token's subject.
    Service(String),
    /// An operator signed in to the console.
    Operator { email: String },
    /// A workspace's owner or admin signed in to the console.
    User { email: String },
    /// A courier in the courier app (moving their own job).
    Courier { id: String },
}

impl Actor {
    /// How the log and a board order's history name the actor.
    pub fn label(&self) -> String {
        match self {
            Actor::Service(subject) => format!("service:{subject}"),
            Actor::Operator { email } => format!("operator:{email}"),
            Actor::User { email } => format!("user:{email}"),
            Actor::Courier { id } => format!("courier:{id}"),
        }
    }
}

/// One change: `action` (such as `workspace.create`) on `target` (the id
/// changed), in `workspace_id` when it belongs to one.
pub struct Change<'a> {
    pub action: &'a str,
    pub workspace_id: Option<&'a str>,
    pub target: &'a str,
}

pub type Entry = entity::Model;

/// Records `change` made by `actor` at `now`.
pub async fn record(db: &impl ConnectionTrait, now: i64, actor: &Actor, change: Change<'_>) -> CoreResult<()> {
    entity::ActiveModel {
        id: Set(ids::new_id("aud")),
        created_at: Set(now),
        actor: Set(actor.label()),
        action: Set(change.action.to_owned()),
        workspace_id: Set(change.workspace_id.map(str::to_owned)),
        target: Set(change.target.to_owned()),
    }
    .insert(db)
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
