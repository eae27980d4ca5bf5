from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_delivery_check import BatchDeliveryCheck
    from ..models.delivery import Delivery
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="BatchDeliveryResult")


@_attrs_define
class BatchDeliveryResult:
    """One item's result: the delivery created (or replayed from its key), in
    a dry run what it would cost (`checked`), or the item's error, whose
    `param` starts with `deliveries.<index>`.

        Attributes:
            checked (BatchDeliveryCheck | None | Unset):
            delivery (Delivery | None | Unset):
            error (ErrorDetail | None | Unset):
    """

    checked: BatchDeliveryCheck | None | Unset = UNSET
    delivery: Delivery | None | Unset = UNSET
    error: ErrorDetail | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_delivery_check import BatchDeliveryCheck
        from ..models.delivery import Delivery
        from ..models.error_detail import ErrorDetail

        checked: dict[str, Any] | None | Unset
        if isinstance(self.checked, Unset):
            checked = UNSET
        elif isinstance(self.checked, BatchDeliveryCheck):
            checked = self.checked.to_dict()
        else:
            checked = self.checked

        delivery: dict[str, Any] | None | Unset
        if isinstance(self.delivery, Unset):
            delivery = UNSET
        elif isinstance(self.delivery, Delivery):
            delivery = self.delivery.to_dict()
        else:
            delivery = self.delivery

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if checked is not UNSET:
            field_dict["checked"] = checked
        if delivery is not UNSET:
            field_dict["delivery"] = delivery
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.batch_delivery_check import BatchDeliveryCheck
        from ..models.delivery import Delivery
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)

        def _parse_checked(data: object) -> BatchDeliveryCheck | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                checked_type_0 = BatchDeliveryCheck.from_dict(data)

                return checked_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchDeliveryCheck | None | Unset, data)

        checked = _parse_checked(d.pop("checked", UNSET))

        def _parse_delivery(data: object) -> Delivery | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delivery_type_0 = Delivery.from_dict(data)

                return delivery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Delivery | None | Unset, data)

        delivery = _parse_delivery(d.pop("delivery", UNSET))

        def _parse_error(data: object) -> ErrorDetail | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ErrorDetail.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetail | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        batch_delivery_result = cls(
            checked=checked,
            delivery=delivery,
            error=error,
        )

        batch_delivery_result.additional_properties = d
        return batch_delivery_result

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
