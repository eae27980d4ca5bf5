from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_input import ContactInput


T = TypeVar("T", bound="WaypointInput")


@_attrs_define
class WaypointInput:
    """A route point that may carry a contact and handoff instructions.

    Attributes:
        address (str):
        latitude (float):
        longitude (float):
        contact (ContactInput | None | Unset):
        instructions (None | str | Unset):
    """

    address: str
    latitude: float
    longitude: float
    contact: ContactInput | None | Unset = UNSET
    instructions: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.contact_input import ContactInput

        address = self.address

        latitude = self.latitude

        longitude = self.longitude

        contact: dict[str, Any] | None | Unset
        if isinstance(self.contact, Unset):
            contact = UNSET
        elif isinstance(self.contact, ContactInput):
            contact = self.contact.to_dict()
        else:
            contact = self.contact

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
                "latitude": latitude,
                "longitude": longitude,
            }
        )
        if contact is not UNSET:
            field_dict["contact"] = contact
        if instructions is not UNSET:
            field_dict["instructions"] = instructions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput

        d = dict(src_dict)
        address = d.pop("address")

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        def _parse_contact(data: object) -> ContactInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                contact_type_0 = ContactInput.from_dict(data)

                return contact_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContactInput | None | Unset, data)

        contact = _parse_contact(d.pop("contact", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        waypoint_input = cls(
            address=address,
            latitude=latitude,
            longitude=longitude,
            contact=contact,
            instructions=instructions,
        )

        return waypoint_input
