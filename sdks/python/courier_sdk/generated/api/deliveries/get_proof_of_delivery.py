from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_proof_of_delivery_response_400 import GetProofOfDeliveryResponse400
from ...models.get_proof_of_delivery_response_401 import GetProofOfDeliveryResponse401
from ...models.get_proof_of_delivery_response_403 import GetProofOfDeliveryResponse403
from ...models.get_proof_of_delivery_response_404 import GetProofOfDeliveryResponse404
from ...models.get_proof_of_delivery_response_408 import GetProofOfDeliveryResponse408
from ...models.get_proof_of_delivery_response_413 import GetProofOfDeliveryResponse413
from ...models.get_proof_of_delivery_response_429 import GetProofOfDeliveryResponse429
from ...models.get_proof_of_delivery_response_431 import GetProofOfDeliveryResponse431
from ...models.get_proof_of_delivery_response_500 import GetProofOfDeliveryResponse500
from ...models.get_proof_of_delivery_response_502 import GetProofOfDeliveryResponse502
from ...models.get_proof_of_delivery_response_503 import GetProofOfDeliveryResponse503
from ...models.proof_of_delivery import ProofOfDelivery
from ...types import Response


def _get_kwargs(
    delivery_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries/{delivery_id}/proof-of-delivery".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
    | None
):
    if response.status_code == 200:
        response_200 = ProofOfDelivery.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetProofOfDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetProofOfDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetProofOfDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetProofOfDeliveryResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetProofOfDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetProofOfDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = GetProofOfDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = GetProofOfDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetProofOfDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetProofOfDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetProofOfDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
]:
    """Get the proof of delivery

     The submitted checkpoints with their files. Every read issues fresh
    `download_url`s, each valid 15 minutes.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetProofOfDeliveryResponse400 | GetProofOfDeliveryResponse401 | GetProofOfDeliveryResponse403 | GetProofOfDeliveryResponse404 | GetProofOfDeliveryResponse408 | GetProofOfDeliveryResponse413 | GetProofOfDeliveryResponse429 | GetProofOfDeliveryResponse431 | GetProofOfDeliveryResponse500 | GetProofOfDeliveryResponse502 | GetProofOfDeliveryResponse503 | ProofOfDelivery]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
    | None
):
    """Get the proof of delivery

     The submitted checkpoints with their files. Every read issues fresh
    `download_url`s, each valid 15 minutes.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetProofOfDeliveryResponse400 | GetProofOfDeliveryResponse401 | GetProofOfDeliveryResponse403 | GetProofOfDeliveryResponse404 | GetProofOfDeliveryResponse408 | GetProofOfDeliveryResponse413 | GetProofOfDeliveryResponse429 | GetProofOfDeliveryResponse431 | GetProofOfDeliveryResponse500 | GetProofOfDeliveryResponse502 | GetProofOfDeliveryResponse503 | ProofOfDelivery
    """

    return sync_detailed(
        delivery_id=delivery_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
]:
    """Get the proof of delivery

     The submitted checkpoints with their files. Every read issues fresh
    `download_url`s, each valid 15 minutes.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetProofOfDeliveryResponse400 | GetProofOfDeliveryResponse401 | GetProofOfDeliveryResponse403 | GetProofOfDeliveryResponse404 | GetProofOfDeliveryResponse408 | GetProofOfDeliveryResponse413 | GetProofOfDeliveryResponse429 | GetProofOfDeliveryResponse431 | GetProofOfDeliveryResponse500 | GetProofOfDeliveryResponse502 | GetProofOfDeliveryResponse503 | ProofOfDelivery]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    GetProofOfDeliveryResponse400
    | GetProofOfDeliveryResponse401
    | GetProofOfDeliveryResponse403
    | GetProofOfDeliveryResponse404
    | GetProofOfDeliveryResponse408
    | GetProofOfDeliveryResponse413
    | GetProofOfDeliveryResponse429
    | GetProofOfDeliveryResponse431
    | GetProofOfDeliveryResponse500
    | GetProofOfDeliveryResponse502
    | GetProofOfDeliveryResponse503
    | ProofOfDelivery
    | None
):
    """Get the proof of delivery

     The submitted checkpoints with their files. Every read issues fresh
    `download_url`s, each valid 15 minutes.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetProofOfDeliveryResponse400 | GetProofOfDeliveryResponse401 | GetProofOfDeliveryResponse403 | GetProofOfDeliveryResponse404 | GetProofOfDeliveryResponse408 | GetProofOfDeliveryResponse413 | GetProofOfDeliveryResponse429 | GetProofOfDeliveryResponse431 | GetProofOfDeliveryResponse500 | GetProofOfDeliveryResponse502 | GetProofOfDeliveryResponse503 | ProofOfDelivery
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed
