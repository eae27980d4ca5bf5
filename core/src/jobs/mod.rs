//! Couriers' jobs (docs/couriers.md "Jobs"): a live delivery of a business
//! workspace for a platform courier, an order of their fleet's dispatch
//! board for a fleet's driver. This module gives a job to a courier by hand
//! ([`assign`]), shows a courier their jobs and lets them move them through
//! the one state machine: deliveries through `dispatch` (as the dispatch
//! service moves them), board orders through `fleet` (as dispatchers move
//! them), each checking in its own transaction that the courier holds the
//! job. `tracking` turns the couriers' positions into the jobs' ETAs.

pub mod route;
pub mod tracking;
pub mod watch;

use std::collections::HashMap;

use crate::couriers::{self, Courier, Fleet};
use crate::dispatch::{self, Mover};
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_identity::auth::Mode;
use courier_orders::assignments::offers::{self, Offer, OfferStatus};
use courier_orders::assignments::{self, Assignment};
use courier_orders::deliveries::{self, Batching, Change, Delivery, ProofRequirements};
use courier_orders::events::EventType;
use courier_orders::fleet::{self, FleetOrder};
use courier_orders::lifecycle::{self, Status};
use courier_orders::pay::{self, JobFacts, JobPay, Payee, Rule, Scope};
use courier_orders::proofs::{self, Checkpoint, ProofSubmission};
use courier_orders::routes::StopKind;
use courier_orders::validate::WaypointInput;
use courier_orders::windows::Windows;
use courier_pricing::geo::GeoPoint;
use courier_pricing::items::ItemInput;
use courier_pricing::routing::OfflineRouter;
use courier_store::{db, pagination, secrets};

/// What a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// A live delivery (`del_…`).
    Delivery,
    /// A fleet board order (`ord_…`).
    FleetOrder,
}

impl JobKind {
    /// The kind of job `job_id` names, by its prefix.
    pub fn of(job_id: &str) -> Option<JobKind> {
        if job_id.starts_with("del_") {
            Some(JobKind::Delivery)
        } else if job_id.starts_with("ord_") {
            Some(JobKind::FleetOrder)
        } else {
            None
        }
    }
}

/// The work behind a job.
#[derive(Clone, Debug, PartialEq)]
// One per call, moved rather than copied: a box per job would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Work {
    Delivery(Delivery),
    FleetOrder(FleetOrder),
}

impl Work {
    pub fn id(&self) -> &str {
        match self {
            Work::Delivery(d) => &d.id,
            Work::FleetOrder(o) => &o.order_id,
        }
    }

    pub fn status(&self) -> Status {
        match self {
            Work::Delivery(d) => d.status,
            Work::FleetOrder(o) => o.status,
        }
    }

    pub fn vehicle_type_id(&self) -> &str {
        match self {
            Work::Delivery(d) => &d.vehicle_type_id,
            Work::FleetOrder(o) => &o.vehicle_type_id,
        }
    }

    pub fn created_at(&self) -> i64 {
        match self {
            Work::Delivery(d) => d.created_at,
            Work::FleetOrder(o) => o.created_at,
        }
    }

    /// The dropoff promised (docs/guide.md "Windows"): a delivery's
    /// promise, a board order's dropoff window's end.
    pub fn promised_by(&self) -> Option<i64> {
        match self {
            Work::Delivery(d) => d.promised_by,
            Work::FleetOrder(o) => o.windows.dropoff.map(|w| w.end),
        }
    }

    /// The dropoff promised, while it can still be kept (after `now`).
    pub fn promise_ahead(&self, now: i64) -> Option<i64> {
        self.promised_by().filter(|promised| *promised > now)
    }

    /// The promised times (docs/guide.md "Windows").
    pub fn windows(&self) -> Windows {
        match self {
            Work::Delivery(d) => d.windows,
            Work::FleetOrder(o) => o.windows,
        }
    }

    /// The pickup and the dropoff.
    pub fn ends(&self) -> (&WaypointInput, &WaypointInput) {
        match self {
            Work::Delivery(d) => (&d.route.pickup, &d.route.dropoff),
            Work::FleetOrder(o) => (&o.route.pickup, &o.route.dropoff),
        }
    }

    /// What is carried (none listed: nothing counted against the cargo).
    pub fn items(&self) -> &[ItemInput] {
        let items = match self {
            Work::Delivery(d) => &d.route.items,
            Work::FleetOrder(o) => &o.route.items,
        };
        items.as_deref().unwrap_or_default()
    }

    /// The cargo its items take, in kilograms and cubic centimetres.
    pub fn load(&self) -> (f64, f64) {
        self.items().iter().fold((0.0, 0.0), |(weight, volume), item| {
            (weight + item.total_weight_kg(), volume + item.total_volume_cm3())
        })
    }

    /// Whether it may share its courier (a board order always may).
    pub fn batching(&self) -> Batching {
        match self {
            Work::Delivery(d) => d.batching,
            Work::FleetOrder(_) => Batching::Allowed,
        }
    }

