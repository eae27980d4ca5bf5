from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DropoffProofInput")


@_attrs_define
class DropoffProofInput:
    """
    Attributes:
        age_check (bool | None | Unset):
        barcode (bool | None | Unset):
        leave_at_door (bool | None | Unset):
        photos (int | None | Unset):
        pin (bool | None | Unset): A 4-digit `dropoff_pin` the recipient tells the courier, who enters
            it to hand over; not with `leave_at_door`.
        recipient_name (bool | None | Unset):
        signature (bool | None | Unset):
    """

    age_check: bool | None | Unset = UNSET
    barcode: bool | None | Unset = UNSET
    leave_at_door: bool | None | Unset = UNSET
    photos: int | None | Unset = UNSET
    pin: bool | None | Unset = UNSET
    recipient_name: bool | None | Unset = UNSET
    signature: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        age_check: bool | None | Unset
        if isinstance(self.age_check, Unset):
            age_check = UNSET
        else:
            age_check = self.age_check

        barcode: bool | None | Unset
        if isinstance(self.barcode, Unset):
            barcode = UNSET
        else:
            barcode = self.barcode

        leave_at_door: bool | None | Unset
        if isinstance(self.leave_at_door, Unset):
            leave_at_door = UNSET
        else:
            leave_at_door = self.leave_at_door

        photos: int | None | Unset
        if isinstance(self.photos, Unset):
            photos = UNSET
        else:
            photos = self.photos

        pin: bool | None | Unset
        if isinstance(self.pin, Unset):
            pin = UNSET
        else:
            pin = self.pin

        recipient_name: bool | None | Unset
        if isinstance(self.recipient_name, Unset):
            recipient_name = UNSET
        else:
            recipient_name = self.recipient_name

        signature: bool | None | Unset
        if isinstance(self.signature, Unset):
            signature = UNSET
        else:
            signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if age_check is not UNSET:
            field_dict["age_check"] = age_check
        if barcode is not UNSET:
            field_dict["barcode"] = barcode
        if leave_at_door is not UNSET:
            field_dict["leave_at_door"] = leave_at_door
        if photos is not UNSET:
            field_dict["photos"] = photos
        if pin is not UNSET:
            field_dict["pin"] = pin
        if recipient_name is not UNSET:
            field_dict["recipient_name"] = recipient_name
        if signature is not UNSET:
            field_dict["signature"] = signature

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_age_check(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        age_check = _parse_age_check(d.pop("age_check", UNSET))

        def _parse_barcode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        barcode = _parse_barcode(d.pop("barcode", UNSET))

        def _parse_leave_at_door(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        leave_at_door = _parse_leave_at_door(d.pop("leave_at_door", UNSET))

        def _parse_photos(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        photos = _parse_photos(d.pop("photos", UNSET))

        def _parse_pin(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        pin = _parse_pin(d.pop("pin", UNSET))

        def _parse_recipient_name(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        recipient_name = _parse_recipient_name(d.pop("recipient_name", UNSET))

        def _parse_signature(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        signature = _parse_signature(d.pop("signature", UNSET))

        dropoff_proof_input = cls(
            age_check=age_check,
            barcode=barcode,
            leave_at_door=leave_at_door,
            photos=photos,
            pin=pin,
            recipient_name=recipient_name,
            signature=signature,
        )

        return dropoff_proof_input
