from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_kind import CheckpointKind

if TYPE_CHECKING:
    from ..models.proof_artifact import ProofArtifact


T = TypeVar("T", bound="ProofCheckpoint")


@_attrs_define
class ProofCheckpoint:
    """
    Attributes:
        artifacts (list[ProofArtifact]):
        kind (CheckpointKind): Where the proof was taken; `unknown` for kinds added later.
        recipient_name (None | str):
        submitted_at (datetime.datetime | None):
    """

    artifacts: list[ProofArtifact]
    kind: CheckpointKind
    recipient_name: None | str
    submitted_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        artifacts = []
        for artifacts_item_data in self.artifacts:
            artifacts_item = artifacts_item_data.to_dict()
            artifacts.append(artifacts_item)

        kind = self.kind.value

        recipient_name: None | str
        recipient_name = self.recipient_name

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "artifacts": artifacts,
                "kind": kind,
                "recipient_name": recipient_name,
                "submitted_at": submitted_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.proof_artifact import ProofArtifact

        d = dict(src_dict)
        artifacts = []
        _artifacts = d.pop("artifacts")
        for artifacts_item_data in _artifacts:
            artifacts_item = ProofArtifact.from_dict(artifacts_item_data)

            artifacts.append(artifacts_item)

        kind = CheckpointKind(d.pop("kind"))

        def _parse_recipient_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        recipient_name = _parse_recipient_name(d.pop("recipient_name"))

        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)

                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submitted_at"))

        proof_checkpoint = cls(
            artifacts=artifacts,
            kind=kind,
            recipient_name=recipient_name,
            submitted_at=submitted_at,
        )

        proof_checkpoint.additional_properties = d
        return proof_checkpoint

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
