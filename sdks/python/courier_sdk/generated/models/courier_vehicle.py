from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CourierVehicle")


@_attrs_define
class CourierVehicle:
    """
    Attributes:
        color (None | str):
        license_plate (None | str):
        make (None | str):
        model (None | str):
        photo_url (None | str):
    """

    color: None | str
    license_plate: None | str
    make: None | str
    model: None | str
    photo_url: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        color: None | str
        color = self.color

        license_plate: None | str
        license_plate = self.license_plate

        make: None | str
        make = self.make

        model: None | str
        model = self.model

        photo_url: None | str
        photo_url = self.photo_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "color": color,
                "license_plate": license_plate,
                "make": make,
                "model": model,
                "photo_url": photo_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_color(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        color = _parse_color(d.pop("color"))

        def _parse_license_plate(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        license_plate = _parse_license_plate(d.pop("license_plate"))

        def _parse_make(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        make = _parse_make(d.pop("make"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        def _parse_photo_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        photo_url = _parse_photo_url(d.pop("photo_url"))

        courier_vehicle = cls(
            color=color,
            license_plate=license_plate,
            make=make,
            model=model,
            photo_url=photo_url,
        )

        courier_vehicle.additional_properties = d
        return courier_vehicle

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
