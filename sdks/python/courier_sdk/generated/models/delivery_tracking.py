from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus

if TYPE_CHECKING:
    from ..models.courier import Courier
    from ..models.tracking_eta import TrackingEta


T = TypeVar("T", bound="DeliveryTracking")


@_attrs_define
class DeliveryTracking:
    """
    Attributes:
        courier (Courier | None):
        delivery_id (str):
        eta (TrackingEta):
        status (DeliveryStatus): Status of a delivery (and of a fleet order); `delivered` and `cancelled` are final.
        stops_before_dropoff (int | None): How many of the courier's stops come before this delivery's dropoff
            (a courier may carry several deliveries at once); `null` before a
            courier has it and once it ended.
        tracking_available_at (datetime.datetime | None): From this time `courier.location` is filled.
        tracking_url (None | str):
    """

    courier: Courier | None
    delivery_id: str
    eta: TrackingEta
    status: DeliveryStatus
    stops_before_dropoff: int | None
    tracking_available_at: datetime.datetime | None
    tracking_url: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.courier import Courier

        courier: dict[str, Any] | None
        if isinstance(self.courier, Courier):
            courier = self.courier.to_dict()
        else:
            courier = self.courier

        delivery_id = self.delivery_id

        eta = self.eta.to_dict()

        status = self.status.value

        stops_before_dropoff: int | None
        stops_before_dropoff = self.stops_before_dropoff

        tracking_available_at: None | str
        if isinstance(self.tracking_available_at, datetime.datetime):
            tracking_available_at = self.tracking_available_at.isoformat()
        else:
            tracking_available_at = self.tracking_available_at

        tracking_url: None | str
        tracking_url = self.tracking_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "courier": courier,
                "delivery_id": delivery_id,
                "eta": eta,
                "status": status,
                "stops_before_dropoff": stops_before_dropoff,
                "tracking_available_at": tracking_available_at,
                "tracking_url": tracking_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.courier import Courier
        from ..models.tracking_eta import TrackingEta

        d = dict(src_dict)

        def _parse_courier(data: object) -> Courier | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                courier_type_0 = Courier.from_dict(data)

                return courier_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Courier | None, data)

        courier = _parse_courier(d.pop("courier"))

        delivery_id = d.pop("delivery_id")

        eta = TrackingEta.from_dict(d.pop("eta"))

        status = DeliveryStatus(d.pop("status"))

        def _parse_stops_before_dropoff(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        stops_before_dropoff = _parse_stops_before_dropoff(
            d.pop("stops_before_dropoff")
        )

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

        delivery_tracking = cls(
            courier=courier,
            delivery_id=delivery_id,
            eta=eta,
            status=status,
            stops_before_dropoff=stops_before_dropoff,
            tracking_available_at=tracking_available_at,
            tracking_url=tracking_url,
        )

        delivery_tracking.additional_properties = d
        return delivery_tracking

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
