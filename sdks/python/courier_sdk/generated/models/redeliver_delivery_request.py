from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.test_scenario import TestScenario
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.time_window_input import TimeWindowInput


T = TypeVar("T", bound="RedeliverDeliveryRequest")


@_attrs_define
class RedeliverDeliveryRequest:
    """`POST /v1/deliveries/{id}/redeliver` body (optional; docs/guide.md
    "Deliver again"): the new delivery's own times, `external_id` and
    `test_scenario`; everything else is the original's.

        Attributes:
            dropoff_window (None | TimeWindowInput | Unset):
            external_id (None | str | Unset):
            pickup_window (None | TimeWindowInput | Unset):
            scheduled_at (datetime.datetime | None | Unset): Pickup time, 1 minute to 30 days ahead; omit for immediate.
            test_scenario (None | TestScenario | Unset):
    """

    dropoff_window: None | TimeWindowInput | Unset = UNSET
    external_id: None | str | Unset = UNSET
    pickup_window: None | TimeWindowInput | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    test_scenario: None | TestScenario | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window_input import TimeWindowInput

        dropoff_window: dict[str, Any] | None | Unset
        if isinstance(self.dropoff_window, Unset):
            dropoff_window = UNSET
        elif isinstance(self.dropoff_window, TimeWindowInput):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        external_id: None | str | Unset
        if isinstance(self.external_id, Unset):
            external_id = UNSET
        else:
            external_id = self.external_id

        pickup_window: dict[str, Any] | None | Unset
        if isinstance(self.pickup_window, Unset):
            pickup_window = UNSET
        elif isinstance(self.pickup_window, TimeWindowInput):
            pickup_window = self.pickup_window.to_dict()
        else:
            pickup_window = self.pickup_window

        scheduled_at: None | str | Unset
        if isinstance(self.scheduled_at, Unset):
            scheduled_at = UNSET
        elif isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        test_scenario: None | str | Unset
        if isinstance(self.test_scenario, Unset):
            test_scenario = UNSET
        elif isinstance(self.test_scenario, TestScenario):
            test_scenario = self.test_scenario.value
        else:
            test_scenario = self.test_scenario

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if pickup_window is not UNSET:
            field_dict["pickup_window"] = pickup_window
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at
        if test_scenario is not UNSET:
            field_dict["test_scenario"] = test_scenario

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.time_window_input import TimeWindowInput

        d = dict(src_dict)

        def _parse_dropoff_window(data: object) -> None | TimeWindowInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_window_type_0 = TimeWindowInput.from_dict(data)

                return dropoff_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindowInput | Unset, data)

        dropoff_window = _parse_dropoff_window(d.pop("dropoff_window", UNSET))

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

        def _parse_pickup_window(data: object) -> None | TimeWindowInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_window_type_0 = TimeWindowInput.from_dict(data)

                return pickup_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindowInput | Unset, data)

        pickup_window = _parse_pickup_window(d.pop("pickup_window", UNSET))

        def _parse_scheduled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at", UNSET))

        def _parse_test_scenario(data: object) -> None | TestScenario | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                test_scenario_type_0 = TestScenario(data)

                return test_scenario_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TestScenario | Unset, data)

        test_scenario = _parse_test_scenario(d.pop("test_scenario", UNSET))

        redeliver_delivery_request = cls(
            dropoff_window=dropoff_window,
            external_id=external_id,
            pickup_window=pickup_window,
            scheduled_at=scheduled_at,
            test_scenario=test_scenario,
        )

        return redeliver_delivery_request
