//! The live dispatch map (docs/console.md "Dispatch"): the online couriers
//! of the platform or of one fleet, where they are and what they hold or
//! are offered, and the jobs waiting for a courier or under way, behind
//! `DispatchService.WatchDispatchMap`; and what a dispatcher's hand moves
//! rest on: the ranking of free couriers for a job (`auto_dispatch::rank`).
//!
//! A watcher is sent the whole map, then what changed: it reads the map
//! again when this process saw a change (a delivery, `Core::changes`; a
//! position, an availability or an assignment, `Core::map_wake`) and at
//! least every [`BACKSTOP`], which brings other replicas' changes, and
//! sends the couriers and jobs that differ from what it sent last.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use courier_pricing::geo::GeoPoint;
use tokio::sync::mpsc;

use crate::auto_dispatch::{self, Ranked};
use crate::couriers::{self, Fleet};
use crate::jobs::{self, Work};
use crate::{Core, CoreResult, positions};
use courier_orders::assignments::{self, offers};
use courier_orders::routes::{self, StopKind};
use courier_orders::{deliveries, fleet};
pub use model::{
    Map, MapArea, MapCourier, MapJob, MapOffer, MapPassedOver, MapPosition, MapPromise, MapStop, MapUpdate,
};

pub mod model;

/// A watcher reads the map at least this often.
const BACKSTOP: Duration = Duration::from_secs(1);
/// Changes closer together than this share one read.
const COALESCE: Duration = Duration::from_millis(100);
/// The most waiting jobs the map shows, oldest first.
const MAX_WAITING: u64 = 500;

/// The map of `fleet` as read after this call; watchers asking at once
/// share one read (`shared_reads`): a change wakes every watcher of the
/// map, and a dispatcher's page opens two at once.
pub async fn shared_read(core: &Core, fleet: &Fleet) -> CoreResult<Arc<Map>> {
    let key = fleet.workspace_id().unwrap_or_default().to_owned();
    let (reader, fleet) = (core.clone(), fleet.clone());
    core.map_reads
        .read(key, move || {
            let (core, fleet) = (reader.clone(), fleet.clone());
            async move { read(&core, &fleet).await.map(Arc::new) }
        })
        .await
}

/// Reads the map of `fleet` (the platform's live deliveries and couriers,
/// or a fleet's board orders and drivers).
async fn read(core: &Core, fleet: &Fleet) -> CoreResult<Map> {
    let now = core.clock.now_micros();
    let on_the_map = couriers::on_the_map(&core.db, fleet).await?;
    let ids: Vec<String> = on_the_map.iter().map(|c| c.id.clone()).collect();
    let mut holding: HashMap<String, Vec<String>> = HashMap::new();
    for assignment in assignments::open_for_couriers(&core.db, ids.clone()).await? {
        holding
            .entry(assignment.courier_id)
            .or_default()
            .push(assignment.job_id);
    }
    let kept = routes::read_many(&core.db, &ids).await?;
    let located = positions::latest_many(core, ids).await?;
    let open_offers: Vec<offers::Offer> = offers::open(&core.db)
        .await?
        .into_iter()
        .filter(|offer| offer.expires_at > now)
        .collect();
    let offer_of_job: HashMap<&str, &offers::Offer> =
        open_offers.iter().map(|offer| (offer.job_id.as_str(), offer)).collect();
    let offered_to: HashMap<&str, &str> = open_offers
        .iter()
        .map(|offer| (offer.courier_id.as_str(), offer.job_id.as_str()))
        .collect();
    let mut map = Map::default();
    let waiting: Vec<Work> = match fleet {
        Fleet::Platform => deliveries::pending_live(&core.db, None, MAX_WAITING)
            .await?
            .into_iter()
            .map(Work::Delivery)
            .collect(),
        Fleet::Workspace(id) => fleet::pending_orders(&core.db, id, MAX_WAITING)
            .await?
            .into_iter()
            .map(Work::FleetOrder)
            .collect(),
    };
    let mut passed_over: HashMap<String, Vec<assignments::PassedOver>> = HashMap::new();
    let passed = assignments::passed_over(&core.db, waiting.iter().map(|w| w.id().to_owned()).collect()).await?;
    // Their names: those on the map known already; only the others read.
    let mut names: HashMap<String, String> = on_the_map.iter().map(|c| (c.id.clone(), c.name.clone())).collect();
    let unknown: HashSet<String> = passed
        .iter()
        .map(|p| p.courier_id.clone())
        .filter(|id| !names.contains_key(id))
        .collect();
    if !unknown.is_empty() {
        names.extend(
            couriers::get_many(&core.db, unknown.into_iter().collect())
                .await?
                .into_iter()
                .map(|c| (c.id, c.name)),
        );
    }
    for pass in passed {
        passed_over.entry(pass.job_id.clone()).or_default().push(pass);
    }
    for work in &waiting {
        let offer = offer_of_job.get(work.id()).copied();
        let mut out = map_job(work, None, offer);
        out.passed_over = passed_over
            .remove(work.id())
            .unwrap_or_default()
            .into_iter()
            .map(|pass| map_passed_over(pass, &names))
            .collect();
        map.jobs.insert(work.id().to_owned(), out);
    }
    let held: Vec<String> = holding.values().flatten().cloned().collect();
    // A job gone between the two reads is not on this map.
    let held = jobs::works(&core.db, &held).await?;
    for (courier_id, job_ids) in &holding {
        for job_id in job_ids {
            if let Some(work) = held.get(job_id) {
                map.jobs
                    .insert(job_id.clone(), map_job(work, Some(courier_id.clone()), None));
            }
        }
    }
    for courier in on_the_map {
        let position = located.get(&courier.id);
        let offered_job_id = offered_to.get(courier.id.as_str()).map(|job_id| (*job_id).to_owned());
        let job_ids = holding.remove(&courier.id).unwrap_or_default();
        let route = kept
            .get(&courier.id)
            .map(|route| map_route(route, &job_ids, &held))
            .unwrap_or_default();
        let out = MapCourier {
            job_id: job_ids.first().cloned(),
            job_ids,
            route,
            offered_job_id,
            position: position.map(|p| MapPosition {
                point: GeoPoint::new(p.latitude, p.longitude),
                recorded_at: p.recorded_at,
            }),
            name: courier.name,
            vehicle_type_id: courier.vehicle.vehicle_type_id,
            courier_id: courier.id.clone(),
            offline: courier.availability != couriers::Availability::Online,
            suspended: courier.status == couriers::Status::Suspended,
            // Every caller of the map may read couriers, phones included
            // (`WatchDispatchMap` asks for `ReadCouriers`, as `GetCourier`).
            phone: courier.phone,
        };
        map.couriers.insert(courier.id, out);
    }
    Ok(map)
}

