from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery import Delivery
from ...models.get_delivery_response_400 import GetDeliveryResponse400
from ...models.get_delivery_response_401 import GetDeliveryResponse401
from ...models.get_delivery_response_403 import GetDeliveryResponse403
from ...models.get_delivery_response_404 import GetDeliveryResponse404
from ...models.get_delivery_response_408 import GetDeliveryResponse408
from ...models.get_delivery_response_413 import GetDeliveryResponse413
from ...models.get_delivery_response_429 import GetDeliveryResponse429
from ...models.get_delivery_response_431 import GetDeliveryResponse431
from ...models.get_delivery_response_500 import GetDeliveryResponse500
from ...models.get_delivery_response_502 import GetDeliveryResponse502
from ...models.get_delivery_response_503 import GetDeliveryResponse503
from ...types import Response


def _get_kwargs(
    delivery_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries/{delivery_id}".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
    | None
):
    if response.status_code == 200:
        response_200 = Delivery.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetDeliveryResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = GetDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = GetDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
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
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
]:
    """Get a delivery

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | GetDeliveryResponse400 | GetDeliveryResponse401 | GetDeliveryResponse403 | GetDeliveryResponse404 | GetDeliveryResponse408 | GetDeliveryResponse413 | GetDeliveryResponse429 | GetDeliveryResponse431 | GetDeliveryResponse500 | GetDeliveryResponse502 | GetDeliveryResponse503]
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
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
    | None
):
    """Get a delivery

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | GetDeliveryResponse400 | GetDeliveryResponse401 | GetDeliveryResponse403 | GetDeliveryResponse404 | GetDeliveryResponse408 | GetDeliveryResponse413 | GetDeliveryResponse429 | GetDeliveryResponse431 | GetDeliveryResponse500 | GetDeliveryResponse502 | GetDeliveryResponse503
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
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
]:
    """Get a delivery

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | GetDeliveryResponse400 | GetDeliveryResponse401 | GetDeliveryResponse403 | GetDeliveryResponse404 | GetDeliveryResponse408 | GetDeliveryResponse413 | GetDeliveryResponse429 | GetDeliveryResponse431 | GetDeliveryResponse500 | GetDeliveryResponse502 | GetDeliveryResponse503]
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
    Delivery
    | GetDeliveryResponse400
    | GetDeliveryResponse401
    | GetDeliveryResponse403
    | GetDeliveryResponse404
    | GetDeliveryResponse408
    | GetDeliveryResponse413
    | GetDeliveryResponse429
    | GetDeliveryResponse431
    | GetDeliveryResponse500
    | GetDeliveryResponse502
    | GetDeliveryResponse503
    | None
):
    """Get a delivery

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | GetDeliveryResponse400 | GetDeliveryResponse401 | GetDeliveryResponse403 | GetDeliveryResponse404 | GetDeliveryResponse408 | GetDeliveryResponse413 | GetDeliveryResponse429 | GetDeliveryResponse431 | GetDeliveryResponse500 | GetDeliveryResponse502 | GetDeliveryResponse503
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed
