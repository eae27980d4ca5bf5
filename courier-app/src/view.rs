//! Jobs and offers as the pages show them: the next stop, its links, the one
//! next move, in words a courier reads at a glance.

use chrono_tz::Tz;
use courier::app::v1 as apb;
use courier::names::PublicName;
use courier::v1 as pb;

use crate::page::clock;

/// A stop of a job.
pub(crate) struct StopView {
    pub(crate) label: &'static str,
    pub(crate) address: String,
    pub(crate) contact_name: String,
    /// `tel:` link, only while the job is active (the core sends no number
    /// otherwise).
    pub(crate) tel: String,
    pub(crate) phone: String,
    pub(crate) instructions: String,
    /// `geo:` URI: the phone's own maps app.
    pub(crate) geo: String,
    pub(crate) osm: String,
}

impl StopView {
    fn of(label: &'static str, waypoint: Option<&pb::Waypoint>) -> StopView {
        let waypoint = waypoint.cloned().unwrap_or_default();
        let contact = waypoint.contact.unwrap_or_default();
        let (lat, lon) = (waypoint.latitude, waypoint.longitude);
        let place: String = url::form_urlencoded::byte_serialize(waypoint.address.as_bytes())
            .collect::<String>()
            .replace('+', "%20");
        let dialable: String = contact
            .phone
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == '+')
            .collect();
        StopView {
            label,
            tel: if dialable.is_empty() {
                String::new()
            } else {
                format!("tel:{dialable}")
            },
            phone: contact.phone,
            contact_name: contact.name,
            instructions: waypoint.instructions.unwrap_or_default(),
            geo: format!("geo:{lat},{lon}?q={lat},{lon}({place})"),
            osm: format!("https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=17/{lat}/{lon}"),
            address: waypoint.address,
        }
    }
}

/// What the job page offers as its one button.
pub(crate) struct Action {
    /// `move` (a form posting `value`), `proof` (a link to the checkpoint
    /// `value`'s proof), or empty.
    pub(crate) kind: &'static str,
    pub(crate) value: &'static str,
    pub(crate) label: &'static str,
}

/// A problem the courier may report at the current stop, behind a
/// confirmation.
pub(crate) struct Problem {
    pub(crate) value: &'static str,
    pub(crate) label: &'static str,
    pub(crate) confirm: &'static str,
}

pub(crate) struct JobView {
    pub(crate) id: String,
    pub(crate) kind: &'static str,
    pub(crate) status: &'static str,
    pub(crate) headline: &'static str,
    pub(crate) active: bool,
    /// The stop the courier heads for (or is at); none once the job ended.
    pub(crate) next_stop: Option<StopView>,
    pub(crate) pickup: StopView,
    pub(crate) dropoff: StopView,
    pub(crate) stops: Vec<StopView>,
    pub(crate) items: Vec<String>,
    pub(crate) notes: String,
    pub(crate) reference: String,
    pub(crate) distance: String,
    pub(crate) vehicle: String,
    pub(crate) eta: String,
    /// The next stop's promised time, "Pick up between 14:00 and 16:00";
    /// empty without one.
    pub(crate) window: String,
    pub(crate) action: Action,
    /// The steps after the action, in order, for a job worked offline: the
    /// page shows the next one once the one before waits on the phone.
    pub(crate) later: Vec<Action>,
    pub(crate) problem: Option<Problem>,
    pub(crate) outcome: String,
    pub(crate) assigned_at: String,
    pub(crate) ended_at: String,
    /// What it pays, its parts in words; none without a pay rule.
    pub(crate) pay: Option<PayView>,
    /// Once it ended: what it earned ("8.45 EUR"); empty when nothing.
    pub(crate) earned: String,
    /// The business's tip ("5.00 EUR"), all of it the courier's; empty
    /// without one.
    pub(crate) tip: String,
}

/// What a job pays, as the courier reads it (docs/couriers.md "Pay").
pub(crate) struct PayView {
    /// "12.34 EUR".
    pub(crate) total: String,
    /// "Base 3.00 EUR", "4.2 km 3.78 EUR", …: the parts that pay something.
    pub(crate) parts: Vec<String>,
}

/// What an ended job earned the courier ("8.45 EUR"), its tip included;
/// empty when nothing.
fn earned(job: &apb::Job) -> String {
    let currency = job
        .pay
        .as_ref()
        .map_or(job.currency.as_str(), |pay| pay.currency.as_str());
    match job.earned_cents {
        Some(cents) if !currency.is_empty() => courier::statements::money(cents, currency),
        _ => String::new(),
    }
}

