from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.batch_delivery_item import BatchDeliveryItem


T = TypeVar("T", bound="BatchCreateDeliveriesRequest")


@_attrs_define
class BatchCreateDeliveriesRequest:
    """`POST /v1/deliveries/batch` body (docs/guide.md "Create in bulk").

    Attributes:
        deliveries (list[BatchDeliveryItem]): 1 to 100 deliveries, each created or refused on its own.
    """

    deliveries: list[BatchDeliveryItem]

    def to_dict(self) -> dict[str, Any]:
        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "deliveries": deliveries,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.batch_delivery_item import BatchDeliveryItem

        d = dict(src_dict)
        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in _deliveries:
            deliveries_item = BatchDeliveryItem.from_dict(deliveries_item_data)

            deliveries.append(deliveries_item)

        batch_create_deliveries_request = cls(
            deliveries=deliveries,
        )

        return batch_create_deliveries_request