/// The kept order of a courier's stops still to do, of the jobs they hold.
fn map_route(kept: &routes::Route, job_ids: &[String], held: &HashMap<String, Work>) -> Vec<MapStop> {
    kept.stops
        .iter()
        .filter(|stop| job_ids.contains(&stop.job_id))
        .filter_map(|stop| {
            let work = held.get(&stop.job_id)?;
            let (pickup, dropoff) = work.ends();
            let point = match stop.kind {
                StopKind::Pickup if !work.status().before_pickup() => return None,
                StopKind::Pickup => pickup.point(),
                StopKind::Dropoff => dropoff.point(),
            };
            Some(MapStop {
                job_id: stop.job_id.clone(),
                kind: stop.kind,
                point,
            })
        })
        .collect()
}

/// A job on the map: held by `courier_id`, or waiting with its open offer.
pub fn map_job(work: &Work, courier_id: Option<String>, offer: Option<&offers::Offer>) -> MapJob {
    let (pickup, dropoff) = work.ends();
    MapJob {
        job_id: work.id().to_owned(),
        status: work.status(),
        pickup: pickup.point(),
        dropoff: dropoff.point(),
        pickup_address: pickup.address.clone(),
        dropoff_address: dropoff.address.clone(),
        vehicle_type_id: work.vehicle_type_id().to_owned(),
        created_at: work.created_at(),
        courier_id,
        offer: offer.map(|offer| MapOffer {
            courier_id: offer.courier_id.clone(),
            expires_at: offer.expires_at,
        }),
        passed_over: Vec::new(),
        promise: promise_of(work),
        handover_blocked: matches!(work, Work::Delivery(d) if d.handover_blocked()),
    }
}

/// The dropoff promised and how it stands: a delivery's promise, a board
/// order's dropoff window (no one estimates its dropoff).
fn promise_of(work: &Work) -> Option<MapPromise> {
    let (dropoff_eta, at_risk) = match work {
        Work::Delivery(d) => (d.etas().1, d.delayed_at.is_some()),
        Work::FleetOrder(_) => (None, false),
    };
    work.promised_by().map(|promised_by| MapPromise {
        promised_by,
        dropoff_eta,
        at_risk,
    })
}

fn map_passed_over(pass: assignments::PassedOver, names: &HashMap<String, String>) -> MapPassedOver {
    MapPassedOver {
        courier_name: names.get(&pass.courier_id).cloned().unwrap_or_default(),
        courier_id: pass.courier_id,
        reason: pass.reason,
        at: pass.at,
    }
}

