from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.extra import Extra


T = TypeVar("T", bound="VehicleType")


@_attrs_define
class VehicleType:
    """
    Attributes:
        description (str):
        extras (list[Extra]):
        id (str): The value of `vehicle_type_id`.
        max_height_cm (float):
        max_jobs (int): The most jobs a courier with this vehicle carries at once: a
            delivery may share the courier with up to this many others, unless
            booked with `"batching": "never"`.
        max_length_cm (float):
        max_weight_kg (float):
        max_width_cm (float):
        name (str):
    """

    description: str
    extras: list[Extra]
    id: str
    max_height_cm: float
    max_jobs: int
    max_length_cm: float
    max_weight_kg: float
    max_width_cm: float
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        extras = []
        for extras_item_data in self.extras:
            extras_item = extras_item_data.to_dict()
            extras.append(extras_item)

        id = self.id

        max_height_cm = self.max_height_cm

        max_jobs = self.max_jobs

        max_length_cm = self.max_length_cm

        max_weight_kg = self.max_weight_kg

        max_width_cm = self.max_width_cm

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "extras": extras,
                "id": id,
                "max_height_cm": max_height_cm,
                "max_jobs": max_jobs,
                "max_length_cm": max_length_cm,
                "max_weight_kg": max_weight_kg,
                "max_width_cm": max_width_cm,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.extra import Extra

        d = dict(src_dict)
        description = d.pop("description")

        extras = []
        _extras = d.pop("extras")
        for extras_item_data in _extras:
            extras_item = Extra.from_dict(extras_item_data)

            extras.append(extras_item)

        id = d.pop("id")

        max_height_cm = d.pop("max_height_cm")

        max_jobs = d.pop("max_jobs")

        max_length_cm = d.pop("max_length_cm")

        max_weight_kg = d.pop("max_weight_kg")

        max_width_cm = d.pop("max_width_cm")

        name = d.pop("name")

        vehicle_type = cls(
            description=description,
            extras=extras,
            id=id,
            max_height_cm=max_height_cm,
            max_jobs=max_jobs,
            max_length_cm=max_length_cm,
            max_weight_kg=max_weight_kg,
            max_width_cm=max_width_cm,
            name=name,
        )

        vehicle_type.additional_properties = d
        return vehicle_type

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
