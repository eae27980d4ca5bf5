from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.delivery_event_data import DeliveryEventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """An Event: `{id, type, version, created_at, data}`. Webhook requests carry
    the same envelope as their body.

        Attributes:
            created_at (datetime.datetime):
            data (DeliveryEventData): A delivery. Every field is always present, `null` where
                unset. Events carry the same shape with `courier` reduced to its name.
            id (str):
            type_ (EventType): The type of an event.
            version (str): Payload version, a year-month label.
    """

    created_at: datetime.datetime
    data: DeliveryEventData
    id: str
    type_: EventType
    version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        type_ = self.type_.value

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "data": data,
                "id": id,
                "type": type_,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_event_data import DeliveryEventData

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = DeliveryEventData.from_dict(d.pop("data"))

        id = d.pop("id")

        type_ = EventType(d.pop("type"))

        version = d.pop("version")

        event = cls(
            created_at=created_at,
            data=data,
            id=id,
            type_=type_,
            version=version,
        )

        event.additional_properties = d
        return event

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
