from enum import StrEnum


class DeliveryStatus(StrEnum):
    AT_DROPOFF = "at_dropoff"
    AT_PICKUP = "at_pickup"
    CANCELLED = "cancelled"
    COURIER_ASSIGNED = "courier_assigned"
    DELIVERED = "delivered"
    IN_TRANSIT = "in_transit"
    PENDING = "pending"
    PICKED_UP = "picked_up"

    def __str__(self) -> str:
        return str(self.value)
