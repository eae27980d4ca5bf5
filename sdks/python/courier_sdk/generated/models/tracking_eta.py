from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TrackingEta")


@_attrs_define
class TrackingEta:
    """
    Attributes:
        dropoff_at (datetime.datetime | None):
        pickup_at (datetime.datetime | None):
    """

    dropoff_at: datetime.datetime | None
    pickup_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dropoff_at: None | str
        if isinstance(self.dropoff_at, datetime.datetime):
            dropoff_at = self.dropoff_at.isoformat()
        else:
            dropoff_at = self.dropoff_at

        pickup_at: None | str
        if isinstance(self.pickup_at, datetime.datetime):
            pickup_at = self.pickup_at.isoformat()
        else:
            pickup_at = self.pickup_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dropoff_at": dropoff_at,
                "pickup_at": pickup_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_dropoff_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                dropoff_at_type_0 = datetime.datetime.fromisoformat(data)

                return dropoff_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        dropoff_at = _parse_dropoff_at(d.pop("dropoff_at"))

        def _parse_pickup_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pickup_at_type_0 = datetime.datetime.fromisoformat(data)

                return pickup_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        pickup_at = _parse_pickup_at(d.pop("pickup_at"))

        tracking_eta = cls(
            dropoff_at=dropoff_at,
            pickup_at=pickup_at,
        )

        tracking_eta.additional_properties = d
        return tracking_eta

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
