from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.artifact_kind import ArtifactKind

T = TypeVar("T", bound="ProofArtifact")


@_attrs_define
class ProofArtifact:
    """
    Attributes:
        content_type (None | str):
        download_url (None | str): Signed link, valid 15 minutes.
        file_name (None | str):
        kind (ArtifactKind): What a proof file shows; `unknown` for kinds added later.
    """

    content_type: None | str
    download_url: None | str
    file_name: None | str
    kind: ArtifactKind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type: None | str
        content_type = self.content_type

        download_url: None | str
        download_url = self.download_url

        file_name: None | str
        file_name = self.file_name

        kind = self.kind.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type": content_type,
                "download_url": download_url,
                "file_name": file_name,
                "kind": kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_content_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        content_type = _parse_content_type(d.pop("content_type"))

        def _parse_download_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        download_url = _parse_download_url(d.pop("download_url"))

        def _parse_file_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        file_name = _parse_file_name(d.pop("file_name"))

        kind = ArtifactKind(d.pop("kind"))

        proof_artifact = cls(
            content_type=content_type,
            download_url=download_url,
            file_name=file_name,
            kind=kind,
        )

        proof_artifact.additional_properties = d
        return proof_artifact

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
