from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BreakdownExtra")


@_attrs_define
class BreakdownExtra:
    """
    Attributes:
        amount_cents (int):
        extra_id (str):
        name (str):
        option_id (None | str):
        option_name (None | str):
        quantity (int):
        unit_amount_cents (int):
    """

    amount_cents: int
    extra_id: str
    name: str
    option_id: None | str
    option_name: None | str
    quantity: int
    unit_amount_cents: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_cents = self.amount_cents

        extra_id = self.extra_id

        name = self.name

        option_id: None | str
        option_id = self.option_id

        option_name: None | str
        option_name = self.option_name

        quantity = self.quantity

        unit_amount_cents = self.unit_amount_cents

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_cents": amount_cents,
                "extra_id": extra_id,
                "name": name,
                "option_id": option_id,
                "option_name": option_name,
                "quantity": quantity,
                "unit_amount_cents": unit_amount_cents,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount_cents = d.pop("amount_cents")

        extra_id = d.pop("extra_id")

        name = d.pop("name")

        def _parse_option_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        option_id = _parse_option_id(d.pop("option_id"))

        def _parse_option_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        option_name = _parse_option_name(d.pop("option_name"))

        quantity = d.pop("quantity")

        unit_amount_cents = d.pop("unit_amount_cents")

        breakdown_extra = cls(
            amount_cents=amount_cents,
            extra_id=extra_id,
            name=name,
            option_id=option_id,
            option_name=option_name,
            quantity=quantity,
            unit_amount_cents=unit_amount_cents,
        )

        breakdown_extra.additional_properties = d
        return breakdown_extra

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
