from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.cancel_reason import CancelReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="CancelDeliveryRequest")


@_attrs_define
class CancelDeliveryRequest:
    """`POST /v1/deliveries/{id}/cancel` body (optional).

    Attributes:
        reason (CancelReason | None | Unset):
    """

    reason: CancelReason | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        elif isinstance(self.reason, CancelReason):
            reason = self.reason.value
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_reason(data: object) -> CancelReason | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = CancelReason(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CancelReason | None | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        cancel_delivery_request = cls(
            reason=reason,
        )

        return cancel_delivery_request
