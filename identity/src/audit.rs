//! The audit log (docs/access.md, "Audit"): every change made by the
//! platform's side (operators in the console, service systems, the
//! operator's command line) with who made it, what it was, in which
//! workspace, and when. An entry is written in the transaction of the
//! change it records (`access::Granted::record`, `auth::Principal::audit`):
//! both are kept or neither. Owns the `audit_log` table; entries are only
//! ever added. An entry about a courier keeps the courier's id; their name
//! is read with the log (`courier_core::audit_log`), so it is the name they
//! have now.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, Condition, ConnectionTrait};

use courier_store::ids;
use courier_store::pagination::{self, Keyset};
use courier_store::{CoreResult, Store};

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
        /// The courier the change is about (a courier's own change, a job
        /// given to or taken back from them).
        pub courier_id: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One change: `action` (such as `workspace.create`) on `target` (the id
/// changed), in `workspace_id` when it belongs to one, about `courier_id`
/// when it concerns a courier.
pub struct Change<'a> {
    pub action: &'a str,
    pub workspace_id: Option<&'a str>,
    pub target: &'a str,
    pub courier_id: Option<&'a str>,
}

pub type Entry = entity::Model;

/// Records `change` made by `actor` (`operator:<email>`,
/// `service:<subject>`, `cli:<os user>`, …) now, on `tx`: the transaction
/// of the change itself.
pub async fn record(store: &Store, tx: &impl ConnectionTrait, actor: &str, change: Change<'_>) -> CoreResult<()> {
    store.faults.audit_write()?;
    let now = store.clock.now_micros();
    entity::ActiveModel {
        id: Set(ids::new_id("aud")),
        created_at: Set(now),
        actor: Set(actor.to_owned()),
        action: Set(change.action.to_owned()),
        workspace_id: Set(change.workspace_id.map(str::to_owned)),
        target: Set(change.target.to_owned()),
        courier_id: Set(change.courier_id.map(str::to_owned)),
    }
    .insert(tx)
    .await?;
    Ok(())
}

/// The courier `entry` is about: the one it names, or, for a courier's own
/// change written before entries named one, its target.
pub fn courier_of(entry: &Entry) -> Option<&str> {
    entry
        .courier_id
        .as_deref()
        .or_else(|| entry.action.starts_with("courier.").then_some(entry.target.as_str()))
}

/// The log, newest first, in keyset pages (`listing::list` adds the
/// couriers' names).
pub async fn page(store: &Store, page_size: i32, page_token: Option<&str>) -> CoreResult<(Vec<Entry>, Option<String>)> {
    let limit = pagination::page_size_of("page_size", page_size, 50, 100)?;
    Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first: true,
    }
    .page(&store.pages, "audit", Condition::all(), limit, page_token)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(action: &str, target: &str, courier_id: Option<&str>) -> Entry {
        Entry {
            id: "aud_1".into(),
            created_at: 0,
            actor: "operator:ops@example.com".into(),
            action: action.into(),
            workspace_id: None,
            target: target.into(),
            courier_id: courier_id.map(str::to_owned),
        }
    }

    #[test]
    fn an_entry_names_the_courier_it_is_about() {
        assert_eq!(courier_of(&entry("job.assign", "del_1", Some("cou_1"))), Some("cou_1"));
        // A courier's own change written before entries named one.
        assert_eq!(courier_of(&entry("courier.suspend", "cou_2", None)), Some("cou_2"));
        assert_eq!(courier_of(&entry("workspace.create", "wks_1", None)), None);
    }
}
