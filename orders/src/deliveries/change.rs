//! The typed change set of a stored delivery. Movers (lifecycle, dispatch,
//! the simulator) say what changes in the delivery's own terms; only this
//! module turns that into columns, so `deliveries` stays the one writer of
//! its table and a new column cannot be set from elsewhere by accident.

use sea_orm::sea_query::{Expr, ExprTrait, SimpleExpr};

use super::{CancelReason, Courier, Delivery, StoredRoute, entity};
use crate::CoreResult;
use crate::quotes::to_json;
use crate::statuses::{CancellationReason, Status};
use crate::windows::Window;
use courier_pricing::prices::PricedRoute;

/// What one write changes on a delivery; unset fields stay as stored.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct Change {
    status: Option<Status>,
    updated_at: Option<i64>,
    courier: Option<Option<Courier>>,
    tracking_available_at: Option<i64>,
    pickup_eta: Option<Option<i64>>,
    dropoff_eta: Option<Option<i64>>,
    next_step_at: Option<Option<i64>>,
    delivered_at: Option<(i64, Option<bool>)>,
    picked_up_at: Option<i64>,
    delayed_at: Option<i64>,
    cancelled: Option<(CancellationReason, i64)>,
    client_reason: Option<CancelReason>,
    notes: Option<Option<String>>,
    route: Option<StoredRoute>,
    dropoff_window: Option<Option<Window>>,
    promised_by: Option<i64>,
    priced: Option<PricedRoute>,
    pin_failures: Option<(u32, u32, Option<String>)>,
    return_delivery_id: Option<String>,
    tip_cents: Option<i64>,
}

impl Change {
    /// The move to `status` at `now`. Only `lifecycle` moves a status: it
    /// checks the move is legal and writes its events in the same
    /// transaction.
    pub(crate) fn moved(self, status: Status, now: i64) -> Self {
        Change {
            status: Some(status),
            picked_up_at: (status == Status::PickedUp).then_some(now).or(self.picked_up_at),
            ..self.touched(now)
        }
    }

    /// The delivery as the client sees it changed at `now` (`updated_at`).
    pub fn touched(self, now: i64) -> Self {
        Change {
            updated_at: Some(now),
            ..self
        }
    }

    /// The courier as the delivery now shows it.
    pub fn courier(self, courier: Courier) -> Self {
        Change {
            courier: Some(Some(courier)),
            ..self
        }
    }

    /// No courier any more (a job taken back from its courier).
    pub fn no_courier(self) -> Self {
        Change {
            courier: Some(None),
            ..self
        }
    }

    /// Live tracking opens at `at`.
    pub fn tracking_opens(self, at: i64) -> Self {
        Change {
            tracking_available_at: Some(at),
            ..self
        }
    }

    pub fn pickup_eta(self, eta: Option<i64>) -> Self {
        Change {
            pickup_eta: Some(eta),
            ..self
        }
    }

    pub fn dropoff_eta(self, eta: Option<i64>) -> Self {
        Change {
            dropoff_eta: Some(eta),
            ..self
        }
    }

    /// When the simulator or the courier-search timeout next looks at the
    /// delivery; `None` takes it off their schedule.
    pub fn next_step(self, at: Option<i64>) -> Self {
        Change {
            next_step_at: Some(at),
            ..self
        }
    }

    /// `delivery` handed over at `at`, on time or not (docs/guide.md
    /// "Windows"); nothing is scheduled any more.
    pub fn delivered(self, delivery: &Delivery, at: i64) -> Self {
        let on_time = delivery.promised_by.map(|by| at <= by);
        Change {
            delivered_at: Some((at, on_time)),
            ..self.next_step(None)
        }
    }

    /// Found at risk at `at`: `delivery.delayed` is recorded, and never
    /// again (the write happens only while none was: [`Change::guard`]).
    pub fn delayed(self, at: i64) -> Self {
        Change {
            delayed_at: Some(at),
            ..self
        }
    }

