from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..models.update_webhook_endpoint_status import UpdateWebhookEndpointStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateWebhookEndpointRequest")


@_attrs_define
class UpdateWebhookEndpointRequest:
    """`PATCH /v1/webhooks/{id}` body: an absent field stays as it is.

    Attributes:
        description (None | str | Unset): `null` (or `""`) removes the description.
        events (list[EventType] | Unset): `[]` means every event type.
        status (UpdateWebhookEndpointStatus | Unset):
        url (str | Unset):
    """

    description: None | str | Unset = UNSET
    events: list[EventType] | Unset = UNSET
    status: UpdateWebhookEndpointStatus | Unset = UNSET
    url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if description is not UNSET:
            field_dict["description"] = description
        if events is not UNSET:
            field_dict["events"] = events
        if status is not UNSET:
            field_dict["status"] = status
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        _events = d.pop("events", UNSET)
        events: list[EventType] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = EventType(events_item_data)

                events.append(events_item)

        _status = d.pop("status", UNSET)
        status: UpdateWebhookEndpointStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = UpdateWebhookEndpointStatus(_status)

        url = d.pop("url", UNSET)

        update_webhook_endpoint_request = cls(
            description=description,
            events=events,
            status=status,
            url=url,
        )

        return update_webhook_endpoint_request
