from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_input import ContactInput


T = TypeVar("T", bound="WaypointChangeInput")


@_attrs_define
class WaypointChangeInput:
    """What a change sets on the pickup or the dropoff; an absent member stays
    as it is.

        Attributes:
            address (str | Unset): A new address text. The pickup's until a courier is assigned, the
                dropoff's until the courier is at the dropoff.
            contact (ContactInput | Unset):
            instructions (None | str | Unset): `null` (or `""`) removes the instructions.
            latitude (float | Unset): A new latitude: a delivery is priced again (see
                `accept_amount_cents`), a fleet order is not. Same times as `address`.
            longitude (float | Unset): A new longitude, as `latitude`.
    """

    address: str | Unset = UNSET
    contact: ContactInput | Unset = UNSET
    instructions: None | str | Unset = UNSET
    latitude: float | Unset = UNSET
    longitude: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        contact: dict[str, Any] | Unset = UNSET
        if not isinstance(self.contact, Unset):
            contact = self.contact.to_dict()

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        latitude = self.latitude

        longitude = self.longitude

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if address is not UNSET:
            field_dict["address"] = address
        if contact is not UNSET:
            field_dict["contact"] = contact
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if latitude is not UNSET:
            field_dict["latitude"] = latitude
        if longitude is not UNSET:
            field_dict["longitude"] = longitude

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput

        d = dict(src_dict)
        address = d.pop("address", UNSET)

        _contact = d.pop("contact", UNSET)
        contact: ContactInput | Unset
        if isinstance(_contact, Unset):
            contact = UNSET
        else:
            contact = ContactInput.from_dict(_contact)

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        latitude = d.pop("latitude", UNSET)

        longitude = d.pop("longitude", UNSET)

        waypoint_change_input = cls(
            address=address,
            contact=contact,
            instructions=instructions,
            latitude=latitude,
            longitude=longitude,
        )

        return waypoint_change_input
