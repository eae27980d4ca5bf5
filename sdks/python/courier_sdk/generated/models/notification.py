from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.notification_audience import NotificationAudience
from ..models.notification_channel import NotificationChannel
from ..models.notification_language import NotificationLanguage
from ..models.notification_status import NotificationStatus
from ..models.notification_trigger import NotificationTrigger

T = TypeVar("T", bound="Notification")


@_attrs_define
class Notification:
    """One message to a delivery's recipient or sender.

    Attributes:
        address (str): The phone number or email address, masked (`+49********12`,
            `j***@example.com`).
        attempts (int): Attempts made to hand it to the provider.
        audience (NotificationAudience): Whom a notification is for: the dropoff's contact (`recipient`) or the pickup's
            (`sender`).
        body (str): The text as it went (or will go) out.
        channel (NotificationChannel): How a notification goes out.
        created_at (datetime.datetime):
        delivery_id (str): The delivery it is about.
        error (None | str): Why it failed or was dropped, or the last attempt's error while it is
            retried; `null` otherwise.
        id (str): The message's id (`ntf_…`).
        language (NotificationLanguage): A language whose notification texts ship with the platform.
        sent_at (datetime.datetime | None): When the provider took it (test mode: when it was put in the test
            inbox); `null` until then.
        status (NotificationStatus): Where a notification stands: `queued`, `held` (quiet hours), `sent` (in test mode:
            in the test inbox), `delivered` (reported by the provider), `failed`, `dropped` (the delivery ended before it
            could go out) or `opted_out`.
        subject (None | str): An email's subject; `null` for an SMS.
        trigger (NotificationTrigger): The moment a notification is about.
    """

    address: str
    attempts: int
    audience: NotificationAudience
    body: str
    channel: NotificationChannel
    created_at: datetime.datetime
    delivery_id: str
    error: None | str
    id: str
    language: NotificationLanguage
    sent_at: datetime.datetime | None
    status: NotificationStatus
    subject: None | str
    trigger: NotificationTrigger
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        attempts = self.attempts

        audience = self.audience.value

        body = self.body

        channel = self.channel.value

        created_at = self.created_at.isoformat()

        delivery_id = self.delivery_id

        error: None | str
        error = self.error

        id = self.id

        language = self.language.value

        sent_at: None | str
        if isinstance(self.sent_at, datetime.datetime):
            sent_at = self.sent_at.isoformat()
        else:
            sent_at = self.sent_at

        status = self.status.value

        subject: None | str
        subject = self.subject

        trigger = self.trigger.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "attempts": attempts,
                "audience": audience,
                "body": body,
                "channel": channel,
                "created_at": created_at,
                "delivery_id": delivery_id,
                "error": error,
                "id": id,
                "language": language,
                "sent_at": sent_at,
                "status": status,
                "subject": subject,
                "trigger": trigger,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        attempts = d.pop("attempts")

        audience = NotificationAudience(d.pop("audience"))

        body = d.pop("body")

        channel = NotificationChannel(d.pop("channel"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        delivery_id = d.pop("delivery_id")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        id = d.pop("id")

        language = NotificationLanguage(d.pop("language"))

        def _parse_sent_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_at_type_0 = datetime.datetime.fromisoformat(data)

                return sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sent_at = _parse_sent_at(d.pop("sent_at"))

        status = NotificationStatus(d.pop("status"))

        def _parse_subject(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subject = _parse_subject(d.pop("subject"))

        trigger = NotificationTrigger(d.pop("trigger"))

        notification = cls(
            address=address,
            attempts=attempts,
            audience=audience,
            body=body,
            channel=channel,
            created_at=created_at,
            delivery_id=delivery_id,
            error=error,
            id=id,
            language=language,
            sent_at=sent_at,
            status=status,
            subject=subject,
            trigger=trigger,
        )

        notification.additional_properties = d
        return notification

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