    /// Whether its route is its two ends, without intermediate stops.
    pub fn ends_only(&self) -> bool {
        match self {
            Work::Delivery(d) => d.route.stops.is_empty(),
            Work::FleetOrder(o) => o.route.stops.is_empty(),
        }
    }

    /// What its pay is reckoned from (docs/couriers.md "Pay"): a
    /// delivery's route as priced and its time surcharges; a board order's
    /// route as the offline router measures it, without surcharges.
    pub fn pay_facts(&self) -> JobFacts {
        match self {
            Work::Delivery(d) => JobFacts {
                distance_km: d.distance_km,
                minutes: d.duration_min,
                surcharges_cents: d
                    .breakdown
                    .as_ref()
                    .map_or(0, |b| b.surcharges.iter().map(|s| s.amount_cents).sum()),
            },
            Work::FleetOrder(o) => {
                let route = &o.route;
                let points: Vec<GeoPoint> = std::iter::once(&route.pickup)
                    .chain(&route.stops)
                    .chain(std::iter::once(&route.dropoff))
                    .map(WaypointInput::point)
                    .collect();
                let estimate = OfflineRouter::default().estimate(&points, &o.vehicle_type_id);
                JobFacts {
                    distance_km: estimate.distance_km,
                    minutes: estimate.duration_min,
                    surcharges_cents: 0,
                }
            }
        }
    }

    /// The pickup's coordinates.
    pub fn pickup(&self) -> GeoPoint {
        match self {
            Work::Delivery(d) => d.route.pickup.point(),
            Work::FleetOrder(o) => o.route.pickup.point(),
        }
    }
}

/// A job as its courier sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub work: Work,
    /// This courier's hold on it (ended once the job left their hands).
    pub assignment: Assignment,
    /// What the courier collects ([`proofs::in_force`]); `None` when
    /// nothing is asked (a board order, or a delivery of a workspace
    /// without proof of delivery).
    pub proof: Option<ProofRequirements>,
    pub pickup_proof_submitted: bool,
    pub dropoff_proof_submitted: bool,
    /// What it pays this courier; `None` where no pay rule applied.
    pub pay: Option<JobPay>,
    /// What it earned them once it ended (docs/couriers.md "What ends a
    /// job"); `None` before, or when it earned nothing.
    pub earned_cents: Option<i64>,
}

impl Job {
    /// Whether the job is in the courier's hands: assigned to them and not
    /// ended. Contact phone numbers are shown only then.
    pub fn is_active(&self) -> bool {
        self.assignment.is_open() && !self.work.status().is_terminal()
    }

    /// The one move the courier makes next, if any: none once the job has
    /// ended, or while it waits for the proof of its checkpoint.
    pub fn next_move(&self) -> Option<Move> {
        if !self.is_active() {
            return None;
        }
        let needs = |checkpoint| self.proof.as_ref().is_some_and(|p| proofs::required(p, checkpoint));
        match self.work.status() {
            Status::CourierAssigned => Some(Move::ArriveAtPickup),
            Status::AtPickup if needs(Checkpoint::Pickup) && !self.pickup_proof_submitted => None,
            Status::AtPickup => Some(Move::PickUp),
            Status::PickedUp => Some(Move::StartTransit),
            Status::InTransit => Some(Move::ArriveAtDropoff),
            Status::AtDropoff if needs(Checkpoint::Dropoff) && !self.dropoff_proof_submitted => None,
            Status::AtDropoff => Some(Move::CompleteHandover),
            Status::Pending | Status::Delivered | Status::Cancelled => None,
        }
    }
}

/// A job offered to a courier: the offer, its work and what it pays.
#[derive(Clone, Debug, PartialEq)]
pub struct Offered {
    pub offer: Offer,
    pub work: Work,
    /// `None` where no pay rule applied.
    pub pay: Option<JobPay>,
}

/// Whose pay rule applies to `courier` (docs/couriers.md "Pay"): a
/// platform courier's vehicle type's, a driver's fleet's.
pub fn pay_scope(courier: &Courier) -> Scope {
    match &courier.fleet {
        Fleet::Platform => Scope::VehicleType(courier.vehicle.vehicle_type_id.clone()),
        Fleet::Workspace(fleet) => Scope::Fleet(fleet.clone()),
    }
}

/// Fixes in `tx` what `work` pays `courier`, who now holds it as
/// `assignment` given by hand, by the rule in force now (an assignment
/// that has its pay keeps it).
async fn fix_pay(tx: &db::WriteTransaction, courier: &Courier, work: &Work, assignment: &Assignment) -> CoreResult<()> {
    let Some(rule) = pay::rules::current(&**tx, &pay_scope(courier)).await? else {
        return Ok(());
    };
    let payee = Payee {
        courier_id: &courier.id,
        job_id: work.id(),
    };
    let pay = JobPay::reckon(&rule, work.pay_facts());
    pay::fix_for_assignment(tx, payee, &assignment.id, &pay, assignment.assigned_at).await
}

