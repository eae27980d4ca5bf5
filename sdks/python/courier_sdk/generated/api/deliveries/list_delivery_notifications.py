from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_delivery_notifications_response_400 import (
    ListDeliveryNotificationsResponse400,
)
from ...models.list_delivery_notifications_response_401 import (
    ListDeliveryNotificationsResponse401,
)
from ...models.list_delivery_notifications_response_403 import (
    ListDeliveryNotificationsResponse403,
)
from ...models.list_delivery_notifications_response_404 import (
    ListDeliveryNotificationsResponse404,
)
from ...models.list_delivery_notifications_response_408 import (
    ListDeliveryNotificationsResponse408,
)
from ...models.list_delivery_notifications_response_413 import (
    ListDeliveryNotificationsResponse413,
)
from ...models.list_delivery_notifications_response_429 import (
    ListDeliveryNotificationsResponse429,
)
from ...models.list_delivery_notifications_response_431 import (
    ListDeliveryNotificationsResponse431,
)
from ...models.list_delivery_notifications_response_500 import (
    ListDeliveryNotificationsResponse500,
)
from ...models.list_delivery_notifications_response_502 import (
    ListDeliveryNotificationsResponse502,
)
from ...models.list_delivery_notifications_response_503 import (
    ListDeliveryNotificationsResponse503,
)
from ...models.notification_list import NotificationList
from ...types import Response


def _get_kwargs(
    delivery_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries/{delivery_id}/notifications".format(
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
    | None
):
    if response.status_code == 200:
        response_200 = NotificationList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListDeliveryNotificationsResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListDeliveryNotificationsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListDeliveryNotificationsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ListDeliveryNotificationsResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = ListDeliveryNotificationsResponse408.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ListDeliveryNotificationsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ListDeliveryNotificationsResponse429.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ListDeliveryNotificationsResponse431.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ListDeliveryNotificationsResponse500.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ListDeliveryNotificationsResponse502.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ListDeliveryNotificationsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
]:
    """List a delivery's notifications

     Every SMS and email to the delivery's recipient and sender, sent or
    waiting, oldest first, addresses masked. In test mode nothing is sent:
    the messages go to the workspace's test inbox, and show here as `sent`.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListDeliveryNotificationsResponse400 | ListDeliveryNotificationsResponse401 | ListDeliveryNotificationsResponse403 | ListDeliveryNotificationsResponse404 | ListDeliveryNotificationsResponse408 | ListDeliveryNotificationsResponse413 | ListDeliveryNotificationsResponse429 | ListDeliveryNotificationsResponse431 | ListDeliveryNotificationsResponse500 | ListDeliveryNotificationsResponse502 | ListDeliveryNotificationsResponse503 | NotificationList]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
    | None
):
    """List a delivery's notifications

     Every SMS and email to the delivery's recipient and sender, sent or
    waiting, oldest first, addresses masked. In test mode nothing is sent:
    the messages go to the workspace's test inbox, and show here as `sent`.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListDeliveryNotificationsResponse400 | ListDeliveryNotificationsResponse401 | ListDeliveryNotificationsResponse403 | ListDeliveryNotificationsResponse404 | ListDeliveryNotificationsResponse408 | ListDeliveryNotificationsResponse413 | ListDeliveryNotificationsResponse429 | ListDeliveryNotificationsResponse431 | ListDeliveryNotificationsResponse500 | ListDeliveryNotificationsResponse502 | ListDeliveryNotificationsResponse503 | NotificationList
    """

    return sync_detailed(
        delivery_id=delivery_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
]:
    """List a delivery's notifications

     Every SMS and email to the delivery's recipient and sender, sent or
    waiting, oldest first, addresses masked. In test mode nothing is sent:
    the messages go to the workspace's test inbox, and show here as `sent`.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListDeliveryNotificationsResponse400 | ListDeliveryNotificationsResponse401 | ListDeliveryNotificationsResponse403 | ListDeliveryNotificationsResponse404 | ListDeliveryNotificationsResponse408 | ListDeliveryNotificationsResponse413 | ListDeliveryNotificationsResponse429 | ListDeliveryNotificationsResponse431 | ListDeliveryNotificationsResponse500 | ListDeliveryNotificationsResponse502 | ListDeliveryNotificationsResponse503 | NotificationList]
    """

    kwargs = _get_kwargs(
        delivery_id=delivery_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    ListDeliveryNotificationsResponse400
    | ListDeliveryNotificationsResponse401
    | ListDeliveryNotificationsResponse403
    | ListDeliveryNotificationsResponse404
    | ListDeliveryNotificationsResponse408
    | ListDeliveryNotificationsResponse413
    | ListDeliveryNotificationsResponse429
    | ListDeliveryNotificationsResponse431
    | ListDeliveryNotificationsResponse500
    | ListDeliveryNotificationsResponse502
    | ListDeliveryNotificationsResponse503
    | NotificationList
    | None
):
    """List a delivery's notifications

     Every SMS and email to the delivery's recipient and sender, sent or
    waiting, oldest first, addresses masked. In test mode nothing is sent:
    the messages go to the workspace's test inbox, and show here as `sent`.

    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListDeliveryNotificationsResponse400 | ListDeliveryNotificationsResponse401 | ListDeliveryNotificationsResponse403 | ListDeliveryNotificationsResponse404 | ListDeliveryNotificationsResponse408 | ListDeliveryNotificationsResponse413 | ListDeliveryNotificationsResponse429 | ListDeliveryNotificationsResponse431 | ListDeliveryNotificationsResponse500 | ListDeliveryNotificationsResponse502 | ListDeliveryNotificationsResponse503 | NotificationList
    """

    return (
        await asyncio_detailed(
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed
