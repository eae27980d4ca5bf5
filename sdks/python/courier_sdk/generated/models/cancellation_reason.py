from enum import StrEnum


class CancellationReason(StrEnum):
    CANCELLED_BY_MAXMOVE = "cancelled_by_maxmove"
    CANCELLED_BY_YOU = "cancelled_by_you"
    NO_COURIER_FOUND = "no_courier_found"
    PICKUP_NO_SHOW = "pickup_no_show"

    def __str__(self) -> str:
        return str(self.value)
