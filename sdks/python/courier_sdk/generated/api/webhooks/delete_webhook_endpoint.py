from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_webhook_endpoint_response_400 import (
    DeleteWebhookEndpointResponse400,
)
from ...models.delete_webhook_endpoint_response_401 import (
    DeleteWebhookEndpointResponse401,
)
from ...models.delete_webhook_endpoint_response_403 import (
    DeleteWebhookEndpointResponse403,
)
from ...models.delete_webhook_endpoint_response_404 import (
    DeleteWebhookEndpointResponse404,
)
from ...models.delete_webhook_endpoint_response_408 import (
    DeleteWebhookEndpointResponse408,
)
from ...models.delete_webhook_endpoint_response_413 import (
    DeleteWebhookEndpointResponse413,
)
from ...models.delete_webhook_endpoint_response_429 import (
    DeleteWebhookEndpointResponse429,
)
from ...models.delete_webhook_endpoint_response_431 import (
    DeleteWebhookEndpointResponse431,
)
from ...models.delete_webhook_endpoint_response_500 import (
    DeleteWebhookEndpointResponse500,
)
from ...models.delete_webhook_endpoint_response_502 import (
    DeleteWebhookEndpointResponse502,
)
from ...models.delete_webhook_endpoint_response_503 import (
    DeleteWebhookEndpointResponse503,
)
from ...models.deleted_webhook_endpoint import DeletedWebhookEndpoint
from ...types import Response


def _get_kwargs(
    webhook_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/webhooks/{webhook_id}".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
    | None
):
    if response.status_code == 200:
        response_200 = DeletedWebhookEndpoint.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = DeleteWebhookEndpointResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = DeleteWebhookEndpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteWebhookEndpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = DeleteWebhookEndpointResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = DeleteWebhookEndpointResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = DeleteWebhookEndpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = DeleteWebhookEndpointResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = DeleteWebhookEndpointResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = DeleteWebhookEndpointResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = DeleteWebhookEndpointResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = DeleteWebhookEndpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
]:
    """Delete a webhook endpoint

     For good: its queued events are dropped; its attempts stay in the events'
    history.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteWebhookEndpointResponse400 | DeleteWebhookEndpointResponse401 | DeleteWebhookEndpointResponse403 | DeleteWebhookEndpointResponse404 | DeleteWebhookEndpointResponse408 | DeleteWebhookEndpointResponse413 | DeleteWebhookEndpointResponse429 | DeleteWebhookEndpointResponse431 | DeleteWebhookEndpointResponse500 | DeleteWebhookEndpointResponse502 | DeleteWebhookEndpointResponse503 | DeletedWebhookEndpoint]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
    | None
):
    """Delete a webhook endpoint

     For good: its queued events are dropped; its attempts stay in the events'
    history.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteWebhookEndpointResponse400 | DeleteWebhookEndpointResponse401 | DeleteWebhookEndpointResponse403 | DeleteWebhookEndpointResponse404 | DeleteWebhookEndpointResponse408 | DeleteWebhookEndpointResponse413 | DeleteWebhookEndpointResponse429 | DeleteWebhookEndpointResponse431 | DeleteWebhookEndpointResponse500 | DeleteWebhookEndpointResponse502 | DeleteWebhookEndpointResponse503 | DeletedWebhookEndpoint
    """

    return sync_detailed(
        webhook_id=webhook_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
]:
    """Delete a webhook endpoint

     For good: its queued events are dropped; its attempts stay in the events'
    history.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteWebhookEndpointResponse400 | DeleteWebhookEndpointResponse401 | DeleteWebhookEndpointResponse403 | DeleteWebhookEndpointResponse404 | DeleteWebhookEndpointResponse408 | DeleteWebhookEndpointResponse413 | DeleteWebhookEndpointResponse429 | DeleteWebhookEndpointResponse431 | DeleteWebhookEndpointResponse500 | DeleteWebhookEndpointResponse502 | DeleteWebhookEndpointResponse503 | DeletedWebhookEndpoint]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    DeleteWebhookEndpointResponse400
    | DeleteWebhookEndpointResponse401
    | DeleteWebhookEndpointResponse403
    | DeleteWebhookEndpointResponse404
    | DeleteWebhookEndpointResponse408
    | DeleteWebhookEndpointResponse413
    | DeleteWebhookEndpointResponse429
    | DeleteWebhookEndpointResponse431
    | DeleteWebhookEndpointResponse500
    | DeleteWebhookEndpointResponse502
    | DeleteWebhookEndpointResponse503
    | DeletedWebhookEndpoint
    | None
):
    """Delete a webhook endpoint

     For good: its queued events are dropped; its attempts stay in the events'
    history.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteWebhookEndpointResponse400 | DeleteWebhookEndpointResponse401 | DeleteWebhookEndpointResponse403 | DeleteWebhookEndpointResponse404 | DeleteWebhookEndpointResponse408 | DeleteWebhookEndpointResponse413 | DeleteWebhookEndpointResponse429 | DeleteWebhookEndpointResponse431 | DeleteWebhookEndpointResponse500 | DeleteWebhookEndpointResponse502 | DeleteWebhookEndpointResponse503 | DeletedWebhookEndpoint
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
        )
    ).parsed
