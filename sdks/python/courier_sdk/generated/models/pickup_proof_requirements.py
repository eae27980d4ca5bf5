from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PickupProofRequirements")


@_attrs_define
class PickupProofRequirements:
    """
    Attributes:
        barcode (bool):
        photos (int):
        sender_name (bool):
        signature (bool):
    """

    barcode: bool
    photos: int
    sender_name: bool
    signature: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        barcode = self.barcode

        photos = self.photos

        sender_name = self.sender_name

        signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "barcode": barcode,
                "photos": photos,
                "sender_name": sender_name,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        barcode = d.pop("barcode")

        photos = d.pop("photos")

        sender_name = d.pop("sender_name")

        signature = d.pop("signature")

        pickup_proof_requirements = cls(
            barcode=barcode,
            photos=photos,
            sender_name=sender_name,
            signature=signature,
        )

        pickup_proof_requirements.additional_properties = d
        return pickup_proof_requirements

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
