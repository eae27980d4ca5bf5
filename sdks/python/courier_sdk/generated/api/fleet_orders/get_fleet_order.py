from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fleet_order import FleetOrder
from ...models.get_fleet_order_response_400 import GetFleetOrderResponse400
from ...models.get_fleet_order_response_401 import GetFleetOrderResponse401
from ...models.get_fleet_order_response_403 import GetFleetOrderResponse403
from ...models.get_fleet_order_response_404 import GetFleetOrderResponse404
from ...models.get_fleet_order_response_408 import GetFleetOrderResponse408
from ...models.get_fleet_order_response_413 import GetFleetOrderResponse413
from ...models.get_fleet_order_response_429 import GetFleetOrderResponse429
from ...models.get_fleet_order_response_431 import GetFleetOrderResponse431
from ...models.get_fleet_order_response_500 import GetFleetOrderResponse500
from ...models.get_fleet_order_response_502 import GetFleetOrderResponse502
from ...models.get_fleet_order_response_503 import GetFleetOrderResponse503
from ...types import Response


def _get_kwargs(
    fleet_order_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/fleet/orders/{fleet_order_id}".format(
            fleet_order_id=quote(str(fleet_order_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FleetOrder.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetFleetOrderResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetFleetOrderResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetFleetOrderResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetFleetOrderResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetFleetOrderResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetFleetOrderResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = GetFleetOrderResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = GetFleetOrderResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetFleetOrderResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetFleetOrderResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetFleetOrderResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
]:
    """Retrieve a fleet order

    Args:
        fleet_order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetOrder | GetFleetOrderResponse400 | GetFleetOrderResponse401 | GetFleetOrderResponse403 | GetFleetOrderResponse404 | GetFleetOrderResponse408 | GetFleetOrderResponse413 | GetFleetOrderResponse429 | GetFleetOrderResponse431 | GetFleetOrderResponse500 | GetFleetOrderResponse502 | GetFleetOrderResponse503]
    """

    kwargs = _get_kwargs(
        fleet_order_id=fleet_order_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
    | None
):
    """Retrieve a fleet order

    Args:
        fleet_order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetOrder | GetFleetOrderResponse400 | GetFleetOrderResponse401 | GetFleetOrderResponse403 | GetFleetOrderResponse404 | GetFleetOrderResponse408 | GetFleetOrderResponse413 | GetFleetOrderResponse429 | GetFleetOrderResponse431 | GetFleetOrderResponse500 | GetFleetOrderResponse502 | GetFleetOrderResponse503
    """

    return sync_detailed(
        fleet_order_id=fleet_order_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
]:
    """Retrieve a fleet order

    Args:
        fleet_order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetOrder | GetFleetOrderResponse400 | GetFleetOrderResponse401 | GetFleetOrderResponse403 | GetFleetOrderResponse404 | GetFleetOrderResponse408 | GetFleetOrderResponse413 | GetFleetOrderResponse429 | GetFleetOrderResponse431 | GetFleetOrderResponse500 | GetFleetOrderResponse502 | GetFleetOrderResponse503]
    """

    kwargs = _get_kwargs(
        fleet_order_id=fleet_order_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    FleetOrder
    | GetFleetOrderResponse400
    | GetFleetOrderResponse401
    | GetFleetOrderResponse403
    | GetFleetOrderResponse404
    | GetFleetOrderResponse408
    | GetFleetOrderResponse413
    | GetFleetOrderResponse429
    | GetFleetOrderResponse431
    | GetFleetOrderResponse500
    | GetFleetOrderResponse502
    | GetFleetOrderResponse503
    | None
):
    """Retrieve a fleet order

    Args:
        fleet_order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetOrder | GetFleetOrderResponse400 | GetFleetOrderResponse401 | GetFleetOrderResponse403 | GetFleetOrderResponse404 | GetFleetOrderResponse408 | GetFleetOrderResponse413 | GetFleetOrderResponse429 | GetFleetOrderResponse431 | GetFleetOrderResponse500 | GetFleetOrderResponse502 | GetFleetOrderResponse503
    """

    return (
        await asyncio_detailed(
            fleet_order_id=fleet_order_id,
            client=client,
        )
    ).parsed
