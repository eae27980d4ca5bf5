from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.event_details import EventDetails
from ...models.get_event_response_400 import GetEventResponse400
from ...models.get_event_response_401 import GetEventResponse401
from ...models.get_event_response_403 import GetEventResponse403
from ...models.get_event_response_404 import GetEventResponse404
from ...models.get_event_response_408 import GetEventResponse408
from ...models.get_event_response_413 import GetEventResponse413
from ...models.get_event_response_429 import GetEventResponse429
from ...models.get_event_response_431 import GetEventResponse431
from ...models.get_event_response_500 import GetEventResponse500
from ...models.get_event_response_502 import GetEventResponse502
from ...models.get_event_response_503 import GetEventResponse503
from ...types import Response


def _get_kwargs(
    event_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events/{event_id}".format(
            event_id=quote(str(event_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
    | None
):
    if response.status_code == 200:
        response_200 = EventDetails.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetEventResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetEventResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetEventResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetEventResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetEventResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetEventResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = GetEventResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = GetEventResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetEventResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetEventResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetEventResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    event_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
]:
    """Get an event

     The event with every webhook attempt made for it, oldest first.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventDetails | GetEventResponse400 | GetEventResponse401 | GetEventResponse403 | GetEventResponse404 | GetEventResponse408 | GetEventResponse413 | GetEventResponse429 | GetEventResponse431 | GetEventResponse500 | GetEventResponse502 | GetEventResponse503]
    """

    kwargs = _get_kwargs(
        event_id=event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    event_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
    | None
):
    """Get an event

     The event with every webhook attempt made for it, oldest first.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventDetails | GetEventResponse400 | GetEventResponse401 | GetEventResponse403 | GetEventResponse404 | GetEventResponse408 | GetEventResponse413 | GetEventResponse429 | GetEventResponse431 | GetEventResponse500 | GetEventResponse502 | GetEventResponse503
    """

    return sync_detailed(
        event_id=event_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    event_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
]:
    """Get an event

     The event with every webhook attempt made for it, oldest first.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventDetails | GetEventResponse400 | GetEventResponse401 | GetEventResponse403 | GetEventResponse404 | GetEventResponse408 | GetEventResponse413 | GetEventResponse429 | GetEventResponse431 | GetEventResponse500 | GetEventResponse502 | GetEventResponse503]
    """

    kwargs = _get_kwargs(
        event_id=event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    event_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    EventDetails
    | GetEventResponse400
    | GetEventResponse401
    | GetEventResponse403
    | GetEventResponse404
    | GetEventResponse408
    | GetEventResponse413
    | GetEventResponse429
    | GetEventResponse431
    | GetEventResponse500
    | GetEventResponse502
    | GetEventResponse503
    | None
):
    """Get an event

     The event with every webhook attempt made for it, oldest first.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventDetails | GetEventResponse400 | GetEventResponse401 | GetEventResponse403 | GetEventResponse404 | GetEventResponse408 | GetEventResponse413 | GetEventResponse429 | GetEventResponse431 | GetEventResponse500 | GetEventResponse502 | GetEventResponse503
    """

    return (
        await asyncio_detailed(
            event_id=event_id,
            client=client,
        )
    ).parsed
