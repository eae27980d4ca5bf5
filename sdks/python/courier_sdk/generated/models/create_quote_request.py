from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.address import Address
    from ..models.selected_extra import SelectedExtra
    from ..models.shipment_item import ShipmentItem
    from ..models.time_window_input import TimeWindowInput


T = TypeVar("T", bound="CreateQuoteRequest")


@_attrs_define
class CreateQuoteRequest:
    """`POST /v1/quotes` body.

    Attributes:
        dropoff (Address): A route point of a quote: address and coordinates only.
        pickup (Address): A route point of a quote: address and coordinates only.
        vehicle_type_id (str):
        dropoff_window (None | TimeWindowInput | Unset):
        extras (list[SelectedExtra] | None | Unset):
        items (list[ShipmentItem] | None | Unset):
        pickup_window (None | TimeWindowInput | Unset):
        scheduled_at (datetime.datetime | None | Unset): Pickup time, 1 minute to 30 days ahead; omit for immediate.
        stops (list[Address] | None | Unset):
    """

    dropoff: Address
    pickup: Address
    vehicle_type_id: str
    dropoff_window: None | TimeWindowInput | Unset = UNSET
    extras: list[SelectedExtra] | None | Unset = UNSET
    items: list[ShipmentItem] | None | Unset = UNSET
    pickup_window: None | TimeWindowInput | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    stops: list[Address] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window_input import TimeWindowInput

        dropoff = self.dropoff.to_dict()

        pickup = self.pickup.to_dict()

        vehicle_type_id = self.vehicle_type_id

        dropoff_window: dict[str, Any] | None | Unset
        if isinstance(self.dropoff_window, Unset):
            dropoff_window = UNSET
        elif isinstance(self.dropoff_window, TimeWindowInput):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

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

        pickup_window: dict[str, Any] | None | Unset
        if isinstance(self.pickup_window, Unset):
            pickup_window = UNSET
        elif isinstance(self.pickup_window, TimeWindowInput):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

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

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "dropoff": dropoff,
                "pickup": pickup,
                "vehicle_type_id": vehicle_type_id,
            }
        )
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if extras is not UNSET:
            field_dict["extras"] = extras
        if items is not UNSET:
            field_dict["items"] = items
        if pickup_window is not UNSET:
            field_dict["pickup_window"] = pickup_window
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at
        if stops is not UNSET:
            field_dict["stops"] = stops

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.address import Address
        from ..models.selected_extra import SelectedExtra
        from ..models.shipment_item import ShipmentItem
        from ..models.time_window_input import TimeWindowInput

        d = dict(src_dict)
        dropoff = Address.from_dict(d.pop("dropoff"))

        pickup = Address.from_dict(d.pop("pickup"))

        vehicle_type_id = d.pop("vehicle_type_id")

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

        def _parse_stops(data: object) -> list[Address] | None | Unset:
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
                    stops_type_0_item = Address.from_dict(stops_type_0_item_data)

                    stops_type_0.append(stops_type_0_item)

                return stops_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Address] | None | Unset, data)

        stops = _parse_stops(d.pop("stops", UNSET))

        create_quote_request = cls(
            dropoff=dropoff,
            pickup=pickup,
            vehicle_type_id=vehicle_type_id,
            dropoff_window=dropoff_window,
            extras=extras,
            items=items,
            pickup_window=pickup_window,
            scheduled_at=scheduled_at,
            stops=stops,
        )

        return create_quote_request
