//! Planned routes (docs/routing.md "Planned routes"): a fleet's day —
//! its drivers on shift and the board orders waiting for the day — or the
//! platform's in one service area (its couriers on shift there and the
//! live deliveries scheduled that day), solved
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
use courier_orders::routes::{self, Stop};
use courier_orders::{deliveries, fleet};
use courier_pricing::catalog::ServiceArea;
use courier_pricing::geo::GeoPoint;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "route_plans")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        /// The fleet; empty for a platform plan, which has `area_id`.
        pub workspace_id: String,
        pub area_id: Option<String>,
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
    /// The fleet; empty for the platform's plan of `area_id`.
    pub workspace_id: String,
    pub area_id: Option<String>,
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

/// The most orders one plan takes (oldest first).
const MOST_ORDERS: u64 = 5_000;

/// What to plan: a fleet's `day` (or, `workspace_id` empty, the
/// platform's in service area `area_id`), its drivers on shift (or only
/// `courier_ids` of them), searching for `budget_seconds`, each of `pins`'
/// orders kept with its driver.
pub struct PlanRequest {
    pub workspace_id: String,
    pub area_id: String,
    pub day: String,
    pub courier_ids: Vec<String>,
    pub budget_seconds: i32,
    pub pins: Vec<Pin>,
}

/// Whose day a plan is: a fleet's, or the platform's in one area.
enum Scope<'a> {
    Fleet(&'a str),
    Platform(&'a ServiceArea),
}

impl Scope<'_> {
    fn fleet(&self) -> Fleet {
        match self {
            Scope::Fleet(id) => Fleet::from_workspace_id(id),
            Scope::Platform(_) => Fleet::Platform,
        }
    }
}

/// The scope `request` names: a fleet workspace, or the platform and a
/// service area of the catalogue (`not_found`, `invalid_request`).
async fn scope<'a>(core: &'a Core, request: &'a PlanRequest) -> CoreResult<Scope<'a>> {
    if request.workspace_id.is_empty() {
        return match core.catalog.service_area(&request.area_id) {
            Some(area) => Ok(Scope::Platform(area)),
            None => Err(CoreError::invalid(
                "area_id",
                "A platform plan names one of the catalogue's service areas.",
            )),
        };
    }
    if !request.area_id.is_empty() {
        return Err(CoreError::invalid(
            "area_id",
            "A fleet plans its whole board: area_id is for the platform's plans.",
        ));
    }
    let workspace = workspaces::get(&core.db, &request.workspace_id).await?;
    if workspace.kind != WorkspaceKind::Fleet {
        return Err(CoreError::not_found("fleet workspace"));
    }
    Ok(Scope::Fleet(&request.workspace_id))
}

/// The orders of the day in `scope`, within the shifts' `span`: a fleet's
/// waiting board orders for the day; the platform's waiting live
/// deliveries of the area whose pickup is scheduled in the span.
async fn orders_of_day(core: &Core, scope: &Scope<'_>, day: &str, span: (i64, i64)) -> CoreResult<Vec<Work>> {
    Ok(match scope {
        Scope::Fleet(workspace_id) => fleet::pending_orders(&core.db, workspace_id, MOST_ORDERS)
            .await?
            .into_iter()
            .filter(|order| day::is_for_day(order, day, span))
            .map(Work::FleetOrder)
            .collect(),
        Scope::Platform(area) => deliveries::pending_live(&core.db, Some(&area.id), MOST_ORDERS)
            .await?
            .into_iter()
            .filter(|delivery| delivery.pickup_from().is_some_and(|at| at >= span.0 && at < span.1))
            .map(Work::Delivery)
            .collect(),
    })
}

