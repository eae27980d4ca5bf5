from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_delivery_request import CreateDeliveryRequest
from ...models.create_delivery_response_400 import CreateDeliveryResponse400
from ...models.create_delivery_response_401 import CreateDeliveryResponse401
from ...models.create_delivery_response_402 import CreateDeliveryResponse402
from ...models.create_delivery_response_403 import CreateDeliveryResponse403
from ...models.create_delivery_response_408 import CreateDeliveryResponse408
from ...models.create_delivery_response_409 import CreateDeliveryResponse409
from ...models.create_delivery_response_413 import CreateDeliveryResponse413
from ...models.create_delivery_response_429 import CreateDeliveryResponse429
from ...models.create_delivery_response_431 import CreateDeliveryResponse431
from ...models.create_delivery_response_500 import CreateDeliveryResponse500
from ...models.create_delivery_response_502 import CreateDeliveryResponse502
from ...models.create_delivery_response_503 import CreateDeliveryResponse503
from ...models.delivery import Delivery
from ...types import Response


def _get_kwargs(
    *,
    body: CreateDeliveryRequest,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deliveries",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
    | None
):
    if response.status_code == 201:
        response_201 = Delivery.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = CreateDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = CreateDeliveryResponse402.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = CreateDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = CreateDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = CreateDeliveryResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = CreateDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = CreateDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = CreateDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = CreateDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = CreateDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
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
    body: CreateDeliveryRequest,
    idempotency_key: str,
) -> Response[
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
]:
    """Create a delivery

     Books a delivery (status `pending`). A test key creates a simulated
    delivery that the courier simulator moves through its statuses. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        idempotency_key (str):
        body (CreateDeliveryRequest): `POST /v1/deliveries` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateDeliveryResponse400 | CreateDeliveryResponse401 | CreateDeliveryResponse402 | CreateDeliveryResponse403 | CreateDeliveryResponse408 | CreateDeliveryResponse409 | CreateDeliveryResponse413 | CreateDeliveryResponse429 | CreateDeliveryResponse431 | CreateDeliveryResponse500 | CreateDeliveryResponse502 | CreateDeliveryResponse503 | Delivery]
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
    body: CreateDeliveryRequest,
    idempotency_key: str,
) -> (
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
    | None
):
    """Create a delivery

     Books a delivery (status `pending`). A test key creates a simulated
    delivery that the courier simulator moves through its statuses. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        idempotency_key (str):
        body (CreateDeliveryRequest): `POST /v1/deliveries` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateDeliveryResponse400 | CreateDeliveryResponse401 | CreateDeliveryResponse402 | CreateDeliveryResponse403 | CreateDeliveryResponse408 | CreateDeliveryResponse409 | CreateDeliveryResponse413 | CreateDeliveryResponse429 | CreateDeliveryResponse431 | CreateDeliveryResponse500 | CreateDeliveryResponse502 | CreateDeliveryResponse503 | Delivery
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateDeliveryRequest,
    idempotency_key: str,
) -> Response[
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
]:
    """Create a delivery

     Books a delivery (status `pending`). A test key creates a simulated
    delivery that the courier simulator moves through its statuses. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        idempotency_key (str):
        body (CreateDeliveryRequest): `POST /v1/deliveries` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateDeliveryResponse400 | CreateDeliveryResponse401 | CreateDeliveryResponse402 | CreateDeliveryResponse403 | CreateDeliveryResponse408 | CreateDeliveryResponse409 | CreateDeliveryResponse413 | CreateDeliveryResponse429 | CreateDeliveryResponse431 | CreateDeliveryResponse500 | CreateDeliveryResponse502 | CreateDeliveryResponse503 | Delivery]
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
    body: CreateDeliveryRequest,
    idempotency_key: str,
) -> (
    CreateDeliveryResponse400
    | CreateDeliveryResponse401
    | CreateDeliveryResponse402
    | CreateDeliveryResponse403
    | CreateDeliveryResponse408
    | CreateDeliveryResponse409
    | CreateDeliveryResponse413
    | CreateDeliveryResponse429
    | CreateDeliveryResponse431
    | CreateDeliveryResponse500
    | CreateDeliveryResponse502
    | CreateDeliveryResponse503
    | Delivery
    | None
):
    """Create a delivery

     Books a delivery (status `pending`). A test key creates a simulated
    delivery that the courier simulator moves through its statuses. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        idempotency_key (str):
        body (CreateDeliveryRequest): `POST /v1/deliveries` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateDeliveryResponse400 | CreateDeliveryResponse401 | CreateDeliveryResponse402 | CreateDeliveryResponse403 | CreateDeliveryResponse408 | CreateDeliveryResponse409 | CreateDeliveryResponse413 | CreateDeliveryResponse429 | CreateDeliveryResponse431 | CreateDeliveryResponse500 | CreateDeliveryResponse502 | CreateDeliveryResponse503 | Delivery
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
