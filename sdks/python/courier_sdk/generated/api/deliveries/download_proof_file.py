from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.download_proof_file_response_400 import DownloadProofFileResponse400
from ...models.download_proof_file_response_401 import DownloadProofFileResponse401
from ...models.download_proof_file_response_404 import DownloadProofFileResponse404
from ...models.download_proof_file_response_408 import DownloadProofFileResponse408
from ...models.download_proof_file_response_413 import DownloadProofFileResponse413
from ...models.download_proof_file_response_431 import DownloadProofFileResponse431
from ...models.download_proof_file_response_500 import DownloadProofFileResponse500
from ...models.download_proof_file_response_502 import DownloadProofFileResponse502
from ...models.download_proof_file_response_503 import DownloadProofFileResponse503
from ...types import UNSET, Response


def _get_kwargs(
    artifact_id: str,
    *,
    expires: int,
    signature: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["expires"] = expires

    params["signature"] = signature

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/proof-files/{artifact_id}".format(
            artifact_id=quote(str(artifact_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
    | None
):
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = DownloadProofFileResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = DownloadProofFileResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = DownloadProofFileResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = DownloadProofFileResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = DownloadProofFileResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 431:
        response_431 = DownloadProofFileResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = DownloadProofFileResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = DownloadProofFileResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = DownloadProofFileResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    artifact_id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> Response[
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
]:
    """Download a proof file

     The target of a `download_url`: the file as an attachment. Needs no API
    key; the signed, 15-minute link is the capability. The core checks the
    signature and expiry; errors are in the public JSON shape.

    Args:
        artifact_id (str):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DownloadProofFileResponse400 | DownloadProofFileResponse401 | DownloadProofFileResponse404 | DownloadProofFileResponse408 | DownloadProofFileResponse413 | DownloadProofFileResponse431 | DownloadProofFileResponse500 | DownloadProofFileResponse502 | DownloadProofFileResponse503]
    """

    kwargs = _get_kwargs(
        artifact_id=artifact_id,
        expires=expires,
        signature=signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    artifact_id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> (
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
    | None
):
    """Download a proof file

     The target of a `download_url`: the file as an attachment. Needs no API
    key; the signed, 15-minute link is the capability. The core checks the
    signature and expiry; errors are in the public JSON shape.

    Args:
        artifact_id (str):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DownloadProofFileResponse400 | DownloadProofFileResponse401 | DownloadProofFileResponse404 | DownloadProofFileResponse408 | DownloadProofFileResponse413 | DownloadProofFileResponse431 | DownloadProofFileResponse500 | DownloadProofFileResponse502 | DownloadProofFileResponse503
    """

    return sync_detailed(
        artifact_id=artifact_id,
        client=client,
        expires=expires,
        signature=signature,
    ).parsed


async def asyncio_detailed(
    artifact_id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> Response[
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
]:
    """Download a proof file

     The target of a `download_url`: the file as an attachment. Needs no API
    key; the signed, 15-minute link is the capability. The core checks the
    signature and expiry; errors are in the public JSON shape.

    Args:
        artifact_id (str):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DownloadProofFileResponse400 | DownloadProofFileResponse401 | DownloadProofFileResponse404 | DownloadProofFileResponse408 | DownloadProofFileResponse413 | DownloadProofFileResponse431 | DownloadProofFileResponse500 | DownloadProofFileResponse502 | DownloadProofFileResponse503]
    """

    kwargs = _get_kwargs(
        artifact_id=artifact_id,
        expires=expires,
        signature=signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    artifact_id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> (
    Any
    | DownloadProofFileResponse400
    | DownloadProofFileResponse401
    | DownloadProofFileResponse404
    | DownloadProofFileResponse408
    | DownloadProofFileResponse413
    | DownloadProofFileResponse431
    | DownloadProofFileResponse500
    | DownloadProofFileResponse502
    | DownloadProofFileResponse503
    | None
):
    """Download a proof file

     The target of a `download_url`: the file as an attachment. Needs no API
    key; the signed, 15-minute link is the capability. The core checks the
    signature and expiry; errors are in the public JSON shape.

    Args:
        artifact_id (str):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DownloadProofFileResponse400 | DownloadProofFileResponse401 | DownloadProofFileResponse404 | DownloadProofFileResponse408 | DownloadProofFileResponse413 | DownloadProofFileResponse431 | DownloadProofFileResponse500 | DownloadProofFileResponse502 | DownloadProofFileResponse503
    """

    return (
        await asyncio_detailed(
            artifact_id=artifact_id,
            client=client,
            expires=expires,
            signature=signature,
        )
    ).parsed
