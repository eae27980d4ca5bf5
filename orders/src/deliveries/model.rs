//! What a delivery is, with no rule that reads or writes it: the values the
//! core holds (the delivery cache, the wire's answers) name these, below
//! the module's rules.

use serde::{Deserialize, Serialize};

use crate::notifications::Preferences;
use crate::statuses::{CancellationReason, Status};
use crate::validate::WaypointInput;
use crate::windows::{MINUTE, Plan, Window, Windows};
use courier_identity::modes::Mode;
use courier_pricing::items::ItemInput;
use courier_pricing::prices::{Breakdown, ExtraSelection};
use courier_store::{CoreError, CoreResult};

/// Proof the courier collects at pickup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PickupProof {
    pub photos: u32,
    pub signature: bool,
    pub sender_name: bool,
    pub barcode: bool,
}

/// Proof the courier collects at the dropoff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropoffProof {
    pub photos: u32,
    pub signature: bool,
    pub recipient_name: bool,
    pub barcode: bool,
    pub age_check: bool,
    pub leave_at_door: bool,
    /// The courier enters the delivery's `dropoff_pin` to hand over.
    #[serde(default)]
    pub pin: bool,
}

/// The proof rules stored on a delivery, defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofRequirements {
    pub pickup: PickupProof,
    pub dropoff: DropoffProof,
}

impl Default for ProofRequirements {
    /// One photo at pickup and one at the dropoff.
    fn default() -> Self {
        ProofRequirements {
            pickup: PickupProof {
                photos: 1,
                signature: false,
                sender_name: false,
                barcode: false,
            },
            dropoff: DropoffProof {
                photos: 1,
                signature: false,
                recipient_name: false,
                barcode: false,
                age_check: false,
                leave_at_door: false,
                pin: false,
            },
        }
    }
}

/// The proof rules a request sets; omitted fields keep their defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProofRequest {
    pub pickup_photos: Option<i32>,
    pub pickup_signature: Option<bool>,
    pub pickup_sender_name: Option<bool>,
    pub pickup_barcode: Option<bool>,
    pub dropoff_photos: Option<i32>,
    pub dropoff_signature: Option<bool>,
    pub dropoff_recipient_name: Option<bool>,
    pub dropoff_barcode: Option<bool>,
    pub dropoff_age_check: Option<bool>,
    pub dropoff_leave_at_door: Option<bool>,
    pub dropoff_pin: Option<bool>,
}

impl ProofRequest {
    /// The stored requirements: defaults filled in, photos 1 to 10, and no
    /// `leave_at_door` together with `age_check`.
    pub fn requirements(&self) -> CoreResult<ProofRequirements> {
        let allowed = courier::limits::PROOF_PHOTOS;
        let photos = |param: &str, value: Option<i32>| match value {
            None => Ok(1),
            Some(n) if (allowed.min..=allowed.max).contains(&i64::from(n)) => Ok(n as u32),
            Some(_) => Err(CoreError::invalid(
                param,
                format!("{param} must be {} to {}.", allowed.min, allowed.max),
            )),
        };
        let r = ProofRequirements {
            pickup: PickupProof {
                photos: photos("proof_of_delivery.pickup.photos", self.pickup_photos)?,
                signature: self.pickup_signature.unwrap_or(false),
                sender_name: self.pickup_sender_name.unwrap_or(false),
                barcode: self.pickup_barcode.unwrap_or(false),
            },
            dropoff: DropoffProof {
                photos: photos("proof_of_delivery.dropoff.photos", self.dropoff_photos)?,
                signature: self.dropoff_signature.unwrap_or(false),
                recipient_name: self.dropoff_recipient_name.unwrap_or(false),
                barcode: self.dropoff_barcode.unwrap_or(false),
                age_check: self.dropoff_age_check.unwrap_or(false),
                leave_at_door: self.dropoff_leave_at_door.unwrap_or(false),
                pin: self.dropoff_pin.unwrap_or(false),
            },
        };
        if r.dropoff.pin && r.dropoff.leave_at_door {
            return Err(CoreError::invalid(
                "proof_of_delivery.dropoff.pin",
                "pin cannot be combined with leave_at_door: the recipient tells the courier the PIN at the door.",
            ));
        }
        if r.dropoff.leave_at_door && r.dropoff.age_check {
            return Err(CoreError::invalid(
                "proof_of_delivery.dropoff.leave_at_door",
                "leave_at_door cannot be combined with age_check: age-restricted goods are handed over in person.",
            ));
        }
        Ok(r)
    }
}

impl From<&ProofRequirements> for ProofRequest {
    /// The request that stores `requirements` again (a redelivery asks
    /// for the original's proof).
    fn from(requirements: &ProofRequirements) -> Self {
        let (pickup, dropoff) = (&requirements.pickup, &requirements.dropoff);
        ProofRequest {
            pickup_photos: Some(pickup.photos as i32),
            pickup_signature: Some(pickup.signature),
            pickup_sender_name: Some(pickup.sender_name),
            pickup_barcode: Some(pickup.barcode),
            dropoff_photos: Some(dropoff.photos as i32),
            dropoff_signature: Some(dropoff.signature),
            dropoff_recipient_name: Some(dropoff.recipient_name),
            dropoff_barcode: Some(dropoff.barcode),
            dropoff_age_check: Some(dropoff.age_check),
            dropoff_leave_at_door: Some(dropoff.leave_at_door),
            dropoff_pin: Some(dropoff.pin),
        }
    }
}

