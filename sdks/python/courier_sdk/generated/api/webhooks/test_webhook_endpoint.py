from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.empty_body import EmptyBody
from ...models.test_webhook_endpoint_response_400 import TestWebhookEndpointResponse400
from ...models.test_webhook_endpoint_response_401 import TestWebhookEndpointResponse401
from ...models.test_webhook_endpoint_response_403 import TestWebhookEndpointResponse403
from ...models.test_webhook_endpoint_response_404 import TestWebhookEndpointResponse404
from ...models.test_webhook_endpoint_response_408 import TestWebhookEndpointResponse408
from ...models.test_webhook_endpoint_response_409 import TestWebhookEndpointResponse409
from ...models.test_webhook_endpoint_response_413 import TestWebhookEndpointResponse413
from ...models.test_webhook_endpoint_response_429 import TestWebhookEndpointResponse429
from ...models.test_webhook_endpoint_response_431 import TestWebhookEndpointResponse431
from ...models.test_webhook_endpoint_response_500 import TestWebhookEndpointResponse500
from ...models.test_webhook_endpoint_response_502 import TestWebhookEndpointResponse502
from ...models.test_webhook_endpoint_response_503 import TestWebhookEndpointResponse503
from ...models.webhook_test_result import WebhookTestResult
from ...types import UNSET, Response, Unset


def _get_kwargs(
    webhook_id: str,
    *,
    body: EmptyBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks/{webhook_id}/test".format(
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
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
    | None
):
    if response.status_code == 200:
        response_200 = WebhookTestResult.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = TestWebhookEndpointResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = TestWebhookEndpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = TestWebhookEndpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = TestWebhookEndpointResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = TestWebhookEndpointResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = TestWebhookEndpointResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = TestWebhookEndpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = TestWebhookEndpointResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = TestWebhookEndpointResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = TestWebhookEndpointResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = TestWebhookEndpointResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = TestWebhookEndpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
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
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
]:
    """Send a sample event

     Sends one signed `delivery.status_updated` event with `data.test` true and
    reports the receiver's answer, whatever it was. The sample is not stored,
    retried or listed.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[TestWebhookEndpointResponse400 | TestWebhookEndpointResponse401 | TestWebhookEndpointResponse403 | TestWebhookEndpointResponse404 | TestWebhookEndpointResponse408 | TestWebhookEndpointResponse409 | TestWebhookEndpointResponse413 | TestWebhookEndpointResponse429 | TestWebhookEndpointResponse431 | TestWebhookEndpointResponse500 | TestWebhookEndpointResponse502 | TestWebhookEndpointResponse503 | WebhookTestResult]
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
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
    | None
):
    """Send a sample event

     Sends one signed `delivery.status_updated` event with `data.test` true and
    reports the receiver's answer, whatever it was. The sample is not stored,
    retried or listed.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        TestWebhookEndpointResponse400 | TestWebhookEndpointResponse401 | TestWebhookEndpointResponse403 | TestWebhookEndpointResponse404 | TestWebhookEndpointResponse408 | TestWebhookEndpointResponse409 | TestWebhookEndpointResponse413 | TestWebhookEndpointResponse429 | TestWebhookEndpointResponse431 | TestWebhookEndpointResponse500 | TestWebhookEndpointResponse502 | TestWebhookEndpointResponse503 | WebhookTestResult
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
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
]:
    """Send a sample event

     Sends one signed `delivery.status_updated` event with `data.test` true and
    reports the receiver's answer, whatever it was. The sample is not stored,
    retried or listed.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[TestWebhookEndpointResponse400 | TestWebhookEndpointResponse401 | TestWebhookEndpointResponse403 | TestWebhookEndpointResponse404 | TestWebhookEndpointResponse408 | TestWebhookEndpointResponse409 | TestWebhookEndpointResponse413 | TestWebhookEndpointResponse429 | TestWebhookEndpointResponse431 | TestWebhookEndpointResponse500 | TestWebhookEndpointResponse502 | TestWebhookEndpointResponse503 | WebhookTestResult]
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
    TestWebhookEndpointResponse400
    | TestWebhookEndpointResponse401
    | TestWebhookEndpointResponse403
    | TestWebhookEndpointResponse404
    | TestWebhookEndpointResponse408
    | TestWebhookEndpointResponse409
    | TestWebhookEndpointResponse413
    | TestWebhookEndpointResponse429
    | TestWebhookEndpointResponse431
    | TestWebhookEndpointResponse500
    | TestWebhookEndpointResponse502
    | TestWebhookEndpointResponse503
    | WebhookTestResult
    | None
):
    """Send a sample event

     Sends one signed `delivery.status_updated` event with `data.test` true and
    reports the receiver's answer, whatever it was. The sample is not stored,
    retried or listed.

    Args:
        webhook_id (str):
        body (EmptyBody | Unset): A body that must be empty or `{}` (`test`, `replay`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        TestWebhookEndpointResponse400 | TestWebhookEndpointResponse401 | TestWebhookEndpointResponse403 | TestWebhookEndpointResponse404 | TestWebhookEndpointResponse408 | TestWebhookEndpointResponse409 | TestWebhookEndpointResponse413 | TestWebhookEndpointResponse429 | TestWebhookEndpointResponse431 | TestWebhookEndpointResponse500 | TestWebhookEndpointResponse502 | TestWebhookEndpointResponse503 | WebhookTestResult
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
            body=body,
        )
    ).parsed
