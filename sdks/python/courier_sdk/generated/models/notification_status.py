from enum import StrEnum


class NotificationStatus(StrEnum):
    DELIVERED = "delivered"
    DROPPED = "dropped"
    FAILED = "failed"
    HELD = "held"
    OPTED_OUT = "opted_out"
    QUEUED = "queued"
    SENT = "sent"

    def __str__(self) -> str:
        return str(self.value)
