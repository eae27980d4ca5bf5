from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_input import ContactInput


T = TypeVar("T", bound="DeliveryWaypoint")


@_attrs_define
class DeliveryWaypoint:
    """A delivery's pickup or dropoff: a route point with the contact the courier calls.

    Attributes:
        address (str):
        contact (ContactInput):
        latitude (float):
        longitude (float):
        instructions (None | str | Unset):
    """

    address: str
    contact: ContactInput
    latitude: float
    longitude: float
    instructions: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        contact = self.contact.to_dict()

        latitude = self.latitude

        longitude = self.longitude

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
                "contact": contact,
                "latitude": latitude,
                "longitude": longitude,
            }
        )
        if instructions is not UNSET:
            field_dict["instructions"] = instructions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput

        d = dict(src_dict)
        address = d.pop("address")

        contact = ContactInput.from_dict(d.pop("contact"))

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        delivery_waypoint = cls(
            address=address,
            contact=contact,
            latitude=latitude,
            longitude=longitude,
            instructions=instructions,
        )

        return delivery_waypoint