/// How a test delivery ends (test keys only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestScenario {
    NoCourierFound,
    CourierCancelled,
    PickupNoShow,
    DeliveryFailed,
    /// Runs late: `delivery.delayed`, then delivered after its promise.
    Delayed,
    /// The handover fails and the goods go back to the pickup as a return
    /// delivery, which is then delivered.
    Returned,
}

impl TestScenario {
    pub fn as_str(self) -> &'static str {
        match self {
            TestScenario::NoCourierFound => "no_courier_found",
            TestScenario::CourierCancelled => "courier_cancelled",
            TestScenario::PickupNoShow => "pickup_no_show",
            TestScenario::DeliveryFailed => "delivery_failed",
            TestScenario::Delayed => "delayed",
            TestScenario::Returned => "returned",
        }
    }

    pub fn parse(text: &str) -> Option<TestScenario> {
        [
            TestScenario::NoCourierFound,
            TestScenario::CourierCancelled,
            TestScenario::PickupNoShow,
            TestScenario::DeliveryFailed,
            TestScenario::Delayed,
            TestScenario::Returned,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// What a failed handover does with the goods (docs/guide.md "Returns"):
/// the courier brings them back to the pickup as a return delivery, or
/// disposes of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UndeliverableAction {
    #[default]
    ReturnToPickup,
    Dispose,
}

impl UndeliverableAction {
    pub fn as_str(self) -> &'static str {
        match self {
            UndeliverableAction::ReturnToPickup => "return_to_pickup",
            UndeliverableAction::Dispose => "dispose",
        }
    }

    pub fn parse(text: &str) -> Option<UndeliverableAction> {
        [UndeliverableAction::ReturnToPickup, UndeliverableAction::Dispose]
            .into_iter()
            .find(|a| a.as_str() == text)
    }
}

/// Whether a delivery may share its courier with other jobs
/// (docs/guide.md "Several jobs per courier"); `Allowed` unless booked
/// `never`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Batching {
    #[default]
    Allowed,
    /// Rides alone: its courier holds no other job while carrying it.
    Never,
}

impl Batching {
    pub fn as_str(self) -> &'static str {
        match self {
            Batching::Allowed => "allowed",
            Batching::Never => "never",
        }
    }

    pub fn parse(text: &str) -> Option<Batching> {
        [Batching::Allowed, Batching::Never]
            .into_iter()
            .find(|b| b.as_str() == text)
    }
}

/// The client's reason for cancelling (stored; default `other`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    FoundAnotherService,
    WaitedTooLong,
    BookedByMistake,
    NoLongerNeeded,
    ChangeDetails,
    Other,
}

impl CancelReason {
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::FoundAnotherService => "found_another_service",
            CancelReason::WaitedTooLong => "waited_too_long",
            CancelReason::BookedByMistake => "booked_by_mistake",
            CancelReason::NoLongerNeeded => "no_longer_needed",
            CancelReason::ChangeDetails => "change_details",
            CancelReason::Other => "other",
        }
    }
}

/// The courier as a delivery shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Courier {
    /// The platform's courier (`cou_…`) who carries it; `None` for a
    /// courier named by an outside dispatch system. Not shown to clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: Option<String>,
    pub photo_url: Option<String>,
    pub rating: Option<f64>,
    pub vehicle: Option<CourierVehicle>,
    pub location: Option<CourierLocation>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CourierVehicle {
    pub make: Option<String>,
    pub model: Option<String>,
    pub color: Option<String>,
    pub license_plate: Option<String>,
    pub photo_url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CourierLocation {
    pub latitude: f64,
    pub longitude: f64,
    pub recorded_at: Option<i64>,
}

/// Waypoints, extras and items as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRoute {
    pub pickup: WaypointInput,
    pub dropoff: WaypointInput,
    pub stops: Vec<WaypointInput>,
    pub extras: Vec<ExtraSelection>,
    pub items: Option<Vec<ItemInput>>,
}

