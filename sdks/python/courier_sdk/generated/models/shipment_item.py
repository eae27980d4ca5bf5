from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ShipmentItem")


@_attrs_define
class ShipmentItem:
    """
    Attributes:
        description (str):
        height_cm (float):
        length_cm (float):
        quantity (int):
        weight_kg (float):
        width_cm (float):
    """

    description: str
    height_cm: float
    length_cm: float
    quantity: int
    weight_kg: float
    width_cm: float

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        height_cm = self.height_cm

        length_cm = self.length_cm

        quantity = self.quantity

        weight_kg = self.weight_kg

        width_cm = self.width_cm

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "description": description,
                "height_cm": height_cm,
                "length_cm": length_cm,
                "quantity": quantity,
                "weight_kg": weight_kg,
                "width_cm": width_cm,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        description = d.pop("description")

        height_cm = d.pop("height_cm")

        length_cm = d.pop("length_cm")

        quantity = d.pop("quantity")

        weight_kg = d.pop("weight_kg")

        width_cm = d.pop("width_cm")

        shipment_item = cls(
            description=description,
            height_cm=height_cm,
            length_cm=length_cm,
            quantity=quantity,
            weight_kg=weight_kg,
            width_cm=width_cm,
        )

        return shipment_item
