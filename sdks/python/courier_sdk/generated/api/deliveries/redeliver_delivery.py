from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery import Delivery
from ...models.redeliver_delivery_request import RedeliverDeliveryRequest
from ...models.redeliver_delivery_response_400 import RedeliverDeliveryResponse400
from ...models.redeliver_delivery_response_401 import RedeliverDeliveryResponse401
from ...models.redeliver_delivery_response_402 import RedeliverDeliveryResponse402
from ...models.redeliver_delivery_response_403 import RedeliverDeliveryResponse403
from ...models.redeliver_delivery_response_404 import RedeliverDeliveryResponse404
from ...models.redeliver_delivery_response_408 import RedeliverDeliveryResponse408
from ...models.redeliver_delivery_response_409 import RedeliverDeliveryResponse409
from ...models.redeliver_delivery_response_413 import RedeliverDeliveryResponse413
from ...models.redeliver_delivery_response_429 import RedeliverDeliveryResponse429
from ...models.redeliver_delivery_response_431 import RedeliverDeliveryResponse431
from ...models.redeliver_delivery_response_500 import RedeliverDeliveryResponse500
from ...models.redeliver_delivery_response_502 import RedeliverDeliveryResponse502
from ...models.redeliver_delivery_response_503 import RedeliverDeliveryResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    delivery_id: str,
    *,
    body: RedeliverDeliveryRequest | Unset = UNSET,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deliveries/{delivery_id}/redeliver".format(
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
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
    | None
):
    if response.status_code == 201:
        response_201 = Delivery.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = RedeliverDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RedeliverDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = RedeliverDeliveryResponse402.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = RedeliverDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = RedeliverDeliveryResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = RedeliverDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = RedeliverDeliveryResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = RedeliverDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = RedeliverDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = RedeliverDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = RedeliverDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = RedeliverDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = RedeliverDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
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
    body: RedeliverDeliveryRequest | Unset = UNSET,
    idempotency_key: str,
) -> Response[
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
]:
    """Deliver again

     Books a cancelled delivery again as a new delivery (status `pending`):
    the same places, contacts, instructions, goods, vehicle, extras, proof,
    notes, batching and notifications, priced afresh. Times are not copied:
    the body may give new ones, else the new delivery is immediate. The
    body is optional. A retry with the same `Idempotency-Key` and body
    replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        body (RedeliverDeliveryRequest | Unset): `POST /v1/deliveries/{id}/redeliver` body
            (optional; docs/guide.md
            "Deliver again"): the new delivery's own times, `external_id` and
            `test_scenario`; everything else is the original's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | RedeliverDeliveryResponse400 | RedeliverDeliveryResponse401 | RedeliverDeliveryResponse402 | RedeliverDeliveryResponse403 | RedeliverDeliveryResponse404 | RedeliverDeliveryResponse408 | RedeliverDeliveryResponse409 | RedeliverDeliveryResponse413 | RedeliverDeliveryResponse429 | RedeliverDeliveryResponse431 | RedeliverDeliveryResponse500 | RedeliverDeliveryResponse502 | RedeliverDeliveryResponse503]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: RedeliverDeliveryRequest | Unset = UNSET,
    idempotency_key: str,
) -> (
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
    | None
):
    """Deliver again

     Books a cancelled delivery again as a new delivery (status `pending`):
    the same places, contacts, instructions, goods, vehicle, extras, proof,
    notes, batching and notifications, priced afresh. Times are not copied:
    the body may give new ones, else the new delivery is immediate. The
    body is optional. A retry with the same `Idempotency-Key` and body
    replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        body (RedeliverDeliveryRequest | Unset): `POST /v1/deliveries/{id}/redeliver` body
            (optional; docs/guide.md
            "Deliver again"): the new delivery's own times, `external_id` and
            `test_scenario`; everything else is the original's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | RedeliverDeliveryResponse400 | RedeliverDeliveryResponse401 | RedeliverDeliveryResponse402 | RedeliverDeliveryResponse403 | RedeliverDeliveryResponse404 | RedeliverDeliveryResponse408 | RedeliverDeliveryResponse409 | RedeliverDeliveryResponse413 | RedeliverDeliveryResponse429 | RedeliverDeliveryResponse431 | RedeliverDeliveryResponse500 | RedeliverDeliveryResponse502 | RedeliverDeliveryResponse503
    """

    return sync_detailed(
        delivery_id=delivery_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: RedeliverDeliveryRequest | Unset = UNSET,
    idempotency_key: str,
) -> Response[
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
]:
    """Deliver again

     Books a cancelled delivery again as a new delivery (status `pending`):
    the same places, contacts, instructions, goods, vehicle, extras, proof,
    notes, batching and notifications, priced afresh. Times are not copied:
    the body may give new ones, else the new delivery is immediate. The
    body is optional. A retry with the same `Idempotency-Key` and body
    replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        body (RedeliverDeliveryRequest | Unset): `POST /v1/deliveries/{id}/redeliver` body
            (optional; docs/guide.md
            "Deliver again"): the new delivery's own times, `external_id` and
            `test_scenario`; everything else is the original's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | RedeliverDeliveryResponse400 | RedeliverDeliveryResponse401 | RedeliverDeliveryResponse402 | RedeliverDeliveryResponse403 | RedeliverDeliveryResponse404 | RedeliverDeliveryResponse408 | RedeliverDeliveryResponse409 | RedeliverDeliveryResponse413 | RedeliverDeliveryResponse429 | RedeliverDeliveryResponse431 | RedeliverDeliveryResponse500 | RedeliverDeliveryResponse502 | RedeliverDeliveryResponse503]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: RedeliverDeliveryRequest | Unset = UNSET,
    idempotency_key: str,
) -> (
    Delivery
    | RedeliverDeliveryResponse400
    | RedeliverDeliveryResponse401
    | RedeliverDeliveryResponse402
    | RedeliverDeliveryResponse403
    | RedeliverDeliveryResponse404
    | RedeliverDeliveryResponse408
    | RedeliverDeliveryResponse409
    | RedeliverDeliveryResponse413
    | RedeliverDeliveryResponse429
    | RedeliverDeliveryResponse431
    | RedeliverDeliveryResponse500
    | RedeliverDeliveryResponse502
    | RedeliverDeliveryResponse503
    | None
):
    """Deliver again

     Books a cancelled delivery again as a new delivery (status `pending`):
    the same places, contacts, instructions, goods, vehicle, extras, proof,
    notes, batching and notifications, priced afresh. Times are not copied:
    the body may give new ones, else the new delivery is immediate. The
    body is optional. A retry with the same `Idempotency-Key` and body
    replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        body (RedeliverDeliveryRequest | Unset): `POST /v1/deliveries/{id}/redeliver` body
            (optional; docs/guide.md
            "Deliver again"): the new delivery's own times, `external_id` and
            `test_scenario`; everything else is the original's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | RedeliverDeliveryResponse400 | RedeliverDeliveryResponse401 | RedeliverDeliveryResponse402 | RedeliverDeliveryResponse403 | RedeliverDeliveryResponse404 | RedeliverDeliveryResponse408 | RedeliverDeliveryResponse409 | RedeliverDeliveryResponse413 | RedeliverDeliveryResponse429 | RedeliverDeliveryResponse431 | RedeliverDeliveryResponse500 | RedeliverDeliveryResponse502 | RedeliverDeliveryResponse503
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
