from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tax_behavior import TaxBehavior

if TYPE_CHECKING:
    from ..models.price_breakdown import PriceBreakdown


T = TypeVar("T", bound="Quote")


@_attrs_define
class Quote:
    """A price for a route, valid 5 minutes in the key's mode.

    Attributes:
        amount_cents (int):
        breakdown (PriceBreakdown):
        created_at (datetime.datetime):
        currency (str):
        distance_km (float | None):
        duration_min (int):
        id (str):
        tax_behavior (TaxBehavior): Every amount includes VAT.
        valid_until (datetime.datetime):
    """

    amount_cents: int
    breakdown: PriceBreakdown
    created_at: datetime.datetime
    currency: str
    distance_km: float | None
    duration_min: int
    id: str
    tax_behavior: TaxBehavior
    valid_until: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_cents = self.amount_cents

        breakdown = self.breakdown.to_dict()

        created_at = self.created_at.isoformat()

        currency = self.currency

        distance_km: float | None
        distance_km = self.distance_km

        duration_min = self.duration_min

        id = self.id

        tax_behavior = self.tax_behavior.value

        valid_until = self.valid_until.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_cents": amount_cents,
                "breakdown": breakdown,
                "created_at": created_at,
                "currency": currency,
                "distance_km": distance_km,
                "duration_min": duration_min,
                "id": id,
                "tax_behavior": tax_behavior,
                "valid_until": valid_until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.price_breakdown import PriceBreakdown

        d = dict(src_dict)
        amount_cents = d.pop("amount_cents")

        breakdown = PriceBreakdown.from_dict(d.pop("breakdown"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = d.pop("currency")

        def _parse_distance_km(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        distance_km = _parse_distance_km(d.pop("distance_km"))

        duration_min = d.pop("duration_min")

        id = d.pop("id")

        tax_behavior = TaxBehavior(d.pop("tax_behavior"))

        valid_until = datetime.datetime.fromisoformat(d.pop("valid_until"))

        quote = cls(
            amount_cents=amount_cents,
            breakdown=breakdown,
            created_at=created_at,
            currency=currency,
            distance_km=distance_km,
            duration_min=duration_min,
            id=id,
            tax_behavior=tax_behavior,
            valid_until=valid_until,
        )

        quote.additional_properties = d
        return quote

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
