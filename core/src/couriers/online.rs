//! When couriers were online (docs/reports.md "Courier hours"): a period
//! opened when a courier goes online and closed when they go offline or are
//! suspended, in the change's transaction; the courier report reads them.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::{Availability, Fleet};
use crate::CoreResult;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_online_periods")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        /// The fleet workspace's id; empty for the platform's couriers.
        pub fleet: String,
        pub started_at: i64,
        pub ended_at: Option<i64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The key of `fleet` in the table.
pub fn fleet_key(fleet: &Fleet) -> &str {
    fleet.workspace_id().unwrap_or_default()
}

/// Courier `courier_id` of `fleet` is now `availability` (it was `was`):
/// a period opens or the open one closes at `now`.
pub async fn went(
    db: &impl ConnectionTrait,
    courier_id: &str,
    fleet: &Fleet,
    was: Availability,
    availability: Availability,
    now: i64,
) -> CoreResult<()> {
    match (was, availability) {
        (Availability::Offline, Availability::Online) => {
            let period = entity::ActiveModel {
                id: Set(courier_store::ids::new_id("cop")),
                courier_id: Set(courier_id.to_owned()),
                fleet: Set(fleet_key(fleet).to_owned()),
                started_at: Set(now),
                ended_at: Set(None),
            };
            entity::Entity::insert(period).exec(db).await?;
        }
        (Availability::Online, Availability::Offline) => close(db, courier_id, now).await?,
        _ => {}
    }
    Ok(())
}

/// Closes courier `courier_id`'s open period at `now`, if any.
pub async fn close(db: &impl ConnectionTrait, courier_id: &str, now: i64) -> CoreResult<()> {
    entity::Entity::update_many()
        .col_expr(entity::Column::EndedAt, Expr::value(now))
        .filter(entity::Column::CourierId.eq(courier_id))
        .filter(entity::Column::EndedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

/// The periods of `fleet`'s couriers that overlap `[from, to)`.
pub async fn overlapping(
    db: &impl ConnectionTrait,
    fleet: &Fleet,
    from: i64,
    to: i64,
) -> CoreResult<Vec<entity::Model>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::Fleet.eq(fleet_key(fleet)))
        .filter(entity::Column::StartedAt.lt(to))
        .filter(entity::Column::EndedAt.is_null().or(entity::Column::EndedAt.gt(from)))
        .all(db)
        .await?)
}
