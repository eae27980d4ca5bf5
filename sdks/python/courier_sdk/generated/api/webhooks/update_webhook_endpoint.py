from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.update_webhook_endpoint_request import UpdateWebhookEndpointRequest
from ...models.update_webhook_endpoint_response_400 import (
    UpdateWebhookEndpointResponse400,
)
from ...models.update_webhook_endpoint_response_401 import (
    UpdateWebhookEndpointResponse401,
)
from ...models.update_webhook_endpoint_response_403 import (
    UpdateWebhookEndpointResponse403,
)
from ...models.update_webhook_endpoint_response_404 import (
    UpdateWebhookEndpointResponse404,
)
from ...models.update_webhook_endpoint_response_408 import (
    UpdateWebhookEndpointResponse408,
)
from ...models.update_webhook_endpoint_response_413 import (
    UpdateWebhookEndpointResponse413,
)
from ...models.update_webhook_endpoint_response_429 import (
    UpdateWebhookEndpointResponse429,
)
from ...models.update_webhook_endpoint_response_431 import (
    UpdateWebhookEndpointResponse431,
)
from ...models.update_webhook_endpoint_response_500 import (
    UpdateWebhookEndpointResponse500,
)
from ...models.update_webhook_endpoint_response_502 import (
    UpdateWebhookEndpointResponse502,
)
from ...models.update_webhook_endpoint_response_503 import (
    UpdateWebhookEndpointResponse503,
)
from ...models.webhook_endpoint import WebhookEndpoint
from ...types import Response


def _get_kwargs(
    webhook_id: str,
    *,
    body: UpdateWebhookEndpointRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/webhooks/{webhook_id}".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
    | None
):
    if response.status_code == 200:
        response_200 = WebhookEndpoint.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = UpdateWebhookEndpointResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UpdateWebhookEndpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateWebhookEndpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateWebhookEndpointResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = UpdateWebhookEndpointResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = UpdateWebhookEndpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = UpdateWebhookEndpointResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = UpdateWebhookEndpointResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = UpdateWebhookEndpointResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = UpdateWebhookEndpointResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = UpdateWebhookEndpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
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
    body: UpdateWebhookEndpointRequest,
) -> Response[
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
]:
    """Change a webhook endpoint

     Absent fields stay as they are. `status: "active"` re-enables a disabled
    endpoint; replay its failed events afterwards.

    Args:
        webhook_id (str):
        body (UpdateWebhookEndpointRequest): `PATCH /v1/webhooks/{id}` body: an absent field stays
            as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[UpdateWebhookEndpointResponse400 | UpdateWebhookEndpointResponse401 | UpdateWebhookEndpointResponse403 | UpdateWebhookEndpointResponse404 | UpdateWebhookEndpointResponse408 | UpdateWebhookEndpointResponse413 | UpdateWebhookEndpointResponse429 | UpdateWebhookEndpointResponse431 | UpdateWebhookEndpointResponse500 | UpdateWebhookEndpointResponse502 | UpdateWebhookEndpointResponse503 | WebhookEndpoint]
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
    body: UpdateWebhookEndpointRequest,
) -> (
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
    | None
):
    """Change a webhook endpoint

     Absent fields stay as they are. `status: "active"` re-enables a disabled
    endpoint; replay its failed events afterwards.

    Args:
        webhook_id (str):
        body (UpdateWebhookEndpointRequest): `PATCH /v1/webhooks/{id}` body: an absent field stays
            as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        UpdateWebhookEndpointResponse400 | UpdateWebhookEndpointResponse401 | UpdateWebhookEndpointResponse403 | UpdateWebhookEndpointResponse404 | UpdateWebhookEndpointResponse408 | UpdateWebhookEndpointResponse413 | UpdateWebhookEndpointResponse429 | UpdateWebhookEndpointResponse431 | UpdateWebhookEndpointResponse500 | UpdateWebhookEndpointResponse502 | UpdateWebhookEndpointResponse503 | WebhookEndpoint
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
    body: UpdateWebhookEndpointRequest,
) -> Response[
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
]:
    """Change a webhook endpoint

     Absent fields stay as they are. `status: "active"` re-enables a disabled
    endpoint; replay its failed events afterwards.

    Args:
        webhook_id (str):
        body (UpdateWebhookEndpointRequest): `PATCH /v1/webhooks/{id}` body: an absent field stays
            as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[UpdateWebhookEndpointResponse400 | UpdateWebhookEndpointResponse401 | UpdateWebhookEndpointResponse403 | UpdateWebhookEndpointResponse404 | UpdateWebhookEndpointResponse408 | UpdateWebhookEndpointResponse413 | UpdateWebhookEndpointResponse429 | UpdateWebhookEndpointResponse431 | UpdateWebhookEndpointResponse500 | UpdateWebhookEndpointResponse502 | UpdateWebhookEndpointResponse503 | WebhookEndpoint]
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
    body: UpdateWebhookEndpointRequest,
) -> (
    UpdateWebhookEndpointResponse400
    | UpdateWebhookEndpointResponse401
    | UpdateWebhookEndpointResponse403
    | UpdateWebhookEndpointResponse404
    | UpdateWebhookEndpointResponse408
    | UpdateWebhookEndpointResponse413
    | UpdateWebhookEndpointResponse429
    | UpdateWebhookEndpointResponse431
    | UpdateWebhookEndpointResponse500
    | UpdateWebhookEndpointResponse502
    | UpdateWebhookEndpointResponse503
    | WebhookEndpoint
    | None
):
    """Change a webhook endpoint

     Absent fields stay as they are. `status: "active"` re-enables a disabled
    endpoint; replay its failed events afterwards.

    Args:
        webhook_id (str):
        body (UpdateWebhookEndpointRequest): `PATCH /v1/webhooks/{id}` body: an absent field stays
            as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        UpdateWebhookEndpointResponse400 | UpdateWebhookEndpointResponse401 | UpdateWebhookEndpointResponse403 | UpdateWebhookEndpointResponse404 | UpdateWebhookEndpointResponse408 | UpdateWebhookEndpointResponse413 | UpdateWebhookEndpointResponse429 | UpdateWebhookEndpointResponse431 | UpdateWebhookEndpointResponse500 | UpdateWebhookEndpointResponse502 | UpdateWebhookEndpointResponse503 | WebhookEndpoint
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
            body=body,
        )
    ).parsed