/// A job's tip ("5.00 EUR"); empty without one (docs/couriers.md "Tips").
fn tip(job: &apb::Job) -> String {
    match job.tip_cents {
        cents if cents > 0 => courier::statements::money(cents, &job.currency),
        _ => String::new(),
    }
}

impl PayView {
    pub(crate) fn of(pay: &apb::JobPay) -> PayView {
        let parts = [
            ("Base", pay.base_cents),
            ("Distance", pay.distance_cents),
            ("Time", pay.time_cents),
            ("Surcharges", pay.surcharge_cents),
            ("Waiting", pay.waiting_cents),
        ];
        PayView {
            total: courier::statements::money(pay.total_cents, &pay.currency),
            parts: parts
                .into_iter()
                .filter(|(_, cents)| *cents != 0)
                .map(|(name, cents)| format!("{name} {}", courier::statements::money(cents, &pay.currency)))
                .collect(),
        }
    }
}

impl JobView {
    pub(crate) fn of(job: &apb::Job, zone: Tz) -> JobView {
        let status = job.status();
        let before_pickup = matches!(
            status,
            pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::AtPickup
        );
        let pickup = StopView::of("Pickup", job.pickup.as_ref());
        let dropoff = StopView::of("Dropoff", job.dropoff.as_ref());
        let next_stop = job.active.then(|| {
            if before_pickup {
                StopView::of("Pickup", job.pickup.as_ref())
            } else {
                StopView::of("Dropoff", job.dropoff.as_ref())
            }
        });
        let eta = if before_pickup {
            job.pickup_eta.as_ref()
        } else {
            job.dropoff_eta.as_ref()
        };
        let (verb, window) = if before_pickup {
            ("Pick up", job.pickup_window.as_ref())
        } else {
            ("Deliver", job.dropoff_window.as_ref())
        };
        let window = match window {
            Some(w) if job.active => format!(
                "{verb} between {} and {}",
                clock(w.start.as_ref(), zone),
                clock(w.end.as_ref(), zone)
            ),
            _ => String::new(),
        };
        JobView {
            id: job.id.clone(),
            kind: match job.kind() {
                apb::JobKind::FleetOrder => "Order",
                _ if job.return_of.is_some() => "Return to the sender",
                _ => "Delivery",
            },
            status: status.public_name().unwrap_or("unknown"),
            headline: headline(status, job.active),
            active: job.active,
            next_stop,
            pickup,
            dropoff,
            stops: job.stops.iter().map(|s| StopView::of("Stop", Some(s))).collect(),
            items: job.items.iter().map(item).collect(),
            notes: job.notes.clone().unwrap_or_default(),
            reference: job.reference.clone().unwrap_or_default(),
            distance: kilometres(job.distance_km),
            vehicle: vehicle_name(&job.vehicle_type_id),
            // Only while heading for the stop.
            eta: match status {
                pb::DeliveryStatus::CourierAssigned | pb::DeliveryStatus::PickedUp | pb::DeliveryStatus::InTransit
                    if job.active =>
                {
                    clock(eta, zone)
                }
                _ => String::new(),
            },
            window,
            action: action(job),
            later: later_steps(job),
            problem: problem(job),
            outcome: outcome(job.outcome.as_deref()),
            assigned_at: clock(job.assigned_at.as_ref(), zone),
            ended_at: clock(job.ended_at.as_ref(), zone),
            pay: job.pay.as_ref().map(PayView::of),
            earned: earned(job),
            tip: tip(job),
        }
    }
}

fn headline(status: pb::DeliveryStatus, active: bool) -> &'static str {
    use pb::DeliveryStatus as S;
    match status {
        _ if !active && !matches!(status, S::Delivered | S::Cancelled) => "No longer yours",
        S::CourierAssigned => "Go to the pickup",
        S::AtPickup => "At the pickup",
        S::PickedUp => "Picked up",
        S::InTransit => "On the way to the dropoff",
        S::AtDropoff => "At the dropoff",
        S::Delivered => "Delivered",
        S::Cancelled => "Cancelled",
        _ => "Waiting",
    }
}

impl Action {
    /// How the page and the phone's outbox name this step: `move:pick_up`,
    /// `proof:dropoff`.
    pub(crate) fn key(&self) -> String {
        format!("{}:{}", self.kind, self.value)
    }
}