/// Plans the day `request` names for the caller `granted` it, and keeps
/// the plan as a proposal (audited): nothing changes hands.
pub async fn plan(core: &Core, granted: &Granted<act::PlanRoutes>, request: PlanRequest) -> CoreResult<RoutePlan> {
    let budget = day::budget(request.budget_seconds)?;
    parse_day(&request.day, "day")?;
    let scope = scope(core, &request).await?;
    if let Scope::Fleet(workspace_id) = scope {
        granted.covers(workspace_id)?;
    }
    let mut shifts = shifts::of_day(&core.db, &scope.fleet(), &request.day).await?;
    if let Scope::Platform(area) = scope {
        shifts.retain(|shift| area.contains(shift.start.point));
    }
    if !request.courier_ids.is_empty() {
        let on_shift: HashSet<&str> = shifts.iter().map(|s| s.courier_id.as_str()).collect();
        if let Some(missing) = request.courier_ids.iter().find(|id| !on_shift.contains(id.as_str())) {
            return Err(CoreError::invalid(
                "courier_ids",
                format!("{missing} has no shift on {} here.", request.day),
            ));
        }
        shifts.retain(|shift| request.courier_ids.contains(&shift.courier_id));
    }
    let span = (
        shifts.iter().map(|s| s.starts_at).min().unwrap_or_default(),
        shifts.iter().map(|s| s.ends_at).max().unwrap_or_default(),
    );
    let orders = orders_of_day(core, &scope, &request.day, span).await?;
    let drivers = day::drivers(core, shifts).await?;
    day::check_pins(core, &request.pins, &drivers, &orders)?;
    let now = core.clock.now_micros();
    let day = day::Day::new(core, drivers, orders, &request.pins, now).await?;
    let solved = courier_planner::plan(day.problem.clone(), budget, core.stopping.child_token())
        .await
        .map_err(|error| CoreError::Internal(format!("planning failed: {error}")))?;
    let (solved_in, cost) = (solved.solved_in, solved.cost);
    let (routes, unplanned) = day.plan(solved);
    let plan = RoutePlan {
        id: ids::new_id("pln"),
        workspace_id: request.workspace_id.clone(),
        area_id: match scope {
            Scope::Platform(area) => Some(area.id.clone()),
            Scope::Fleet(_) => None,
        },
        day: request.day.clone(),
        state: PlanState::Proposed,
        routes,
        unplanned,
        pins: request.pins.clone(),
        solved_in,
        cost,
        created_at: now,
        published_at: None,
    };
    let tx = core.begin().await?;
    entity::Entity::insert(entity::ActiveModel {
        id: Set(plan.id.clone()),
        workspace_id: Set(plan.workspace_id.clone()),
        area_id: Set(plan.area_id.clone()),
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
        workspace_id: plan.workspace(),
        target: &plan.id,
        courier_id: None,
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    Ok(plan)
}

impl RoutePlan {
    /// The fleet workspace the plan is of; `None` for the platform's.
    pub fn workspace(&self) -> Option<&str> {
        Some(self.workspace_id.as_str()).filter(|id| !id.is_empty())
    }
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
        area_id: model.area_id,
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
    if let Some(workspace_id) = plan.workspace() {
        granted.covers(workspace_id)?;
    }
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
        let works: Vec<(Work, Option<i64>)> = order_ids
            .iter()
            .map(|id| {
                let pickup_at = to_do
                    .iter()
                    .find(|stop| stop.kind == StopKind::Pickup && stop.order_id.as_ref() == Some(id))
                    .and_then(|stop| stop.arrives_at);
                let work = found.remove(id).ok_or_else(|| {
                    CoreError::new(
                        ErrorCode::Conflict,
                        format!("Order {id} is gone since the plan was made; plan again."),
                    )
                })?;
                Ok((work, pickup_at))
            })
            .collect::<CoreResult<_>>()?;
        if let Some((ended, _)) = works.iter().find(|(work, _)| work.status().is_terminal()) {
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
        .filter(match &plan.area_id {
            Some(area_id) => C::AreaId.eq(area_id.as_str()),
            None => C::AreaId.is_null(),
        })
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
        workspace_id: plan.workspace(),
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
