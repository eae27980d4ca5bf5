from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch_create_deliveries_request import BatchCreateDeliveriesRequest
from ...models.batch_create_deliveries_response import BatchCreateDeliveriesResponse
from ...models.batch_create_deliveries_response_400 import (
    BatchCreateDeliveriesResponse400,
)
from ...models.batch_create_deliveries_response_401 import (
    BatchCreateDeliveriesResponse401,
)
from ...models.batch_create_deliveries_response_403 import (
    BatchCreateDeliveriesResponse403,
)
from ...models.batch_create_deliveries_response_408 import (
    BatchCreateDeliveriesResponse408,
)
from ...models.batch_create_deliveries_response_413 import (
    BatchCreateDeliveriesResponse413,
)
from ...models.batch_create_deliveries_response_429 import (
    BatchCreateDeliveriesResponse429,
)
from ...models.batch_create_deliveries_response_431 import (
    BatchCreateDeliveriesResponse431,
)
from ...models.batch_create_deliveries_response_500 import (
    BatchCreateDeliveriesResponse500,
)
from ...models.batch_create_deliveries_response_502 import (
    BatchCreateDeliveriesResponse502,
)
from ...models.batch_create_deliveries_response_503 import (
    BatchCreateDeliveriesResponse503,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: BatchCreateDeliveriesRequest,
    validate_only: bool | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["validate_only"] = validate_only

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deliveries/batch",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
    | None
):
    if response.status_code == 200:
        response_200 = BatchCreateDeliveriesResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = BatchCreateDeliveriesResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = BatchCreateDeliveriesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = BatchCreateDeliveriesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = BatchCreateDeliveriesResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = BatchCreateDeliveriesResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = BatchCreateDeliveriesResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = BatchCreateDeliveriesResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = BatchCreateDeliveriesResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = BatchCreateDeliveriesResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = BatchCreateDeliveriesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
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
    body: BatchCreateDeliveriesRequest,
    validate_only: bool | Unset = UNSET,
) -> Response[
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
]:
    """Create deliveries in bulk

     Books up to 100 deliveries in one call, each with its own
    `idempotency_key`, in order; each is created or refused on its own, and
    the answer lists each one's delivery or error (its `param` starting with
    `deliveries.<index>`). The rate limit counts each delivery. Sent again,
    a batch answers each delivery from its key.

    Args:
        validate_only (bool | Unset):
        body (BatchCreateDeliveriesRequest): `POST /v1/deliveries/batch` body (docs/guide.md
            "Create in bulk").

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchCreateDeliveriesResponse | BatchCreateDeliveriesResponse400 | BatchCreateDeliveriesResponse401 | BatchCreateDeliveriesResponse403 | BatchCreateDeliveriesResponse408 | BatchCreateDeliveriesResponse413 | BatchCreateDeliveriesResponse429 | BatchCreateDeliveriesResponse431 | BatchCreateDeliveriesResponse500 | BatchCreateDeliveriesResponse502 | BatchCreateDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        body=body,
        validate_only=validate_only,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BatchCreateDeliveriesRequest,
    validate_only: bool | Unset = UNSET,
) -> (
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
    | None
):
    """Create deliveries in bulk

     Books up to 100 deliveries in one call, each with its own
    `idempotency_key`, in order; each is created or refused on its own, and
    the answer lists each one's delivery or error (its `param` starting with
    `deliveries.<index>`). The rate limit counts each delivery. Sent again,
    a batch answers each delivery from its key.

    Args:
        validate_only (bool | Unset):
        body (BatchCreateDeliveriesRequest): `POST /v1/deliveries/batch` body (docs/guide.md
            "Create in bulk").

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchCreateDeliveriesResponse | BatchCreateDeliveriesResponse400 | BatchCreateDeliveriesResponse401 | BatchCreateDeliveriesResponse403 | BatchCreateDeliveriesResponse408 | BatchCreateDeliveriesResponse413 | BatchCreateDeliveriesResponse429 | BatchCreateDeliveriesResponse431 | BatchCreateDeliveriesResponse500 | BatchCreateDeliveriesResponse502 | BatchCreateDeliveriesResponse503
    """

    return sync_detailed(
        client=client,
        body=body,
        validate_only=validate_only,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BatchCreateDeliveriesRequest,
    validate_only: bool | Unset = UNSET,
) -> Response[
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
]:
    """Create deliveries in bulk

     Books up to 100 deliveries in one call, each with its own
    `idempotency_key`, in order; each is created or refused on its own, and
    the answer lists each one's delivery or error (its `param` starting with
    `deliveries.<index>`). The rate limit counts each delivery. Sent again,
    a batch answers each delivery from its key.

    Args:
        validate_only (bool | Unset):
        body (BatchCreateDeliveriesRequest): `POST /v1/deliveries/batch` body (docs/guide.md
            "Create in bulk").

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchCreateDeliveriesResponse | BatchCreateDeliveriesResponse400 | BatchCreateDeliveriesResponse401 | BatchCreateDeliveriesResponse403 | BatchCreateDeliveriesResponse408 | BatchCreateDeliveriesResponse413 | BatchCreateDeliveriesResponse429 | BatchCreateDeliveriesResponse431 | BatchCreateDeliveriesResponse500 | BatchCreateDeliveriesResponse502 | BatchCreateDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        body=body,
        validate_only=validate_only,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BatchCreateDeliveriesRequest,
    validate_only: bool | Unset = UNSET,
) -> (
    BatchCreateDeliveriesResponse
    | BatchCreateDeliveriesResponse400
    | BatchCreateDeliveriesResponse401
    | BatchCreateDeliveriesResponse403
    | BatchCreateDeliveriesResponse408
    | BatchCreateDeliveriesResponse413
    | BatchCreateDeliveriesResponse429
    | BatchCreateDeliveriesResponse431
    | BatchCreateDeliveriesResponse500
    | BatchCreateDeliveriesResponse502
    | BatchCreateDeliveriesResponse503
    | None
):
    """Create deliveries in bulk

     Books up to 100 deliveries in one call, each with its own
    `idempotency_key`, in order; each is created or refused on its own, and
    the answer lists each one's delivery or error (its `param` starting with
    `deliveries.<index>`). The rate limit counts each delivery. Sent again,
    a batch answers each delivery from its key.

    Args:
        validate_only (bool | Unset):
        body (BatchCreateDeliveriesRequest): `POST /v1/deliveries/batch` body (docs/guide.md
            "Create in bulk").

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchCreateDeliveriesResponse | BatchCreateDeliveriesResponse400 | BatchCreateDeliveriesResponse401 | BatchCreateDeliveriesResponse403 | BatchCreateDeliveriesResponse408 | BatchCreateDeliveriesResponse413 | BatchCreateDeliveriesResponse429 | BatchCreateDeliveriesResponse431 | BatchCreateDeliveriesResponse500 | BatchCreateDeliveriesResponse502 | BatchCreateDeliveriesResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            validate_only=validate_only,
        )
    ).parsed
