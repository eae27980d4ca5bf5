from enum import StrEnum


class CheckpointKind(StrEnum):
    DROPOFF = "dropoff"
    PICKUP = "pickup"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
