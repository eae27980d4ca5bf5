from enum import StrEnum


class Batching(StrEnum):
    ALLOWED = "allowed"
    NEVER = "never"

    def __str__(self) -> str:
        return str(self.value)
