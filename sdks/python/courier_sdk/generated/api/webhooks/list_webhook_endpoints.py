from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_webhook_endpoints_response_400 import (
    ListWebhookEndpointsResponse400,
)
from ...models.list_webhook_endpoints_response_401 import (
    ListWebhookEndpointsResponse401,
)
from ...models.list_webhook_endpoints_response_403 import (
    ListWebhookEndpointsResponse403,
)
from ...models.list_webhook_endpoints_response_408 import (
    ListWebhookEndpointsResponse408,
)
from ...models.list_webhook_endpoints_response_413 import (
    ListWebhookEndpointsResponse413,
)
from ...models.list_webhook_endpoints_response_429 import (
    ListWebhookEndpointsResponse429,
)
from ...models.list_webhook_endpoints_response_431 import (
    ListWebhookEndpointsResponse431,
)
from ...models.list_webhook_endpoints_response_500 import (
    ListWebhookEndpointsResponse500,
)
from ...models.list_webhook_endpoints_response_502 import (
    ListWebhookEndpointsResponse502,
)
from ...models.list_webhook_endpoints_response_503 import (
    ListWebhookEndpointsResponse503,
)
from ...models.webhook_endpoint_list import WebhookEndpointList
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
    | None
):
    if response.status_code == 200:
        response_200 = WebhookEndpointList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListWebhookEndpointsResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListWebhookEndpointsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListWebhookEndpointsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ListWebhookEndpointsResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ListWebhookEndpointsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ListWebhookEndpointsResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ListWebhookEndpointsResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ListWebhookEndpointsResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ListWebhookEndpointsResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ListWebhookEndpointsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
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
) -> Response[
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
]:
    """List webhook endpoints

     The key mode's endpoints, oldest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWebhookEndpointsResponse400 | ListWebhookEndpointsResponse401 | ListWebhookEndpointsResponse403 | ListWebhookEndpointsResponse408 | ListWebhookEndpointsResponse413 | ListWebhookEndpointsResponse429 | ListWebhookEndpointsResponse431 | ListWebhookEndpointsResponse500 | ListWebhookEndpointsResponse502 | ListWebhookEndpointsResponse503 | WebhookEndpointList]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> (
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
    | None
):
    """List webhook endpoints

     The key mode's endpoints, oldest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWebhookEndpointsResponse400 | ListWebhookEndpointsResponse401 | ListWebhookEndpointsResponse403 | ListWebhookEndpointsResponse408 | ListWebhookEndpointsResponse413 | ListWebhookEndpointsResponse429 | ListWebhookEndpointsResponse431 | ListWebhookEndpointsResponse500 | ListWebhookEndpointsResponse502 | ListWebhookEndpointsResponse503 | WebhookEndpointList
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
]:
    """List webhook endpoints

     The key mode's endpoints, oldest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWebhookEndpointsResponse400 | ListWebhookEndpointsResponse401 | ListWebhookEndpointsResponse403 | ListWebhookEndpointsResponse408 | ListWebhookEndpointsResponse413 | ListWebhookEndpointsResponse429 | ListWebhookEndpointsResponse431 | ListWebhookEndpointsResponse500 | ListWebhookEndpointsResponse502 | ListWebhookEndpointsResponse503 | WebhookEndpointList]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> (
    ListWebhookEndpointsResponse400
    | ListWebhookEndpointsResponse401
    | ListWebhookEndpointsResponse403
    | ListWebhookEndpointsResponse408
    | ListWebhookEndpointsResponse413
    | ListWebhookEndpointsResponse429
    | ListWebhookEndpointsResponse431
    | ListWebhookEndpointsResponse500
    | ListWebhookEndpointsResponse502
    | ListWebhookEndpointsResponse503
    | WebhookEndpointList
    | None
):
    """List webhook endpoints

     The key mode's endpoints, oldest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWebhookEndpointsResponse400 | ListWebhookEndpointsResponse401 | ListWebhookEndpointsResponse403 | ListWebhookEndpointsResponse408 | ListWebhookEndpointsResponse413 | ListWebhookEndpointsResponse429 | ListWebhookEndpointsResponse431 | ListWebhookEndpointsResponse500 | ListWebhookEndpointsResponse502 | ListWebhookEndpointsResponse503 | WebhookEndpointList
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