    /// Cancelled at `at` for `reason`; nothing is scheduled any more.
    pub fn cancelled(self, reason: CancellationReason, at: i64) -> Self {
        Change {
            cancelled: Some((reason, at)),
            ..self.next_step(None)
        }
    }

    /// The reason the client gave for its cancel.
    pub fn client_reason(self, reason: CancelReason) -> Self {
        Change {
            client_reason: Some(reason),
            ..self
        }
    }

    /// The client's notes; `None` removes them.
    pub fn notes(self, notes: Option<String>) -> Self {
        Change {
            notes: Some(notes),
            ..self
        }
    }

    /// The waypoints, extras and items as they now are.
    pub fn route(self, route: StoredRoute) -> Self {
        Change {
            route: Some(route),
            ..self
        }
    }

    /// The dropoff window; `None` removes it.
    pub fn dropoff_window(self, window: Option<Window>) -> Self {
        Change {
            dropoff_window: Some(window),
            ..self
        }
    }

    /// The dropoff promised (docs/guide.md "Windows").
    pub fn promised_by(self, at: i64) -> Self {
        Change {
            promised_by: Some(at),
            ..self
        }
    }

    /// The price, distance, duration and service area of a route priced
    /// again (its waypoints moved).
    pub fn priced(self, priced: PricedRoute) -> Self {
        Change {
            priced: Some(priced),
            ..self
        }
    }

    /// The count of wrong dropoff PINs moved from `was` to `now` (one more
    /// wrong, or a dispatcher's reset to 0), with the attempt that counted
    /// (`submission_id:PIN`; `None` on a reset); applies only while the row
    /// still counts `was`, so that two entries at once count twice.
    pub fn pin_failures(self, was: u32, now: u32, attempt: Option<String>) -> Self {
        Change {
            pin_failures: Some((was, now, attempt)),
            ..self
        }
    }

    /// Links the return `id` that brings the goods back (docs/guide.md
    /// "Returns"); set with the failed handover's cancel, so that the
    /// `delivery.cancelled` event names it.
    pub fn return_delivery(self, id: String) -> Self {
        Change {
            return_delivery_id: Some(id),
            ..self
        }
    }

    /// The tip (docs/couriers.md "Tips").
    pub fn tip(self, cents: i64) -> Self {
        Change {
            tip_cents: Some(cents),
            ..self
        }
    }

    /// What the row must still be for the change to apply, beyond its
    /// status: not yet at risk, for the change that makes it so, so that of
    /// two replicas finding it late only one records it; the count of wrong
    /// PINs it was read with.
    pub(super) fn guard(&self) -> Option<SimpleExpr> {
        let not_delayed = self.delayed_at.map(|_| Expr::col(entity::Column::DelayedAt).is_null());
        let pins = self
            .pin_failures
            .as_ref()
            .map(|(was, _, _)| Expr::col(entity::Column::DropoffPinFailures).eq(i64::from(*was)));
        match (not_delayed, pins) {
            (Some(a), Some(b)) => Some(a.and(b)),
            (a, b) => a.or(b),
        }
    }

