from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_input import ContactInput
    from ..models.time_window_input import TimeWindowInput
    from ..models.waypoint_change_input import WaypointChangeInput


T = TypeVar("T", bound="UpdateFleetOrderRequest")


@_attrs_define
class UpdateFleetOrderRequest:
    """`PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change a fleet
    order"): an absent member stays as it is; at least one is sent.

        Attributes:
            customer (ContactInput | Unset):
            dropoff (WaypointChangeInput | Unset): What a change sets on the pickup or the dropoff; an absent member stays
                as it is.
            dropoff_window (None | TimeWindowInput | Unset):
            notes (None | str | Unset): `null` (or `""`) removes the notes. Until the order ends.
            pickup (WaypointChangeInput | Unset): What a change sets on the pickup or the dropoff; an absent member stays
                as it is.
            reference (None | str | Unset): The customer's order reference; `null` (or `""`) removes it. Until
                the order ends.
    """

    customer: ContactInput | Unset = UNSET
    dropoff: WaypointChangeInput | Unset = UNSET
    dropoff_window: None | TimeWindowInput | Unset = UNSET
    notes: None | str | Unset = UNSET
    pickup: WaypointChangeInput | Unset = UNSET
    reference: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_window_input import TimeWindowInput

        customer: dict[str, Any] | Unset = UNSET
        if not isinstance(self.customer, Unset):
            customer = self.customer.to_dict()

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

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if customer is not UNSET:
            field_dict["customer"] = customer
        if dropoff is not UNSET:
            field_dict["dropoff"] = dropoff
        if dropoff_window is not UNSET:
            field_dict["dropoff_window"] = dropoff_window
        if notes is not UNSET:
            field_dict["notes"] = notes
        if pickup is not UNSET:
            field_dict["pickup"] = pickup
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contact_input import ContactInput
        from ..models.time_window_input import TimeWindowInput
        from ..models.waypoint_change_input import WaypointChangeInput

        d = dict(src_dict)
        _customer = d.pop("customer", UNSET)
        customer: ContactInput | Unset
        if isinstance(_customer, Unset):
            customer = UNSET
        else:
            customer = ContactInput.from_dict(_customer)

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

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        update_fleet_order_request = cls(
            customer=customer,
            dropoff=dropoff,
            dropoff_window=dropoff_window,
            notes=notes,
            pickup=pickup,
            reference=reference,
        )

        return update_fleet_order_request
