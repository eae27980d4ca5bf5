from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PickupProofInput")


@_attrs_define
class PickupProofInput:
    """
    Attributes:
        barcode (bool | None | Unset):
        photos (int | None | Unset):
        sender_name (bool | None | Unset):
        signature (bool | None | Unset):
    """

    barcode: bool | None | Unset = UNSET
    photos: int | None | Unset = UNSET
    sender_name: bool | None | Unset = UNSET
    signature: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        barcode: bool | None | Unset
        if isinstance(self.barcode, Unset):
            barcode = UNSET
        else:
            barcode = self.barcode

        photos: int | None | Unset
        if isinstance(self.photos, Unset):
            photos = UNSET
        else:
            photos = self.photos

        sender_name: bool | None | Unset
        if isinstance(self.sender_name, Unset):
            sender_name = UNSET
        else:
            sender_name = self.sender_name

        signature: bool | None | Unset
        if isinstance(self.signature, Unset):
            signature = UNSET
        else:
            signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if barcode is not UNSET:
            field_dict["barcode"] = barcode
        if photos is not UNSET:
            field_dict["photos"] = photos
        if sender_name is not UNSET:
            field_dict["sender_name"] = sender_name
        if signature is not UNSET:
            field_dict["signature"] = signature

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_barcode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        barcode = _parse_barcode(d.pop("barcode", UNSET))

        def _parse_photos(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        photos = _parse_photos(d.pop("photos", UNSET))

        def _parse_sender_name(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        sender_name = _parse_sender_name(d.pop("sender_name", UNSET))

        def _parse_signature(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        signature = _parse_signature(d.pop("signature", UNSET))

        pickup_proof_input = cls(
            barcode=barcode,
            photos=photos,
            sender_name=sender_name,
            signature=signature,
        )

        return pickup_proof_input
