from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dropoff_proof_requirements import DropoffProofRequirements
    from ..models.pickup_proof_requirements import PickupProofRequirements


T = TypeVar("T", bound="ProofOfDeliveryRequirements")


@_attrs_define
class ProofOfDeliveryRequirements:
    """
    Attributes:
        dropoff (DropoffProofRequirements | None):
        pickup (None | PickupProofRequirements):
    """

    dropoff: DropoffProofRequirements | None
    pickup: None | PickupProofRequirements
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.dropoff_proof_requirements import DropoffProofRequirements
        from ..models.pickup_proof_requirements import PickupProofRequirements

        dropoff: dict[str, Any] | None
        if isinstance(self.dropoff, DropoffProofRequirements):
            dropoff = self.dropoff.to_dict()
        else:
            dropoff = self.dropoff

        pickup: dict[str, Any] | None
        if isinstance(self.pickup, PickupProofRequirements):
            pickup = self.pickup.to_dict()
        else:
            pickup = self.pickup

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dropoff": dropoff,
                "pickup": pickup,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dropoff_proof_requirements import DropoffProofRequirements
        from ..models.pickup_proof_requirements import PickupProofRequirements

        d = dict(src_dict)

        def _parse_dropoff(data: object) -> DropoffProofRequirements | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dropoff_type_0 = DropoffProofRequirements.from_dict(data)

                return dropoff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DropoffProofRequirements | None, data)

        dropoff = _parse_dropoff(d.pop("dropoff"))

        def _parse_pickup(data: object) -> None | PickupProofRequirements:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pickup_type_0 = PickupProofRequirements.from_dict(data)

                return pickup_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PickupProofRequirements, data)

        pickup = _parse_pickup(d.pop("pickup"))

        proof_of_delivery_requirements = cls(
            dropoff=dropoff,
            pickup=pickup,
        )

        proof_of_delivery_requirements.additional_properties = d
        return proof_of_delivery_requirements

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
