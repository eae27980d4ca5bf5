from enum import StrEnum


class NotificationAudience(StrEnum):
    RECIPIENT = "recipient"
    SENDER = "sender"

    def __str__(self) -> str:
        return str(self.value)
