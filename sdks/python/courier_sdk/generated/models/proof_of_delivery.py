from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.proof_checkpoint import ProofCheckpoint


T = TypeVar("T", bound="ProofOfDelivery")


@_attrs_define
class ProofOfDelivery:
    """
    Attributes:
        checkpoints (list[ProofCheckpoint]):
        delivery_id (str):
    """

    checkpoints: list[ProofCheckpoint]
    delivery_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoints = []
        for checkpoints_item_data in self.checkpoints:
            checkpoints_item = checkpoints_item_data.to_dict()
            checkpoints.append(checkpoints_item)

        delivery_id = self.delivery_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoints": checkpoints,
                "delivery_id": delivery_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.proof_checkpoint import ProofCheckpoint

        d = dict(src_dict)
        checkpoints = []
        _checkpoints = d.pop("checkpoints")
        for checkpoints_item_data in _checkpoints:
            checkpoints_item = ProofCheckpoint.from_dict(checkpoints_item_data)

            checkpoints.append(checkpoints_item)

        delivery_id = d.pop("delivery_id")

        proof_of_delivery = cls(
            checkpoints=checkpoints,
            delivery_id=delivery_id,
        )

        proof_of_delivery.additional_properties = d
        return proof_of_delivery

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