    /// The columns to set, in the entity's terms.
    pub(super) fn into_columns(self) -> CoreResult<Vec<(entity::Column, SimpleExpr)>> {
        use entity::Column as C;
        let mut columns = Vec::new();
        let mut set = |column, value: SimpleExpr| columns.push((column, value));
        if let Some(status) = self.status {
            set(C::Status, Expr::value(status.as_str()));
        }
        if let Some(at) = self.updated_at {
            set(C::UpdatedAt, Expr::value(at));
        }
        match &self.courier {
            Some(Some(courier)) => set(C::Courier, Expr::value(to_json(courier)?)),
            Some(None) => set(C::Courier, Expr::value(Option::<String>::None)),
            None => {}
        }
        if let Some(at) = self.tracking_available_at {
            set(C::TrackingAvailableAt, Expr::value(at));
        }
        if let Some(eta) = self.pickup_eta {
            set(C::PickupEta, Expr::value(eta));
        }
        if let Some(eta) = self.dropoff_eta {
            set(C::DropoffEta, Expr::value(eta));
        }
        if let Some(at) = self.next_step_at {
            set(C::NextStepAt, Expr::value(at));
        }
        if let Some((at, on_time)) = self.delivered_at {
            set(C::DeliveredAt, Expr::value(at));
            set(C::OnTime, Expr::value(on_time));
        }
        if let Some(at) = self.picked_up_at {
            set(C::PickedUpAt, Expr::value(at));
        }
        if let Some(at) = self.delayed_at {
            set(C::DelayedAt, Expr::value(at));
        }
        if let Some((reason, at)) = self.cancelled {
            set(C::CancelledAt, Expr::value(at));
            set(C::CancellationReason, Expr::value(reason.as_str()));
        }
        if let Some(reason) = self.client_reason {
            set(C::CancelReason, Expr::value(reason.as_str()));
        }
        if let Some(notes) = self.notes {
            set(C::Notes, Expr::value(notes));
        }
        if let Some(route) = &self.route {
            set(C::Route, Expr::value(to_json(route)?));
        }
        if let Some(window) = self.dropoff_window {
            set(C::DropoffWindowStart, Expr::value(window.map(|w| w.start)));
            set(C::DropoffWindowEnd, Expr::value(window.map(|w| w.end)));
        }
        if let Some(at) = self.promised_by {
            set(C::PromisedBy, Expr::value(at));
        }
        if let Some(cents) = self.tip_cents {
            set(C::TipCents, Expr::value(cents));
        }
        if let Some(id) = self.return_delivery_id {
            set(C::ReturnDeliveryId, Expr::value(id));
        }
        if let Some((_, now, attempt)) = &self.pin_failures {
            set(C::DropoffPinFailures, Expr::value(i64::from(*now)));
            set(C::DropoffPinFailedSubmission, Expr::value(attempt.clone()));
        }
        if let Some(priced) = &self.priced {
            set(C::AmountCents, Expr::value(priced.amount_cents));
            set(C::Currency, Expr::value(priced.currency.as_str()));
            set(C::Breakdown, Expr::value(to_json(&priced.breakdown)?));
            set(C::DistanceKm, Expr::value(priced.distance_km));
            set(C::DurationMin, Expr::value(priced.duration_min));
            set(C::ServiceAreaId, Expr::value(priced.service_area_id.as_str()));
        }
        Ok(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_takes_the_delivery_off_the_schedule() {
        let columns = Change::default()
            .next_step(Some(5))
            .cancelled(CancellationReason::PickupNoShow, 9)
            .moved(Status::Cancelled, 9)
            .into_columns()
            .expect("columns");
        let names: Vec<_> = columns.iter().map(|(c, _)| format!("{c:?}")).collect();
        assert_eq!(
            names,
            ["Status", "UpdatedAt", "NextStepAt", "CancelledAt", "CancellationReason"]
        );
        let next_step = &columns[2].1;
        assert_eq!(next_step, &Expr::value(Option::<i64>::None));
    }

    #[test]
    fn a_removed_dropoff_window_clears_both_ends() {
        let columns = Change::default()
            .notes(None)
            .dropoff_window(None)
            .promised_by(7)
            .touched(3)
            .into_columns()
            .expect("columns");
        let names: Vec<_> = columns.iter().map(|(c, _)| format!("{c:?}")).collect();
        assert_eq!(
            names,
            [
                "UpdatedAt",
                "Notes",
                "DropoffWindowStart",
                "DropoffWindowEnd",
                "PromisedBy"
            ]
        );
        assert_eq!(&columns[2].1, &Expr::value(Option::<i64>::None));
        assert_eq!(&columns[1].1, &Expr::value(Option::<String>::None));
    }

    #[test]
    fn an_empty_change_sets_nothing() {
        assert!(Change::default().into_columns().expect("columns").is_empty());
    }
}