/// The pay of `work` under `rule`, if any: what an offer shows.
pub fn offer_pay(rule: Option<&Rule>, work: &Work) -> Option<JobPay> {
    rule.map(|rule| JobPay::reckon(rule, work.pay_facts()))
}

/// A courier's move of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    ArriveAtPickup,
    PickUp,
    StartTransit,
    ArriveAtDropoff,
    CompleteHandover,
    FailHandover,
    ReportPickupNoShow,
}

/// Reads job `job_id`'s work; `not_found` when there is none (or it is a
/// test delivery, which no courier carries).
pub async fn work(db: &impl sea_orm::ConnectionTrait, job_id: &str) -> CoreResult<Work> {
    let not_found = || CoreError::not_found("job");
    match JobKind::of(job_id).ok_or_else(not_found)? {
        JobKind::Delivery => {
            let delivery = deliveries::find(db, job_id).await?.ok_or_else(not_found)?;
            if delivery.mode != Mode::Live {
                return Err(not_found());
            }
            Ok(Work::Delivery(delivery))
        }
        JobKind::FleetOrder => Ok(Work::FleetOrder(
            fleet::board_order(db, job_id).await.map_err(|_| not_found())?,
        )),
    }
}

/// The work of each of `job_ids` that is a job (as [`work`], in two reads
/// whatever their number), by job id.
pub async fn works(db: &impl sea_orm::ConnectionTrait, job_ids: &[String]) -> CoreResult<HashMap<String, Work>> {
    let (deliveries, orders): (Vec<String>, Vec<String>) = job_ids
        .iter()
        .filter(|id| JobKind::of(id).is_some())
        .cloned()
        .partition(|id| JobKind::of(id) == Some(JobKind::Delivery));
    let mut found: HashMap<String, Work> = deliveries::find_many(db, &deliveries)
        .await?
        .into_iter()
        .filter(|delivery| delivery.mode == Mode::Live)
        .map(|delivery| (delivery.id.clone(), Work::Delivery(delivery)))
        .collect();
    for order in fleet::board_orders(db, &orders).await? {
        found.insert(order.order_id.clone(), Work::FleetOrder(order));
    }
    Ok(found)
}

/// Job `job_id` as courier `courier` sees it: `not_found` unless they hold
/// it or held it.
pub async fn get(core: &Core, courier: &Courier, job_id: &str) -> CoreResult<Job> {
    let assignment = assignments::latest_of(&core.db, job_id, &courier.id)
        .await?
        .ok_or_else(|| CoreError::not_found("job"))?;
    let work = work(&core.db, job_id).await?;
    job_of(core, work, assignment).await
}

/// The courier's open jobs (`finished` false: the jobs in hand, at most
/// their vehicle's `max_jobs`, so on one page) or the ended ones, in pages
/// of `page_size`: 1 to 100, 0 for 20, anything else `invalid_request`
/// naming `page_size`, for either list.
pub async fn list(
    core: &Core,
    courier: &Courier,
    finished: bool,
    page_size: i32,
    page_token: &str,
) -> CoreResult<(Vec<Job>, Option<String>)> {
    if finished {
        return self::finished(core, courier, page_size, page_token).await;
    }
    pagination::page_size(page_size)?;
    Ok((open(core, courier).await?, None))
}

/// The courier's jobs in hand, oldest assignment first.
pub async fn open(core: &Core, courier: &Courier) -> CoreResult<Vec<Job>> {
    let open = assignments::open_of_courier(&core.db, &courier.id).await?;
    let ids: Vec<String> = open.iter().map(|a| a.job_id.clone()).collect();
    let mut found = works(&core.db, &ids).await?;
    let mut jobs = Vec::with_capacity(open.len());
    for assignment in open {
        if let Some(work) = found.remove(&assignment.job_id) {
            jobs.push(job_of(core, work, assignment).await?);
        }
    }
    Ok(jobs)
}

/// The jobs that ended for the courier, newest first, in pages: a page
/// token is the signed position after the last job of a page.
pub async fn finished(
    core: &Core,
    courier: &Courier,
    page_size: i32,
    page_token: &str,
) -> CoreResult<(Vec<Job>, Option<String>)> {
    let limit = pagination::page_size(page_size)?;
    let scope = format!("jobs:{}", courier.id);
    let before = match page_token.trim() {
        "" => None,
        token => Some(position_of(core, &scope, token)?),
    };
    let mut ended = assignments::ended(&core.db, &courier.id, before, limit + 1).await?;
    let more = ended.len() as u64 > limit;
    ended.truncate(limit as usize);
    let next = match ended.last() {
        Some(last) if more => Some(token_of(core, &scope, last)),
        _ => None,
    };
    let mut jobs = Vec::with_capacity(ended.len());
    for assignment in ended {
        let work = work(&core.db, &assignment.job_id).await?;
        jobs.push(job_of(core, work, assignment).await?);
    }
    Ok((jobs, next))
}

