"""The contract's retry guidance (section 7) as an httpx transport."""

from __future__ import annotations

import email.utils
import re
import time
import uuid
from typing import Callable

import httpx

from .generated import AuthenticatedClient
from .generated.api.deliveries import create_delivery as create_delivery_operation
from .generated.api.deliveries import redeliver_delivery as redeliver_delivery_operation
from .generated.api.deliveries import update_delivery as update_delivery_operation
from .generated.models import CreateDeliveryRequest, RedeliverDeliveryRequest, UpdateDeliveryRequest
from .generated.types import UNSET

# The creates that take an Idempotency-Key: one is made for each call
# without one, and every retry of that call sends the same. A delivery's
# change (PATCH /v1/deliveries/{id}) and redelivery take one too.
CREATE_PATHS = ("/v1/deliveries", "/v1/fleet/orders")
REDELIVER_PATH = re.compile(r"/v1/deliveries/[^/]+/redeliver$")
CHANGE_PATH = re.compile(r"/v1/(deliveries|fleet/orders)/[^/]+$")
# A batch of creates carries a key in each item: safe to send again as it is.
BATCH_PATH = "/v1/deliveries/batch"
# Requests that are safe to send again after a network error or a 5xx.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RETRIED_STATUSES = frozenset({500, 502, 503, 504})


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def retry_after_seconds(response: httpx.Response) -> float | None:
    """Seconds of a Retry-After header (or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class RetryingTransport(httpx.BaseTransport):
    """Creates get an Idempotency-Key, reused on every retry; network errors
    and 5xx are retried with backoff for creates and safe methods; a 429
    waits Retry-After."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        attempts: int = 4,
        backoff: float = 0.5,
        max_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._inner = inner or httpx.HTTPTransport()
        self._attempts = max(1, attempts)
        self._backoff = backoff
        self._max_wait = max_wait
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        guarded = (
            request.method == "POST" and (path.endswith(CREATE_PATHS) or REDELIVER_PATH.search(path) is not None)
        ) or (
            request.method == "PATCH" and CHANGE_PATH.search(path) is not None
        )
        if guarded and "Idempotency-Key" not in request.headers:
            request.headers["Idempotency-Key"] = new_idempotency_key()
        repeatable = (
            request.method in SAFE_METHODS
            or "Idempotency-Key" in request.headers
            or (request.method == "POST" and path.endswith(BATCH_PATH))
        )
        request.read()  # the body is sent again on a retry
        attempt = 1
        while True:
            last = attempt >= self._attempts
            backoff = self._backoff * 2 ** (attempt - 1)
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError:
                if last or not repeatable:
                    raise
                self._wait(backoff)
                attempt += 1
                continue
            # A 429 was not carried out, so any request may be sent again.
            if response.status_code == 429 and not last:
                response.close()
                wait = retry_after_seconds(response)
                self._wait(backoff if wait is None else wait)
            elif response.status_code in RETRIED_STATUSES and repeatable and not last:
                response.close()
                self._wait(backoff)
            else:
                return response
            attempt += 1

    def _wait(self, seconds: float) -> None:
        self._sleep(min(seconds, self._max_wait))

    def close(self) -> None:
        self._inner.close()


def create_delivery(client: AuthenticatedClient, body: CreateDeliveryRequest, idempotency_key: str | None = None):
    """POST /v1/deliveries with an Idempotency-Key made unless given (the
    transport sends the same on every retry); the generated detailed answer."""
    return create_delivery_operation.sync_detailed(
        client=client, body=body, idempotency_key=idempotency_key or new_idempotency_key()
    )


def update_delivery(
    client: AuthenticatedClient,
    delivery_id: str,
    body: UpdateDeliveryRequest,
    idempotency_key: str | None = None,
    if_match: str | None = None,
):
    """PATCH /v1/deliveries/{delivery_id}: changes notes, contacts,
    instructions or the dropoff window, with an Idempotency-Key made unless
    given; `if_match`, the delivery's `updated_at` as last read, refuses a
    change of a delivery changed since (412 precondition_failed)."""
    return update_delivery_operation.sync_detailed(
        delivery_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key or new_idempotency_key(),
        if_match=UNSET if if_match is None else if_match,
    )


def redeliver_delivery(
    client: AuthenticatedClient,
    delivery_id: str,
    body: RedeliverDeliveryRequest | None = None,
    idempotency_key: str | None = None,
):
    """POST /v1/deliveries/{delivery_id}/redeliver: books a cancelled
    delivery again as a new one, with an Idempotency-Key made unless given."""
    return redeliver_delivery_operation.sync_detailed(
        delivery_id,
        client=client,
        body=UNSET if body is None else body,
        idempotency_key=idempotency_key or new_idempotency_key(),
    )


def client(
    base_url: str, api_key: str, *, attempts: int = 4, timeout: float = 30.0, **retry: float
) -> AuthenticatedClient:
    """A generated client of /v1 (`base_url` is the service's origin; paths
    carry /v1) with the key and the retry guidance."""
    return AuthenticatedClient(
        base_url=base_url.rstrip("/"),
        token=api_key,
        auth_header_name="x-api-key",
        prefix="",
        timeout=httpx.Timeout(timeout),
        httpx_args={"transport": RetryingTransport(attempts=attempts, **retry)},
    )
