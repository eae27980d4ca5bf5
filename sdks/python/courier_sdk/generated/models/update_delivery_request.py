from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.time_window_input import TimeWindowInput
    from ..models.waypoint_change_input import WaypointChangeInput


T = TypeVar("T", bound="UpdateDeliveryRequest")


@_attrs_define
class UpdateDeliveryRequest:
    """`PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a delivery"):
    an absent member stays as it is; at least one is sent.

        Attributes:
            accept_amount_cents (int | Unset): The delivery's total after this change, in cents. A change that
                moves a position prices the delivery again: when the total changes,
                the change needs it here, else `409 price_changed` answers with the
                new total in the error's `amount_cents`. Checked whenever sent.
            dropoff (WaypointChangeInput | Unset): What a change sets on the pickup or the dropoff; an absent member stays
                as it is.
            dropoff_window (None | TimeWindowInput | Unset):
            notes (None | str | Unset): `null` (or `""`) removes the notes. Until the delivery is delivered
                or cancelled.
            pickup (WaypointChangeInput | Unset): What a change sets on the pickup or the dropoff; an absent member stays
                as it is.
            tip_cents (int | None | Unset): The tip as it is to be; `null` removes it. Any amount until the
                delivery is delivered, then only a higher one, until 7 days after;
                not on a cancelled delivery.
    """

    accept_amount_cents: int | Unset = UNSET
    dropoff: WaypointChangeInput | Unset = UNSET
    dropoff_window: None | TimeWindowInput | Unset = UNSET
    notes: None | str | Unset = UNSET
    pickup: WaypointChangeInput | Unset = UNSET
    tip_cents: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window_input import TimeWindowInput

        accept_amount_cents = self.accept_amount_cents

        dropoff: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dropoff, Unset):
            dropoff = self.dropoff.to_dict()

        dropoff_window: dict[str, Any] | None | Unset
        if isinstance(self.dropoff_window, Unset):
            dropoff_window = UNSET
        elif isinstance(self.dropoff_window, TimeWindowInput):
            dropoff_window = self.dropoff_window.to_dict()
        else:
            dropoff_window = self.dropoff_window

        notes: None | str | Unset
        if isinstance(self.notes, Unset):
            notes = UNSET
        else:
            notes = self.notes

        pickup: dict[str, Any] | Unset = UNSET
        if not isinstance(self.pickup, Unset):
            pickup = self.pickup.to_dict()

        tip_cents: int | None | Unset
        if isinstance(self.tip_cents, Unset):
            tip_cents = UNSET
        else:
            tip_cents = self.tip_cents

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if accept_amount_cents is not UNSET:
            field_dict["accept_amount_cents"] = accept_amount_cents
        if dropoff is not UNSET:
            field_dict["dropoff"] = dropoff
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if notes is not UNSET:
            field_dict["notes"] = notes
        if pickup is not UNSET:
            field_dict["pickup"] = pickup
        if tip_cents is not UNSET:
            field_dict["tip_cents"] = tip_cents

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.time_window_input import TimeWindowInput
        from ..models.waypoint_change_input import WaypointChangeInput

        d = dict(src_dict)
        accept_amount_cents = d.pop("accept_amount_cents", UNSET)

        _dropoff = d.pop("dropoff", UNSET)
        dropoff: WaypointChangeInput | Unset
        if isinstance(_dropoff, Unset):
            dropoff = UNSET
        else:
            dropoff = WaypointChangeInput.from_dict(_dropoff)

        def _parse_dropoff_window(data: object) -> None | TimeWindowInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_window_type_0 = TimeWindowInput.from_dict(data)

                return dropoff_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeWindowInput | Unset, data)

        dropoff_window = _parse_dropoff_window(d.pop("dropoff_window", UNSET))

        def _parse_notes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        notes = _parse_notes(d.pop("notes", UNSET))

        _pickup = d.pop("pickup", UNSET)
        pickup: WaypointChangeInput | Unset
        if isinstance(_pickup, Unset):
            pickup = UNSET
        else:
            pickup = WaypointChangeInput.from_dict(_pickup)

        def _parse_tip_cents(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tip_cents = _parse_tip_cents(d.pop("tip_cents", UNSET))

        update_delivery_request = cls(
            accept_amount_cents=accept_amount_cents,
            dropoff=dropoff,
            dropoff_window=dropoff_window,
            notes=notes,
            pickup=pickup,
            tip_cents=tip_cents,
        )

        return update_delivery_request