/// The service areas' outlines, from the catalogue.
pub fn areas(core: &Core) -> Vec<MapArea> {
    core.catalog
        .service_areas()
        .iter()
        .map(|area| MapArea {
            id: area.id.clone(),
            name: area.name.clone(),
            time_zone: area.time_zone,
            outline: area.polygon.vertices().to_vec(),
        })
        .collect()
}

/// What changed from `before` to `after`; `None` when nothing did.
pub fn changes(before: &Map, after: &Map) -> Option<MapUpdate> {
    fn changed<T: Clone + PartialEq>(before: &BTreeMap<String, T>, after: &BTreeMap<String, T>) -> Vec<T> {
        after
            .iter()
            .filter(|(id, item)| before.get(*id) != Some(item))
            .map(|(_, item)| item.clone())
            .collect()
    }
    fn gone<T>(before: &BTreeMap<String, T>, after: &BTreeMap<String, T>) -> Vec<String> {
        before.keys().filter(|id| !after.contains_key(*id)).cloned().collect()
    }
    let update = MapUpdate {
        snapshot: false,
        couriers: changed(&before.couriers, &after.couriers),
        jobs: changed(&before.jobs, &after.jobs),
        removed_courier_ids: gone(&before.couriers, &after.couriers),
        removed_job_ids: gone(&before.jobs, &after.jobs),
        areas: Vec::new(),
    };
    let empty = update.couriers.is_empty()
        && update.jobs.is_empty()
        && update.removed_courier_ids.is_empty()
        && update.removed_job_ids.is_empty();
    (!empty).then_some(update)
}

/// The map of `fleet` as a stream: the whole map, then its changes, until
/// the receiver is dropped. A failed read ends the stream with its error.
pub fn watch(core: &Core, fleet: Fleet) -> mpsc::Receiver<CoreResult<MapUpdate>> {
    let (sender, receiver) = mpsc::channel(16);
    let core = core.clone();
    let mut deliveries_changed = core.changes.subscribe();
    let mut couriers_changed = core.map_wake.subscribe();
    tokio::spawn(async move {
        let mut sent: Option<Arc<Map>> = None;
        loop {
            let map = match shared_read(&core, &fleet).await {
                Ok(map) => map,
                Err(error) => {
                    let _ = sender.send(Err(error)).await;
                    return;
                }
            };
            let update = match &sent {
                None => Some(MapUpdate {
                    snapshot: true,
                    couriers: map.couriers.values().cloned().collect(),
                    jobs: map.jobs.values().cloned().collect(),
                    removed_courier_ids: Vec::new(),
                    removed_job_ids: Vec::new(),
                    areas: areas(&core),
                }),
                Some(before) => changes(before, &map),
            };
            if let Some(update) = update
                && sender.send(Ok(update)).await.is_err()
            {
                return;
            }
            sent = Some(map);
            tokio::select! {
                () = sender.closed() => return,
                () = core.stopping.cancelled() => return,
                // A lagged receiver has missed changes: reading again is the answer.
                _ = deliveries_changed.recv() => {}
                _ = couriers_changed.changed() => {}
                () = tokio::time::sleep(BACKSTOP) => {}
            }
            tokio::time::sleep(COALESCE).await;
        }
    });
    receiver
}

/// The free couriers of the job's fleet who could take job `work` now,
/// soonest first (`auto_dispatch::rank`).
pub async fn rank(core: &Core, work: &Work) -> CoreResult<Vec<Ranked>> {
    let fleet = match work {
        Work::Delivery(_) => Fleet::Platform,
        Work::FleetOrder(order) => Fleet::Workspace(order.workspace_id.clone()),
    };
    auto_dispatch::rank(core, &fleet, work.clone()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn courier(id: &str, latitude: f64) -> MapCourier {
        MapCourier {
            courier_id: id.into(),
            position: Some(MapPosition {
                point: GeoPoint::new(latitude, 13.4),
                recorded_at: 0,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn changes_name_what_moved_and_what_left() {
        let mut before = Map::default();
        before.couriers.insert("a".into(), courier("a", 52.5));
        before.couriers.insert("b".into(), courier("b", 52.5));
        let mut after = before.clone();
        assert_eq!(changes(&before, &after), None);
        after.couriers.insert("a".into(), courier("a", 52.6));
        after.couriers.remove("b");
        let update = changes(&before, &after).expect("a change");
        assert_eq!(update.couriers, vec![courier("a", 52.6)]);
        assert_eq!(update.removed_courier_ids, vec!["b".to_owned()]);
        assert!(!update.snapshot);
    }
}
