//! Planned routes and shifts as messages (docs/routing.md "Planned routes").

use courier::internal::v1 as ipb;
use courier::time::micros_to_proto;

use super::dispatch_map_out::point_out;
use courier_core::couriers::shifts::{Place, Shift};
use courier_core::plans::{PlanState, PlannedRoute, PlannedStop, Reason, RoutePlan, StopKind};

pub fn plan_out(plan: &RoutePlan) -> ipb::RoutePlan {
    use ipb::route_plan::State;
    ipb::RoutePlan {
        plan_id: plan.id.clone(),
        workspace_id: plan.workspace_id.clone(),
        area_id: plan.area_id.clone().unwrap_or_default(),
        day: plan.day.clone(),
        state: match plan.state {
            PlanState::Proposed => State::Proposed,
            PlanState::Published => State::Published,
            PlanState::Superseded => State::Superseded,
        } as i32,
        routes: plan.routes.iter().map(route_out).collect(),
        unplanned: plan
            .unplanned
            .iter()
            .map(|unplanned| {
                use ipb::unplanned_order::Reason as R;
                ipb::UnplannedOrder {
                    order_id: unplanned.order_id.clone(),
                    reason: match unplanned.reason {
                        Reason::Window => R::Window,
                        Reason::Capacity => R::Capacity,
                        Reason::VehicleType => R::VehicleType,
                        Reason::Unreachable => R::Unreachable,
                        Reason::NoDriver => R::NoDriver,
                        Reason::NoRoom => R::NoRoom,
                    } as i32,
                }
            })
            .collect(),
        solve_duration: prost_types::Duration::try_from(plan.solved_in).ok(),
        cost: plan.cost,
        create_time: Some(micros_to_proto(plan.created_at)),
        publish_time: plan.published_at.map(micros_to_proto),
        pins: plan
            .pins
            .iter()
            .map(|pin| ipb::PlanPin {
                order_id: pin.order_id.clone(),
                courier_id: pin.courier_id.clone(),
            })
            .collect(),
    }
}

fn route_out(route: &PlannedRoute) -> ipb::PlannedRoute {
    ipb::PlannedRoute {
        courier_id: route.courier_id.clone(),
        courier_name: route.courier_name.clone(),
        stops: route.stops.iter().map(stop_out).collect(),
        start_time: Some(micros_to_proto(route.starts_at)),
        end_time: Some(micros_to_proto(route.ends_at)),
        driving_seconds: route.driving_seconds,
        distance_meters: route.metres,
        start: Some(point_out(route.start)),
        end: Some(point_out(route.end)),
    }
}

fn stop_out(stop: &PlannedStop) -> ipb::PlannedStop {
    use ipb::planned_stop::Kind;
    ipb::PlannedStop {
        kind: match stop.kind {
            StopKind::Pickup => Kind::Pickup,
            StopKind::Dropoff => Kind::Dropoff,
            StopKind::Rest => Kind::Rest,
        } as i32,
        order_id: stop.order_id.clone().unwrap_or_default(),
        address: stop.address.clone(),
        location: Some(point_out(stop.point)),
        arrive_time: stop.arrives_at.map(micros_to_proto),
        start_time: stop.starts_at.map(micros_to_proto),
        depart_time: stop.leaves_at.map(micros_to_proto),
        done: stop.done,
    }
}

pub fn shift_out(shift: &Shift, courier_name: &str) -> ipb::Shift {
    ipb::Shift {
        shift_id: shift.id.clone(),
        courier_id: shift.courier_id.clone(),
        day: shift.day.clone(),
        start_time: Some(micros_to_proto(shift.starts_at)),
        end_time: Some(micros_to_proto(shift.ends_at)),
        start_place: Some(place_out(&shift.start)),
        end_place: Some(place_out(&shift.end)),
        rest_minutes: shift.rest_minutes,
        courier_name: courier_name.to_owned(),
    }
}

fn place_out(place: &Place) -> ipb::ShiftPlace {
    ipb::ShiftPlace {
        address: place.address.clone(),
        latitude: place.point.latitude,
        longitude: place.point.longitude,
    }
}
