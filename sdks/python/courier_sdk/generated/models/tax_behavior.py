from enum import StrEnum


class TaxBehavior(StrEnum):
    INCLUSIVE = "inclusive"

    def __str__(self) -> str:
        return str(self.value)
