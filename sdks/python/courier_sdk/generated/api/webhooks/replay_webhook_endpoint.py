from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.empty_body import EmptyBody
from ...models.replay_webhook_endpoint_response_400 import (
    ReplayWebhookEndpointResponse400,
)
from ...models.replay_webhook_endpoint_response_401 import (
    ReplayWebhookEndpointResponse401,
)
from ...models.replay_webhook_endpoint_response_403 import (
    ReplayWebhookEndpointResponse403,
)
from ...models.replay_webhook_endpoint_response_404 import (
    ReplayWebhookEndpointResponse404,
)
from ...models.replay_webhook_endpoint_response_408 import (
    ReplayWebhookEndpointResponse408,
)
from ...models.replay_webhook_endpoint_response_409 import (
    ReplayWebhookEndpointResponse409,
)
from ...models.replay_webhook_endpoint_response_413 import (
    ReplayWebhookEndpointResponse413,
)
from ...models.replay_webhook_endpoint_response_429 import (
    ReplayWebhookEndpointResponse429,
)
from ...models.replay_webhook_endpoint_response_431 import (
    ReplayWebhookEndpointResponse431,
)
from ...models.replay_webhook_endpoint_response_500 import (
    ReplayWebhookEndpointResponse500,
)
from ...models.replay_webhook_endpoint_response_502 import (
    ReplayWebhookEndpointResponse502,
)
from ...models.replay_webhook_endpoint_response_503 import (
    ReplayWebhookEndpointResponse503,
)
from ...models.webhook_replay_result import WebhookReplayResult
from ...types import UNSET, Response, Unset


def _get_kwargs(
    webhook_id: str,
    *,
    body: EmptyBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks/{webhook_id}/replay".format(
            webhook_id=quote(str(webhook_id), safe=""),
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
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
    | None
):
    if response.status_code == 200:
        response_200 = WebhookReplayResult.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ReplayWebhookEndpointResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ReplayWebhookEndpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ReplayWebhookEndpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ReplayWebhookEndpointResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = ReplayWebhookEndpointResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = ReplayWebhookEndpointResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ReplayWebhookEndpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ReplayWebhookEndpointResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ReplayWebhookEndpointResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ReplayWebhookEndpointResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ReplayWebhookEndpointResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ReplayWebhookEndpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
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
    body: EmptyBody | Unset = UNSET,
) -> Response[
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
]:
    """Replay failed events

     Queues every event that ended failed for the endpoint (and is still kept)
    again, with the same id and a full 8 attempts.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ReplayWebhookEndpointResponse400 | ReplayWebhookEndpointResponse401 | ReplayWebhookEndpointResponse403 | ReplayWebhookEndpointResponse404 | ReplayWebhookEndpointResponse408 | ReplayWebhookEndpointResponse409 | ReplayWebhookEndpointResponse413 | ReplayWebhookEndpointResponse429 | ReplayWebhookEndpointResponse431 | ReplayWebhookEndpointResponse500 | ReplayWebhookEndpointResponse502 | ReplayWebhookEndpointResponse503 | WebhookReplayResult]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    body: EmptyBody | Unset = UNSET,
) -> (
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
    | None
):
    """Replay failed events

     Queues every event that ended failed for the endpoint (and is still kept)
    again, with the same id and a full 8 attempts.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ReplayWebhookEndpointResponse400 | ReplayWebhookEndpointResponse401 | ReplayWebhookEndpointResponse403 | ReplayWebhookEndpointResponse404 | ReplayWebhookEndpointResponse408 | ReplayWebhookEndpointResponse409 | ReplayWebhookEndpointResponse413 | ReplayWebhookEndpointResponse429 | ReplayWebhookEndpointResponse431 | ReplayWebhookEndpointResponse500 | ReplayWebhookEndpointResponse502 | ReplayWebhookEndpointResponse503 | WebhookReplayResult
    """

    return sync_detailed(
        webhook_id=webhook_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    body: EmptyBody | Unset = UNSET,
) -> Response[
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
]:
    """Replay failed events

     Queues every event that ended failed for the endpoint (and is still kept)
    again, with the same id and a full 8 attempts.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ReplayWebhookEndpointResponse400 | ReplayWebhookEndpointResponse401 | ReplayWebhookEndpointResponse403 | ReplayWebhookEndpointResponse404 | ReplayWebhookEndpointResponse408 | ReplayWebhookEndpointResponse409 | ReplayWebhookEndpointResponse413 | ReplayWebhookEndpointResponse429 | ReplayWebhookEndpointResponse431 | ReplayWebhookEndpointResponse500 | ReplayWebhookEndpointResponse502 | ReplayWebhookEndpointResponse503 | WebhookReplayResult]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    body: EmptyBody | Unset = UNSET,
) -> (
    ReplayWebhookEndpointResponse400
    | ReplayWebhookEndpointResponse401
    | ReplayWebhookEndpointResponse403
    | ReplayWebhookEndpointResponse404
    | ReplayWebhookEndpointResponse408
    | ReplayWebhookEndpointResponse409
    | ReplayWebhookEndpointResponse413
    | ReplayWebhookEndpointResponse429
    | ReplayWebhookEndpointResponse431
    | ReplayWebhookEndpointResponse500
    | ReplayWebhookEndpointResponse502
    | ReplayWebhookEndpointResponse503
    | WebhookReplayResult
    | None
):
    """Replay failed events

     Queues every event that ended failed for the endpoint (and is still kept)
    again, with the same id and a full 8 attempts.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ReplayWebhookEndpointResponse400 | ReplayWebhookEndpointResponse401 | ReplayWebhookEndpointResponse403 | ReplayWebhookEndpointResponse404 | ReplayWebhookEndpointResponse408 | ReplayWebhookEndpointResponse409 | ReplayWebhookEndpointResponse413 | ReplayWebhookEndpointResponse429 | ReplayWebhookEndpointResponse431 | ReplayWebhookEndpointResponse500 | ReplayWebhookEndpointResponse502 | ReplayWebhookEndpointResponse503 | WebhookReplayResult
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
            body=body,
        )
    ).parsed
