from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.event_type import EventType
from ...models.stream_events_response_400 import StreamEventsResponse400
from ...models.stream_events_response_401 import StreamEventsResponse401
from ...models.stream_events_response_403 import StreamEventsResponse403
from ...models.stream_events_response_408 import StreamEventsResponse408
from ...models.stream_events_response_413 import StreamEventsResponse413
from ...models.stream_events_response_429 import StreamEventsResponse429
from ...models.stream_events_response_431 import StreamEventsResponse431
from ...models.stream_events_response_500 import StreamEventsResponse500
from ...models.stream_events_response_502 import StreamEventsResponse502
from ...models.stream_events_response_503 import StreamEventsResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    params["delivery_id"] = delivery_id

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_.value

    params["type"] = json_type_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events/stream",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
    | None
):
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 400:
        response_400 = StreamEventsResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = StreamEventsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = StreamEventsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = StreamEventsResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = StreamEventsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = StreamEventsResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = StreamEventsResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = StreamEventsResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = StreamEventsResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = StreamEventsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
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
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
]:
    """Stream events

     Server-sent events: each event of the key's workspace and mode as it is
    recorded, oldest first, its `data` the Event as `GET /v1/events/{eventId}`
    shows it and its `id` the event's id. Reconnect with `Last-Event-ID` (the
    last id received; browsers' `EventSource` sends it) to receive every later
    event still kept, then the new ones: none lost, none repeated. Without it
    the stream starts with the events recorded from then on. An event is sent
    about a second after it is recorded; a comment (`: heartbeat`) is sent
    every 15 seconds when no event is. A failure after the stream started
    ends it with an `error` event whose data is the error shape. Counted once
    by the rate limits, however long it runs.

    Args:
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamEventsResponse400 | StreamEventsResponse401 | StreamEventsResponse403 | StreamEventsResponse408 | StreamEventsResponse413 | StreamEventsResponse429 | StreamEventsResponse431 | StreamEventsResponse500 | StreamEventsResponse502 | StreamEventsResponse503 | str]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        type_=type_,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> (
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
    | None
):
    """Stream events

     Server-sent events: each event of the key's workspace and mode as it is
    recorded, oldest first, its `data` the Event as `GET /v1/events/{eventId}`
    shows it and its `id` the event's id. Reconnect with `Last-Event-ID` (the
    last id received; browsers' `EventSource` sends it) to receive every later
    event still kept, then the new ones: none lost, none repeated. Without it
    the stream starts with the events recorded from then on. An event is sent
    about a second after it is recorded; a comment (`: heartbeat`) is sent
    every 15 seconds when no event is. A failure after the stream started
    ends it with an `error` event whose data is the error shape. Counted once
    by the rate limits, however long it runs.

    Args:
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamEventsResponse400 | StreamEventsResponse401 | StreamEventsResponse403 | StreamEventsResponse408 | StreamEventsResponse413 | StreamEventsResponse429 | StreamEventsResponse431 | StreamEventsResponse500 | StreamEventsResponse502 | StreamEventsResponse503 | str
    """

    return sync_detailed(
        client=client,
        delivery_id=delivery_id,
        type_=type_,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
]:
    """Stream events

     Server-sent events: each event of the key's workspace and mode as it is
    recorded, oldest first, its `data` the Event as `GET /v1/events/{eventId}`
    shows it and its `id` the event's id. Reconnect with `Last-Event-ID` (the
    last id received; browsers' `EventSource` sends it) to receive every later
    event still kept, then the new ones: none lost, none repeated. Without it
    the stream starts with the events recorded from then on. An event is sent
    about a second after it is recorded; a comment (`: heartbeat`) is sent
    every 15 seconds when no event is. A failure after the stream started
    ends it with an `error` event whose data is the error shape. Counted once
    by the rate limits, however long it runs.

    Args:
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamEventsResponse400 | StreamEventsResponse401 | StreamEventsResponse403 | StreamEventsResponse408 | StreamEventsResponse413 | StreamEventsResponse429 | StreamEventsResponse431 | StreamEventsResponse500 | StreamEventsResponse502 | StreamEventsResponse503 | str]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
        type_=type_,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    delivery_id: str | Unset = UNSET,
    type_: EventType | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> (
    StreamEventsResponse400
    | StreamEventsResponse401
    | StreamEventsResponse403
    | StreamEventsResponse408
    | StreamEventsResponse413
    | StreamEventsResponse429
    | StreamEventsResponse431
    | StreamEventsResponse500
    | StreamEventsResponse502
    | StreamEventsResponse503
    | str
    | None
):
    """Stream events

     Server-sent events: each event of the key's workspace and mode as it is
    recorded, oldest first, its `data` the Event as `GET /v1/events/{eventId}`
    shows it and its `id` the event's id. Reconnect with `Last-Event-ID` (the
    last id received; browsers' `EventSource` sends it) to receive every later
    event still kept, then the new ones: none lost, none repeated. Without it
    the stream starts with the events recorded from then on. An event is sent
    about a second after it is recorded; a comment (`: heartbeat`) is sent
    every 15 seconds when no event is. A failure after the stream started
    ends it with an `error` event whose data is the error shape. Counted once
    by the rate limits, however long it runs.

    Args:
        delivery_id (str | Unset):
        type_ (EventType | Unset): The type of an event.
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamEventsResponse400 | StreamEventsResponse401 | StreamEventsResponse403 | StreamEventsResponse408 | StreamEventsResponse413 | StreamEventsResponse429 | StreamEventsResponse431 | StreamEventsResponse500 | StreamEventsResponse502 | StreamEventsResponse503 | str
    """

    return (
        await asyncio_detailed(
            client=client,
            delivery_id=delivery_id,
            type_=type_,
            last_event_id=last_event_id,
        )
    ).parsed
