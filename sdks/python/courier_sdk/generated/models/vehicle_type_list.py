from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.vehicle_type import VehicleType


T = TypeVar("T", bound="VehicleTypeList")


@_attrs_define
class VehicleTypeList:
    """
    Attributes:
        vehicle_types (list[VehicleType]):
    """

    vehicle_types: list[VehicleType]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        vehicle_types = []
        for vehicle_types_item_data in self.vehicle_types:
            vehicle_types_item = vehicle_types_item_data.to_dict()
            vehicle_types.append(vehicle_types_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "vehicle_types": vehicle_types,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.vehicle_type import VehicleType

        d = dict(src_dict)
        vehicle_types = []
        _vehicle_types = d.pop("vehicle_types")
        for vehicle_types_item_data in _vehicle_types:
            vehicle_types_item = VehicleType.from_dict(vehicle_types_item_data)

            vehicle_types.append(vehicle_types_item)

        vehicle_type_list = cls(
            vehicle_types=vehicle_types,
        )

        vehicle_type_list.additional_properties = d
        return vehicle_type_list

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
