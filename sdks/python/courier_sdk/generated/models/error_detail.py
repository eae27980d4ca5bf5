from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorDetail")


@_attrs_define
class ErrorDetail:
    """
    Attributes:
        code (str): Stable machine-readable code (see `/v1/docs/errors`); the known codes are its `examples`. New codes
            can appear within v1: handle an unknown code by the HTTP status.
        doc_url (str): The code's documentation.
        message (str): Human text; its wording may change.
        amount_cents (int | None | Unset): `price_changed` only: the delivery's new total, to send back as
            `accept_amount_cents`.
        param (None | str | Unset): The request field concerned as a dot path (`stops.2.latitude`), or the header.
    """

    code: str
    doc_url: str
    message: str
    amount_cents: int | None | Unset = UNSET
    param: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        doc_url = self.doc_url

        message = self.message

        amount_cents: int | None | Unset
        if isinstance(self.amount_cents, Unset):
            amount_cents = UNSET
        else:
            amount_cents = self.amount_cents

        param: None | str | Unset
        if isinstance(self.param, Unset):
            param = UNSET
        else:
            param = self.param

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "doc_url": doc_url,
                "message": message,
            }
        )
        if amount_cents is not UNSET:
            field_dict["amount_cents"] = amount_cents
        if param is not UNSET:
            field_dict["param"] = param

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = d.pop("code")

        doc_url = d.pop("doc_url")

        message = d.pop("message")

        def _parse_amount_cents(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        amount_cents = _parse_amount_cents(d.pop("amount_cents", UNSET))

        def _parse_param(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        param = _parse_param(d.pop("param", UNSET))

        error_detail = cls(
            code=code,
            doc_url=doc_url,
            message=message,
            amount_cents=amount_cents,
            param=param,
        )

        error_detail.additional_properties = d
        return error_detail

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
