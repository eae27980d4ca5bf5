//! Couriers' routes (docs/guide.md "Several jobs per courier"): the order
//! of the stops of the jobs each courier holds. Owns `courier_routes`;
//! `plan` orders stops and checks an order's rules.
//!
//! Which jobs a courier holds is `assignments`' (the open assignments);
//! a route row keeps the order the core planned or the courier chose, and
//! each held job's dropoff as committed when the courier took it (what
//! later insertions may delay by at most `COURIER_BATCH_MAX_DELAY`). The
//! row is also the courier's lock: every assignment takes it first
//! ([`lock`]), so that two replicas never both give a courier a job past
//! their vehicle's limits.

pub mod plan;

use std::collections::{BTreeMap, HashMap};

use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};

use crate::validate::WaypointInput;
use crate::{CoreError, CoreResult};
use courier_store::db::WriteTransaction;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_routes")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub courier_id: String,
        /// The [`super::Route`] as JSON.
        pub stops: String,
        pub planned_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Which end of a job a stop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    Pickup,
    Dropoff,
}

impl StopKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StopKind::Pickup => "pickup",
            StopKind::Dropoff => "dropoff",
        }
    }
}

/// One stop of a route.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stop {
    pub job_id: String,
    pub kind: StopKind,
}

/// A stop as the courier is shown it: where, and when they will be there
/// (`None` when no route leads there).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Visit {
    pub job_id: String,
    pub kind: StopKind,
    pub place: WaypointInput,
    pub eta: Option<i64>,
}

/// A courier's route as kept: the stops still to do in order, and each
/// held job's committed dropoff (Unix microseconds).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    #[serde(default)]
    pub stops: Vec<Stop>,
    #[serde(default)]
    pub committed: BTreeMap<String, i64>,
}

/// Takes courier `courier_id`'s route row for the rest of `tx` (creating
/// it, empty, the first time) and reads it: on PostgreSQL the upsert holds
/// the row's lock until `tx` ends, so assignments to one courier take
/// turns on every replica; on SQLite the one writer does.
pub async fn lock(tx: &WriteTransaction, courier_id: &str, now: i64) -> CoreResult<Route> {
    use entity::Column as C;
    let row = entity::Entity::insert(row(courier_id, "{}".to_owned(), now))
        .on_conflict(OnConflict::column(C::CourierId).update_column(C::CourierId).to_owned())
        .exec_with_returning(&**tx)
        .await?;
    parse(courier_id, &row.stops)
}

/// Courier `courier_id`'s route as kept (empty when none).
pub async fn read(db: &impl ConnectionTrait, courier_id: &str) -> CoreResult<Route> {
    match entity::Entity::find_by_id(courier_id.to_owned()).one(db).await? {
        Some(row) => parse(courier_id, &row.stops),
        None => Ok(Route::default()),
    }
}

/// The kept routes of `courier_ids`, by courier (absent when none).
pub async fn read_many(db: &impl ConnectionTrait, courier_ids: &[String]) -> CoreResult<HashMap<String, Route>> {
    if courier_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = entity::Entity::find()
        .filter(courier_store::db::one_of(
            db.get_database_backend(),
            "courier_id",
            courier_ids,
        ))
        .all(db)
        .await?;
    rows.into_iter()
        .map(|row| Ok((row.courier_id.clone(), parse(&row.courier_id, &row.stops)?)))
        .collect()
}

/// Keeps `route` as courier `courier_id`'s, in `tx` (which took [`lock`]
/// or holds the courier's job being moved).
pub async fn write(tx: &WriteTransaction, courier_id: &str, route: &Route, now: i64) -> CoreResult<()> {
    use entity::Column as C;
    let stops = serde_json::to_string(route).map_err(|e| CoreError::Internal(e.to_string()))?;
    entity::Entity::insert(row(courier_id, stops, now))
        .on_conflict(
            OnConflict::column(C::CourierId)
                .update_columns([C::Stops, C::PlannedAt])
                .to_owned(),
        )
        .exec(&**tx)
        .await?;
    Ok(())
}

fn row(courier_id: &str, stops: String, now: i64) -> entity::ActiveModel {
    entity::ActiveModel {
        courier_id: Set(courier_id.to_owned()),
        stops: Set(stops),
        planned_at: Set(now),
    }
}

fn parse(courier_id: &str, text: &str) -> CoreResult<Route> {
    serde_json::from_str(text).map_err(|_| CoreError::Internal(format!("courier {courier_id} has a corrupt route")))
}
