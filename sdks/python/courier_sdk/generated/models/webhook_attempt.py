from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_attempt_status import WebhookAttemptStatus

T = TypeVar("T", bound="WebhookAttempt")


@_attrs_define
class WebhookAttempt:
    """One webhook attempt of an event.

    Attributes:
        attempted_at (datetime.datetime):
        error (None | str):
        latency_ms (int | None):
        response_code (int | None):
        status (WebhookAttemptStatus): How the attempt ended: `succeeded` (a `2xx` answer) or `failed`, whether or not a
            retry follows; `pending` while its request is being made.
        webhook_id (str):
    """

    attempted_at: datetime.datetime
    error: None | str
    latency_ms: int | None
    response_code: int | None
    status: WebhookAttemptStatus
    webhook_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at.isoformat()

        error: None | str
        error = self.error

        latency_ms: int | None
        latency_ms = self.latency_ms

        response_code: int | None
        response_code = self.response_code

        status = self.status.value

        webhook_id = self.webhook_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempted_at": attempted_at,
                "error": error,
                "latency_ms": latency_ms,
                "response_code": response_code,
                "status": status,
                "webhook_id": webhook_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

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

        status = WebhookAttemptStatus(d.pop("status"))

        webhook_id = d.pop("webhook_id")

        webhook_attempt = cls(
            attempted_at=attempted_at,
            error=error,
            latency_ms=latency_ms,
            response_code=response_code,
            status=status,
            webhook_id=webhook_id,
        )

        webhook_attempt.additional_properties = d
        return webhook_attempt

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
