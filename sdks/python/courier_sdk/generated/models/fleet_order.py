from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus

if TYPE_CHECKING:
    from ..models.time_window import TimeWindow


T = TypeVar("T", bound="FleetOrder")


@_attrs_define
class FleetOrder:
    """A FleetOrder: every field always present, `null` where unset.

    Attributes:
        created_at (datetime.datetime | None): When the order was received.
        dropoff_window (None | TimeWindow):
        id (str):
        order_id (str): The order's id on the fleet's dispatch board.
        pickup_window (None | TimeWindow):
        reference (None | str): The customer's order reference.
        status (DeliveryStatus): Status of a delivery (and of a fleet order); `delivered` and `cancelled` are final.
        tracking_url (None | str):
        updated_at (datetime.datetime | None): The order's last change.
    """

    created_at: datetime.datetime | None
    dropoff_window: None | TimeWindow
    id: str
    order_id: str
    pickup_window: None | TimeWindow
    reference: None | str
    status: DeliveryStatus
    tracking_url: None | str
    updated_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window import TimeWindow

        created_at: None | str
        if isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        dropoff_window: dict[str, Any] | None
        if isinstance(self.dropoff_window, TimeWindow):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        id = self.id

        order_id = self.order_id

        pickup_window: dict[str, Any] | None
        if isinstance(self.pickup_window, TimeWindow):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

        reference: None | str
        reference = self.reference

        status = self.status.value

        tracking_url: None | str
        tracking_url = self.tracking_url

        updated_at: None | str
        if isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "dropoff_window": dropoff_window,
                "id": id,
                "order_id": order_id,
                "pickup_window": pickup_window,
                "reference": reference,
                "status": status,
                "tracking_url": tracking_url,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.time_window import TimeWindow

        d = dict(src_dict)

        def _parse_created_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        created_at = _parse_created_at(d.pop("created_at"))

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

        id = d.pop("id")

        order_id = d.pop("order_id")

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

        def _parse_reference(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference = _parse_reference(d.pop("reference"))

        status = DeliveryStatus(d.pop("status"))

        def _parse_tracking_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tracking_url = _parse_tracking_url(d.pop("tracking_url"))

        def _parse_updated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        updated_at = _parse_updated_at(d.pop("updated_at"))

        fleet_order = cls(
            created_at=created_at,
            dropoff_window=dropoff_window,
            id=id,
            order_id=order_id,
            pickup_window=pickup_window,
            reference=reference,
            status=status,
            tracking_url=tracking_url,
            updated_at=updated_at,
        )

        fleet_order.additional_properties = d
        return fleet_order

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
