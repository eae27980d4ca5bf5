from enum import StrEnum


class CancelReason(StrEnum):
    BOOKED_BY_MISTAKE = "booked_by_mistake"
    CHANGE_DETAILS = "change_details"
    FOUND_ANOTHER_SERVICE = "found_another_service"
    NO_LONGER_NEEDED = "no_longer_needed"
    OTHER = "other"
    WAITED_TOO_LONG = "waited_too_long"

    def __str__(self) -> str:
        return str(self.value)
