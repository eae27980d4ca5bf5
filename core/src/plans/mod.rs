//! Planned routes (docs/routing.md "Planned routes"): a fleet's day —
//! its drivers on shift and the board orders waiting for the day — solved
//! by `courier_planner` into one route per driver, kept as a proposal
//! ([`plan`]), then published ([`publish`]): every order given to its
//! driver and their route kept in the plan's order, so their app shows
//! it. Owns `route_plans`; `day` builds the solver's problem.

mod day;

use std::collections::HashSet;
use std::time::Duration;

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};

use crate::couriers::shifts::{self, parse_day};
use crate::couriers::{self, Fleet};
use crate::jobs::{self, Work};
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_identity::workspaces::{self, WorkspaceKind};
use courier_orders::fleet;
use courier_orders::routes::{self, Stop};
use courier_pricing::geo::GeoPoint;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "route_plans")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub workspace_id: String,
        pub day: String,
        /// [`super::PlanState`]
        pub status: String,
        /// A [`super::Body`] as JSON.
        pub body: String,
        pub created_by: String,
        pub created_at: i64,
        pub published_by: Option<String>,
        pub published_at: Option<i64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanState {
    Proposed,
    Published,
    Superseded,
}

impl PlanState {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanState::Proposed => "proposed",
            PlanState::Published => "published",
            PlanState::Superseded => "superseded",
        }
    }

    fn parse(text: &str) -> Option<PlanState> {
        [PlanState::Proposed, PlanState::Published, PlanState::Superseded]
            .into_iter()
            .find(|state| state.as_str() == text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    Pickup,
    Dropoff,
    Rest,
}

/// A stop of a planned route: times absent for one done before the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedStop {
    pub kind: StopKind,
    pub order_id: Option<String>,
    pub address: String,
    pub point: GeoPoint,
    pub arrives_at: Option<i64>,
    pub starts_at: Option<i64>,
    pub leaves_at: Option<i64>,
    pub done: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedRoute {
    pub courier_id: String,
    pub courier_name: String,
    pub stops: Vec<PlannedStop>,
    pub starts_at: i64,
    pub ends_at: i64,
    pub driving_seconds: i64,
    pub metres: i64,
    pub start: GeoPoint,
    pub end: GeoPoint,
}

/// Why an order is in no route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Window,
    Capacity,
    VehicleType,
    Unreachable,
    NoDriver,
    NoRoom,
}

/// An order kept with a driver by a dispatcher's hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    pub order_id: String,
    pub courier_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unplanned {
    pub order_id: String,
    pub reason: Reason,
}