/// Gives job `job_id` to courier `courier_id` by hand (docs/couriers.md
/// "Assignment") for the caller `granted` it, overriding automatic
/// dispatch (an open offer of the job is withdrawn); audited in the same
/// transaction.
pub async fn assign(
    core: &Core,
    granted: &Granted<act::AssignJobs>,
    job_id: &str,
    courier_id: &str,
) -> CoreResult<Job> {
    let tx = core.begin().await?;
    let work = work(&*tx, job_id).await?;
    if let Work::FleetOrder(order) = &work {
        granted.covers(&order.workspace_id)?;
    }
    let courier = couriers::get(&*tx, courier_id).await?;
    // A dispatcher's choice keeps every promise of the courier's jobs.
    let (work, assignment) = assign_in(core, &tx, work, &courier, granted.actor(), true).await?;
    fix_pay(&tx, &courier, &work, &assignment).await?;
    let workspace_id = match &work {
        Work::Delivery(d) => d.workspace_id.clone(),
        Work::FleetOrder(o) => o.workspace_id.clone(),
    };
    let change = audit::Change {
        action: "job.assign",
        workspace_id: Some(&workspace_id),
        target: job_id,
        courier_id: Some(&courier.id),
    };
    granted.record(core, &*tx, change).await?;
    tx.commit().await?;
    job_of(core, work, assignment).await
}

/// Takes job `job_id` back from its courier for the caller `granted` it
/// (docs/couriers.md "Unassigning"): legal only while the job is
/// `courier_assigned` (the courier has not reached the pickup), else
/// `409 conflict` and nothing changes. The assignment ends
/// (`unassigned`), the job returns to `pending` (a delivery without its
/// public `courier`, with `delivery.status_updated`) and automatic
/// dispatch may offer it again; audited in the same transaction.
pub async fn unassign(core: &Core, granted: &Granted<act::AssignJobs>, job_id: &str) -> CoreResult<Work> {
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let work = work(&*tx, job_id).await?;
    let workspace_id = match &work {
        Work::Delivery(d) => d.workspace_id.clone(),
        Work::FleetOrder(o) => {
            granted.covers(&o.workspace_id)?;
            o.workspace_id.clone()
        }
    };
    match work.status() {
        Status::CourierAssigned => {}
        Status::Pending => {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                "The job has no courier: it is already waiting.",
            ));
        }
        status if status.is_terminal() => {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                format!("The job is {}; an ended job keeps its courier.", status.as_str()),
            ));
        }
        status => {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                format!(
                    "The job is {}: its courier has reached the pickup, so it can no longer be taken back.",
                    status.as_str()
                ),
            ));
        }
    }
    let Some(taken_back) = assignments::take_back(core, &tx, job_id, now).await? else {
        return Err(changed_meanwhile(job_id));
    };
    let work = match work {
        Work::Delivery(delivery) => {
            let moved = lifecycle::return_to_waiting(core, &tx, &delivery, now)
                .await?
                .ok_or_else(|| changed_meanwhile(job_id))?;
            let (changes, id) = (core.changes.clone(), moved.id.clone());
            tx.after_commit(move || changes.publish(&id));
            Work::Delivery(moved)
        }
        Work::FleetOrder(order) => {
            Work::FleetOrder(fleet::return_to_waiting(core, &tx, &order, granted.actor()).await?)
        }
    };
    let change = audit::Change {
        action: "job.unassign",
        workspace_id: Some(&workspace_id),
        target: job_id,
        courier_id: Some(&taken_back.courier_id),
    };
    granted.record(core, &*tx, change).await?;
    let wake = core.dispatch_wake.clone();
    tx.after_commit(move || wake.notify_one());
    tx.commit().await?;
    Ok(work)
}

/// Lets the handover of live delivery `job_id` go on after wrong dropoff
/// PINs blocked it (docs/guide.md "Dropoff PIN"), for the caller `granted`
/// it: the count of wrong PINs back to 0, 5 new tries; audited in the same
/// transaction. A delivery without a PIN is `invalid_request`; one with no
/// wrong PIN counted is answered as it is.
pub async fn reset_dropoff_pin(core: &Core, granted: &Granted<act::AssignJobs>, job_id: &str) -> CoreResult<Delivery> {
    let tx = core.begin().await?;
    let Work::Delivery(delivery) = work(&*tx, job_id).await? else {
        return Err(CoreError::invalid("delivery_id", "A board order has no dropoff PIN."));
    };
    if delivery.dropoff_pin.is_none() {
        return Err(CoreError::invalid(
            "delivery_id",
            format!("Delivery {job_id} asks for no dropoff PIN."),
        ));
    }
    if delivery.dropoff_pin_failures == 0 {
        return Ok(delivery);
    }
    let change = Change::default().pin_failures(delivery.dropoff_pin_failures, 0, None);
    if !deliveries::update(core, &tx, job_id, None, change).await? {
        return Err(changed_meanwhile(job_id));
    }
    let entry = audit::Change {
        action: "job.reset_pin",
        workspace_id: Some(&delivery.workspace_id),
        target: job_id,
        courier_id: delivery.courier.as_ref().and_then(|c| c.id.as_deref()),
    };
    granted.record(core, &*tx, entry).await?;
    let reset = deliveries::reload(&tx, job_id).await?;
    let (changes, id) = (core.changes.clone(), job_id.to_owned());
    tx.after_commit(move || changes.publish(&id));
    tx.commit().await?;
    Ok(reset)
}

