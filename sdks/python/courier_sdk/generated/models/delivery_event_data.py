from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.batching import Batching
from ..models.cancellation_reason import CancellationReason
from ..models.delivery_status import DeliveryStatus
from ..models.mode import Mode
from ..models.tax_behavior import TaxBehavior
from ..models.undeliverable_action import UndeliverableAction
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_event_data_courier_type_1 import (
        DeliveryEventDataCourierType1,
    )
    from ..models.notification_preferences import NotificationPreferences
    from ..models.price_breakdown import PriceBreakdown
    from ..models.proof_of_delivery_requirements import ProofOfDeliveryRequirements
    from ..models.time_window import TimeWindow
    from ..models.waypoint import Waypoint


T = TypeVar("T", bound="DeliveryEventData")


@_attrs_define
class DeliveryEventData:
    """A delivery. Every field is always present, `null` where
    unset. Events carry the same shape with `courier` reduced to its name.

        Attributes:
            amount_cents (int | None):
            batching (Batching): Whether the delivery may share its courier with other jobs (`allowed`, the default) or
                rides alone (`never`).
            breakdown (None | PriceBreakdown):
            cancellation_reason (CancellationReason | None):
            cancelled_at (datetime.datetime | None):
            courier (DeliveryEventDataCourierType1 | None):
            created_at (datetime.datetime):
            currency (None | str):
            delivered_at (datetime.datetime | None):
            dropoff (Waypoint):
            dropoff_eta (datetime.datetime | None): When the courier is planned or predicted at the dropoff; `null` once
                ended.
            dropoff_pin (None | str): The 4 digits the recipient tells the courier at the dropoff
                (`proof_of_delivery.dropoff.pin`), also on the tracking page; `null`
                when the delivery asks for none.
            dropoff_window (None | TimeWindow):
            external_id (None | str):
            id (str):
            mode (Mode): The key mode a resource belongs to.
            notes (None | str):
            notifications (None | NotificationPreferences):
            pickup (Waypoint):
            pickup_eta (datetime.datetime | None): When the courier is planned (or, on the way, predicted) at the
                pickup; `null` once picked up or ended.
            pickup_window (None | TimeWindow):
            proof_of_delivery (None | ProofOfDeliveryRequirements):
            quote_id (None | str):
            return_delivery_id (None | str): Once the handover failed and the goods go back: the return
                delivery; `null` otherwise.
            return_of (None | str): On a return: the delivery whose goods it brings back; `null`
                otherwise.
            scheduled_at (datetime.datetime | None):
            status (DeliveryStatus): Status of a delivery (and of a fleet order); `delivered` and `cancelled` are final.
            stops (list[Waypoint]):
            tax_behavior (TaxBehavior): Every amount includes VAT.
            tip_cents (int): The tip, in minor units of `currency`, all of it the courier's
                (docs/guide.md "Tips"); 0 without one.
            tracking_available_at (datetime.datetime | None):
            tracking_url (None | str):
            undeliverable_action (UndeliverableAction): What a failed handover does with the goods: a return delivery brings
                them back to the pickup (`return_to_pickup`, the default) or the courier disposes of them (`dispose`).
            updated_at (datetime.datetime):
            vehicle_type_id (str):
            changed_fields (list[str] | Unset): On `delivery.updated` only: the members the change set, as dot paths
                (`notes`, `pickup.contact`, `dropoff.instructions`, `dropoff_window`).
    """

    amount_cents: int | None
    batching: Batching
    breakdown: None | PriceBreakdown
    cancellation_reason: CancellationReason | None
    cancelled_at: datetime.datetime | None
    courier: DeliveryEventDataCourierType1 | None
    created_at: datetime.datetime
    currency: None | str
    delivered_at: datetime.datetime | None
    dropoff: Waypoint
    dropoff_eta: datetime.datetime | None
    dropoff_pin: None | str
    dropoff_window: None | TimeWindow
    external_id: None | str
    id: str
    mode: Mode
    notes: None | str
    notifications: None | NotificationPreferences
    pickup: Waypoint
    pickup_eta: datetime.datetime | None
    pickup_window: None | TimeWindow
    proof_of_delivery: None | ProofOfDeliveryRequirements
    quote_id: None | str
    return_delivery_id: None | str
    return_of: None | str
    scheduled_at: datetime.datetime | None
    status: DeliveryStatus
    stops: list[Waypoint]
    tax_behavior: TaxBehavior
    tip_cents: int
    tracking_available_at: datetime.datetime | None
    tracking_url: None | str
    undeliverable_action: UndeliverableAction
    updated_at: datetime.datetime
    vehicle_type_id: str
    changed_fields: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_event_data_courier_type_1 import (
            DeliveryEventDataCourierType1,
        )
        from ..models.notification_preferences import NotificationPreferences
        from ..models.price_breakdown import PriceBreakdown
        from ..models.proof_of_delivery_requirements import ProofOfDeliveryRequirements
        from ..models.time_window import TimeWindow

        amount_cents: int | None
        amount_cents = self.amount_cents

        batching = self.batching.value

        breakdown: dict[str, Any] | None
        if isinstance(self.breakdown, PriceBreakdown):
            breakdown = self.breakdown.to_dict()
        else:
            breakdown = self.breakdown

        cancellation_reason: None | str
        if isinstance(self.cancellation_reason, CancellationReason):
            cancellation_reason = self.cancellation_reason.value
        else:
            cancellation_reason = self.cancellation_reason

        cancelled_at: None | str
        if isinstance(self.cancelled_at, datetime.datetime):
            cancelled_at = self.cancelled_at.isoformat()
        else:
            cancelled_at = self.cancelled_at

        courier: dict[str, Any] | None
        if isinstance(self.courier, DeliveryEventDataCourierType1):
            courier = self.courier.to_dict()
        else:
            courier = self.courier

        created_at = self.created_at.isoformat()

        currency: None | str
        currency = self.currency

        delivered_at: None | str
        if isinstance(self.delivered_at, datetime.datetime):
            delivered_at = self.delivered_at.isoformat()
        else:
            delivered_at = self.delivered_at

        dropoff = self.dropoff.to_dict()

        dropoff_eta: None | str
        if isinstance(self.dropoff_eta, datetime.datetime):
            dropoff_eta = self.dropoff_eta.isoformat()
        else:
            dropoff_eta = self.dropoff_eta

        dropoff_pin: None | str
        dropoff_pin = self.dropoff_pin

        dropoff_window: dict[str, Any] | None
        if isinstance(self.dropoff_window, TimeWindow):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        external_id: None | str
        external_id = self.external_id

        id = self.id

        mode = self.mode.value

        notes: None | str
        notes = self.notes

        notifications: dict[str, Any] | None
        if isinstance(self.notifications, NotificationPreferences):
            notifications = self.notifications.to_dict()
        else:
            notifications = self.notifications

        pickup = self.pickup.to_dict()

        pickup_eta: None | str
        if isinstance(self.pickup_eta, datetime.datetime):
            pickup_eta = self.pickup_eta.isoformat()
        else:
            pickup_eta = self.pickup_eta

        pickup_window: dict[str, Any] | None
        if isinstance(self.pickup_window, TimeWindow):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

        proof_of_delivery: dict[str, Any] | None
        if isinstance(self.proof_of_delivery, ProofOfDeliveryRequirements):
            proof_of_delivery = self.proof_of_delivery.to_dict()
        else:
            proof_of_delivery = self.proof_of_delivery

        quote_id: None | str
        quote_id = self.quote_id

        return_delivery_id: None | str
        return_delivery_id = self.return_delivery_id

        return_of: None | str
        return_of = self.return_of

        scheduled_at: None | str
        if isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        status = self.status.value

        stops = []
        for stops_item_data in self.stops:
            stops_item = stops_item_data.to_dict()
            stops.append(stops_item)

        tax_behavior = self.tax_behavior.value

        tip_cents = self.tip_cents

        tracking_available_at: None | str
        if isinstance(self.tracking_available_at, datetime.datetime):
            tracking_available_at = self.tracking_available_at.isoformat()
        else:
            tracking_available_at = self.tracking_available_at

        tracking_url: None | str
        tracking_url = self.tracking_url

        undeliverable_action = self.undeliverable_action.value

        updated_at = self.updated_at.isoformat()

        vehicle_type_id = self.vehicle_type_id

        changed_fields: list[str] | Unset = UNSET
        if not isinstance(self.changed_fields, Unset):
            changed_fields = self.changed_fields

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_cents": amount_cents,
                "batching": batching,
                "breakdown": breakdown,
                "cancellation_reason": cancellation_reason,
                "cancelled_at": cancelled_at,
                "courier": courier,
                "created_at": created_at,
                "currency": currency,
                "delivered_at": delivered_at,
                "dropoff": dropoff,
                "dropoff_eta": dropoff_eta,
                "dropoff_pin": dropoff_pin,
                "dropoff_window": dropoff_window,
                "external_id": external_id,
                "id": id,
                "mode": mode,
                "notes": notes,
                "notifications": notifications,
                "pickup": pickup,
                "pickup_eta": pickup_eta,
                "pickup_window": pickup_window,
                "proof_of_delivery": proof_of_delivery,
                "quote_id": quote_id,
                "return_delivery_id": return_delivery_id,
                "return_of": return_of,
                "scheduled_at": scheduled_at,
                "status": status,
                "stops": stops,
                "tax_behavior": tax_behavior,
                "tip_cents": tip_cents,
                "tracking_available_at": tracking_available_at,
                "tracking_url": tracking_url,
                "undeliverable_action": undeliverable_action,
                "updated_at": updated_at,
                "vehicle_type_id": vehicle_type_id,
            }
        )
        if changed_fields is not UNSET:
            field_dict["changed_fields"] = changed_fields

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_event_data_courier_type_1 import (
            DeliveryEventDataCourierType1,
        )
        from ..models.notification_preferences import NotificationPreferences
        from ..models.price_breakdown import PriceBreakdown
        from ..models.proof_of_delivery_requirements import ProofOfDeliveryRequirements
        from ..models.time_window import TimeWindow
        from ..models.waypoint import Waypoint

        d = dict(src_dict)

        def _parse_amount_cents(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        amount_cents = _parse_amount_cents(d.pop("amount_cents"))

        batching = Batching(d.pop("batching"))

        def _parse_breakdown(data: object) -> None | PriceBreakdown:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                breakdown_type_0 = PriceBreakdown.from_dict(data)

                return breakdown_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PriceBreakdown, data)

        breakdown = _parse_breakdown(d.pop("breakdown"))

        def _parse_cancellation_reason(data: object) -> CancellationReason | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancellation_reason_type_0 = CancellationReason(data)

                return cancellation_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CancellationReason | None, data)

        cancellation_reason = _parse_cancellation_reason(d.pop("cancellation_reason"))

        def _parse_cancelled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancelled_at_type_0 = datetime.datetime.fromisoformat(data)

                return cancelled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at"))

        def _parse_courier(data: object) -> DeliveryEventDataCourierType1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                courier_type_1 = DeliveryEventDataCourierType1.from_dict(data)

                return courier_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeliveryEventDataCourierType1 | None, data)

        courier = _parse_courier(d.pop("courier"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_currency(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        currency = _parse_currency(d.pop("currency"))

        def _parse_delivered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_at_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at"))

        dropoff = Waypoint.from_dict(d.pop("dropoff"))

        def _parse_dropoff_eta(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                dropoff_eta_type_0 = datetime.datetime.fromisoformat(data)

                return dropoff_eta_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        dropoff_eta = _parse_dropoff_eta(d.pop("dropoff_eta"))

        def _parse_dropoff_pin(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dropoff_pin = _parse_dropoff_pin(d.pop("dropoff_pin"))

        def _parse_dropoff_window(data: object) -> None | TimeWindow:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_window_type_0 = TimeWindow.from_dict(data)

                return dropoff_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindow, data)

        dropoff_window = _parse_dropoff_window(d.pop("dropoff_window"))

        def _parse_external_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        external_id = _parse_external_id(d.pop("external_id"))

        id = d.pop("id")

        mode = Mode(d.pop("mode"))

        def _parse_notes(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        notes = _parse_notes(d.pop("notes"))

        def _parse_notifications(data: object) -> None | NotificationPreferences:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                notifications_type_0 = NotificationPreferences.from_dict(data)

                return notifications_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NotificationPreferences, data)

        notifications = _parse_notifications(d.pop("notifications"))

        pickup = Waypoint.from_dict(d.pop("pickup"))

        def _parse_pickup_eta(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pickup_eta_type_0 = datetime.datetime.fromisoformat(data)

                return pickup_eta_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        pickup_eta = _parse_pickup_eta(d.pop("pickup_eta"))

        def _parse_pickup_window(data: object) -> None | TimeWindow:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_window_type_0 = TimeWindow.from_dict(data)

                return pickup_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindow, data)

        pickup_window = _parse_pickup_window(d.pop("pickup_window"))

        def _parse_proof_of_delivery(
            data: object,
        ) -> None | ProofOfDeliveryRequirements:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                proof_of_delivery_type_0 = ProofOfDeliveryRequirements.from_dict(data)

                return proof_of_delivery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProofOfDeliveryRequirements, data)

        proof_of_delivery = _parse_proof_of_delivery(d.pop("proof_of_delivery"))

        def _parse_quote_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        quote_id = _parse_quote_id(d.pop("quote_id"))

        def _parse_return_delivery_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        return_delivery_id = _parse_return_delivery_id(d.pop("return_delivery_id"))

        def _parse_return_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        return_of = _parse_return_of(d.pop("return_of"))

        def _parse_scheduled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at"))

        status = DeliveryStatus(d.pop("status"))

        stops = []
        _stops = d.pop("stops")
        for stops_item_data in _stops:
            stops_item = Waypoint.from_dict(stops_item_data)

            stops.append(stops_item)

        tax_behavior = TaxBehavior(d.pop("tax_behavior"))

        tip_cents = d.pop("tip_cents")

        def _parse_tracking_available_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tracking_available_at_type_0 = datetime.datetime.fromisoformat(data)

                return tracking_available_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        tracking_available_at = _parse_tracking_available_at(
            d.pop("tracking_available_at")
        )

        def _parse_tracking_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tracking_url = _parse_tracking_url(d.pop("tracking_url"))

        undeliverable_action = UndeliverableAction(d.pop("undeliverable_action"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        vehicle_type_id = d.pop("vehicle_type_id")

        changed_fields = cast(list[str], d.pop("changed_fields", UNSET))

        delivery_event_data = cls(
            amount_cents=amount_cents,
            batching=batching,
            breakdown=breakdown,
            cancellation_reason=cancellation_reason,
            cancelled_at=cancelled_at,
            courier=courier,
            created_at=created_at,
            currency=currency,
            delivered_at=delivered_at,
            dropoff=dropoff,
            dropoff_eta=dropoff_eta,
            dropoff_pin=dropoff_pin,
            dropoff_window=dropoff_window,
            external_id=external_id,
            id=id,
            mode=mode,
            notes=notes,
            notifications=notifications,
            pickup=pickup,
            pickup_eta=pickup_eta,
            pickup_window=pickup_window,
            proof_of_delivery=proof_of_delivery,
            quote_id=quote_id,
            return_delivery_id=return_delivery_id,
            return_of=return_of,
            scheduled_at=scheduled_at,
            status=status,
            stops=stops,
            tax_behavior=tax_behavior,
            tip_cents=tip_cents,
            tracking_available_at=tracking_available_at,
            tracking_url=tracking_url,
            undeliverable_action=undeliverable_action,
            updated_at=updated_at,
            vehicle_type_id=vehicle_type_id,
            changed_fields=changed_fields,
        )

        delivery_event_data.additional_properties = d
        return delivery_event_data

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
