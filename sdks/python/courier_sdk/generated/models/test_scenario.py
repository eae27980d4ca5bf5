from enum import StrEnum


class TestScenario(StrEnum):
    COURIER_CANCELLED = "courier_cancelled"
    DELAYED = "delayed"
    DELIVERY_FAILED = "delivery_failed"
    NO_COURIER_FOUND = "no_courier_found"
    PICKUP_NO_SHOW = "pickup_no_show"
    RETURNED = "returned"

    def __str__(self) -> str:
        return str(self.value)
