import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.event_list import EventList
from ...models.event_type import EventType
from ...models.list_events_response_400 import ListEventsResponse400
from ...models.list_events_response_401 import ListEventsResponse401
from ...models.list_events_response_403 import ListEventsResponse403
from ...models.list_events_response_408 import ListEventsResponse408
from ...models.list_events_response_413 import ListEventsResponse413
from ...models.list_events_response_429 import ListEventsResponse429
from ...models.list_events_response_431 import ListEventsResponse431
from ...models.list_events_response_500 import ListEventsResponse500
from ...models.list_events_response_502 import ListEventsResponse502
from ...models.list_events_response_503 import ListEventsResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["page_token"] = page_token

    params["delivery_id"] = delivery_id

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_.value

    params["type"] = json_type_

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = EventList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListEventsResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListEventsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListEventsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ListEventsResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ListEventsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ListEventsResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ListEventsResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ListEventsResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ListEventsResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ListEventsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
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
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
) -> Response[
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
]:
    """List events

     Every event of the key's workspace and mode, whether or not an endpoint
    received it; newest first. Follow `next_page_token` until it is null,
    keeping the same filters. Events are kept 30 days.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventList | ListEventsResponse400 | ListEventsResponse401 | ListEventsResponse403 | ListEventsResponse408 | ListEventsResponse413 | ListEventsResponse429 | ListEventsResponse431 | ListEventsResponse500 | ListEventsResponse502 | ListEventsResponse503]
    """

    kwargs = _get_kwargs(
        limit=limit,
        page_token=page_token,
        delivery_id=delivery_id,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
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
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
) -> (
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
    | None
):
    """List events

     Every event of the key's workspace and mode, whether or not an endpoint
    received it; newest first. Follow `next_page_token` until it is null,
    keeping the same filters. Events are kept 30 days.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventList | ListEventsResponse400 | ListEventsResponse401 | ListEventsResponse403 | ListEventsResponse408 | ListEventsResponse413 | ListEventsResponse429 | ListEventsResponse431 | ListEventsResponse500 | ListEventsResponse502 | ListEventsResponse503
    """

    return sync_detailed(
        client=client,
        limit=limit,
        page_token=page_token,
        delivery_id=delivery_id,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
) -> Response[
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
]:
    """List events

     Every event of the key's workspace and mode, whether or not an endpoint
    received it; newest first. Follow `next_page_token` until it is null,
    keeping the same filters. Events are kept 30 days.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventList | ListEventsResponse400 | ListEventsResponse401 | ListEventsResponse403 | ListEventsResponse408 | ListEventsResponse413 | ListEventsResponse429 | ListEventsResponse431 | ListEventsResponse500 | ListEventsResponse502 | ListEventsResponse503]
    """

    kwargs = _get_kwargs(
        limit=limit,
        page_token=page_token,
        delivery_id=delivery_id,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    page_token: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
) -> (
    EventList
    | ListEventsResponse400
    | ListEventsResponse401
    | ListEventsResponse403
    | ListEventsResponse408
    | ListEventsResponse413
    | ListEventsResponse429
    | ListEventsResponse431
    | ListEventsResponse500
    | ListEventsResponse502
    | ListEventsResponse503
    | None
):
    """List events

     Every event of the key's workspace and mode, whether or not an endpoint
    received it; newest first. Follow `next_page_token` until it is null,
    keeping the same filters. Events are kept 30 days.

    Args:
        limit (int | Unset):
        page_token (str | Unset):
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventList | ListEventsResponse400 | ListEventsResponse401 | ListEventsResponse403 | ListEventsResponse408 | ListEventsResponse413 | ListEventsResponse429 | ListEventsResponse431 | ListEventsResponse500 | ListEventsResponse502 | ListEventsResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            page_token=page_token,
            delivery_id=delivery_id,
            type_=type_,
            created_after=created_after,
            created_before=created_before,
        )
    ).parsed
