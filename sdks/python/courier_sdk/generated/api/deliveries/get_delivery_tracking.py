from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_tracking import DeliveryTracking
from ...models.get_delivery_tracking_response_400 import GetDeliveryTrackingResponse400
from ...models.get_delivery_tracking_response_401 import GetDeliveryTrackingResponse401
from ...models.get_delivery_tracking_response_403 import GetDeliveryTrackingResponse403
from ...models.get_delivery_tracking_response_404 import GetDeliveryTrackingResponse404
from ...models.get_delivery_tracking_response_408 import GetDeliveryTrackingResponse408
from ...models.get_delivery_tracking_response_413 import GetDeliveryTrackingResponse413
from ...models.get_delivery_tracking_response_429 import GetDeliveryTrackingResponse429
from ...models.get_delivery_tracking_response_431 import GetDeliveryTrackingResponse431
from ...models.get_delivery_tracking_response_500 import GetDeliveryTrackingResponse500
from ...models.get_delivery_tracking_response_502 import GetDeliveryTrackingResponse502
from ...models.get_delivery_tracking_response_503 import GetDeliveryTrackingResponse503
from ...types import Response


def _get_kwargs(
    delivery_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries/{delivery_id}/tracking".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
    | None
):
    if response.status_code == 200:
        response_200 = DeliveryTracking.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetDeliveryTrackingResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetDeliveryTrackingResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetDeliveryTrackingResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetDeliveryTrackingResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetDeliveryTrackingResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetDeliveryTrackingResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = GetDeliveryTrackingResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = GetDeliveryTrackingResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetDeliveryTrackingResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetDeliveryTrackingResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetDeliveryTrackingResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
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
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
]:
    """Track a delivery

     The authoritative source of `tracking_available_at` and of the courier's
    location, which is filled once tracking is open.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryTracking | GetDeliveryTrackingResponse400 | GetDeliveryTrackingResponse401 | GetDeliveryTrackingResponse403 | GetDeliveryTrackingResponse404 | GetDeliveryTrackingResponse408 | GetDeliveryTrackingResponse413 | GetDeliveryTrackingResponse429 | GetDeliveryTrackingResponse431 | GetDeliveryTrackingResponse500 | GetDeliveryTrackingResponse502 | GetDeliveryTrackingResponse503]
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
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
    | None
):
    """Track a delivery

     The authoritative source of `tracking_available_at` and of the courier's
    location, which is filled once tracking is open.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryTracking | GetDeliveryTrackingResponse400 | GetDeliveryTrackingResponse401 | GetDeliveryTrackingResponse403 | GetDeliveryTrackingResponse404 | GetDeliveryTrackingResponse408 | GetDeliveryTrackingResponse413 | GetDeliveryTrackingResponse429 | GetDeliveryTrackingResponse431 | GetDeliveryTrackingResponse500 | GetDeliveryTrackingResponse502 | GetDeliveryTrackingResponse503
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
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
]:
    """Track a delivery

     The authoritative source of `tracking_available_at` and of the courier's
    location, which is filled once tracking is open.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryTracking | GetDeliveryTrackingResponse400 | GetDeliveryTrackingResponse401 | GetDeliveryTrackingResponse403 | GetDeliveryTrackingResponse404 | GetDeliveryTrackingResponse408 | GetDeliveryTrackingResponse413 | GetDeliveryTrackingResponse429 | GetDeliveryTrackingResponse431 | GetDeliveryTrackingResponse500 | GetDeliveryTrackingResponse502 | GetDeliveryTrackingResponse503]
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
    DeliveryTracking
    | GetDeliveryTrackingResponse400
    | GetDeliveryTrackingResponse401
    | GetDeliveryTrackingResponse403
    | GetDeliveryTrackingResponse404
    | GetDeliveryTrackingResponse408
    | GetDeliveryTrackingResponse413
    | GetDeliveryTrackingResponse429
    | GetDeliveryTrackingResponse431
    | GetDeliveryTrackingResponse500
    | GetDeliveryTrackingResponse502
    | GetDeliveryTrackingResponse503
    | None
):
    """Track a delivery

     The authoritative source of `tracking_available_at` and of the courier's
    location, which is filled once tracking is open.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryTracking | GetDeliveryTrackingResponse400 | GetDeliveryTrackingResponse401 | GetDeliveryTrackingResponse403 | GetDeliveryTrackingResponse404 | GetDeliveryTrackingResponse408 | GetDeliveryTrackingResponse413 | GetDeliveryTrackingResponse429 | GetDeliveryTrackingResponse431 | GetDeliveryTrackingResponse500 | GetDeliveryTrackingResponse502 | GetDeliveryTrackingResponse503
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed
