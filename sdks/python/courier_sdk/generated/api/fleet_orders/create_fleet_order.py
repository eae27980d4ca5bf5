from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_fleet_order_request import CreateFleetOrderRequest
from ...models.create_fleet_order_response_400 import CreateFleetOrderResponse400
from ...models.create_fleet_order_response_401 import CreateFleetOrderResponse401
from ...models.create_fleet_order_response_403 import CreateFleetOrderResponse403
from ...models.create_fleet_order_response_408 import CreateFleetOrderResponse408
from ...models.create_fleet_order_response_409 import CreateFleetOrderResponse409
from ...models.create_fleet_order_response_413 import CreateFleetOrderResponse413
from ...models.create_fleet_order_response_429 import CreateFleetOrderResponse429
from ...models.create_fleet_order_response_431 import CreateFleetOrderResponse431
from ...models.create_fleet_order_response_500 import CreateFleetOrderResponse500
from ...models.create_fleet_order_response_502 import CreateFleetOrderResponse502
from ...models.create_fleet_order_response_503 import CreateFleetOrderResponse503
from ...models.fleet_order import FleetOrder
from ...types import Response


def _get_kwargs(
    *,
    body: CreateFleetOrderRequest,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/fleet/orders",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
    | None
):
    if response.status_code == 201:
        response_201 = FleetOrder.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = CreateFleetOrderResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateFleetOrderResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateFleetOrderResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = CreateFleetOrderResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = CreateFleetOrderResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateFleetOrderResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = CreateFleetOrderResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = CreateFleetOrderResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = CreateFleetOrderResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = CreateFleetOrderResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = CreateFleetOrderResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateFleetOrderRequest,
    idempotency_key: str,
) -> Response[
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
]:
    """Create a fleet order

     Puts an order of the fleet's own customer on its dispatch board. Fleet
    workspaces with order intake only, with a live key.

    Args:
        idempotency_key (str):
        body (CreateFleetOrderRequest): `POST /v1/fleet/orders` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateFleetOrderResponse400 | CreateFleetOrderResponse401 | CreateFleetOrderResponse403 | CreateFleetOrderResponse408 | CreateFleetOrderResponse409 | CreateFleetOrderResponse413 | CreateFleetOrderResponse429 | CreateFleetOrderResponse431 | CreateFleetOrderResponse500 | CreateFleetOrderResponse502 | CreateFleetOrderResponse503 | FleetOrder]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateFleetOrderRequest,
    idempotency_key: str,
) -> (
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
    | None
):
    """Create a fleet order

     Puts an order of the fleet's own customer on its dispatch board. Fleet
    workspaces with order intake only, with a live key.

    Args:
        idempotency_key (str):
        body (CreateFleetOrderRequest): `POST /v1/fleet/orders` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateFleetOrderResponse400 | CreateFleetOrderResponse401 | CreateFleetOrderResponse403 | CreateFleetOrderResponse408 | CreateFleetOrderResponse409 | CreateFleetOrderResponse413 | CreateFleetOrderResponse429 | CreateFleetOrderResponse431 | CreateFleetOrderResponse500 | CreateFleetOrderResponse502 | CreateFleetOrderResponse503 | FleetOrder
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateFleetOrderRequest,
    idempotency_key: str,
) -> Response[
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
]:
    """Create a fleet order

     Puts an order of the fleet's own customer on its dispatch board. Fleet
    workspaces with order intake only, with a live key.

    Args:
        idempotency_key (str):
        body (CreateFleetOrderRequest): `POST /v1/fleet/orders` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateFleetOrderResponse400 | CreateFleetOrderResponse401 | CreateFleetOrderResponse403 | CreateFleetOrderResponse408 | CreateFleetOrderResponse409 | CreateFleetOrderResponse413 | CreateFleetOrderResponse429 | CreateFleetOrderResponse431 | CreateFleetOrderResponse500 | CreateFleetOrderResponse502 | CreateFleetOrderResponse503 | FleetOrder]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateFleetOrderRequest,
    idempotency_key: str,
) -> (
    CreateFleetOrderResponse400
    | CreateFleetOrderResponse401
    | CreateFleetOrderResponse403
    | CreateFleetOrderResponse408
    | CreateFleetOrderResponse409
    | CreateFleetOrderResponse413
    | CreateFleetOrderResponse429
    | CreateFleetOrderResponse431
    | CreateFleetOrderResponse500
    | CreateFleetOrderResponse502
    | CreateFleetOrderResponse503
    | FleetOrder
    | None
):
    """Create a fleet order

     Puts an order of the fleet's own customer on its dispatch board. Fleet
    workspaces with order intake only, with a live key.

    Args:
        idempotency_key (str):
        body (CreateFleetOrderRequest): `POST /v1/fleet/orders` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateFleetOrderResponse400 | CreateFleetOrderResponse401 | CreateFleetOrderResponse403 | CreateFleetOrderResponse408 | CreateFleetOrderResponse409 | CreateFleetOrderResponse413 | CreateFleetOrderResponse429 | CreateFleetOrderResponse431 | CreateFleetOrderResponse500 | CreateFleetOrderResponse502 | CreateFleetOrderResponse503 | FleetOrder
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