/// Gives `work` to `courier` in `tx`: a pending job moves to
/// `courier_assigned` with the courier's profile as its public `courier`;
/// an assigned job not yet at the pickup changes hands
/// (`delivery.courier_assigned` again). The courier must be active, of the
/// job's fleet (the platform for a delivery), drive a vehicle that serves
/// the job's vehicle type and have room for it in their route
/// ([`route::add`]; with `promises`, without breaking one).
async fn assign_in(
    core: &Core,
    tx: &db::WriteTransaction,
    work: Work,
    courier: &Courier,
    assigned_by: &str,
    promises: bool,
) -> CoreResult<(Work, Assignment)> {
    let job_id = work.id().to_owned();
    check_can_take(core, courier, &work)?;
    if !matches!(work.status(), Status::Pending | Status::CourierAssigned) {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            format!(
                "The job is {}; only a job not yet at its pickup can be given to a courier.",
                work.status().as_str()
            ),
        ));
    }
    let added = route::add(core, tx, courier, &work, promises).await?;
    let pickup_eta = added.route.eta(&job_id, StopKind::Pickup);
    hand_to(core, tx, work, courier, assigned_by, pickup_eta).await
}

/// Gives `work` to `courier` in `tx` once their route has its place:
/// the assignment, and a pending job `courier_assigned` (a delivery with
/// its public `courier` and the pickup expected at `pickup_eta`), or an
/// assigned one announced to its new courier.
async fn hand_to(
    core: &Core,
    tx: &db::WriteTransaction,
    work: Work,
    courier: &Courier,
    assigned_by: &str,
    pickup_eta: Option<i64>,
) -> CoreResult<(Work, Assignment)> {
    let now = core.clock.now_micros();
    let job_id = work.id().to_owned();
    let assignment = assignments::assign(core, tx, &job_id, &courier.id, assigned_by, now).await?;
    let work = match work {
        Work::Delivery(delivery) => {
            let change = Change::default()
                .courier(public_courier(core, courier))
                .tracking_opens(delivery.tracking_available_at.unwrap_or(now))
                .pickup_eta(pickup_eta)
                .next_step(None);
            let moved = if delivery.status == Status::Pending {
                lifecycle::advance(core, tx, &delivery, Status::CourierAssigned, change, now).await?
            } else if deliveries::update(core, tx, &delivery.id, Some(delivery.status), change.touched(now)).await? {
                assignments::announce(core, tx, &courier.id, &job_id, now);
                let updated = deliveries::reload(&**tx, &delivery.id).await?;
                lifecycle::record_events(core, tx, &[(&updated, EventType::CourierAssigned, now)]).await?;
                Some(updated)
            } else {
                None
            };
            let moved = moved.ok_or_else(|| changed_meanwhile(&job_id))?;
            let id = moved.id.clone();
            let changes = core.changes.clone();
            tx.after_commit(move || changes.publish(&id));
            Work::Delivery(moved)
        }
        Work::FleetOrder(order) if order.status == Status::Pending => {
            Work::FleetOrder(fleet::move_in(core, tx, &order, Status::CourierAssigned, assigned_by).await?)
        }
        Work::FleetOrder(order) => {
            assignments::announce(core, tx, &courier.id, &job_id, now);
            Work::FleetOrder(order)
        }
    };
    Ok((work, assignment))
}

/// Gives the jobs `works` to `courier` in `tx`, in a published plan's
/// order (docs/routing.md "Planned routes"), each with the time the plan
/// has them at its pickup: each must be theirs to take (as [`assign`]
/// checks) and not yet at its pickup, or already in their hands; the
/// route they are kept in is the caller's to write. The vehicle's count
/// of jobs at once does not apply: the plan kept its cargo and `max_jobs`
/// at every point of the day.
pub async fn assign_planned(
    core: &Core,
    tx: &db::WriteTransaction,
    courier: &Courier,
    works: Vec<(Work, Option<i64>)>,
    assigned_by: &str,
) -> CoreResult<()> {
    for (work, pickup_at) in works {
        check_can_take(core, courier, &work)?;
        if matches!(work.status(), Status::Pending | Status::CourierAssigned) {
            let (work, assignment) = hand_to(core, tx, work, courier, assigned_by, pickup_at).await?;
            fix_pay(tx, courier, &work, &assignment).await?;
            continue;
        }
        // Under way: it stays with the driver who holds it.
        let held = assignments::open_for_job(&**tx, work.id())
            .await?
            .is_some_and(|held| held.courier_id == courier.id);
        if !held {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                format!(
                    "Order {} is {} with another driver since the plan was made; plan again.",
                    work.id(),
                    work.status().as_str()
                ),
            ));
        }
    }
    Ok(())
}

