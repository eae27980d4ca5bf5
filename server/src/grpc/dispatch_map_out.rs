//! The dispatch map's domain types (`courier_core::dispatch_map`) as
//! `courier.internal.v1` messages, for `WatchDispatchMap`, `UnassignJob` and
//! `ListServiceAreas`.

use courier::internal::v1 as ipb;
use courier::time::micros_to_proto;

use super::enums::ToProto;
use courier_core::dispatch_map::{MapArea, MapCourier, MapJob, MapOffer, MapPassedOver, MapUpdate};
use courier_orders::assignments::PassReason;
use courier_pricing::geo::GeoPoint;

pub fn update_out(update: MapUpdate) -> ipb::WatchDispatchMapResponse {
    ipb::WatchDispatchMapResponse {
        snapshot: update.snapshot,
        couriers: update.couriers.into_iter().map(courier_out).collect(),
        jobs: update.jobs.into_iter().map(job_out).collect(),
        removed_courier_ids: update.removed_courier_ids,
        removed_job_ids: update.removed_job_ids,
        areas: update.areas.into_iter().map(area_out).collect(),
    }
}

fn courier_out(courier: MapCourier) -> ipb::MapCourier {
    ipb::MapCourier {
        courier_id: courier.courier_id,
        name: courier.name,
        vehicle_type_id: courier.vehicle_type_id,
        position: courier.position.map(|p| point_out(p.point)),
        position_recorded_at: courier.position.map(|p| micros_to_proto(p.recorded_at)),
        job_id: courier.job_id,
        job_ids: courier.job_ids,
        route: courier
            .route
            .into_iter()
            .map(|stop| ipb::MapStop {
                job_id: stop.job_id,
                kind: stop.kind.as_str().to_owned(),
                point: Some(point_out(stop.point)),
            })
            .collect(),
        offered_job_id: courier.offered_job_id,
        offline: courier.offline,
        suspended: courier.suspended,
        phone: courier.phone,
    }
}

pub fn job_out(job: MapJob) -> ipb::MapJob {
    ipb::MapJob {
        job_id: job.job_id,
        status: job.status.to_proto() as i32,
        pickup: Some(point_out(job.pickup)),
        dropoff: Some(point_out(job.dropoff)),
        pickup_address: job.pickup_address,
        dropoff_address: job.dropoff_address,
        vehicle_type_id: job.vehicle_type_id,
        created_at: Some(micros_to_proto(job.created_at)),
        courier_id: job.courier_id,
        offer: job.offer.map(offer_out),
        passed_over: job.passed_over.into_iter().map(passed_over_out).collect(),
        promised_by: job.promise.map(|p| micros_to_proto(p.promised_by)),
        dropoff_eta: job.promise.and_then(|p| p.dropoff_eta).map(micros_to_proto),
        at_risk: job.promise.is_some_and(|p| p.at_risk),
        handover_blocked: job.handover_blocked,
    }
}

fn offer_out(offer: MapOffer) -> ipb::MapOffer {
    ipb::MapOffer {
        courier_id: offer.courier_id,
        expires_at: Some(micros_to_proto(offer.expires_at)),
    }
}

fn passed_over_out(pass: MapPassedOver) -> ipb::MapPassedOver {
    let reason = match pass.reason {
        PassReason::Declined => ipb::PassedOverReason::Declined,
        PassReason::Expired => ipb::PassedOverReason::Expired,
        PassReason::Unassigned => ipb::PassedOverReason::Unassigned,
    };
    ipb::MapPassedOver {
        courier_id: pass.courier_id,
        courier_name: pass.courier_name,
        reason: reason as i32,
        time: Some(micros_to_proto(pass.at)),
    }
}

pub fn area_out(area: MapArea) -> ipb::MapArea {
    ipb::MapArea {
        id: area.id,
        name: area.name,
        time_zone: area.time_zone.name().to_owned(),
        outline: area.outline.into_iter().map(point_out).collect(),
    }
}

pub fn point_out(point: GeoPoint) -> ipb::MapPoint {
    ipb::MapPoint {
        latitude: point.latitude,
        longitude: point.longitude,
    }
}