/// Every step of a job from the courier's acceptance to the handover: a
/// proof step makes its move (picked up, handed over) itself.
fn all_steps(job: &apb::Job) -> Vec<Action> {
    let proof = job.proof.unwrap_or_default();
    let pickup = proof.pickup.unwrap_or_default();
    let dropoff = proof.dropoff.unwrap_or_default();
    let pickup_proof = pickup.photos > 0 || pickup.signature || pickup.sender_name || pickup.barcode;
    let dropoff_proof =
        dropoff.photos > 0 || dropoff.signature || dropoff.recipient_name || dropoff.barcode || dropoff.age_check;
    vec![
        step("move", "arrive_at_pickup"),
        if pickup_proof {
            step("proof", "pickup")
        } else {
            step("move", "pick_up")
        },
        step("move", "start_transit"),
        step("move", "arrive_at_dropoff"),
        if dropoff_proof {
            step("proof", "dropoff")
        } else {
            step("move", "complete_handover")
        },
    ]
}

/// The steps after the job's current action (none when the action is not
/// one of the usual sequence).
fn later_steps(job: &apb::Job) -> Vec<Action> {
    let current = action(job).key();
    let steps = all_steps(job);
    match steps.iter().position(|step| step.key() == current) {
        Some(at) => steps.into_iter().skip(at + 1).collect(),
        None => Vec::new(),
    }
}

/// The one button: the next move, or the proof it waits for.
fn action(job: &apb::Job) -> Action {
    let none = Action {
        kind: "",
        value: "",
        label: "",
    };
    if !job.active {
        return none;
    }
    match job.next_move() {
        apb::JobMove::ArriveAtPickup => step("move", "arrive_at_pickup"),
        apb::JobMove::PickUp => step("move", "pick_up"),
        apb::JobMove::StartTransit => step("move", "start_transit"),
        apb::JobMove::ArriveAtDropoff => step("move", "arrive_at_dropoff"),
        apb::JobMove::CompleteHandover => step("move", "complete_handover"),
        apb::JobMove::Unspecified => match job.status() {
            pb::DeliveryStatus::AtPickup => step("proof", "pickup"),
            pb::DeliveryStatus::AtDropoff => step("proof", "dropoff"),
            _ => none,
        },
    }
}

/// A step of a job (`move` or `proof`, with its form value) and the words
/// of its button.
fn step(kind: &'static str, value: &'static str) -> Action {
    let label = match (kind, value) {
        ("move", "arrive_at_pickup") => "I'm at the pickup",
        ("move", "pick_up") => "Picked up",
        ("move", "start_transit") => "Start driving to the dropoff",
        ("move", "arrive_at_dropoff") => "I'm at the dropoff",
        ("move", "complete_handover") => "Handed over",
        ("proof", "pickup") => "Take the pickup proof",
        ("proof", "dropoff") => "Take the delivery proof",
        _ => "",
    };
    Action { kind, value, label }
}

fn problem(job: &apb::Job) -> Option<Problem> {
    if !job.active {
        return None;
    }
    match job.status() {
        pb::DeliveryStatus::AtPickup => Some(Problem {
            value: "pickup_no_show",
            label: "Nobody hands the goods over",
            confirm: "Yes: I am at the pickup and nobody hands the goods over. The job is cancelled.",
        }),
        pb::DeliveryStatus::AtDropoff => Some(Problem {
            value: "failed_handover",
            label: "The handover failed",
            confirm: "Yes: the goods cannot be handed over. The job is cancelled; unless the customer asked to dispose of them, you bring them back to the pickup.",
        }),
        _ => None,
    }
}

fn outcome(outcome: Option<&str>) -> String {
    match outcome {
        None => String::new(),
        Some("delivered") => "Delivered".into(),
        Some("reassigned") => "Given to another courier".into(),
        Some("unassigned") => "Taken back by dispatch".into(),
        Some("cancelled:cancelled_by_you") => "Cancelled by the customer".into(),
        Some("cancelled:no_courier_found") => "Cancelled: no courier was found in time".into(),
        Some("cancelled:pickup_no_show") => "Cancelled: nobody handed the goods over".into(),
        Some("cancelled:cancelled_by_maxmove") => "Cancelled by the platform".into(),
        Some(other) => match other.strip_prefix("cancelled:") {
            Some(reason) => format!("Cancelled ({})", reason.replace('_', " ")),
            None => other.replace('_', " "),
        },
    }
}

fn item(item: &pb::ShipmentItem) -> String {
    let weight = if item.weight_kg > 0.0 {
        format!(", {} kg", trim_number(item.weight_kg))
    } else {
        String::new()
    };
    format!("{} × {}{weight}", item.quantity.max(1), item.description)
}