/// Courier `courier` takes offer `offer_id`: the job becomes theirs.
/// `offer_expired` or `offer_withdrawn` when it is no longer open (an
/// expiry noticed here is recorded); accepting it again answers the job.
pub async fn accept_offer(core: &Core, courier: &Courier, offer_id: &str) -> CoreResult<Job> {
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let offer = offers::get(&*tx, offer_id)
        .await?
        .filter(|offer| offer.courier_id == courier.id)
        .ok_or_else(|| CoreError::not_found("offer"))?;
    match offer.status {
        OfferStatus::Accepted => {
            drop(tx);
            return get(core, courier, &offer.job_id).await;
        }
        OfferStatus::Expired => return Err(offer_expired()),
        OfferStatus::Withdrawn => return Err(offer_withdrawn()),
        OfferStatus::Declined => {
            return Err(CoreError::new(ErrorCode::Conflict, "You declined this offer."));
        }
        OfferStatus::Open if offer.expires_at <= now => {
            offers::close(core, &tx, &offer, OfferStatus::Expired, now).await?;
            tx.commit().await?;
            core.dispatch_wake.notify_one();
            return Err(offer_expired());
        }
        OfferStatus::Open => {}
    }
    let taken = assignments::open_for_job(&*tx, &offer.job_id)
        .await?
        .is_some_and(|held| held.courier_id != courier.id);
    if taken {
        // An offer never takes a job from the courier who holds it (only a
        // dispatcher's hand does): it was made from a read older than that
        // courier's accept.
        offers::close(core, &tx, &offer, OfferStatus::Withdrawn, now).await?;
        tx.commit().await?;
        return Err(offer_withdrawn());
    }
    if !offers::close(core, &tx, &offer, OfferStatus::Accepted, now).await? {
        return Err(offer_withdrawn());
    }
    let work = work(&*tx, &offer.job_id).await?;
    let created_at = match &work {
        Work::Delivery(d) => d.created_at,
        Work::FleetOrder(o) => o.created_at,
    };
    // The courier agreed to the route the offer showed; what changed
    // since may bend a promise, never the vehicle's limits.
    let (work, assignment) = assign_in(core, &tx, work, courier, &courier_label(courier), false).await?;
    pay::accepted(&tx, &offer.id, &assignment.id).await?;
    tx.commit().await?;
    core.metrics.dispatch_accepted(now - created_at);
    job_of(core, work, assignment).await
}

/// Courier `courier` turns offer `offer_id` down; the job goes to the next
/// round, never back to them. Declining it again changes nothing.
pub async fn decline_offer(core: &Core, courier: &Courier, offer_id: &str) -> CoreResult<()> {
    let now = core.clock.now_micros();
    let tx = core.begin().await?;
    let offer = offers::get(&*tx, offer_id)
        .await?
        .filter(|offer| offer.courier_id == courier.id)
        .ok_or_else(|| CoreError::not_found("offer"))?;
    match offer.status {
        OfferStatus::Open | OfferStatus::Declined => {}
        OfferStatus::Accepted => {
            return Err(CoreError::new(
                ErrorCode::Conflict,
                "You accepted this offer; the job is yours.",
            ));
        }
        OfferStatus::Expired => return Err(offer_expired()),
        OfferStatus::Withdrawn => return Err(offer_withdrawn()),
    }
    offers::close(core, &tx, &offer, OfferStatus::Declined, now).await?;
    tx.commit().await?;
    core.dispatch_wake.notify_one();
    Ok(())
}

/// The open offer of `courier`, with its job and pay, if any.
pub async fn open_offer(core: &Core, courier: &Courier) -> CoreResult<Option<Offered>> {
    let Some(offer) = offers::open_for_courier(&core.db, &courier.id).await? else {
        return Ok(None);
    };
    Ok(Some(offered(core, offer).await?))
}

/// Offer `offer_id` of `courier`, with its job and pay.
pub async fn offer(core: &Core, courier: &Courier, offer_id: &str) -> CoreResult<Offered> {
    let offer = offers::get(&core.db, offer_id)
        .await?
        .filter(|offer| offer.courier_id == courier.id)
        .ok_or_else(|| CoreError::not_found("offer"))?;
    offered(core, offer).await
}

async fn offered(core: &Core, offer: Offer) -> CoreResult<Offered> {
    let work = work(&core.db, &offer.job_id).await?;
    let pay = pay::of_offer(&core.db, &offer.id).await?;
    Ok(Offered { offer, work, pay })
}

fn offer_expired() -> CoreError {
    CoreError::new(
        ErrorCode::OfferExpired,
        "The offer's time to answer ran out; the job went to the next courier.",
    )
}

fn offer_withdrawn() -> CoreError {
    CoreError::new(
        ErrorCode::OfferWithdrawn,
        "The offer was withdrawn: the job was cancelled or given to another courier.",
    )
}

