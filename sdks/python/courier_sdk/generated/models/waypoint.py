from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.contact import Contact


T = TypeVar("T", bound="Waypoint")


@_attrs_define
class Waypoint:
    """
    Attributes:
        address (str):
        contact (Contact | None):
        instructions (None | str):
        latitude (float):
        longitude (float):
    """

    address: str
    contact: Contact | None
    instructions: None | str
    latitude: float
    longitude: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.contact import Contact

        address = self.address

        contact: dict[str, Any] | None
        if isinstance(self.contact, Contact):
            contact = self.contact.to_dict()
        else:
            contact = self.contact

        instructions: None | str
        instructions = self.instructions

        latitude = self.latitude

        longitude = self.longitude

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "contact": contact,
                "instructions": instructions,
                "latitude": latitude,
                "longitude": longitude,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact import Contact

        d = dict(src_dict)
        address = d.pop("address")

        def _parse_contact(data: object) -> Contact | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                contact_type_0 = Contact.from_dict(data)

                return contact_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Contact | None, data)

        contact = _parse_contact(d.pop("contact"))

        def _parse_instructions(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        instructions = _parse_instructions(d.pop("instructions"))

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        waypoint = cls(
            address=address,
            contact=contact,
            instructions=instructions,
            latitude=latitude,
            longitude=longitude,
        )

        waypoint.additional_properties = d
        return waypoint

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
