//! A fleet's planned days (docs/console.md "Plans"): the drivers' shifts of
//! a day, set and removed here (`CourierService`), the day planned by the
//! core's solver (`DispatchService.PlanRoutes`), the plan shown as a map of
//! its routes, a timeline per driver and the orders left out with why; an
//! order moved to another driver by hand (a new plan with the order kept
//! there), and the plan published. Members read; owners and admins change
//! (the core decides).

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::internal::v1 as ipb;
use serde::Deserialize;

use crate::ConsoleState;
use crate::couriers::Drivers;
use crate::flash::Flash;
use crate::labels;
use crate::map::{MAP_HEIGHT, MAP_WIDTH, Projection, Tile};
use crate::page::{Layout, Signed, field, fields, render};
use crate::times::{Moment, Zone};

/// How long the solver may search, as the plan form offers it (seconds).
const BUDGETS: [i32; 3] = [5, 10, 30];

#[derive(Deserialize)]
pub(crate) struct DayQuery {
    day: Option<String>,
}

pub(crate) struct ShiftRow {
    shift_id: String,
    courier_id: String,
    courier: String,
    hours: String,
    start: String,
    end: String,
    rest: String,
}

#[derive(Template)]
#[template(path = "plans.html")]
pub(crate) struct DayPage {
    layout: Layout,
    base: String,
    day: String,
    shifts: Vec<ShiftRow>,
    /// `(courier id, name)` of the fleet's active drivers.
    drivers: Vec<(String, String)>,
    /// The depot the last shift started at, offered for the next.
    depot: (String, String, String),
    budgets: [i32; 3],
    manages: bool,
    zone: &'static str,
}

fn base(state: &ConsoleState, workspace: &str) -> String {
    format!("{}/w/{workspace}/plans", state.root)
}

/// The day asked for, or today on the workspace's clock.
fn day_of(query: Option<&str>, zone: Zone) -> String {
    query
        .filter(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok())
        .map_or_else(|| zone.today().format("%Y-%m-%d").to_string(), str::to_owned)
}

fn hm(zone: Zone, at: Option<&prost_types::Timestamp>) -> String {
    at.and_then(courier::time::from_proto)
        .map(|at| zone.local(at).format("%H:%M").to_string())
        .unwrap_or_default()
}

