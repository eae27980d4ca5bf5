from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BatchDeliveryCheck")


@_attrs_define
class BatchDeliveryCheck:
    """A valid delivery of a dry run (`validate_only=true`): the price its
    create would book.

        Attributes:
            amount_cents (int):
            currency (str):
            distance_km (float):
            duration_min (int):
    """

    amount_cents: int
    currency: str
    distance_km: float
    duration_min: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_cents = self.amount_cents

        currency = self.currency

        distance_km = self.distance_km

        duration_min = self.duration_min

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_cents": amount_cents,
                "currency": currency,
                "distance_km": distance_km,
                "duration_min": duration_min,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount_cents = d.pop("amount_cents")

        currency = d.pop("currency")

        distance_km = d.pop("distance_km")

        duration_min = d.pop("duration_min")

        batch_delivery_check = cls(
            amount_cents=amount_cents,
            currency=currency,
            distance_km=distance_km,
            duration_min=duration_min,
        )

        batch_delivery_check.additional_properties = d
        return batch_delivery_check

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
