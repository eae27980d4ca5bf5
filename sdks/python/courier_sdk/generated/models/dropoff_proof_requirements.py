from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DropoffProofRequirements")


@_attrs_define
class DropoffProofRequirements:
    """
    Attributes:
        age_check (bool):
        barcode (bool):
        leave_at_door (bool):
        photos (int):
        pin (bool): The courier enters `dropoff_pin` to hand over.
        recipient_name (bool):
        signature (bool):
    """

    age_check: bool
    barcode: bool
    leave_at_door: bool
    photos: int
    pin: bool
    recipient_name: bool
    signature: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        age_check = self.age_check

        barcode = self.barcode

        leave_at_door = self.leave_at_door

        photos = self.photos

        pin = self.pin

        recipient_name = self.recipient_name

        signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "age_check": age_check,
                "barcode": barcode,
                "leave_at_door": leave_at_door,
                "photos": photos,
                "pin": pin,
                "recipient_name": recipient_name,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        age_check = d.pop("age_check")

        barcode = d.pop("barcode")

        leave_at_door = d.pop("leave_at_door")

        photos = d.pop("photos")

        pin = d.pop("pin")

        recipient_name = d.pop("recipient_name")

        signature = d.pop("signature")

        dropoff_proof_requirements = cls(
            age_check=age_check,
            barcode=barcode,
            leave_at_door=leave_at_door,
            photos=photos,
            pin=pin,
            recipient_name=recipient_name,
            signature=signature,
        )

        dropoff_proof_requirements.additional_properties = d
        return dropoff_proof_requirements

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