async fn day_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    day: &str,
    error: Option<String>,
) -> Response {
    let mut layout = signed.layout(state, "Plans", Some(workspace), "live");
    layout.section = "plans";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let zone = signed.zone(Some(workspace));
    let request = signed.request(
        ipb::ListShiftsRequest {
            workspace_id: workspace.to_owned(),
            day: day.to_owned(),
        },
        None,
    );
    let shifts = match state.couriers.clone().list_shifts(request).await {
        Ok(answer) => answer.into_inner().shifts,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let drivers = match Drivers::of(state, signed, workspace).await {
        Ok(drivers) => drivers.active,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let place = |p: &Option<ipb::ShiftPlace>| p.as_ref().map(|p| p.address.clone()).unwrap_or_default();
    let depot = shifts
        .last()
        .and_then(|s| s.start_place.as_ref())
        .map_or_else(Default::default, |p| {
            (p.address.clone(), p.latitude.to_string(), p.longitude.to_string())
        });
    let status = if error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    layout.error = error;
    render(
        DayPage {
            layout,
            base: base(state, workspace),
            day: day.to_owned(),
            shifts: shifts
                .iter()
                .map(|s| ShiftRow {
                    shift_id: s.shift_id.clone(),
                    courier_id: s.courier_id.clone(),
                    courier: s.courier_name.clone(),
                    hours: format!("{}–{}", hm(zone, s.start_time.as_ref()), hm(zone, s.end_time.as_ref())),
                    start: place(&s.start_place),
                    end: place(&s.end_place),
                    rest: s.rest_minutes.map_or_else(|| "none".to_owned(), |m| format!("{m} min")),
                })
                .collect(),
            drivers,
            depot,
            budgets: BUDGETS,
            manages,
            zone: zone.name(),
        },
        status,
    )
}

/// `…/plans?day=`: the day's shifts, the shift form and the plan form.
pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<DayQuery>,
) -> Response {
    let day = day_of(query.day.as_deref(), signed.zone(Some(&workspace)));
    day_view(&state, &signed, &workspace, &day, None).await
}

/// Sets a driver's shift of the day from the form (times on the
/// workspace's clock), then shows the day again.
pub(crate) async fn set_shift(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let zone = signed.zone(Some(&workspace));
    let day = day_of(Some(field(&form, "day")), zone);
    let number = |name: &str| field(&form, name).trim().parse::<f64>().unwrap_or(f64::NAN);
    let rest = field(&form, "rest_minutes").trim();
    let message = ipb::SetShiftRequest {
        courier_id: field(&form, "courier_id").to_owned(),
        day: day.clone(),
        start_time: zone.typed(&format!("{day}T{}", field(&form, "start"))),
        end_time: zone.typed(&format!("{day}T{}", field(&form, "end"))),
        start_place: Some(ipb::ShiftPlace {
            address: field(&form, "address").trim().to_owned(),
            latitude: number("latitude"),
            longitude: number("longitude"),
        }),
        end_place: None,
        rest_minutes: (!rest.is_empty()).then(|| rest.parse().unwrap_or(-1)),
    };
    match state
        .couriers
        .clone()
        .set_shift(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice("Shift set."),
            &format!("{}?day={day}", base(&state, &workspace)),
        ),
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            let message = match courier::errors::from_status(&status).1.as_deref() {
                Some("start_time") if field(&form, "start").is_empty() => "Give the time the shift starts.".to_owned(),
                Some("end_time") if field(&form, "end").is_empty() => "Give the time the shift ends.".to_owned(),
                Some(param) if param.starts_with("start_place") => {
                    format!("The depot: {}", status.message())
                }
                _ => status.message().to_owned(),
            };
            day_view(&state, &signed, &workspace, &day, Some(message)).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

pub(crate) async fn delete_shift(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, shift)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let day = day_of(Some(field(&form, "day")), signed.zone(Some(&workspace)));
    let message = ipb::DeleteShiftRequest { shift_id: shift };
    match state
        .couriers
        .clone()
        .delete_shift(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice("Shift removed."),
            &format!("{}?day={day}", base(&state, &workspace)),
        ),
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// Plans the day (the solver searching for the budget chosen), then shows
/// the plan.
pub(crate) async fn plan(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let day = day_of(Some(field(&form, "day")), signed.zone(Some(&workspace)));
    let budget_seconds = field(&form, "budget_seconds").parse().unwrap_or(10);
    // The drivers ticked; none ticked is no plan (an empty list would ask
    // the core for all of them).
    let courier_ids: Vec<String> = form
        .iter()
        .filter(|(name, _)| name == "courier_id")
        .map(|(_, id)| id.clone())
        .collect();
    if courier_ids.is_empty() {
        let message = "Tick at least one driver to plan with.".to_owned();
        return day_view(&state, &signed, &workspace, &day, Some(message)).await;
    }
    let message = ipb::PlanRoutesRequest {
        workspace_id: workspace.clone(),
        day: day.clone(),
        courier_ids,
        budget_seconds,
        area_id: String::new(),
        pins: Vec::new(),
    };
    match state
        .dispatch
        .clone()
        .plan_routes(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let plan = answer.into_inner().plan.unwrap_or_default();
            signed.redirect_with(
                Flash::notice(planned_notice(&plan)),
                &format!("{}/{}", base(&state, &workspace), plan.plan_id),
            )
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            day_view(&state, &signed, &workspace, &day, Some(status.message().to_owned())).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// How long the solver searched for `plan`, in seconds.
fn solve_seconds(plan: &ipb::RoutePlan) -> f64 {
    plan.solve_duration
        .as_ref()
        .map_or(0.0, |d| d.seconds as f64 + f64::from(d.nanos) / 1e9)
}

fn planned_notice(plan: &ipb::RoutePlan) -> String {
    format!(
        "Planned in {:.1} s: {} routes, {} orders left out.",
        solve_seconds(plan),
        plan.routes.len(),
        plan.unplanned.len()
    )
}

/// A planned stop as the timeline and the list show it.
pub(crate) struct StopRow {
    kind: &'static str,
    order_id: String,
    address: String,
    time: String,
    done: bool,
    /// Where on the driver's timeline, in per cent of the day shown.
    left: String,
}

pub(crate) struct RouteView {
    index: usize,
    courier: String,
    courier_id: String,
    hours: String,
    driving: String,
    distance: String,
    orders: usize,
    stops: Vec<StopRow>,
    /// The route on the map.
    points: String,
    /// Where the route's bar starts and how long it is, in per cent.
    bar_left: String,
    bar_width: String,
}

pub(crate) struct Dot {
    x: String,
    y: String,
    route: usize,
    title: String,
}

pub(crate) struct UnplannedRow {
    order_id: String,
    reason: &'static str,
}

#[derive(Template)]
#[template(path = "plan.html")]
pub(crate) struct PlanPage {
    layout: Layout,
    base: String,
    plan_id: String,
    day: String,
    state: &'static str,
    created: Moment,
    published: Moment,
    solved: String,
    routes: Vec<RouteView>,
    unplanned: Vec<UnplannedRow>,
    dots: Vec<Dot>,
    tiles: Vec<Tile>,
    credit: Option<String>,
    /// Every order of the plan, for the move form.
    orders: Vec<String>,
    drivers: Vec<(String, String)>,
    /// `order=courier` pins of this plan, kept by the move form.
    pins: String,
    manages: bool,
    proposed: bool,
    /// The day's hours the timelines span, as labels.
    hours: Vec<(String, String)>,
    map_width: f64,
    map_height: f64,
}

fn reason(reason: ipb::unplanned_order::Reason) -> &'static str {
    use ipb::unplanned_order::Reason as R;
    match reason {
        R::Window => "No route reaches it within its window and the shifts.",
        R::Capacity => "It does not fit beside the cargo of any route.",
        R::VehicleType => "No driver on shift has a vehicle for it.",
        R::Unreachable => "No road leads there.",
        R::NoDriver => "No driver is on shift.",
        R::NoRoom | R::Unspecified => "No route had room for it in the time the solver had.",
    }
}

fn seconds(at: Option<&prost_types::Timestamp>) -> Option<i64> {
    at.map(|t| t.seconds)
}

async fn plan_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    plan_id: &str,
    error: Option<String>,
) -> Response {
    let request = signed.request(
        ipb::GetPlanRequest {
            plan_id: plan_id.to_owned(),
        },
        None,
    );
    let plan = match state.dispatch.clone().get_plan(request).await {
        Ok(answer) => answer.into_inner().plan.unwrap_or_default(),
        Err(status) => return signed.failure(state, &status, workspace),
    };
    if plan.workspace_id != workspace {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::NotFound,
            "This fleet has no such plan.",
            None,
        );
        return signed.failure(state, &status, workspace);
    }
    let drivers = match Drivers::of(state, signed, workspace).await {
        Ok(drivers) => drivers.active,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let mut layout = signed.layout(state, "Plan", Some(workspace), "live");
    layout.section = "plans";
    layout.error = error.clone();
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let zone = signed.zone(Some(workspace));

    // The timelines span the first start to the last end, whole hours.
    let starts = plan.routes.iter().filter_map(|r| seconds(r.start_time.as_ref()));
    let ends = plan.routes.iter().filter_map(|r| seconds(r.end_time.as_ref()));
    let first = starts.min().map_or(0, |s| s - s.rem_euclid(3600));
    let last = ends
        .max()
        .map_or(first + 3600, |e| e + (3600 - e.rem_euclid(3600)) % 3600)
        .max(first + 3600);
    let span = (last - first) as f64;
    let percent = |at: i64| format!("{:.2}", ((at - first) as f64 / span * 100.0).clamp(0.0, 100.0));
    let hours = (first..last)
        .step_by(3600)
        .map(|at| {
            let label = zone.local(courier::time::from_micros(at * 1_000_000)).format("%H:%M");
            (percent(at), label.to_string())
        })
        .collect();

    let mut points: Vec<&ipb::MapPoint> = Vec::new();
    for route in &plan.routes {
        points.extend(route.start.iter());
        points.extend(route.stops.iter().filter_map(|s| s.location.as_ref()));
    }
    let projection = Projection::fitting(&points);
    let (tiles, credit) = state.ground(&projection);
    let xy = |p: &ipb::MapPoint| {
        let at = projection.at(p);
        (format!("{:.1}", at.x), format!("{:.1}", at.y))
    };
    let mut dots = Vec::new();
    let mut orders = Vec::new();
    let routes = plan
        .routes
        .iter()
        .enumerate()
        .map(|(index, route)| {
            let mut line: Vec<String> = route.start.iter().map(&xy).map(|(x, y)| format!("{x},{y}")).collect();
            let stops = route
                .stops
                .iter()
                .enumerate()
                .map(|(i, stop)| {
                    if let Some(location) = &stop.location {
                        let (x, y) = xy(location);
                        line.push(format!("{x},{y}"));
                        dots.push(Dot {
                            x,
                            y,
                            route: index % 8,
                            title: format!("{} · {} {}", route.courier_name, i + 1, stop.address),
                        });
                    }
                    if stop.kind() == ipb::planned_stop::Kind::Pickup && !orders.contains(&stop.order_id) {
                        orders.push(stop.order_id.clone());
                    }
                    StopRow {
                        kind: match stop.kind() {
                            ipb::planned_stop::Kind::Pickup => "Pickup",
                            ipb::planned_stop::Kind::Dropoff => "Dropoff",
                            _ => "Rest",
                        },
                        order_id: stop.order_id.clone(),
                        address: stop.address.clone(),
                        time: if stop.done {
                            "done".to_owned()
                        } else {
                            hm(zone, stop.start_time.as_ref())
                        },
                        done: stop.done,
                        left: seconds(stop.start_time.as_ref()).map(percent).unwrap_or_default(),
                    }
                })
                .collect::<Vec<_>>();
            line.extend(route.end.iter().map(&xy).map(|(x, y)| format!("{x},{y}")));
            let (start, end) = (
                seconds(route.start_time.as_ref()).unwrap_or(first),
                seconds(route.end_time.as_ref()).unwrap_or(first),
            );
            RouteView {
                index: index % 8,
                courier: route.courier_name.clone(),
                courier_id: route.courier_id.clone(),
                hours: format!(
                    "{}–{}",
                    hm(zone, route.start_time.as_ref()),
                    hm(zone, route.end_time.as_ref())
                ),
                driving: labels::duration_short(route.driving_seconds),
                distance: format!("{:.1} km", route.distance_meters as f64 / 1000.0),
                orders: stops.iter().filter(|s| s.kind == "Dropoff").count(),
                stops,
                points: line.join(" "),
                bar_left: percent(start),
                bar_width: format!("{:.2}", ((end - start).max(0) as f64 / span * 100.0).min(100.0)),
            }
        })
        .collect();
    orders.extend(plan.unplanned.iter().map(|u| u.order_id.clone()));
    let state_name = match plan.state() {
        ipb::route_plan::State::Published => "published",
        ipb::route_plan::State::Superseded => "superseded",
        _ => "proposed",
    };
    render(
        PlanPage {
            layout,
            base: base(state, workspace),
            plan_id: plan.plan_id.clone(),
            day: plan.day.clone(),
            state: state_name,
            created: zone.minute(plan.create_time.as_ref(), ""),
            published: zone.minute(plan.publish_time.as_ref(), ""),
            solved: format!("{:.1} s", solve_seconds(&plan)),
            routes,
            unplanned: plan
                .unplanned
                .iter()
                .map(|u| UnplannedRow {
                    order_id: u.order_id.clone(),
                    reason: reason(u.reason()),
                })
                .collect(),
            dots,
            tiles,
            credit,
            orders,
            drivers,
            pins: plan
                .pins
                .iter()
                .map(|pin| format!("{}={}", pin.order_id, pin.courier_id))
                .collect::<Vec<_>>()
                .join(","),
            manages,
            proposed: state_name == "proposed",
            hours,
            map_width: MAP_WIDTH,
            map_height: MAP_HEIGHT,
        },
        if error.is_some() {
            StatusCode::CONFLICT
        } else {
            StatusCode::OK
        },
    )
}

/// `…/plans/{plan}`: the plan's map, timelines and left-out orders.
pub(crate) async fn plan_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, plan)): Path<(String, String)>,
) -> Response {
    plan_view(&state, &signed, &workspace, &plan, None).await
}

