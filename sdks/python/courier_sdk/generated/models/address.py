from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Address")


@_attrs_define
class Address:
    """A route point of a quote: address and coordinates only.

    Attributes:
        address (str):
        latitude (float):
        longitude (float):
    """

    address: str
    latitude: float
    longitude: float

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        latitude = self.latitude

        longitude = self.longitude

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
                "latitude": latitude,
                "longitude": longitude,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        address = cls(
            address=address,
            latitude=latitude,
            longitude=longitude,
        )

        return address
