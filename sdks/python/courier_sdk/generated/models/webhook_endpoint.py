from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_type import EventType
from ..models.webhook_disabled_reason import WebhookDisabledReason
from ..models.webhook_endpoint_status import WebhookEndpointStatus

T = TypeVar("T", bound="WebhookEndpoint")


@_attrs_define
class WebhookEndpoint:
    """A webhook endpoint record.

    Attributes:
        created_at (datetime.datetime):
        description (None | str):
        disabled_reason (None | WebhookDisabledReason):
        events (list[EventType]): The subscribed types; empty means every type.
        id (str):
        status (WebhookEndpointStatus): Whether the endpoint receives events.
        updated_at (datetime.datetime):
        url (str):
    """

    created_at: datetime.datetime
    description: None | str
    disabled_reason: None | WebhookDisabledReason
    events: list[EventType]
    id: str
    status: WebhookEndpointStatus
    updated_at: datetime.datetime
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        description: None | str
        description = self.description

        disabled_reason: None | str
        if isinstance(self.disabled_reason, WebhookDisabledReason):
            disabled_reason = self.disabled_reason.value
        else:
            disabled_reason = self.disabled_reason

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        id = self.id

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "description": description,
                "disabled_reason": disabled_reason,
                "events": events,
                "id": id,
                "status": status,
                "updated_at": updated_at,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        def _parse_disabled_reason(data: object) -> None | WebhookDisabledReason:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_reason_type_0 = WebhookDisabledReason(data)

                return disabled_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WebhookDisabledReason, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventType(events_item_data)

            events.append(events_item)

        id = d.pop("id")

        status = WebhookEndpointStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        url = d.pop("url")

        webhook_endpoint = cls(
            created_at=created_at,
            description=description,
            disabled_reason=disabled_reason,
            events=events,
            id=id,
            status=status,
            updated_at=updated_at,
            url=url,
        )

        webhook_endpoint.additional_properties = d
        return webhook_endpoint

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
