from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.notification_language import NotificationLanguage

T = TypeVar("T", bound="NotificationPreferences")


@_attrs_define
class NotificationPreferences:
    """A delivery's choice of recipient notifications; `null` members keep the
    workspace's settings.

        Attributes:
            language (None | NotificationLanguage):
            recipient (bool | None): `false`: no message to the dropoff's contact.
            sender (bool | None): `false`: no message to the pickup's contact.
    """

    language: None | NotificationLanguage
    recipient: bool | None
    sender: bool | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        language: None | str
        if isinstance(self.language, NotificationLanguage):
            language = self.language.value
        else:
            language = self.language

        recipient: bool | None
        recipient = self.recipient

        sender: bool | None
        sender = self.sender

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "language": language,
                "recipient": recipient,
                "sender": sender,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_language(data: object) -> None | NotificationLanguage:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                language_type_0 = NotificationLanguage(data)

                return language_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NotificationLanguage, data)

        language = _parse_language(d.pop("language"))

        def _parse_recipient(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        recipient = _parse_recipient(d.pop("recipient"))

        def _parse_sender(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        sender = _parse_sender(d.pop("sender"))

        notification_preferences = cls(
            language=language,
            recipient=recipient,
            sender=sender,
        )

        notification_preferences.additional_properties = d
        return notification_preferences

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
