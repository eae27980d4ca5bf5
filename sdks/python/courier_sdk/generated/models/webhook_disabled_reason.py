from enum import StrEnum


class WebhookDisabledReason(StrEnum):
    FAILING = "failing"
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
