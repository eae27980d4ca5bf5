from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_quote_request import CreateQuoteRequest
from ...models.create_quote_response_400 import CreateQuoteResponse400
from ...models.create_quote_response_401 import CreateQuoteResponse401
from ...models.create_quote_response_403 import CreateQuoteResponse403
from ...models.create_quote_response_408 import CreateQuoteResponse408
from ...models.create_quote_response_413 import CreateQuoteResponse413
from ...models.create_quote_response_429 import CreateQuoteResponse429
from ...models.create_quote_response_431 import CreateQuoteResponse431
from ...models.create_quote_response_500 import CreateQuoteResponse500
from ...models.create_quote_response_502 import CreateQuoteResponse502
from ...models.create_quote_response_503 import CreateQuoteResponse503
from ...models.quote import Quote
from ...types import Response


def _get_kwargs(
    *,
    body: CreateQuoteRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/quotes",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
    | None
):
    if response.status_code == 201:
        response_201 = Quote.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = CreateQuoteResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateQuoteResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateQuoteResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = CreateQuoteResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = CreateQuoteResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = CreateQuoteResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = CreateQuoteResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = CreateQuoteResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = CreateQuoteResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = CreateQuoteResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
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
    body: CreateQuoteRequest,
) -> Response[
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
]:
    """Create a quote

     Prices a route for a vehicle type. The quote is valid for 5 minutes in the
    key's mode; pass its `id` as `quote_id` to lock the price.

    Args:
        body (CreateQuoteRequest): `POST /v1/quotes` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateQuoteResponse400 | CreateQuoteResponse401 | CreateQuoteResponse403 | CreateQuoteResponse408 | CreateQuoteResponse413 | CreateQuoteResponse429 | CreateQuoteResponse431 | CreateQuoteResponse500 | CreateQuoteResponse502 | CreateQuoteResponse503 | Quote]
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
    body: CreateQuoteRequest,
) -> (
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
    | None
):
    """Create a quote

     Prices a route for a vehicle type. The quote is valid for 5 minutes in the
    key's mode; pass its `id` as `quote_id` to lock the price.

    Args:
        body (CreateQuoteRequest): `POST /v1/quotes` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateQuoteResponse400 | CreateQuoteResponse401 | CreateQuoteResponse403 | CreateQuoteResponse408 | CreateQuoteResponse413 | CreateQuoteResponse429 | CreateQuoteResponse431 | CreateQuoteResponse500 | CreateQuoteResponse502 | CreateQuoteResponse503 | Quote
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateQuoteRequest,
) -> Response[
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
]:
    """Create a quote

     Prices a route for a vehicle type. The quote is valid for 5 minutes in the
    key's mode; pass its `id` as `quote_id` to lock the price.

    Args:
        body (CreateQuoteRequest): `POST /v1/quotes` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateQuoteResponse400 | CreateQuoteResponse401 | CreateQuoteResponse403 | CreateQuoteResponse408 | CreateQuoteResponse413 | CreateQuoteResponse429 | CreateQuoteResponse431 | CreateQuoteResponse500 | CreateQuoteResponse502 | CreateQuoteResponse503 | Quote]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateQuoteRequest,
) -> (
    CreateQuoteResponse400
    | CreateQuoteResponse401
    | CreateQuoteResponse403
    | CreateQuoteResponse408
    | CreateQuoteResponse413
    | CreateQuoteResponse429
    | CreateQuoteResponse431
    | CreateQuoteResponse500
    | CreateQuoteResponse502
    | CreateQuoteResponse503
    | Quote
    | None
):
    """Create a quote

     Prices a route for a vehicle type. The quote is valid for 5 minutes in the
    key's mode; pass its `id` as `quote_id` to lock the price.

    Args:
        body (CreateQuoteRequest): `POST /v1/quotes` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateQuoteResponse400 | CreateQuoteResponse401 | CreateQuoteResponse403 | CreateQuoteResponse408 | CreateQuoteResponse413 | CreateQuoteResponse429 | CreateQuoteResponse431 | CreateQuoteResponse500 | CreateQuoteResponse502 | CreateQuoteResponse503 | Quote
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
