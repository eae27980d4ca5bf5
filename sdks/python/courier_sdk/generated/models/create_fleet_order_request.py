from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_input import ContactInput
    from ..models.shipment_item import ShipmentItem
    from ..models.time_window_input import TimeWindowInput
    from ..models.waypoint_input import WaypointInput


T = TypeVar("T", bound="CreateFleetOrderRequest")


@_attrs_define
class CreateFleetOrderRequest:
    """`POST /v1/fleet/orders` body.

    Attributes:
        customer (ContactInput):
        dropoff (WaypointInput): A route point that may carry a contact and handoff instructions.
        pickup (WaypointInput): A route point that may carry a contact and handoff instructions.
        vehicle_type_id (str):
        customer_timezone (None | str | Unset): IANA time zone of the requested date and time.
        dropoff_window (None | TimeWindowInput | Unset):
        items (list[ShipmentItem] | None | Unset):
        notes (None | str | Unset):
        pickup_window (None | TimeWindowInput | Unset):
        reference (None | str | Unset): The customer's order reference, 1 to 120 characters.
        requested_pickup_date (datetime.date | None | Unset): `YYYY-MM-DD`.
        requested_pickup_time (None | str | Unset): `HH:MM`.
        stops (list[WaypointInput] | None | Unset):
    """

    customer: ContactInput
    dropoff: WaypointInput
    pickup: WaypointInput
    vehicle_type_id: str
    customer_timezone: None | str | Unset = UNSET
    dropoff_window: None | TimeWindowInput | Unset = UNSET
    items: list[ShipmentItem] | None | Unset = UNSET
    notes: None | str | Unset = UNSET
    pickup_window: None | TimeWindowInput | Unset = UNSET
    reference: None | str | Unset = UNSET
    requested_pickup_date: datetime.date | None | Unset = UNSET
    requested_pickup_time: None | str | Unset = UNSET
    stops: list[WaypointInput] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window_input import TimeWindowInput

        customer = self.customer.to_dict()

        dropoff = self.dropoff.to_dict()

        pickup = self.pickup.to_dict()

        vehicle_type_id = self.vehicle_type_id

        customer_timezone: None | str | Unset
        if isinstance(self.customer_timezone, Unset):
            customer_timezone = UNSET
        else:
            customer_timezone = self.customer_timezone

        dropoff_window: dict[str, Any] | None | Unset
        if isinstance(self.dropoff_window, Unset):
            dropoff_window = UNSET
        elif isinstance(self.dropoff_window, TimeWindowInput):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

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

        pickup_window: dict[str, Any] | None | Unset
        if isinstance(self.pickup_window, Unset):
            pickup_window = UNSET
        elif isinstance(self.pickup_window, TimeWindowInput):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference

        requested_pickup_date: None | str | Unset
        if isinstance(self.requested_pickup_date, Unset):
            requested_pickup_date = UNSET
        elif isinstance(self.requested_pickup_date, datetime.date):
            requested_pickup_date = self.requested_pickup_date.isoformat()
        else:
            requested_pickup_date = self.requested_pickup_date

        requested_pickup_time: None | str | Unset
        if isinstance(self.requested_pickup_time, Unset):
            requested_pickup_time = UNSET
        else:
            requested_pickup_time = self.requested_pickup_time

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
                "customer": customer,
                "dropoff": dropoff,
                "pickup": pickup,
                "vehicle_type_id": vehicle_type_id,
            }
        )
        if customer_timezone is not UNSET:
            field_dict["customer_timezone"] = customer_timezone
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if items is not UNSET:
            field_dict["items"] = items
        if notes is not UNSET:
            field_dict["notes"] = notes
        if pickup_window is not UNSET:
            field_dict["pickup_window"] = pickup_window
        if reference is not UNSET:
            field_dict["reference"] = reference
        if requested_pickup_date is not UNSET:
            field_dict["requested_pickup_date"] = requested_pickup_date
        if requested_pickup_time is not UNSET:
            field_dict["requested_pickup_time"] = requested_pickup_time
        if stops is not UNSET:
            field_dict["stops"] = stops

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput
        from ..models.shipment_item import ShipmentItem
        from ..models.time_window_input import TimeWindowInput
        from ..models.waypoint_input import WaypointInput

        d = dict(src_dict)
        customer = ContactInput.from_dict(d.pop("customer"))

        dropoff = WaypointInput.from_dict(d.pop("dropoff"))

        pickup = WaypointInput.from_dict(d.pop("pickup"))

        vehicle_type_id = d.pop("vehicle_type_id")

        def _parse_customer_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        customer_timezone = _parse_customer_timezone(d.pop("customer_timezone", UNSET))

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

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        def _parse_requested_pickup_date(data: object) -> datetime.date | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                requested_pickup_date_type_0 = datetime.date.fromisoformat(data)

                return requested_pickup_date_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.date | None | Unset, data)

        requested_pickup_date = _parse_requested_pickup_date(
            d.pop("requested_pickup_date", UNSET)
        )

        def _parse_requested_pickup_time(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        requested_pickup_time = _parse_requested_pickup_time(
            d.pop("requested_pickup_time", UNSET)
        )

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

        create_fleet_order_request = cls(
            customer=customer,
            dropoff=dropoff,
            pickup=pickup,
            vehicle_type_id=vehicle_type_id,
            customer_timezone=customer_timezone,
            dropoff_window=dropoff_window,
            items=items,
            notes=notes,
            pickup_window=pickup_window,
            reference=reference,
            requested_pickup_date=requested_pickup_date,
            requested_pickup_time=requested_pickup_time,
            stops=stops,
        )

        return create_fleet_order_request
