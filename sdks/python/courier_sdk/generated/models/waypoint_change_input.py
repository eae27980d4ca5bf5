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
            contact (ContactInput | Unset):
            instructions (None | str | Unset): `null` (or `""`) removes the instructions.
    """

    contact: ContactInput | Unset = UNSET
    instructions: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        contact: dict[str, Any] | Unset = UNSET
        if not isinstance(self.contact, Unset):
            contact = self.contact.to_dict()

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if contact is not UNSET:
            field_dict["contact"] = contact
        if instructions is not UNSET:
            field_dict["instructions"] = instructions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput

        d = dict(src_dict)
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

        waypoint_change_input = cls(
            contact=contact,
            instructions=instructions,
        )

        return waypoint_change_input
