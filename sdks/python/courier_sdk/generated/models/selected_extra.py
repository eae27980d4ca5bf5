from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SelectedExtra")


@_attrs_define
class SelectedExtra:
    """
    Attributes:
        extra_id (str):
        option_id (None | str | Unset):
        quantity (int | None | Unset):
    """

    extra_id: str
    option_id: None | str | Unset = UNSET
    quantity: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        extra_id = self.extra_id

        option_id: None | str | Unset
        if isinstance(self.option_id, Unset):
            option_id = UNSET
        else:
            option_id = self.option_id

        quantity: int | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "extra_id": extra_id,
            }
        )
        if option_id is not UNSET:
            field_dict["option_id"] = option_id
        if quantity is not UNSET:
            field_dict["quantity"] = quantity

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        extra_id = d.pop("extra_id")

        def _parse_option_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        option_id = _parse_option_id(d.pop("option_id", UNSET))

        def _parse_quantity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))

        selected_extra = cls(
            extra_id=extra_id,
            option_id=option_id,
            quantity=quantity,
        )

        return selected_extra
