from enum import StrEnum


class EventType(StrEnum):
    DELIVERY_CANCELLED = "delivery.cancelled"
    DELIVERY_COURIER_ARRIVED = "delivery.courier_arrived"
    DELIVERY_COURIER_ASSIGNED = "delivery.courier_assigned"
    DELIVERY_CREATED = "delivery.created"
    DELIVERY_DELAYED = "delivery.delayed"
    DELIVERY_DELIVERED = "delivery.delivered"
    DELIVERY_ETA_UPDATED = "delivery.eta_updated"
    DELIVERY_POD_SUBMITTED = "delivery.pod_submitted"
    DELIVERY_STATUS_UPDATED = "delivery.status_updated"
    DELIVERY_UPDATED = "delivery.updated"

    def __str__(self) -> str:
        return str(self.value)