/// Publishes the plan: every order to its driver, in the plan's order.
pub(crate) async fn publish(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, plan)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = ipb::PublishPlanRequest { plan_id: plan.clone() };
    match state
        .dispatch
        .clone()
        .publish_plan(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice("Plan published: each driver's app shows their route."),
            &format!("{}/{plan}", base(&state, &workspace)),
        ),
        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
            plan_view(&state, &signed, &workspace, &plan, Some(status.message().to_owned())).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// Moves an order to a driver by hand: the day planned again with the
/// order (and those moved before) kept with their driver, a new plan.
pub(crate) async fn move_order(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, plan)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let order_id = field(&form, "order_id").to_owned();
    let courier_id = field(&form, "courier_id").to_owned();
    let mut pins: Vec<ipb::PlanPin> = field(&form, "pins")
        .split(',')
        .filter_map(|pin| pin.split_once('='))
        .filter(|(order, _)| *order != order_id)
        .map(|(order, courier)| ipb::PlanPin {
            order_id: order.to_owned(),
            courier_id: courier.to_owned(),
        })
        .collect();
    pins.push(ipb::PlanPin { order_id, courier_id });
    let message = ipb::PlanRoutesRequest {
        workspace_id: workspace.clone(),
        day: field(&form, "day").to_owned(),
        courier_ids: Vec::new(),
        budget_seconds: 5,
        area_id: String::new(),
        pins,
    };
    match state
        .dispatch
        .clone()
        .plan_routes(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let planned = answer.into_inner().plan.unwrap_or_default();
            signed.redirect_with(
                Flash::notice(format!("Order moved. {}", planned_notice(&planned))),
                &format!("{}/{}", base(&state, &workspace), planned.plan_id),
            )
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            plan_view(&state, &signed, &workspace, &plan, Some(status.message().to_owned())).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}
