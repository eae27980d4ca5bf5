from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_webhook_endpoint_request import CreateWebhookEndpointRequest
from ...models.create_webhook_endpoint_response_400 import (
    CreateWebhookEndpointResponse400,
)
from ...models.create_webhook_endpoint_response_401 import (
    CreateWebhookEndpointResponse401,
)
from ...models.create_webhook_endpoint_response_403 import (
    CreateWebhookEndpointResponse403,
)
from ...models.create_webhook_endpoint_response_408 import (
    CreateWebhookEndpointResponse408,
)
from ...models.create_webhook_endpoint_response_409 import (
    CreateWebhookEndpointResponse409,
)
from ...models.create_webhook_endpoint_response_413 import (
    CreateWebhookEndpointResponse413,
)
from ...models.create_webhook_endpoint_response_429 import (
    CreateWebhookEndpointResponse429,
)
from ...models.create_webhook_endpoint_response_431 import (
    CreateWebhookEndpointResponse431,
)
from ...models.create_webhook_endpoint_response_500 import (
    CreateWebhookEndpointResponse500,
)
from ...models.create_webhook_endpoint_response_502 import (
    CreateWebhookEndpointResponse502,
)
from ...models.create_webhook_endpoint_response_503 import (
    CreateWebhookEndpointResponse503,
)
from ...models.created_webhook_endpoint import CreatedWebhookEndpoint
from ...types import Response


def _get_kwargs(
    *,
    body: CreateWebhookEndpointRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
    | None
):
    if response.status_code == 201:
        response_201 = CreatedWebhookEndpoint.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = CreateWebhookEndpointResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateWebhookEndpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateWebhookEndpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = CreateWebhookEndpointResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = CreateWebhookEndpointResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateWebhookEndpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = CreateWebhookEndpointResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = CreateWebhookEndpointResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = CreateWebhookEndpointResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = CreateWebhookEndpointResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = CreateWebhookEndpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
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
    body: CreateWebhookEndpointRequest,
) -> Response[
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
]:
    """Register a webhook endpoint

     The answer carries the signing `secret`, shown only here. An endpoint
    registered with a test key receives events of test deliveries only.

    Args:
        body (CreateWebhookEndpointRequest): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateWebhookEndpointResponse400 | CreateWebhookEndpointResponse401 | CreateWebhookEndpointResponse403 | CreateWebhookEndpointResponse408 | CreateWebhookEndpointResponse409 | CreateWebhookEndpointResponse413 | CreateWebhookEndpointResponse429 | CreateWebhookEndpointResponse431 | CreateWebhookEndpointResponse500 | CreateWebhookEndpointResponse502 | CreateWebhookEndpointResponse503 | CreatedWebhookEndpoint]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookEndpointRequest,
) -> (
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
    | None
):
    """Register a webhook endpoint

     The answer carries the signing `secret`, shown only here. An endpoint
    registered with a test key receives events of test deliveries only.

    Args:
        body (CreateWebhookEndpointRequest): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateWebhookEndpointResponse400 | CreateWebhookEndpointResponse401 | CreateWebhookEndpointResponse403 | CreateWebhookEndpointResponse408 | CreateWebhookEndpointResponse409 | CreateWebhookEndpointResponse413 | CreateWebhookEndpointResponse429 | CreateWebhookEndpointResponse431 | CreateWebhookEndpointResponse500 | CreateWebhookEndpointResponse502 | CreateWebhookEndpointResponse503 | CreatedWebhookEndpoint
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookEndpointRequest,
) -> Response[
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
]:
    """Register a webhook endpoint

     The answer carries the signing `secret`, shown only here. An endpoint
    registered with a test key receives events of test deliveries only.

    Args:
        body (CreateWebhookEndpointRequest): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateWebhookEndpointResponse400 | CreateWebhookEndpointResponse401 | CreateWebhookEndpointResponse403 | CreateWebhookEndpointResponse408 | CreateWebhookEndpointResponse409 | CreateWebhookEndpointResponse413 | CreateWebhookEndpointResponse429 | CreateWebhookEndpointResponse431 | CreateWebhookEndpointResponse500 | CreateWebhookEndpointResponse502 | CreateWebhookEndpointResponse503 | CreatedWebhookEndpoint]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookEndpointRequest,
) -> (
    CreateWebhookEndpointResponse400
    | CreateWebhookEndpointResponse401
    | CreateWebhookEndpointResponse403
    | CreateWebhookEndpointResponse408
    | CreateWebhookEndpointResponse409
    | CreateWebhookEndpointResponse413
    | CreateWebhookEndpointResponse429
    | CreateWebhookEndpointResponse431
    | CreateWebhookEndpointResponse500
    | CreateWebhookEndpointResponse502
    | CreateWebhookEndpointResponse503
    | CreatedWebhookEndpoint
    | None
):
    """Register a webhook endpoint

     The answer carries the signing `secret`, shown only here. An endpoint
    registered with a test key receives events of test deliveries only.

    Args:
        body (CreateWebhookEndpointRequest): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateWebhookEndpointResponse400 | CreateWebhookEndpointResponse401 | CreateWebhookEndpointResponse403 | CreateWebhookEndpointResponse408 | CreateWebhookEndpointResponse409 | CreateWebhookEndpointResponse413 | CreateWebhookEndpointResponse429 | CreateWebhookEndpointResponse431 | CreateWebhookEndpointResponse500 | CreateWebhookEndpointResponse502 | CreateWebhookEndpointResponse503 | CreatedWebhookEndpoint
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
