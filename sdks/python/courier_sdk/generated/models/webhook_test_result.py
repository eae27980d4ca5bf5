from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WebhookTestResult")


@_attrs_define
class WebhookTestResult:
    """The result of the sample event.

    Attributes:
        error (None | str):
        event_id (str):
        latency_ms (int | None):
        response_code (int | None):
        succeeded (bool):
    """

    error: None | str
    event_id: str
    latency_ms: int | None
    response_code: int | None
    succeeded: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error: None | str
        error = self.error

        event_id = self.event_id

        latency_ms: int | None
        latency_ms = self.latency_ms

        response_code: int | None
        response_code = self.response_code

        succeeded = self.succeeded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error": error,
                "event_id": event_id,
                "latency_ms": latency_ms,
                "response_code": response_code,
                "succeeded": succeeded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        event_id = d.pop("event_id")

        def _parse_latency_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        latency_ms = _parse_latency_ms(d.pop("latency_ms"))

        def _parse_response_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_code = _parse_response_code(d.pop("response_code"))

        succeeded = d.pop("succeeded")

        webhook_test_result = cls(
            error=error,
            event_id=event_id,
            latency_ms=latency_ms,
            response_code=response_code,
            succeeded=succeeded,
        )

        webhook_test_result.additional_properties = d
        return webhook_test_result

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
