from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.courier_location import CourierLocation
    from ..models.courier_vehicle import CourierVehicle


T = TypeVar("T", bound="DeliveryCourierType1")


@_attrs_define
class DeliveryCourierType1:
    """
    Attributes:
        location (CourierLocation | None):
        name (None | str):
        photo_url (None | str):
        rating (float | None):
        vehicle (CourierVehicle | None):
    """

    location: CourierLocation | None
    name: None | str
    photo_url: None | str
    rating: float | None
    vehicle: CourierVehicle | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.courier_location import CourierLocation
        from ..models.courier_vehicle import CourierVehicle

        location: dict[str, Any] | None
        if isinstance(self.location, CourierLocation):
            location = self.location.to_dict()
        else:
            location = self.location

        name: None | str
        name = self.name

        photo_url: None | str
        photo_url = self.photo_url

        rating: float | None
        rating = self.rating

        vehicle: dict[str, Any] | None
        if isinstance(self.vehicle, CourierVehicle):
            vehicle = self.vehicle.to_dict()
        else:
            vehicle = self.vehicle

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "location": location,
                "name": name,
                "photo_url": photo_url,
                "rating": rating,
                "vehicle": vehicle,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.courier_location import CourierLocation
        from ..models.courier_vehicle import CourierVehicle

        d = dict(src_dict)

        def _parse_location(data: object) -> CourierLocation | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_type_0 = CourierLocation.from_dict(data)

                return location_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CourierLocation | None, data)

        location = _parse_location(d.pop("location"))

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        def _parse_photo_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        photo_url = _parse_photo_url(d.pop("photo_url"))

        def _parse_rating(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rating = _parse_rating(d.pop("rating"))

        def _parse_vehicle(data: object) -> CourierVehicle | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vehicle_type_0 = CourierVehicle.from_dict(data)

                return vehicle_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CourierVehicle | None, data)

        vehicle = _parse_vehicle(d.pop("vehicle"))

        delivery_courier_type_1 = cls(
            location=location,
            name=name,
            photo_url=photo_url,
            rating=rating,
            vehicle=vehicle,
        )

        delivery_courier_type_1.additional_properties = d
        return delivery_courier_type_1

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
