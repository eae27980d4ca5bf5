from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="TimeWindowInput")


@_attrs_define
class TimeWindowInput:
    """A promised time as a request sends it (docs/guide.md "Windows").

    Attributes:
        end (datetime.datetime): RFC 3339; 15 minutes to 12 hours after `start`, in the future.
        start (datetime.datetime): RFC 3339.
    """

    end: datetime.datetime
    start: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        end = self.end.isoformat()

        start = self.start.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "end": end,
                "start": start,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        end = datetime.datetime.fromisoformat(d.pop("end"))

        start = datetime.datetime.fromisoformat(d.pop("start"))

        time_window_input = cls(
            end=end,
            start=start,
        )

        return time_window_input