/// A delivery as the core knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: String,
    pub workspace_id: String,
    pub mode: Mode,
    pub status: Status,
    pub external_id: Option<String>,
    pub quote_id: Option<String>,
    pub amount_cents: Option<i64>,
    pub currency: Option<String>,
    pub breakdown: Option<Breakdown>,
    pub route: StoredRoute,
    pub vehicle_type_id: String,
    pub service_area_id: String,
    pub distance_km: f64,
    pub duration_min: i64,
    pub notes: Option<String>,
    pub scheduled_at: Option<i64>,
    pub proof: ProofRequirements,
    pub test_scenario: Option<TestScenario>,
    pub tracking_token: String,
    pub tracking_available_at: Option<i64>,
    pub courier: Option<Courier>,
    pub created_at: i64,
    pub updated_at: i64,
    pub cancelled_at: Option<i64>,
    pub cancellation_reason: Option<CancellationReason>,
    pub cancel_reason: Option<String>,
    pub delivered_at: Option<i64>,
    pub next_step_at: Option<i64>,
    /// When the courier is expected at the pickup and at the dropoff, once
    /// a courier's position says (before, [`Delivery::etas`] plans them).
    pub pickup_eta: Option<i64>,
    pub dropoff_eta: Option<i64>,
    /// The promised times (docs/guide.md "Windows").
    /// Whether it may share its courier.
    pub batching: Batching,
    pub windows: Windows,
    /// The dropoff promised at booking: the dropoff window's end or,
    /// without one, the plan's dropoff plus
    /// [`crate::windows::ON_TIME_GRACE`]; `None` for deliveries booked
    /// before promises were kept.
    pub promised_by: Option<i64>,
    /// When `delivery.delayed` was recorded (once per delivery).
    pub delayed_at: Option<i64>,
    /// Once delivered: whether the dropoff promise was kept.
    pub on_time: Option<bool>,
    /// The delivery's own choice of recipient notifications.
    pub notifications: Preferences,
    /// The 4 digits the recipient tells the courier (`proof.dropoff.pin`).
    pub dropoff_pin: Option<String>,
    /// Wrong PINs entered since booking or the last dispatcher's reset.
    pub dropoff_pin_failures: u32,
    /// The wrong PIN that counted last, as `submission_id:PIN`: the same
    /// submission sent again with it is answered as then, not counted twice.
    pub dropoff_pin_failed_submission: Option<String>,
    /// What a failed handover does with the goods.
    pub undeliverable_action: UndeliverableAction,
    /// On a return: the delivery whose goods it brings back.
    pub return_of: Option<String>,
    /// Once its handover failed with a return: the return delivery.
    pub return_delivery_id: Option<String>,
    /// The business's tip, in minor units of `currency`; all of it goes to
    /// the courier who delivers (docs/couriers.md "Tips").
    pub tip_cents: i64,
}

/// Wrong PINs that block a handover until a dispatcher resets them.
pub const PIN_TRIES: u32 = 5;

impl Delivery {
    /// Whether wrong PINs block the handover ([`PIN_TRIES`]).
    pub fn handover_blocked(&self) -> bool {
        self.dropoff_pin.is_some() && self.dropoff_pin_failures >= PIN_TRIES
    }

    /// When the pickup may happen: `scheduled_at`, or the pickup window's
    /// start; `None` for an immediate delivery.
    pub fn pickup_from(&self) -> Option<i64> {
        self.scheduled_at.or(self.windows.pickup.map(|w| w.start))
    }

    /// The dispatcher's plan at booking (docs/guide.md "Windows").
    pub fn plan(&self) -> Plan {
        self.windows
            .plan(self.created_at, self.scheduled_at, self.duration_min.max(0) * MINUTE)
    }

    /// The dropoff predicted from a courier's ETA: `dropoff_eta` when
    /// known, else a route after `pickup_eta` (not before the pickup window
    /// opens).
    pub fn predicted_dropoff(&self, pickup_eta: Option<i64>, dropoff_eta: Option<i64>) -> Option<i64> {
        let duration = self.duration_min.max(0) * MINUTE;
        let opens = self.windows.pickup.map_or(i64::MIN, |w| w.start);
        dropoff_eta.or_else(|| pickup_eta.map(|at| at.max(opens) + duration))
    }

    /// Whether a dropoff at `at` breaks the promise of a delivery not yet
    /// reported at risk.
    pub fn would_be_late(&self, at: i64) -> bool {
        self.delayed_at.is_none() && !self.status.is_terminal() && self.promised_by.is_some_and(|by| at > by)
    }

    /// The ETAs a client reads: while the pickup lies ahead, the courier's
    /// (or, before one is known, the plan's) pickup and the dropoff a route
    /// later; from the pickup on, the dropoff ETA alone; none once ended.
    /// Never before a window opens: a courier early waits for it.
    pub fn etas(&self) -> (Option<i64>, Option<i64>) {
        let duration = self.duration_min.max(0) * MINUTE;
        let opens = |at: i64, window: Option<Window>| window.map_or(at, |w| at.max(w.start));
        match self.status {
            Status::Pending | Status::CourierAssigned | Status::AtPickup => {
                let pickup = opens(self.pickup_eta.unwrap_or(self.plan().pickup_at), self.windows.pickup);
                let dropoff = self.dropoff_eta.unwrap_or(pickup + duration);
                (Some(pickup), Some(opens(dropoff, self.windows.dropoff)))
            }
            Status::PickedUp | Status::InTransit | Status::AtDropoff => {
                let dropoff = self.dropoff_eta.unwrap_or(self.plan().dropoff_at);
                (None, Some(opens(dropoff, self.windows.dropoff)))
            }
            Status::Delivered | Status::Cancelled => (None, None),
        }
    }
}
