from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.extra_option import ExtraOption


T = TypeVar("T", bound="Extra")


@_attrs_define
class Extra:
    """
    Attributes:
        id (str):
        name (str):
        options (list[ExtraOption]):
        unit_amount_cents (int | None): Null when the extra has options, each with its own price.
    """

    id: str
    name: str
    options: list[ExtraOption]
    unit_amount_cents: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        options = []
        for options_item_data in self.options:
            options_item = options_item_data.to_dict()
            options.append(options_item)

        unit_amount_cents: int | None
        unit_amount_cents = self.unit_amount_cents

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "options": options,
                "unit_amount_cents": unit_amount_cents,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.extra_option import ExtraOption

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        options = []
        _options = d.pop("options")
        for options_item_data in _options:
            options_item = ExtraOption.from_dict(options_item_data)

            options.append(options_item)

        def _parse_unit_amount_cents(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        unit_amount_cents = _parse_unit_amount_cents(d.pop("unit_amount_cents"))

        extra = cls(
            id=id,
            name=name,
            options=options,
            unit_amount_cents=unit_amount_cents,
        )

        extra.additional_properties = d
        return extra

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
