from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.breakdown_extra import BreakdownExtra
    from ..models.surcharge import Surcharge


T = TypeVar("T", bound="PriceBreakdown")


@_attrs_define
class PriceBreakdown:
    """
    Attributes:
        discount_cents (int):
        extras (list[BreakdownExtra]):
        route_cents (int):
        service_fee_cents (int):
        surcharges (list[Surcharge]):
    """

    discount_cents: int
    extras: list[BreakdownExtra]
    route_cents: int
    service_fee_cents: int
    surcharges: list[Surcharge]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        discount_cents = self.discount_cents

        extras = []
        for extras_item_data in self.extras:
            extras_item = extras_item_data.to_dict()
            extras.append(extras_item)

        route_cents = self.route_cents

        service_fee_cents = self.service_fee_cents

        surcharges = []
        for surcharges_item_data in self.surcharges:
            surcharges_item = surcharges_item_data.to_dict()
            surcharges.append(surcharges_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "discount_cents": discount_cents,
                "extras": extras,
                "route_cents": route_cents,
                "service_fee_cents": service_fee_cents,
                "surcharges": surcharges,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.breakdown_extra import BreakdownExtra
        from ..models.surcharge import Surcharge

        d = dict(src_dict)
        discount_cents = d.pop("discount_cents")

        extras = []
        _extras = d.pop("extras")
        for extras_item_data in _extras:
            extras_item = BreakdownExtra.from_dict(extras_item_data)

            extras.append(extras_item)

        route_cents = d.pop("route_cents")

        service_fee_cents = d.pop("service_fee_cents")

        surcharges = []
        _surcharges = d.pop("surcharges")
        for surcharges_item_data in _surcharges:
            surcharges_item = Surcharge.from_dict(surcharges_item_data)

            surcharges.append(surcharges_item)

        price_breakdown = cls(
            discount_cents=discount_cents,
            extras=extras,
            route_cents=route_cents,
            service_fee_cents=service_fee_cents,
            surcharges=surcharges,
        )

        price_breakdown.additional_properties = d
        return price_breakdown

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