/// "4.2 km" (one decimal), "850 m" under a kilometre.
pub(crate) fn kilometres(km: f64) -> String {
    if km < 1.0 {
        format!("{} m", (km * 1000.0).round() as i64)
    } else {
        format!("{km:.1} km")
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `small_van` → "Small van".
pub(crate) fn vehicle_name(id: &str) -> String {
    let spaced = id.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An offer on the shift page.
pub(crate) struct OfferView {
    pub(crate) id: String,
    pub(crate) pickup: String,
    pub(crate) dropoff: String,
    /// From the courier to the pickup.
    pub(crate) to_pickup: String,
    pub(crate) minutes_to_pickup: i64,
    /// From the pickup to the dropoff.
    pub(crate) route: String,
    pub(crate) vehicle: String,
    pub(crate) items: Vec<String>,
    /// RFC 3339, for the countdown; and the clock time, for a page without
    /// script.
    pub(crate) expires_at: String,
    pub(crate) answer_by: String,
    /// Beside the jobs in hand: the minutes it adds to the route, and the
    /// route with it, in words ("1. Pick up at …").
    pub(crate) added_minutes: Option<i64>,
    pub(crate) with_it: Vec<String>,
    pub(crate) pay: Option<PayView>,
    /// The business's tip on top of the pay; empty without one.
    pub(crate) tip: String,
}

impl OfferView {
    pub(crate) fn of(offer: &apb::Offer, zone: Tz) -> OfferView {
        let job = offer.job.clone().unwrap_or_default();
        OfferView {
            id: offer.id.clone(),
            pickup: job.pickup.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            dropoff: job.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            to_pickup: kilometres(offer.distance_to_pickup_km),
            minutes_to_pickup: offer.minutes_to_pickup,
            route: kilometres(job.distance_km),
            vehicle: vehicle_name(&job.vehicle_type_id),
            items: job.items.iter().map(item).collect(),
            added_minutes: offer.added_minutes,
            pay: offer.pay.as_ref().map(PayView::of),
            tip: tip(&job),
            with_it: offer
                .route
                .as_ref()
                .map(|route| {
                    StopLine::all(route, zone)
                        .into_iter()
                        .map(|stop| {
                            let new = if stop.job_id == job.id { " (this job)" } else { "" };
                            format!("{}. {} at {}{new}", stop.number, stop.label, stop.address)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            expires_at: offer
                .expires_at
                .as_ref()
                .and_then(courier::time::from_proto)
                .map(|at| at.to_rfc3339())
                .unwrap_or_default(),
            answer_by: offer
                .expires_at
                .as_ref()
                .and_then(courier::time::from_proto)
                .map(|at| at.with_timezone(&zone).format("%H:%M:%S").to_string())
                .unwrap_or_default(),
        }
    }
}

/// A job in a list (open jobs, today's finished ones).
pub(crate) struct JobLine {
    pub(crate) id: String,
    pub(crate) headline: &'static str,
    pub(crate) pickup: String,
    pub(crate) dropoff: String,
    pub(crate) when: String,
    pub(crate) outcome: String,
    /// What it earned the courier ("8.45 EUR"); empty when nothing.
    pub(crate) earned: String,
}

/// A stop of the courier's route, as the shift page lists it.
pub(crate) struct StopLine {
    pub(crate) number: usize,
    pub(crate) job_id: String,
    /// `pickup` or `dropoff`.
    pub(crate) kind: &'static str,
    pub(crate) label: &'static str,
    pub(crate) address: String,
    pub(crate) eta: String,
    pub(crate) geo: String,
}

impl StopLine {
    /// The route's stops in order, numbered from 1.
    pub(crate) fn all(route: &apb::Route, zone: Tz) -> Vec<StopLine> {
        route
            .stops
            .iter()
            .enumerate()
            .map(|(i, stop)| {
                let (kind, label) = match stop.kind() {
                    apb::StopKind::Pickup => ("pickup", "Pick up"),
                    _ => ("dropoff", "Drop off"),
                };
                let place = StopView::of(label, stop.place.as_ref());
                StopLine {
                    number: i + 1,
                    job_id: stop.job_id.clone(),
                    kind,
                    label,
                    address: place.address,
                    eta: stop.eta.as_ref().map(|at| clock(Some(at), zone)).unwrap_or_default(),
                    geo: place.geo,
                }
            })
            .collect()
    }
}

impl JobLine {
    pub(crate) fn of(job: &apb::Job, zone: Tz) -> JobLine {
        JobLine {
            id: job.id.clone(),
            headline: headline(job.status(), job.active),
            pickup: job.pickup.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            dropoff: job.dropoff.as_ref().map(|w| w.address.clone()).unwrap_or_default(),
            when: clock(job.ended_at.as_ref().or(job.assigned_at.as_ref()), zone),
            outcome: outcome(job.outcome.as_deref()),
            earned: earned(job),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_link_to_the_phones_maps_and_to_openstreetmap() {
        let waypoint = pb::Waypoint {
            address: "Oranienstraße 25, Berlin".into(),
            latitude: 52.501,
            longitude: 13.419,
            contact: Some(pb::Contact {
                name: "Rui".into(),
                phone: "+49 151 2345678".into(),
                email: None,
            }),
            instructions: None,
        };
        let stop = StopView::of("Dropoff", Some(&waypoint));
        assert_eq!(stop.tel, "tel:+491512345678");
        assert_eq!(
            stop.geo,
            "geo:52.501,13.419?q=52.501,13.419(Oranienstra%C3%9Fe%2025%2C%20Berlin)"
        );
        assert_eq!(
            stop.osm,
            "https://www.openstreetmap.org/?mlat=52.501&mlon=13.419#map=17/52.501/13.419"
        );
        let hidden = StopView::of(
            "Dropoff",
            Some(&pb::Waypoint {
                contact: Some(pb::Contact::default()),
                ..waypoint
            }),
        );
        assert_eq!(hidden.tel, "", "no number, no call link");
    }

    #[test]
    fn the_one_button_is_the_next_move_or_the_proof_it_waits_for() {
        let job = |status: pb::DeliveryStatus, next: apb::JobMove, active: bool| apb::Job {
            status: status as i32,
            next_move: next as i32,
            active,
            ..Default::default()
        };
        let at_pickup = action(&job(pb::DeliveryStatus::AtPickup, apb::JobMove::Unspecified, true));
        assert_eq!((at_pickup.kind, at_pickup.value), ("proof", "pickup"));
        let transit = action(&job(pb::DeliveryStatus::PickedUp, apb::JobMove::StartTransit, true));
        assert_eq!((transit.kind, transit.value), ("move", "start_transit"));
        let ended = action(&job(pb::DeliveryStatus::Delivered, apb::JobMove::Unspecified, false));
        assert_eq!(ended.kind, "");
        assert!(problem(&job(pb::DeliveryStatus::AtDropoff, apb::JobMove::Unspecified, true)).is_some());
        assert!(problem(&job(pb::DeliveryStatus::AtDropoff, apb::JobMove::Unspecified, false)).is_none());
        assert_eq!(
            outcome(Some("cancelled:pickup_no_show")),
            "Cancelled: nobody handed the goods over"
        );
        assert_eq!(outcome(Some("cancelled:cancelled_by_you")), "Cancelled by the customer");
        assert_eq!(kilometres(0.85), "850 m");
        assert_eq!(vehicle_name("small_van"), "Small van");
    }

    #[test]
    fn a_job_lists_the_steps_after_its_action_for_working_offline() {
        let keys = |job: &apb::Job| later_steps(job).iter().map(Action::key).collect::<Vec<_>>();
        // No proof asked: moves all the way to the handover.
        let assigned = apb::Job {
            status: pb::DeliveryStatus::CourierAssigned as i32,
            next_move: apb::JobMove::ArriveAtPickup as i32,
            active: true,
            ..Default::default()
        };
        assert_eq!(
            keys(&assigned),
            [
                "move:pick_up",
                "move:start_transit",
                "move:arrive_at_dropoff",
                "move:complete_handover"
            ]
        );
        // A photo at the dropoff: the proof step ends the list (it hands over).
        let in_transit = apb::Job {
            status: pb::DeliveryStatus::InTransit as i32,
            next_move: apb::JobMove::ArriveAtDropoff as i32,
            active: true,
            proof: Some(pb::ProofOfDeliveryRequirements {
                pickup: None,
                dropoff: Some(pb::DropoffProofRequirements {
                    photos: 1,
                    ..Default::default()
                }),
            }),
            ..Default::default()
        };
        assert_eq!(keys(&in_transit), ["proof:dropoff"]);
        // An ended job has no steps.
        let ended = apb::Job {
            status: pb::DeliveryStatus::Delivered as i32,
            ..Default::default()
        };
        assert!(keys(&ended).is_empty());
    }
}