/// `courier_unavailable` unless `courier` may take `work`.
fn check_can_take(core: &Core, courier: &Courier, work: &Work) -> CoreResult<()> {
    let refuse = |why: String| Err(CoreError::at(ErrorCode::CourierUnavailable, "courier_id", why));
    if courier.status == couriers::Status::Suspended {
        return refuse(format!("{} is suspended.", courier.name));
    }
    match (&courier.fleet, work) {
        (Fleet::Platform, Work::Delivery(_)) => {}
        (Fleet::Workspace(fleet), Work::FleetOrder(order)) if *fleet == order.workspace_id => {}
        (Fleet::Platform, Work::FleetOrder(_)) => {
            return refuse("Platform couriers carry live deliveries; board orders go to the fleet's drivers.".into());
        }
        (Fleet::Workspace(_), _) => {
            return refuse(format!("{} drives for another fleet.", courier.name));
        }
    }
    let serves = core
        .catalog
        .vehicle_type(&courier.vehicle.vehicle_type_id)
        .is_some_and(|vehicle| vehicle.can_serve(work.vehicle_type_id()));
    if !serves {
        return refuse(format!(
            "{}'s vehicle ({}) does not serve {} jobs.",
            courier.name,
            courier.vehicle.vehicle_type_id,
            work.vehicle_type_id()
        ));
    }
    Ok(())
}

/// Courier `courier` makes `action` on job `job_id`.
pub async fn make_move(core: &Core, courier: &Courier, job_id: &str, action: Move) -> CoreResult<Job> {
    let by = Mover::Courier(&courier.id);
    let work = match JobKind::of(job_id).ok_or_else(|| CoreError::not_found("job"))? {
        JobKind::Delivery => Work::Delivery(match action {
            Move::ArriveAtPickup => dispatch::arrive_at_pickup(core, by, job_id).await?,
            Move::PickUp => dispatch::pick_up(core, by, job_id).await?,
            Move::StartTransit => {
                // Along the route: other stops may come before this dropoff.
                let eta = route::current(core, courier)
                    .await
                    .ok()
                    .and_then(|route| route.eta(job_id, StopKind::Dropoff));
                dispatch::start_transit(core, by, job_id, eta).await?
            }
            Move::ArriveAtDropoff => dispatch::arrive_at_dropoff(core, by, job_id).await?,
            Move::CompleteHandover => dispatch::complete_handover(core, by, job_id).await?,
            Move::FailHandover => dispatch::fail_handover(core, by, job_id).await?,
            Move::ReportPickupNoShow => dispatch::report_pickup_no_show(core, by, job_id).await?,
        }),
        JobKind::FleetOrder => Work::FleetOrder(move_board_order(core, courier, job_id, action).await?),
    };
    if work.status().is_terminal() {
        // The courier has room: a round may offer them the next job now.
        core.dispatch_wake.notify_one();
    }
    // At a stop, maybe not the one planned next: the route is kept as it
    // now stands. It is read afresh each time, so a failure here loses
    // nothing but the courier's chosen order.
    if matches!(action, Move::ArriveAtPickup | Move::ArriveAtDropoff)
        && let Err(error) = route::settle(core, courier).await
    {
        tracing::warn!(%error, courier = %courier.id, "route not kept after a move");
    }
    let assignment = assignments::latest_of(&core.db, job_id, &courier.id)
        .await?
        .ok_or_else(|| CoreError::not_found("job"))?;
    job_of(core, work, assignment).await
}

/// A driver's move of a board order of their fleet, checked in the move's
/// transaction like a delivery's.
async fn move_board_order(core: &Core, courier: &Courier, order_id: &str, action: Move) -> CoreResult<FleetOrder> {
    let (from, to) = match action {
        Move::ArriveAtPickup => (Status::CourierAssigned, Status::AtPickup),
        Move::PickUp => (Status::AtPickup, Status::PickedUp),
        Move::StartTransit => (Status::PickedUp, Status::InTransit),
        Move::ArriveAtDropoff => (Status::InTransit, Status::AtDropoff),
        Move::CompleteHandover => (Status::AtDropoff, Status::Delivered),
        Move::FailHandover => (Status::AtDropoff, Status::Cancelled),
        Move::ReportPickupNoShow => (Status::AtPickup, Status::Cancelled),
    };
    let tx = core.begin().await?;
    let order = fleet::board_order(&*tx, order_id)
        .await
        .map_err(|_| CoreError::not_found("job"))?;
    let holds = assignments::open_for_job(&*tx, order_id)
        .await?
        .is_some_and(|a| a.courier_id == courier.id);
    if !holds {
        // A move resent after it ended the job answers it; any other move
        // on a job they held is refused as such; one never theirs is not
        // found.
        return match assignments::latest_of(&*tx, order_id, &courier.id).await? {
            Some(held) if order.status == to && held.ended_with_the_job() => Ok(order),
            Some(held) => Err(held.ended_refusal()),
            None => Err(CoreError::not_found("job")),
        };
    }
    if order.status == to {
        return Ok(order);
    }
    if order.status != from {
        return Err(lifecycle::illegal(order.status, to));
    }
    let moved = fleet::move_in(core, &tx, &order, to, &courier_label(courier)).await?;
    tx.commit().await?;
    Ok(moved)
}

