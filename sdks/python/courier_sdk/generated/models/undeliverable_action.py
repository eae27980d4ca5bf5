from enum import StrEnum


class UndeliverableAction(StrEnum):
    DISPOSE = "dispose"
    RETURN_TO_PICKUP = "return_to_pickup"

    def __str__(self) -> str:
        return str(self.value)
