from enum import StrEnum


class PromiseState(StrEnum):
    AT_RISK = "at_risk"
    LATE = "late"

    def __str__(self) -> str:
        return str(self.value)
