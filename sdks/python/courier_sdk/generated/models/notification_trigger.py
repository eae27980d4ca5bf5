from enum import StrEnum


class NotificationTrigger(StrEnum):
    ARRIVING = "arriving"
    COURIER_ASSIGNED = "courier_assigned"
    DELAYED = "delayed"
    DELIVERED = "delivered"
    FAILED = "failed"
    PICKED_UP = "picked_up"

    def __str__(self) -> str:
        return str(self.value)
