from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dropoff_proof_input import DropoffProofInput
    from ..models.pickup_proof_input import PickupProofInput


T = TypeVar("T", bound="ProofOfDeliveryInput")


@_attrs_define
class ProofOfDeliveryInput:
    """
    Attributes:
        dropoff (DropoffProofInput | None | Unset):
        pickup (None | PickupProofInput | Unset):
    """

    dropoff: DropoffProofInput | None | Unset = UNSET
    pickup: None | PickupProofInput | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.dropoff_proof_input import DropoffProofInput
        from ..models.pickup_proof_input import PickupProofInput

        dropoff: dict[str, Any] | None | Unset
        if isinstance(self.dropoff, Unset):
            dropoff = UNSET
        elif isinstance(self.dropoff, DropoffProofInput):
            dropoff = self.dropoff.to_dict()
        else:
            dropoff = self.dropoff

        pickup: dict[str, Any] | None | Unset
        if isinstance(self.pickup, Unset):
            pickup = UNSET
        elif isinstance(self.pickup, PickupProofInput):
            pickup = self.pickup.to_dict()
        else:
            pickup = self.pickup

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if dropoff is not UNSET:
            field_dict["dropoff"] = dropoff
        if pickup is not UNSET:
            field_dict["pickup"] = pickup

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dropoff_proof_input import DropoffProofInput
        from ..models.pickup_proof_input import PickupProofInput

        d = dict(src_dict)

        def _parse_dropoff(data: object) -> DropoffProofInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_type_0 = DropoffProofInput.from_dict(data)

                return dropoff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DropoffProofInput | None | Unset, data)

        dropoff = _parse_dropoff(d.pop("dropoff", UNSET))

        def _parse_pickup(data: object) -> None | PickupProofInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_type_0 = PickupProofInput.from_dict(data)

                return pickup_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PickupProofInput | Unset, data)

        pickup = _parse_pickup(d.pop("pickup", UNSET))

        proof_of_delivery_input = cls(
            dropoff=dropoff,
            pickup=pickup,
        )

        return proof_of_delivery_input
