from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tax_behavior import TaxBehavior

if TYPE_CHECKING:
    from ..models.price_breakdown import PriceBreakdown
    from ..models.time_window import TimeWindow


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
        dropoff_eta (datetime.datetime):
        dropoff_window (None | TimeWindow):
        duration_min (int):
        id (str):
        pickup_eta (datetime.datetime): When the dispatcher would plan the pickup and the dropoff if the
            delivery were booked now, inside the windows.
        pickup_window (None | TimeWindow):
        tax_behavior (TaxBehavior): Every amount includes VAT.
        valid_until (datetime.datetime):
    """

    amount_cents: int
    breakdown: PriceBreakdown
    created_at: datetime.datetime
    currency: str
    distance_km: float | None
    dropoff_eta: datetime.datetime
    dropoff_window: None | TimeWindow
    duration_min: int
    id: str
    pickup_eta: datetime.datetime
    pickup_window: None | TimeWindow
    tax_behavior: TaxBehavior
    valid_until: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window import TimeWindow

        amount_cents = self.amount_cents

        breakdown = self.breakdown.to_dict()

        created_at = self.created_at.isoformat()

        currency = self.currency

        distance_km: float | None
        distance_km = self.distance_km

        dropoff_eta = self.dropoff_eta.isoformat()

        dropoff_window: dict[str, Any] | None
        if isinstance(self.dropoff_window, TimeWindow):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        duration_min = self.duration_min

        id = self.id

        pickup_eta = self.pickup_eta.isoformat()

        pickup_window: dict[str, Any] | None
        if isinstance(self.pickup_window, TimeWindow):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

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
                "dropoff_eta": dropoff_eta,
                "dropoff_window": dropoff_window,
                "duration_min": duration_min,
                "id": id,
                "pickup_eta": pickup_eta,
                "pickup_window": pickup_window,
                "tax_behavior": tax_behavior,
                "valid_until": valid_until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.price_breakdown import PriceBreakdown
        from ..models.time_window import TimeWindow

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

        dropoff_eta = datetime.datetime.fromisoformat(d.pop("dropoff_eta"))

        def _parse_dropoff_window(data: object) -> None | TimeWindow:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_window_type_0 = TimeWindow.from_dict(data)

                return dropoff_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindow, data)

        dropoff_window = _parse_dropoff_window(d.pop("dropoff_window"))

        duration_min = d.pop("duration_min")

        id = d.pop("id")

        pickup_eta = datetime.datetime.fromisoformat(d.pop("pickup_eta"))

        def _parse_pickup_window(data: object) -> None | TimeWindow:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_window_type_0 = TimeWindow.from_dict(data)

                return pickup_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindow, data)

        pickup_window = _parse_pickup_window(d.pop("pickup_window"))

        tax_behavior = TaxBehavior(d.pop("tax_behavior"))

        valid_until = datetime.datetime.fromisoformat(d.pop("valid_until"))

        quote = cls(
            amount_cents=amount_cents,
            breakdown=breakdown,
            created_at=created_at,
            currency=currency,
            distance_km=distance_km,
            dropoff_eta=dropoff_eta,
            dropoff_window=dropoff_window,
            duration_min=duration_min,
            id=id,
            pickup_eta=pickup_eta,
            pickup_window=pickup_window,
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