/// Courier `courier` hands in the proof of a checkpoint of job `job_id`.
/// Board orders ask for no proof.
pub async fn submit_proof(
    core: &Core,
    courier: &Courier,
    job_id: &str,
    submission: ProofSubmission,
) -> CoreResult<Job> {
    match JobKind::of(job_id).ok_or_else(|| CoreError::not_found("job"))? {
        JobKind::Delivery => {
            let delivery = dispatch::submit_proof(core, Mover::Courier(&courier.id), job_id, submission).await?;
            let assignment = assignments::latest_of(&core.db, job_id, &courier.id)
                .await?
                .ok_or_else(|| CoreError::not_found("job"))?;
            job_of(core, Work::Delivery(delivery), assignment).await
        }
        JobKind::FleetOrder => {
            // One never theirs is not found, as for every move.
            if assignments::latest_of(&core.db, job_id, &courier.id).await?.is_none() {
                return Err(CoreError::not_found("job"));
            }
            Err(CoreError::new(
                ErrorCode::Conflict,
                "Board orders take no proof; move the order on.",
            ))
        }
    }
}

async fn job_of(core: &Core, work: Work, assignment: Assignment) -> CoreResult<Job> {
    let (proof, (pickup_proof_submitted, dropoff_proof_submitted)) = match &work {
        Work::Delivery(d) => (
            Some(proofs::in_force(&core.db, d).await?).filter(proofs::asks_anything),
            proofs::submitted_checkpoints(&core.db, &d.id).await?,
        ),
        Work::FleetOrder(_) => (None, (false, false)),
    };
    let pay = pay::of_assignments(&core.db, std::slice::from_ref(&assignment.id))
        .await?
        .remove(&assignment.id);
    let earned_cents = match assignment.ended_at {
        Some(_) => {
            let delivered = assignment
                .delivered()
                .then_some((assignment.courier_id.as_str(), assignment.job_id.as_str()));
            pay::earnings::of_assignment(&core.db, &assignment.id, delivered).await?
        }
        None => None,
    };
    Ok(Job {
        work,
        assignment,
        proof,
        pickup_proof_submitted,
        dropoff_proof_submitted,
        pay,
        earned_cents,
    })
}

/// The delivery's public `courier`, copied from the courier's profile when
/// they get the job (docs/couriers.md "What each party sees"): first name
/// and vehicle, and the keyless link to their photo (`couriers::photo_url`);
/// `rating` stays null until ratings exist, the vehicle's `photo_url` as no
/// vehicle photo is kept.
fn public_courier(core: &Core, courier: &Courier) -> deliveries::Courier {
    deliveries::Courier {
        id: Some(courier.id.clone()),
        name: Some(courier.first_name().to_owned()),
        photo_url: couriers::photo_url(core, courier),
        rating: None,
        vehicle: Some(deliveries::CourierVehicle {
            make: courier.vehicle.make.clone(),
            model: courier.vehicle.model.clone(),
            color: courier.vehicle.color.clone(),
            license_plate: courier.vehicle.license_plate.clone(),
            photo_url: None,
        }),
        location: None,
    }
}

/// How a board order's history and an assignment name a courier.
fn courier_label(courier: &Courier) -> String {
    format!("courier:{}", courier.id)
}

fn changed_meanwhile(job_id: &str) -> CoreError {
    CoreError::new(
        ErrorCode::Conflict,
        format!("Job {job_id} changed meanwhile; read it again and retry."),
    )
}

/// A page position: the end time and id of the last assignment, signed for
/// this courier's list.
fn token_of(core: &Core, scope: &str, last: &Assignment) -> String {
    let position = format!("{}.{}", last.ended_at.unwrap_or_default(), last.id);
    let mac = secrets::sign(&core.secrets.page_token, format!("{scope}|{position}").as_bytes(), 16);
    format!("{position}.{}", hex::encode(mac))
}

fn position_of(core: &Core, scope: &str, token: &str) -> CoreResult<(i64, String)> {
    let invalid = || {
        CoreError::at(
            ErrorCode::InvalidPageToken,
            "page_token",
            "page_token is not one this list issued; pass next_page_token unchanged.",
        )
    };
    let (position, mac) = token.rsplit_once('.').ok_or_else(invalid)?;
    let mac = hex::decode(mac).map_err(|_| invalid())?;
    if !secrets::verify(
        &core.secrets.page_token,
        format!("{scope}|{position}").as_bytes(),
        &mac,
        16,
    ) {
        return Err(invalid());
    }
    let (ended_at, id) = position.split_once('.').ok_or_else(invalid)?;
    Ok((ended_at.parse().map_err(|_| invalid())?, id.to_owned()))
}