/// What a plan row keeps as JSON.
#[derive(Serialize, Deserialize)]
struct Body {
    routes: Vec<PlannedRoute>,
    unplanned: Vec<Unplanned>,
    #[serde(default)]
    pins: Vec<Pin>,
    solved_in_ms: u64,
    cost: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RoutePlan {
    pub id: String,
    pub workspace_id: String,
    pub day: String,
    pub state: PlanState,
    pub routes: Vec<PlannedRoute>,
    pub unplanned: Vec<Unplanned>,
    pub pins: Vec<Pin>,
    pub solved_in: Duration,
    pub cost: f64,
    pub created_at: i64,
    pub published_at: Option<i64>,
}

/// What to plan: a fleet's `day`, its drivers on shift (or only
/// `courier_ids` of them), searching for `budget_seconds`, each of `pins`'
/// orders kept with its driver.
pub struct PlanRequest {
    pub workspace_id: String,
    pub day: String,
    pub courier_ids: Vec<String>,
    pub budget_seconds: i32,
    pub pins: Vec<Pin>,
}

/// Plans the day `request` names for the caller `granted` it, and keeps
/// the plan as a proposal (audited): nothing changes hands.
pub async fn plan(core: &Core, granted: &Granted<act::PlanRoutes>, request: PlanRequest) -> CoreResult<RoutePlan> {
    let budget = day::budget(request.budget_seconds)?;
    parse_day(&request.day, "day")?;
    granted.covers(&request.workspace_id)?;
    let workspace = workspaces::get(&core.db, &request.workspace_id).await?;
    if workspace.kind != WorkspaceKind::Fleet {
        return Err(CoreError::not_found("fleet workspace"));
    }
    let fleet = Fleet::from_workspace_id(&request.workspace_id);
    let mut shifts = shifts::of_day(&core.db, &fleet, &request.day).await?;
    if !request.courier_ids.is_empty() {
        let on_shift: HashSet<&str> = shifts.iter().map(|s| s.courier_id.as_str()).collect();
        if let Some(missing) = request.courier_ids.iter().find(|id| !on_shift.contains(id.as_str())) {
            return Err(CoreError::invalid(
                "courier_ids",
                format!("{missing} has no shift on {} in this fleet.", request.day),
            ));
        }
        shifts.retain(|shift| request.courier_ids.contains(&shift.courier_id));
    }
    let span = (
        shifts.iter().map(|s| s.starts_at).min().unwrap_or_default(),
        shifts.iter().map(|s| s.ends_at).max().unwrap_or_default(),
    );
    let orders: Vec<_> = fleet::waiting(&core.db, &request.workspace_id)
        .await?
        .into_iter()
        .filter(|order| day::is_for_day(order, &request.day, span))
        .collect();
    let drivers = day::drivers(core, shifts).await?;
    day::check_pins(core, &request.pins, &drivers, &orders)?;
    let now = core.clock.now_micros();
    let day = day::Day::new(core, drivers, orders, &request.pins, now).await?;
    let solved = courier_planner::plan(day.problem.clone(), budget, core.stopping.child_token())
        .await
        .map_err(|error| CoreError::Internal(format!("planning failed: {error}")))?;
    let mut plan = day.plan(solved, now);
    plan.pins = request.pins;
    plan.id = ids::new_id("pln");
    plan.workspace_id = request.workspace_id;
    plan.day = request.day;
    let tx = core.begin().await?;
    entity::Entity::insert(entity::ActiveModel {
        id: Set(plan.id.clone()),
        workspace_id: Set(plan.workspace_id.clone()),
        day: Set(plan.day.clone()),
        status: Set(plan.state.as_str().to_owned()),
        body: Set(body(&plan)?),
        created_by: Set(granted.actor().to_owned()),
        created_at: Set(plan.created_at),
        published_by: Set(None),
        published_at: Set(None),
    })
    .exec(&*tx)
    .await?;
    let change = audit::Change {
        action: "plan.create",
        workspace_id: Some(&plan.workspace_id),
        target: &plan.id,
        courier_id: None,
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    Ok(plan)
}

fn body(plan: &RoutePlan) -> CoreResult<String> {
    serde_json::to_string(&Body {
        routes: plan.routes.clone(),
        unplanned: plan.unplanned.clone(),
        pins: plan.pins.clone(),
        solved_in_ms: plan.solved_in.as_millis() as u64,
        cost: plan.cost,
    })
    .map_err(|error| CoreError::Internal(error.to_string()))
}

/// Plan `plan_id` (any fleet's: the caller's grant is checked against its
/// workspace).
pub async fn get(db: &impl sea_orm::ConnectionTrait, plan_id: &str) -> CoreResult<RoutePlan> {
    let model = entity::Entity::find_by_id(plan_id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("plan"))?;
    from_model(model)
}

fn from_model(model: entity::Model) -> CoreResult<RoutePlan> {
    let corrupt = || CoreError::Internal(format!("plan {} is corrupt", model.id));
    let body: Body = serde_json::from_str(&model.body).map_err(|_| corrupt())?;
    Ok(RoutePlan {
        state: PlanState::parse(&model.status).ok_or_else(corrupt)?,
        id: model.id,
        workspace_id: model.workspace_id,
        day: model.day,
        routes: body.routes,
        unplanned: body.unplanned,
        pins: body.pins,
        solved_in: Duration::from_millis(body.solved_in_ms),
        cost: body.cost,
        created_at: model.created_at,
        published_at: model.published_at,
    })
}

/// Publishes plan `plan_id` for the caller `granted` it, in one
/// transaction: each route's orders given to its driver
/// ([`jobs::assign_planned`]) and their route kept in the plan's order,
/// the day's plan published before superseded; audited. Publishing a
/// published plan again answers it; a superseded one is `conflict`.
pub async fn publish(core: &Core, granted: &Granted<act::AssignJobs>, plan_id: &str) -> CoreResult<RoutePlan> {
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let mut plan = get(&*tx, plan_id).await?;
    granted.covers(&plan.workspace_id)?;
    match plan.state {
        PlanState::Published => return Ok(plan),
        PlanState::Superseded => {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                "A later plan of this day was published; plan again.",
            ));
        }
        PlanState::Proposed => {}
    }
    for route in &plan.routes {
        let courier = couriers::get(&*tx, &route.courier_id).await?;
        let to_do: Vec<&PlannedStop> = route
            .stops
            .iter()
            .filter(|stop| !stop.done && stop.order_id.is_some())
            .collect();
        let mut order_ids: Vec<String> = Vec::new();
        for stop in &to_do {
            if let Some(id) = &stop.order_id
                && !order_ids.contains(id)
            {
                order_ids.push(id.clone());
            }
        }
        let mut found = jobs::works(&*tx, &order_ids).await?;
        let works: Vec<Work> = order_ids
            .iter()
            .map(|id| {
                found.remove(id).ok_or_else(|| {
                    CoreError::new(
                        ErrorCode::Conflict,
                        format!("Order {id} is gone since the plan was made; plan again."),
                    )
                })
            })
            .collect::<CoreResult<_>>()?;
        if let Some(ended) = works.iter().find(|work| work.status().is_terminal()) {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                format!(
                    "Order {} is {} since the plan was made; plan again.",
                    ended.id(),
                    ended.status().as_str()
                ),
            ));
        }
        let mut kept = routes::lock(&tx, &courier.id, now).await?;
        jobs::assign_planned(core, &tx, &courier, works, granted.actor()).await?;
        kept.stops = to_do
            .iter()
            .filter_map(|stop| {
                Some(Stop {
                    job_id: stop.order_id.clone()?,
                    kind: match stop.kind {
                        StopKind::Pickup => routes::StopKind::Pickup,
                        StopKind::Dropoff => routes::StopKind::Dropoff,
                        StopKind::Rest => return None,
                    },
                })
            })
            .collect();
        for stop in &to_do {
            if let (StopKind::Dropoff, Some(id), Some(at)) = (stop.kind, &stop.order_id, stop.starts_at) {
                kept.committed.insert(id.clone(), at);
            }
        }
        routes::write(&tx, &courier.id, &kept, now).await?;
    }
    use entity::Column as C;
    entity::Entity::update_many()
        .col_expr(C::Status, Expr::value(PlanState::Superseded.as_str()))
        .filter(C::WorkspaceId.eq(plan.workspace_id.as_str()))
        .filter(C::Day.eq(plan.day.as_str()))
        .filter(C::Status.eq(PlanState::Published.as_str()))
        .exec(&*tx)
        .await?;
    let published = entity::Entity::update_many()
        .col_expr(C::Status, Expr::value(PlanState::Published.as_str()))
        .col_expr(C::PublishedBy, Expr::value(granted.actor()))
        .col_expr(C::PublishedAt, Expr::value(now))
        .filter(C::Id.eq(plan.id.as_str()))
        .filter(C::Status.eq(PlanState::Proposed.as_str()))
        .exec(&*tx)
        .await?;
    if published.rows_affected != 1 {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            "The plan changed meanwhile; read it again.",
        ));
    }
    let change = audit::Change {
        action: "plan.publish",
        workspace_id: Some(&plan.workspace_id),
        target: &plan.id,
        courier_id: None,
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    core.dispatch_wake.notify_one();
    plan.state = PlanState::Published;
    plan.published_at = Some(now);
    Ok(plan)
}
