from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery import Delivery
from ...models.update_delivery_request import UpdateDeliveryRequest
from ...models.update_delivery_response_400 import UpdateDeliveryResponse400
from ...models.update_delivery_response_401 import UpdateDeliveryResponse401
from ...models.update_delivery_response_402 import UpdateDeliveryResponse402
from ...models.update_delivery_response_403 import UpdateDeliveryResponse403
from ...models.update_delivery_response_404 import UpdateDeliveryResponse404
from ...models.update_delivery_response_408 import UpdateDeliveryResponse408
from ...models.update_delivery_response_409 import UpdateDeliveryResponse409
from ...models.update_delivery_response_412 import UpdateDeliveryResponse412
from ...models.update_delivery_response_413 import UpdateDeliveryResponse413
from ...models.update_delivery_response_429 import UpdateDeliveryResponse429
from ...models.update_delivery_response_431 import UpdateDeliveryResponse431
from ...models.update_delivery_response_500 import UpdateDeliveryResponse500
from ...models.update_delivery_response_502 import UpdateDeliveryResponse502
from ...models.update_delivery_response_503 import UpdateDeliveryResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    delivery_id: str,
    *,
    body: UpdateDeliveryRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/deliveries/{delivery_id}".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
    | None
):
    if response.status_code == 200:
        response_200 = Delivery.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = UpdateDeliveryResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UpdateDeliveryResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = UpdateDeliveryResponse402.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = UpdateDeliveryResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateDeliveryResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = UpdateDeliveryResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = UpdateDeliveryResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 412:
        response_412 = UpdateDeliveryResponse412.from_dict(response.json())

        return response_412

    if response.status_code == 413:
        response_413 = UpdateDeliveryResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = UpdateDeliveryResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = UpdateDeliveryResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = UpdateDeliveryResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = UpdateDeliveryResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = UpdateDeliveryResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
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
    body: UpdateDeliveryRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> Response[
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
]:
    """Change a delivery

     Sets the notes, the pickup's and dropoff's contact and instructions
    (until the delivery is delivered or cancelled) and the dropoff window
    (until the goods are picked up); absent members stay as they are.
    Recorded as `delivery.updated` with `changed_fields`; a change that
    changes nothing answers the delivery as it is, with no event. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateDeliveryRequest): `PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a
            delivery"):
            an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | UpdateDeliveryResponse400 | UpdateDeliveryResponse401 | UpdateDeliveryResponse402 | UpdateDeliveryResponse403 | UpdateDeliveryResponse404 | UpdateDeliveryResponse408 | UpdateDeliveryResponse409 | UpdateDeliveryResponse412 | UpdateDeliveryResponse413 | UpdateDeliveryResponse429 | UpdateDeliveryResponse431 | UpdateDeliveryResponse500 | UpdateDeliveryResponse502 | UpdateDeliveryResponse503]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateDeliveryRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> (
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
    | None
):
    """Change a delivery

     Sets the notes, the pickup's and dropoff's contact and instructions
    (until the delivery is delivered or cancelled) and the dropoff window
    (until the goods are picked up); absent members stay as they are.
    Recorded as `delivery.updated` with `changed_fields`; a change that
    changes nothing answers the delivery as it is, with no event. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateDeliveryRequest): `PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a
            delivery"):
            an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | UpdateDeliveryResponse400 | UpdateDeliveryResponse401 | UpdateDeliveryResponse402 | UpdateDeliveryResponse403 | UpdateDeliveryResponse404 | UpdateDeliveryResponse408 | UpdateDeliveryResponse409 | UpdateDeliveryResponse412 | UpdateDeliveryResponse413 | UpdateDeliveryResponse429 | UpdateDeliveryResponse431 | UpdateDeliveryResponse500 | UpdateDeliveryResponse502 | UpdateDeliveryResponse503
    """

    return sync_detailed(
        delivery_id=delivery_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateDeliveryRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> Response[
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
]:
    """Change a delivery

     Sets the notes, the pickup's and dropoff's contact and instructions
    (until the delivery is delivered or cancelled) and the dropoff window
    (until the goods are picked up); absent members stay as they are.
    Recorded as `delivery.updated` with `changed_fields`; a change that
    changes nothing answers the delivery as it is, with no event. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateDeliveryRequest): `PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a
            delivery"):
            an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Delivery | UpdateDeliveryResponse400 | UpdateDeliveryResponse401 | UpdateDeliveryResponse402 | UpdateDeliveryResponse403 | UpdateDeliveryResponse404 | UpdateDeliveryResponse408 | UpdateDeliveryResponse409 | UpdateDeliveryResponse412 | UpdateDeliveryResponse413 | UpdateDeliveryResponse429 | UpdateDeliveryResponse431 | UpdateDeliveryResponse500 | UpdateDeliveryResponse502 | UpdateDeliveryResponse503]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        body=body,
        idempotency_key=idempotency_key,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
    body: UpdateDeliveryRequest,
    idempotency_key: str,
    if_match: None | str | Unset = UNSET,
) -> (
    Delivery
    | UpdateDeliveryResponse400
    | UpdateDeliveryResponse401
    | UpdateDeliveryResponse402
    | UpdateDeliveryResponse403
    | UpdateDeliveryResponse404
    | UpdateDeliveryResponse408
    | UpdateDeliveryResponse409
    | UpdateDeliveryResponse412
    | UpdateDeliveryResponse413
    | UpdateDeliveryResponse429
    | UpdateDeliveryResponse431
    | UpdateDeliveryResponse500
    | UpdateDeliveryResponse502
    | UpdateDeliveryResponse503
    | None
):
    """Change a delivery

     Sets the notes, the pickup's and dropoff's contact and instructions
    (until the delivery is delivered or cancelled) and the dropoff window
    (until the goods are picked up); absent members stay as they are.
    Recorded as `delivery.updated` with `changed_fields`; a change that
    changes nothing answers the delivery as it is, with no event. A retry
    with the same `Idempotency-Key` and body replays the first answer.

    Args:
        delivery_id (str):
        idempotency_key (str):
        if_match (None | str | Unset):
        body (UpdateDeliveryRequest): `PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a
            delivery"):
            an absent member stays as it is; at least one is sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Delivery | UpdateDeliveryResponse400 | UpdateDeliveryResponse401 | UpdateDeliveryResponse402 | UpdateDeliveryResponse403 | UpdateDeliveryResponse404 | UpdateDeliveryResponse408 | UpdateDeliveryResponse409 | UpdateDeliveryResponse412 | UpdateDeliveryResponse413 | UpdateDeliveryResponse429 | UpdateDeliveryResponse431 | UpdateDeliveryResponse500 | UpdateDeliveryResponse502 | UpdateDeliveryResponse503
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            if_match=if_match,
        )
    ).parsed
