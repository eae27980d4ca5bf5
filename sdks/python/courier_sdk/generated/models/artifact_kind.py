from enum import StrEnum


class ArtifactKind(StrEnum):
    DOCUMENT = "document"
    PHOTO = "photo"
    SIGNATURE = "signature"
    SIGNED_DELIVERY_NOTE = "signed_delivery_note"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
