import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_list import DeliveryList
from ...models.delivery_status import DeliveryStatus
from ...models.list_deliveries_response_400 import ListDeliveriesResponse400
from ...models.list_deliveries_response_401 import ListDeliveriesResponse401
from ...models.list_deliveries_response_403 import ListDeliveriesResponse403
from ...models.list_deliveries_response_408 import ListDeliveriesResponse408
from ...models.list_deliveries_response_413 import ListDeliveriesResponse413
from ...models.list_deliveries_response_429 import ListDeliveriesResponse429
from ...models.list_deliveries_response_431 import ListDeliveriesResponse431
from ...models.list_deliveries_response_500 import ListDeliveriesResponse500
from ...models.list_deliveries_response_502 import ListDeliveriesResponse502
from ...models.list_deliveries_response_503 import ListDeliveriesResponse503
from ...models.promise_state import PromiseState
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    external_id: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    promise: PromiseState | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["page_token"] = page_token

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["external_id"] = external_id

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    json_promise: str | Unset = UNSET
    if not isinstance(promise, Unset):
        json_promise = promise.value

    params["promise"] = json_promise

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
    | None
):
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListDeliveriesResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListDeliveriesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListDeliveriesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ListDeliveriesResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ListDeliveriesResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ListDeliveriesResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ListDeliveriesResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ListDeliveriesResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ListDeliveriesResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ListDeliveriesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
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
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    external_id: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    promise: PromiseState | Unset = UNSET,
) -> Response[
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
]:
    """List deliveries

     Newest first. Follow `next_page_token` until it is null, keeping the same
    filters. Unknown or repeated parameters are refused.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        status (DeliveryStatus | Unset): Status of a delivery (and of a fleet order); `delivered`
            and `cancelled` are final.
        external_id (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        promise (PromiseState | Unset): Deliveries by their promised dropoff: `at_risk` (not
            ended, and reported at risk or past the promise), `late` (delivered after the promise, or
            not ended and past it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ListDeliveriesResponse400 | ListDeliveriesResponse401 | ListDeliveriesResponse403 | ListDeliveriesResponse408 | ListDeliveriesResponse413 | ListDeliveriesResponse429 | ListDeliveriesResponse431 | ListDeliveriesResponse500 | ListDeliveriesResponse502 | ListDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        limit=limit,
        page_token=page_token,
        status=status,
        external_id=external_id,
        created_after=created_after,
        created_before=created_before,
        promise=promise,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    external_id: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    promise: PromiseState | Unset = UNSET,
) -> (
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
    | None
):
    """List deliveries

     Newest first. Follow `next_page_token` until it is null, keeping the same
    filters. Unknown or repeated parameters are refused.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        status (DeliveryStatus | Unset): Status of a delivery (and of a fleet order); `delivered`
            and `cancelled` are final.
        external_id (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        promise (PromiseState | Unset): Deliveries by their promised dropoff: `at_risk` (not
            ended, and reported at risk or past the promise), `late` (delivered after the promise, or
            not ended and past it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ListDeliveriesResponse400 | ListDeliveriesResponse401 | ListDeliveriesResponse403 | ListDeliveriesResponse408 | ListDeliveriesResponse413 | ListDeliveriesResponse429 | ListDeliveriesResponse431 | ListDeliveriesResponse500 | ListDeliveriesResponse502 | ListDeliveriesResponse503
    """

    return sync_detailed(
        client=client,
        limit=limit,
        page_token=page_token,
        status=status,
        external_id=external_id,
        created_after=created_after,
        created_before=created_before,
        promise=promise,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    external_id: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    promise: PromiseState | Unset = UNSET,
) -> Response[
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
]:
    """List deliveries

     Newest first. Follow `next_page_token` until it is null, keeping the same
    filters. Unknown or repeated parameters are refused.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        status (DeliveryStatus | Unset): Status of a delivery (and of a fleet order); `delivered`
            and `cancelled` are final.
        external_id (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        promise (PromiseState | Unset): Deliveries by their promised dropoff: `at_risk` (not
            ended, and reported at risk or past the promise), `late` (delivered after the promise, or
            not ended and past it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ListDeliveriesResponse400 | ListDeliveriesResponse401 | ListDeliveriesResponse403 | ListDeliveriesResponse408 | ListDeliveriesResponse413 | ListDeliveriesResponse429 | ListDeliveriesResponse431 | ListDeliveriesResponse500 | ListDeliveriesResponse502 | ListDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        limit=limit,
        page_token=page_token,
        status=status,
        external_id=external_id,
        created_after=created_after,
        created_before=created_before,
        promise=promise,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    external_id: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    promise: PromiseState | Unset = UNSET,
) -> (
    DeliveryList
    | ListDeliveriesResponse400
    | ListDeliveriesResponse401
    | ListDeliveriesResponse403
    | ListDeliveriesResponse408
    | ListDeliveriesResponse413
    | ListDeliveriesResponse429
    | ListDeliveriesResponse431
    | ListDeliveriesResponse500
    | ListDeliveriesResponse502
    | ListDeliveriesResponse503
    | None
):
    """List deliveries

     Newest first. Follow `next_page_token` until it is null, keeping the same
    filters. Unknown or repeated parameters are refused.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        status (DeliveryStatus | Unset): Status of a delivery (and of a fleet order); `delivered`
            and `cancelled` are final.
        external_id (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        promise (PromiseState | Unset): Deliveries by their promised dropoff: `at_risk` (not
            ended, and reported at risk or past the promise), `late` (delivered after the promise, or
            not ended and past it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ListDeliveriesResponse400 | ListDeliveriesResponse401 | ListDeliveriesResponse403 | ListDeliveriesResponse408 | ListDeliveriesResponse413 | ListDeliveriesResponse429 | ListDeliveriesResponse431 | ListDeliveriesResponse500 | ListDeliveriesResponse502 | ListDeliveriesResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            page_token=page_token,
            status=status,
            external_id=external_id,
            created_after=created_after,
            created_before=created_before,
            promise=promise,
        )
    ).parsed
