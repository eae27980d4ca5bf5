from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.notification_language import NotificationLanguage
from ..types import UNSET, Unset

T = TypeVar("T", bound="NotificationPreferencesInput")


@_attrs_define
class NotificationPreferencesInput:
    """The delivery's own choice of recipient notifications over its
    workspace's settings (docs/guide.md "Notifications"); an omitted member
    keeps the workspace's.

        Attributes:
            language (None | NotificationLanguage | Unset):
            recipient (bool | None | Unset): `false`: no message to the dropoff's contact.
            sender (bool | None | Unset): `false`: no message to the pickup's contact.
    """

    language: None | NotificationLanguage | Unset = UNSET
    recipient: bool | None | Unset = UNSET
    sender: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        language: None | str | Unset
        if isinstance(self.language, Unset):
            language = UNSET
        elif isinstance(self.language, NotificationLanguage):
            language = self.language.value
        else:
            language = self.language

        recipient: bool | None | Unset
        if isinstance(self.recipient, Unset):
            recipient = UNSET
        else:
            recipient = self.recipient

        sender: bool | None | Unset
        if isinstance(self.sender, Unset):
            sender = UNSET
        else:
            sender = self.sender

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if language is not UNSET:
            field_dict["language"] = language
        if recipient is not UNSET:
            field_dict["recipient"] = recipient
        if sender is not UNSET:
            field_dict["sender"] = sender

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_language(data: object) -> None | NotificationLanguage | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                language_type_0 = NotificationLanguage(data)

                return language_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NotificationLanguage | Unset, data)

        language = _parse_language(d.pop("language", UNSET))

        def _parse_recipient(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        recipient = _parse_recipient(d.pop("recipient", UNSET))

        def _parse_sender(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        sender = _parse_sender(d.pop("sender", UNSET))

        notification_preferences_input = cls(
            language=language,
            recipient=recipient,
            sender=sender,
        )

        return notification_preferences_input
