from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.batching_input import BatchingInput
from ..models.test_scenario import TestScenario
from ..models.undeliverable_action import UndeliverableAction
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_waypoint import DeliveryWaypoint
    from ..models.notification_preferences_input import NotificationPreferencesInput
    from ..models.proof_of_delivery_input import ProofOfDeliveryInput
    from ..models.selected_extra import SelectedExtra
    from ..models.shipment_item import ShipmentItem
    from ..models.time_window_input import TimeWindowInput
    from ..models.waypoint_input import WaypointInput


T = TypeVar("T", bound="BatchDeliveryItem")


@_attrs_define
class BatchDeliveryItem:
    """One delivery of a batch: a create's body with its own idempotency key
    (what a create takes as its `Idempotency-Key` header, in the same scope).

        Attributes:
            dropoff (DeliveryWaypoint): A delivery's pickup or dropoff: a route point with the contact the courier calls.
            idempotency_key (str): 1 to 255 characters, kept 24 hours: a batch sent again answers each
                item from its key.
            pickup (DeliveryWaypoint): A delivery's pickup or dropoff: a route point with the contact the courier calls.
            vehicle_type_id (str):
            batching (BatchingInput | None | Unset):
            dropoff_window (None | TimeWindowInput | Unset):
            external_id (None | str | Unset):
            extras (list[SelectedExtra] | None | Unset):
            items (list[ShipmentItem] | None | Unset):
            notes (None | str | Unset):
            notifications (None | NotificationPreferencesInput | Unset):
            pickup_window (None | TimeWindowInput | Unset):
            proof_of_delivery (None | ProofOfDeliveryInput | Unset):
            quote_id (None | str | Unset):
            scheduled_at (datetime.datetime | None | Unset): Pickup time, 1 minute to 30 days ahead; omit for immediate.
            stops (list[WaypointInput] | None | Unset):
            test_scenario (None | TestScenario | Unset):
            tip_cents (int | None | Unset): A tip for the courier, in minor units of the delivery's currency,
                all of it theirs once they deliver it; billed on the workspace's
                statement.
            undeliverable_action (None | UndeliverableAction | Unset):
    """

    dropoff: DeliveryWaypoint
    idempotency_key: str
    pickup: DeliveryWaypoint
    vehicle_type_id: str
    batching: BatchingInput | None | Unset = UNSET
    dropoff_window: None | TimeWindowInput | Unset = UNSET
    external_id: None | str | Unset = UNSET
    extras: list[SelectedExtra] | None | Unset = UNSET
    items: list[ShipmentItem] | None | Unset = UNSET
    notes: None | str | Unset = UNSET
    notifications: None | NotificationPreferencesInput | Unset = UNSET
    pickup_window: None | TimeWindowInput | Unset = UNSET
    proof_of_delivery: None | ProofOfDeliveryInput | Unset = UNSET
    quote_id: None | str | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    stops: list[WaypointInput] | None | Unset = UNSET
    test_scenario: None | TestScenario | Unset = UNSET
    tip_cents: int | None | Unset = UNSET
    undeliverable_action: None | UndeliverableAction | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.notification_preferences_input import NotificationPreferencesInput
        from ..models.proof_of_delivery_input import ProofOfDeliveryInput
        from ..models.time_window_input import TimeWindowInput

        dropoff = self.dropoff.to_dict()

        idempotency_key = self.idempotency_key

        pickup = self.pickup.to_dict()

        vehicle_type_id = self.vehicle_type_id

        batching: None | str | Unset
        if isinstance(self.batching, Unset):
            batching = UNSET
        elif isinstance(self.batching, BatchingInput):
            batching = self.batching.value
        else:
            batching = self.batching

        dropoff_window: dict[str, Any] | None | Unset
        if isinstance(self.dropoff_window, Unset):
            dropoff_window = UNSET
        elif isinstance(self.dropoff_window, TimeWindowInput):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        external_id: None | str | Unset
        if isinstance(self.external_id, Unset):
            external_id = UNSET
        else:
            external_id = self.external_id

        extras: list[dict[str, Any]] | None | Unset
        if isinstance(self.extras, Unset):
            extras = UNSET
        elif isinstance(self.extras, list):
            extras = []
            for extras_type_0_item_data in self.extras:
                extras_type_0_item = extras_type_0_item_data.to_dict()
                extras.append(extras_type_0_item)

        else:
            extras = self.extras

        items: list[dict[str, Any]] | None | Unset
        if isinstance(self.items, Unset):
            items = UNSET
        elif isinstance(self.items, list):
            items = []
            for items_type_0_item_data in self.items:
                items_type_0_item = items_type_0_item_data.to_dict()
                items.append(items_type_0_item)

        else:
            items = self.items

        notes: None | str | Unset
        if isinstance(self.notes, Unset):
            notes = UNSET
        else:
            notes = self.notes

        notifications: dict[str, Any] | None | Unset
        if isinstance(self.notifications, Unset):
            notifications = UNSET
        elif isinstance(self.notifications, NotificationPreferencesInput):
            notifications = self.notifications.to_dict()
        else:
            notifications = self.notifications

        pickup_window: dict[str, Any] | None | Unset
        if isinstance(self.pickup_window, Unset):
            pickup_window = UNSET
        elif isinstance(self.pickup_window, TimeWindowInput):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

        proof_of_delivery: dict[str, Any] | None | Unset
        if isinstance(self.proof_of_delivery, Unset):
            proof_of_delivery = UNSET
        elif isinstance(self.proof_of_delivery, ProofOfDeliveryInput):
            proof_of_delivery = self.proof_of_delivery.to_dict()
        else:
            proof_of_delivery = self.proof_of_delivery

        quote_id: None | str | Unset
        if isinstance(self.quote_id, Unset):
            quote_id = UNSET
        else:
            quote_id = self.quote_id

        scheduled_at: None | str | Unset
        if isinstance(self.scheduled_at, Unset):
            scheduled_at = UNSET
        elif isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        stops: list[dict[str, Any]] | None | Unset
        if isinstance(self.stops, Unset):
            stops = UNSET
        elif isinstance(self.stops, list):
            stops = []
            for stops_type_0_item_data in self.stops:
                stops_type_0_item = stops_type_0_item_data.to_dict()
                stops.append(stops_type_0_item)

        else:
            stops = self.stops

        test_scenario: None | str | Unset
        if isinstance(self.test_scenario, Unset):
            test_scenario = UNSET
        elif isinstance(self.test_scenario, TestScenario):
            test_scenario = self.test_scenario.value
        else:
            test_scenario = self.test_scenario

        tip_cents: int | None | Unset
        if isinstance(self.tip_cents, Unset):
            tip_cents = UNSET
        else:
            tip_cents = self.tip_cents

        undeliverable_action: None | str | Unset
        if isinstance(self.undeliverable_action, Unset):
            undeliverable_action = UNSET
        elif isinstance(self.undeliverable_action, UndeliverableAction):
            undeliverable_action = self.undeliverable_action.value
        else:
            undeliverable_action = self.undeliverable_action

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "dropoff": dropoff,
                "idempotency_key": idempotency_key,
                "pickup": pickup,
                "vehicle_type_id": vehicle_type_id,
            }
        )
        if batching is not UNSET:
            field_dict["batching"] = batching
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if extras is not UNSET:
            field_dict["extras"] = extras
        if items is not UNSET:
            field_dict["items"] = items
        if notes is not UNSET:
            field_dict["notes"] = notes
        if notifications is not UNSET:
            field_dict["notifications"] = notifications
        if pickup_window is not UNSET:
            field_dict["pickup_window"] = pickup_window
        if proof_of_delivery is not UNSET:
            field_dict["proof_of_delivery"] = proof_of_delivery
        if quote_id is not UNSET:
            field_dict["quote_id"] = quote_id
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at
        if stops is not UNSET:
            field_dict["stops"] = stops
        if test_scenario is not UNSET:
            field_dict["test_scenario"] = test_scenario
        if tip_cents is not UNSET:
            field_dict["tip_cents"] = tip_cents
        if undeliverable_action is not UNSET:
            field_dict["undeliverable_action"] = undeliverable_action

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_waypoint import DeliveryWaypoint
        from ..models.notification_preferences_input import NotificationPreferencesInput
        from ..models.proof_of_delivery_input import ProofOfDeliveryInput
        from ..models.selected_extra import SelectedExtra
        from ..models.shipment_item import ShipmentItem
        from ..models.time_window_input import TimeWindowInput
        from ..models.waypoint_input import WaypointInput

        d = dict(src_dict)
        dropoff = DeliveryWaypoint.from_dict(d.pop("dropoff"))

        idempotency_key = d.pop("idempotency_key")

        pickup = DeliveryWaypoint.from_dict(d.pop("pickup"))

        vehicle_type_id = d.pop("vehicle_type_id")

        def _parse_batching(data: object) -> BatchingInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                batching_type_0 = BatchingInput(data)

                return batching_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchingInput | None | Unset, data)

        batching = _parse_batching(d.pop("batching", UNSET))

        def _parse_dropoff_window(data: object) -> None | TimeWindowInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_window_type_0 = TimeWindowInput.from_dict(data)

                return dropoff_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindowInput | Unset, data)

        dropoff_window = _parse_dropoff_window(d.pop("dropoff_window", UNSET))

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

        def _parse_extras(data: object) -> list[SelectedExtra] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                extras_type_0 = []
                _extras_type_0 = data
                for extras_type_0_item_data in _extras_type_0:
                    extras_type_0_item = SelectedExtra.from_dict(
                        extras_type_0_item_data
                    )

                    extras_type_0.append(extras_type_0_item)

                return extras_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SelectedExtra] | None | Unset, data)

        extras = _parse_extras(d.pop("extras", UNSET))

        def _parse_items(data: object) -> list[ShipmentItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                items_type_0 = []
                _items_type_0 = data
                for items_type_0_item_data in _items_type_0:
                    items_type_0_item = ShipmentItem.from_dict(items_type_0_item_data)

                    items_type_0.append(items_type_0_item)

                return items_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShipmentItem] | None | Unset, data)

        items = _parse_items(d.pop("items", UNSET))

        def _parse_notes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        notes = _parse_notes(d.pop("notes", UNSET))

        def _parse_notifications(
            data: object,
        ) -> None | NotificationPreferencesInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                notifications_type_0 = NotificationPreferencesInput.from_dict(data)

                return notifications_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NotificationPreferencesInput | Unset, data)

        notifications = _parse_notifications(d.pop("notifications", UNSET))

        def _parse_pickup_window(data: object) -> None | TimeWindowInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_window_type_0 = TimeWindowInput.from_dict(data)

                return pickup_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindowInput | Unset, data)

        pickup_window = _parse_pickup_window(d.pop("pickup_window", UNSET))

        def _parse_proof_of_delivery(
            data: object,
        ) -> None | ProofOfDeliveryInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                proof_of_delivery_type_0 = ProofOfDeliveryInput.from_dict(data)

                return proof_of_delivery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProofOfDeliveryInput | Unset, data)

        proof_of_delivery = _parse_proof_of_delivery(d.pop("proof_of_delivery", UNSET))

        def _parse_quote_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quote_id = _parse_quote_id(d.pop("quote_id", UNSET))

        def _parse_scheduled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at", UNSET))

        def _parse_stops(data: object) -> list[WaypointInput] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                stops_type_0 = []
                _stops_type_0 = data
                for stops_type_0_item_data in _stops_type_0:
                    stops_type_0_item = WaypointInput.from_dict(stops_type_0_item_data)

                    stops_type_0.append(stops_type_0_item)

                return stops_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[WaypointInput] | None | Unset, data)

        stops = _parse_stops(d.pop("stops", UNSET))

        def _parse_test_scenario(data: object) -> None | TestScenario | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                test_scenario_type_0 = TestScenario(data)

                return test_scenario_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TestScenario | Unset, data)

        test_scenario = _parse_test_scenario(d.pop("test_scenario", UNSET))

        def _parse_tip_cents(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tip_cents = _parse_tip_cents(d.pop("tip_cents", UNSET))

        def _parse_undeliverable_action(
            data: object,
        ) -> None | UndeliverableAction | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                undeliverable_action_type_0 = UndeliverableAction(data)

                return undeliverable_action_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UndeliverableAction | Unset, data)

        undeliverable_action = _parse_undeliverable_action(
            d.pop("undeliverable_action", UNSET)
        )

        batch_delivery_item = cls(
            dropoff=dropoff,
            idempotency_key=idempotency_key,
            pickup=pickup,
            vehicle_type_id=vehicle_type_id,
            batching=batching,
            dropoff_window=dropoff_window,
            external_id=external_id,
            extras=extras,
            items=items,
            notes=notes,
            notifications=notifications,
            pickup_window=pickup_window,
            proof_of_delivery=proof_of_delivery,
            quote_id=quote_id,
            scheduled_at=scheduled_at,
            stops=stops,
            test_scenario=test_scenario,
            tip_cents=tip_cents,
            undeliverable_action=undeliverable_action,
        )

        return batch_delivery_item
