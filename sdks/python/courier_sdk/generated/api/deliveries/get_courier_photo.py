from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_courier_photo_response_400 import GetCourierPhotoResponse400
from ...models.get_courier_photo_response_401 import GetCourierPhotoResponse401
from ...models.get_courier_photo_response_404 import GetCourierPhotoResponse404
from ...models.get_courier_photo_response_408 import GetCourierPhotoResponse408
from ...models.get_courier_photo_response_413 import GetCourierPhotoResponse413
from ...models.get_courier_photo_response_431 import GetCourierPhotoResponse431
from ...models.get_courier_photo_response_500 import GetCourierPhotoResponse500
from ...models.get_courier_photo_response_502 import GetCourierPhotoResponse502
from ...models.get_courier_photo_response_503 import GetCourierPhotoResponse503
from ...types import UNSET, Response


def _get_kwargs(
    courier_id: str,
    *,
    signature: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["signature"] = signature

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/courier-photos/{courier_id}".format(
            courier_id=quote(str(courier_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
    | None
):
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = GetCourierPhotoResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetCourierPhotoResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = GetCourierPhotoResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = GetCourierPhotoResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = GetCourierPhotoResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 431:
        response_431 = GetCourierPhotoResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = GetCourierPhotoResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = GetCourierPhotoResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = GetCourierPhotoResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    courier_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature: str,
) -> Response[
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
]:
    """Get a courier's photo

     The target of a delivery's `courier.photo_url`: the courier's photo
    (JPEG or PNG). Needs no API key; the signed link is the capability. It
    does not expire, and stops working when the courier's photo is replaced.

    Args:
        courier_id (str):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | GetCourierPhotoResponse400 | GetCourierPhotoResponse401 | GetCourierPhotoResponse404 | GetCourierPhotoResponse408 | GetCourierPhotoResponse413 | GetCourierPhotoResponse431 | GetCourierPhotoResponse500 | GetCourierPhotoResponse502 | GetCourierPhotoResponse503]
    """

    kwargs = _get_kwargs(
        courier_id=courier_id,
        signature=signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    courier_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature: str,
) -> (
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
    | None
):
    """Get a courier's photo

     The target of a delivery's `courier.photo_url`: the courier's photo
    (JPEG or PNG). Needs no API key; the signed link is the capability. It
    does not expire, and stops working when the courier's photo is replaced.

    Args:
        courier_id (str):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | GetCourierPhotoResponse400 | GetCourierPhotoResponse401 | GetCourierPhotoResponse404 | GetCourierPhotoResponse408 | GetCourierPhotoResponse413 | GetCourierPhotoResponse431 | GetCourierPhotoResponse500 | GetCourierPhotoResponse502 | GetCourierPhotoResponse503
    """

    return sync_detailed(
        courier_id=courier_id,
        client=client,
        signature=signature,
    ).parsed


async def asyncio_detailed(
    courier_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature: str,
) -> Response[
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
]:
    """Get a courier's photo

     The target of a delivery's `courier.photo_url`: the courier's photo
    (JPEG or PNG). Needs no API key; the signed link is the capability. It
    does not expire, and stops working when the courier's photo is replaced.

    Args:
        courier_id (str):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | GetCourierPhotoResponse400 | GetCourierPhotoResponse401 | GetCourierPhotoResponse404 | GetCourierPhotoResponse408 | GetCourierPhotoResponse413 | GetCourierPhotoResponse431 | GetCourierPhotoResponse500 | GetCourierPhotoResponse502 | GetCourierPhotoResponse503]
    """

    kwargs = _get_kwargs(
        courier_id=courier_id,
        signature=signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    courier_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature: str,
) -> (
    Any
    | GetCourierPhotoResponse400
    | GetCourierPhotoResponse401
    | GetCourierPhotoResponse404
    | GetCourierPhotoResponse408
    | GetCourierPhotoResponse413
    | GetCourierPhotoResponse431
    | GetCourierPhotoResponse500
    | GetCourierPhotoResponse502
    | GetCourierPhotoResponse503
    | None
):
    """Get a courier's photo

     The target of a delivery's `courier.photo_url`: the courier's photo
    (JPEG or PNG). Needs no API key; the signed link is the capability. It
    does not expire, and stops working when the courier's photo is replaced.

    Args:
        courier_id (str):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | GetCourierPhotoResponse400 | GetCourierPhotoResponse401 | GetCourierPhotoResponse404 | GetCourierPhotoResponse408 | GetCourierPhotoResponse413 | GetCourierPhotoResponse431 | GetCourierPhotoResponse500 | GetCourierPhotoResponse502 | GetCourierPhotoResponse503
    """

    return (
        await asyncio_detailed(
            courier_id=courier_id,
            client=client,
            signature=signature,
        )
    ).parsed
