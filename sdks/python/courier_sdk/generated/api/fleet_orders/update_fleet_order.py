from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fleet_order import FleetOrder
from ...models.update_fleet_order_request import UpdateFleetOrderRequest
from ...models.update_fleet_order_response_400 import UpdateFleetOrderResponse400
from ...models.update_fleet_order_response_401 import UpdateFleetOrderResponse401
from ...models.update_fleet_order_response_403 import UpdateFleetOrderResponse403
from ...models.update_fleet_order_response_404 import UpdateFleetOrderResponse404
from ...models.update_fleet_order_response_408 import UpdateFleetOrderResponse408
from ...models.update_fleet_order_response_409 import UpdateFleetOrderResponse409
from ...models.update_fleet_order_response_412 import UpdateFleetOrderResponse412
from ...models.update_fleet_order_response_413 import UpdateFleetOrderResponse413
from ...models.update_fleet_order_response_429 import UpdateFleetOrderResponse429
from ...models.update_fleet_order_response_431 import UpdateFleetOrderResponse431
from ...models.update_fleet_order_response_500 import UpdateFleetOrderResponse500
from ...models.update_fleet_order_response_502 import UpdateFleetOrderResponse502
from ...models.update_fleet_order_response_503 import UpdateFleetOrderResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    fleet_order_id: str,
    *,
    body: UpdateFleetOrderRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/fleet/orders/{fleet_order_id}".format(
            fleet_order_id=quote(str(fleet_order_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FleetOrder.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = UpdateFleetOrderResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UpdateFleetOrderResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateFleetOrderResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateFleetOrderResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = UpdateFleetOrderResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = UpdateFleetOrderResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 412:
        response_412 = UpdateFleetOrderResponse412.from_dict(response.json())

        return response_412

    if response.status_code == 413:
        response_413 = UpdateFleetOrderResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = UpdateFleetOrderResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = UpdateFleetOrderResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = UpdateFleetOrderResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = UpdateFleetOrderResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = UpdateFleetOrderResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
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
    body: UpdateFleetOrderRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> Response[
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
]:
    """Change a fleet order

     Sets the notes, the reference, the customer, the pickup's and dropoff's
    contact, instructions, address and position (the pickup's until a
    driver is assigned, the dropoff's until the driver is there), and the
    dropoff window (until the goods are picked up); absent members stay as
    they are. Nothing is priced. The driver holding the order gets it as it
    now is. A retry with the same `Idempotency-Key` and body replays the
    first answer.

    Args:
        fleet_order_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateFleetOrderRequest): `PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change
            a fleet
            order"): an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetOrder | UpdateFleetOrderResponse400 | UpdateFleetOrderResponse401 | UpdateFleetOrderResponse403 | UpdateFleetOrderResponse404 | UpdateFleetOrderResponse408 | UpdateFleetOrderResponse409 | UpdateFleetOrderResponse412 | UpdateFleetOrderResponse413 | UpdateFleetOrderResponse429 | UpdateFleetOrderResponse431 | UpdateFleetOrderResponse500 | UpdateFleetOrderResponse502 | UpdateFleetOrderResponse503]
    """

    kwargs = _get_kwargs(
        fleet_order_id=fleet_order_id,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateFleetOrderRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> (
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
    | None
):
    """Change a fleet order

     Sets the notes, the reference, the customer, the pickup's and dropoff's
    contact, instructions, address and position (the pickup's until a
    driver is assigned, the dropoff's until the driver is there), and the
    dropoff window (until the goods are picked up); absent members stay as
    they are. Nothing is priced. The driver holding the order gets it as it
    now is. A retry with the same `Idempotency-Key` and body replays the
    first answer.

    Args:
        fleet_order_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateFleetOrderRequest): `PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change
            a fleet
            order"): an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetOrder | UpdateFleetOrderResponse400 | UpdateFleetOrderResponse401 | UpdateFleetOrderResponse403 | UpdateFleetOrderResponse404 | UpdateFleetOrderResponse408 | UpdateFleetOrderResponse409 | UpdateFleetOrderResponse412 | UpdateFleetOrderResponse413 | UpdateFleetOrderResponse429 | UpdateFleetOrderResponse431 | UpdateFleetOrderResponse500 | UpdateFleetOrderResponse502 | UpdateFleetOrderResponse503
    """

    return sync_detailed(
        fleet_order_id=fleet_order_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateFleetOrderRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> Response[
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
]:
    """Change a fleet order

     Sets the notes, the reference, the customer, the pickup's and dropoff's
    contact, instructions, address and position (the pickup's until a
    driver is assigned, the dropoff's until the driver is there), and the
    dropoff window (until the goods are picked up); absent members stay as
    they are. Nothing is priced. The driver holding the order gets it as it
    now is. A retry with the same `Idempotency-Key` and body replays the
    first answer.

    Args:
        fleet_order_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateFleetOrderRequest): `PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change
            a fleet
            order"): an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetOrder | UpdateFleetOrderResponse400 | UpdateFleetOrderResponse401 | UpdateFleetOrderResponse403 | UpdateFleetOrderResponse404 | UpdateFleetOrderResponse408 | UpdateFleetOrderResponse409 | UpdateFleetOrderResponse412 | UpdateFleetOrderResponse413 | UpdateFleetOrderResponse429 | UpdateFleetOrderResponse431 | UpdateFleetOrderResponse500 | UpdateFleetOrderResponse502 | UpdateFleetOrderResponse503]
    """

    kwargs = _get_kwargs(
        fleet_order_id=fleet_order_id,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    fleet_order_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateFleetOrderRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> (
    FleetOrder
    | UpdateFleetOrderResponse400
    | UpdateFleetOrderResponse401
    | UpdateFleetOrderResponse403
    | UpdateFleetOrderResponse404
    | UpdateFleetOrderResponse408
    | UpdateFleetOrderResponse409
    | UpdateFleetOrderResponse412
    | UpdateFleetOrderResponse413
    | UpdateFleetOrderResponse429
    | UpdateFleetOrderResponse431
    | UpdateFleetOrderResponse500
    | UpdateFleetOrderResponse502
    | UpdateFleetOrderResponse503
    | None
):
    """Change a fleet order

     Sets the notes, the reference, the customer, the pickup's and dropoff's
    contact, instructions, address and position (the pickup's until a
    driver is assigned, the dropoff's until the driver is there), and the
    dropoff window (until the goods are picked up); absent members stay as
    they are. Nothing is priced. The driver holding the order gets it as it
    now is. A retry with the same `Idempotency-Key` and body replays the
    first answer.

    Args:
        fleet_order_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateFleetOrderRequest): `PATCH /v1/fleet/orders/{id}` body (docs/guide.md "Change
            a fleet
            order"): an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetOrder | UpdateFleetOrderResponse400 | UpdateFleetOrderResponse401 | UpdateFleetOrderResponse403 | UpdateFleetOrderResponse404 | UpdateFleetOrderResponse408 | UpdateFleetOrderResponse409 | UpdateFleetOrderResponse412 | UpdateFleetOrderResponse413 | UpdateFleetOrderResponse429 | UpdateFleetOrderResponse431 | UpdateFleetOrderResponse500 | UpdateFleetOrderResponse502 | UpdateFleetOrderResponse503
    """

    return (
        await asyncio_detailed(
            fleet_order_id=fleet_order_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            if_match=if_match,
        )
    ).parsed
