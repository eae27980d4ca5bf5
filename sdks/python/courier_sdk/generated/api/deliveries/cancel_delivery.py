from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cancel_delivery_request import CancelDeliveryRequest
from ...models.cancel_delivery_response_400 import CancelDeliveryResponse400
from ...models.cancel_delivery_response_401 import CancelDeliveryResponse401
from ...models.cancel_delivery_response_403 import CancelDeliveryResponse403
from ...models.cancel_delivery_response_404 import CancelDeliveryResponse404
from ...models.cancel_delivery_response_408 import CancelDeliveryResponse408
from ...models.cancel_delivery_response_409 import CancelDeliveryResponse409
from ...models.cancel_delivery_response_413 import CancelDeliveryResponse413
from ...models.cancel_delivery_response_429 import CancelDeliveryResponse429
from ...models.cancel_delivery_response_431 import CancelDeliveryResponse431
from ...models.cancel_delivery_response_500 import CancelDeliveryResponse500
from ...models.cancel_delivery_response_502 import CancelDeliveryResponse502
from ...models.cancel_delivery_response_503 import CancelDeliveryResponse503
from ...models.delivery import Delivery
from ...types import UNSET, Response, Unset


def _get_kwargs(
    delivery_id: str,
    *,
    body: CancelDeliveryRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deliveries/{delivery_id}/cancel".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
    | None
):
    if response.status_code == 200:
        response_200 = Delivery.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = CancelDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CancelDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CancelDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = CancelDeliveryResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = CancelDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = CancelDeliveryResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CancelDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = CancelDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = CancelDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = CancelDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = CancelDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = CancelDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
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
    body: CancelDeliveryRequest | Unset = UNSET,
) -> Response[
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
]:
    """Cancel a delivery

     Possible until the courier has picked up the goods. The body is optional.

    Args:
        delivery_id (str):
        body (CancelDeliveryRequest | Unset): `POST /v1/deliveries/{id}/cancel` body (optional).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelDeliveryResponse400 | CancelDeliveryResponse401 | CancelDeliveryResponse403 | CancelDeliveryResponse404 | CancelDeliveryResponse408 | CancelDeliveryResponse409 | CancelDeliveryResponse413 | CancelDeliveryResponse429 | CancelDeliveryResponse431 | CancelDeliveryResponse500 | CancelDeliveryResponse502 | CancelDeliveryResponse503 | Delivery]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: CancelDeliveryRequest | Unset = UNSET,
) -> (
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
    | None
):
    """Cancel a delivery

     Possible until the courier has picked up the goods. The body is optional.

    Args:
        delivery_id (str):
        body (CancelDeliveryRequest | Unset): `POST /v1/deliveries/{id}/cancel` body (optional).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelDeliveryResponse400 | CancelDeliveryResponse401 | CancelDeliveryResponse403 | CancelDeliveryResponse404 | CancelDeliveryResponse408 | CancelDeliveryResponse409 | CancelDeliveryResponse413 | CancelDeliveryResponse429 | CancelDeliveryResponse431 | CancelDeliveryResponse500 | CancelDeliveryResponse502 | CancelDeliveryResponse503 | Delivery
    """

    return sync_detailed(
        delivery_id=delivery_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: CancelDeliveryRequest | Unset = UNSET,
) -> Response[
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
]:
    """Cancel a delivery

     Possible until the courier has picked up the goods. The body is optional.

    Args:
        delivery_id (str):
        body (CancelDeliveryRequest | Unset): `POST /v1/deliveries/{id}/cancel` body (optional).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelDeliveryResponse400 | CancelDeliveryResponse401 | CancelDeliveryResponse403 | CancelDeliveryResponse404 | CancelDeliveryResponse408 | CancelDeliveryResponse409 | CancelDeliveryResponse413 | CancelDeliveryResponse429 | CancelDeliveryResponse431 | CancelDeliveryResponse500 | CancelDeliveryResponse502 | CancelDeliveryResponse503 | Delivery]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: CancelDeliveryRequest | Unset = UNSET,
) -> (
    CancelDeliveryResponse400
    | CancelDeliveryResponse401
    | CancelDeliveryResponse403
    | CancelDeliveryResponse404
    | CancelDeliveryResponse408
    | CancelDeliveryResponse409
    | CancelDeliveryResponse413
    | CancelDeliveryResponse429
    | CancelDeliveryResponse431
    | CancelDeliveryResponse500
    | CancelDeliveryResponse502
    | CancelDeliveryResponse503
    | Delivery
    | None
):
    """Cancel a delivery

     Possible until the courier has picked up the goods. The body is optional.

    Args:
        delivery_id (str):
        body (CancelDeliveryRequest | Unset): `POST /v1/deliveries/{id}/cancel` body (optional).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelDeliveryResponse400 | CancelDeliveryResponse401 | CancelDeliveryResponse403 | CancelDeliveryResponse404 | CancelDeliveryResponse408 | CancelDeliveryResponse409 | CancelDeliveryResponse413 | CancelDeliveryResponse429 | CancelDeliveryResponse431 | CancelDeliveryResponse500 | CancelDeliveryResponse502 | CancelDeliveryResponse503 | Delivery
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
            body=body,
        )
    ).parsed
