//! A board order's history (docs/console.md, "Fleet dispatch board"): every
//! move a dispatcher made, written in the transaction of the move itself, so
//! the history and the order's status never disagree. Owns the
//! `fleet_order_moves` table; rows are only ever added.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::lifecycle::Status;
use crate::{CoreError, CoreResult};
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "fleet_order_moves")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        /// The public fleet order (`flo_…`).
        pub fleet_order_id: String,
        pub from_status: String,
        pub to_status: String,
        /// Who moved it, as the audit log names callers.
        pub actor: String,
        pub moved_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One move of a board order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: Status,
    pub to: Status,
    /// Who moved it (`user:<email>`, `operator:<email>`, `service:<subject>`).
    pub actor: String,
    pub moved_at: i64,
}

/// Records that `actor` moved fleet order `fleet_order_id` from `from` to
/// `to` at `now`, in the move's own transaction `db`.
pub async fn record(
    db: &impl ConnectionTrait,
    fleet_order_id: &str,
    (from, to): (Status, Status),
    actor: &str,
    now: i64,
) -> CoreResult<()> {
    entity::ActiveModel {
        id: Set(ids::new_id("mov")),
        fleet_order_id: Set(fleet_order_id.to_owned()),
        from_status: Set(from.as_str().to_owned()),
        to_status: Set(to.as_str().to_owned()),
        actor: Set(actor.to_owned()),
        moved_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// Every move of fleet order `fleet_order_id`, oldest first. An order moves
/// at most once per status (docs/guide.md "Delivery states"), so the history
/// is short.
pub async fn history(db: &impl ConnectionTrait, fleet_order_id: &str) -> CoreResult<Vec<Move>> {
    entity::Entity::find()
        .filter(entity::Column::FleetOrderId.eq(fleet_order_id))
        .order_by_asc(entity::Column::MovedAt)
        .order_by_asc(entity::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|model| {
            let status = |name: &str| {
                Status::parse(name)
                    .ok_or_else(|| CoreError::Internal(format!("move {} has a corrupt status", model.id)))
            };
            Ok(Move {
                from: status(&model.from_status)?,
                to: status(&model.to_status)?,
                actor: model.actor.clone(),
                moved_at: model.moved_at,
            })
        })
        .collect()
}
