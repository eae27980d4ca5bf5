from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_vehicle_types_response_400 import ListVehicleTypesResponse400
from ...models.list_vehicle_types_response_401 import ListVehicleTypesResponse401
from ...models.list_vehicle_types_response_403 import ListVehicleTypesResponse403
from ...models.list_vehicle_types_response_408 import ListVehicleTypesResponse408
from ...models.list_vehicle_types_response_413 import ListVehicleTypesResponse413
from ...models.list_vehicle_types_response_429 import ListVehicleTypesResponse429
from ...models.list_vehicle_types_response_431 import ListVehicleTypesResponse431
from ...models.list_vehicle_types_response_500 import ListVehicleTypesResponse500
from ...models.list_vehicle_types_response_502 import ListVehicleTypesResponse502
from ...models.list_vehicle_types_response_503 import ListVehicleTypesResponse503
from ...models.vehicle_type_list import VehicleTypeList
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/vehicle-types",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
    | None
):
    if response.status_code == 200:
        response_200 = VehicleTypeList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListVehicleTypesResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListVehicleTypesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListVehicleTypesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ListVehicleTypesResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ListVehicleTypesResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ListVehicleTypesResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ListVehicleTypesResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ListVehicleTypesResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ListVehicleTypesResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ListVehicleTypesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
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
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
]:
    """List vehicle types

     The vehicle types, their cargo limits and the extras each offers; the ids
    are the values of `vehicle_type_id`. Works with every valid key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListVehicleTypesResponse400 | ListVehicleTypesResponse401 | ListVehicleTypesResponse403 | ListVehicleTypesResponse408 | ListVehicleTypesResponse413 | ListVehicleTypesResponse429 | ListVehicleTypesResponse431 | ListVehicleTypesResponse500 | ListVehicleTypesResponse502 | ListVehicleTypesResponse503 | VehicleTypeList]
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
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
    | None
):
    """List vehicle types

     The vehicle types, their cargo limits and the extras each offers; the ids
    are the values of `vehicle_type_id`. Works with every valid key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListVehicleTypesResponse400 | ListVehicleTypesResponse401 | ListVehicleTypesResponse403 | ListVehicleTypesResponse408 | ListVehicleTypesResponse413 | ListVehicleTypesResponse429 | ListVehicleTypesResponse431 | ListVehicleTypesResponse500 | ListVehicleTypesResponse502 | ListVehicleTypesResponse503 | VehicleTypeList
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
]:
    """List vehicle types

     The vehicle types, their cargo limits and the extras each offers; the ids
    are the values of `vehicle_type_id`. Works with every valid key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListVehicleTypesResponse400 | ListVehicleTypesResponse401 | ListVehicleTypesResponse403 | ListVehicleTypesResponse408 | ListVehicleTypesResponse413 | ListVehicleTypesResponse429 | ListVehicleTypesResponse431 | ListVehicleTypesResponse500 | ListVehicleTypesResponse502 | ListVehicleTypesResponse503 | VehicleTypeList]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> (
    ListVehicleTypesResponse400
    | ListVehicleTypesResponse401
    | ListVehicleTypesResponse403
    | ListVehicleTypesResponse408
    | ListVehicleTypesResponse413
    | ListVehicleTypesResponse429
    | ListVehicleTypesResponse431
    | ListVehicleTypesResponse500
    | ListVehicleTypesResponse502
    | ListVehicleTypesResponse503
    | VehicleTypeList
    | None
):
    """List vehicle types

     The vehicle types, their cargo limits and the extras each offers; the ids
    are the values of `vehicle_type_id`. Works with every valid key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListVehicleTypesResponse400 | ListVehicleTypesResponse401 | ListVehicleTypesResponse403 | ListVehicleTypesResponse408 | ListVehicleTypesResponse413 | ListVehicleTypesResponse429 | ListVehicleTypesResponse431 | ListVehicleTypesResponse500 | ListVehicleTypesResponse502 | ListVehicleTypesResponse503 | VehicleTypeList
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
