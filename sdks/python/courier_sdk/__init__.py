"""Typed client of the courier public API /v1.

`courier_sdk.generated` is generated from the OpenAPI document by
openapi-python-client (sdks/check.sh --write); this package adds what the
generator lacks: the contract's retry guidance (idempotency keys for creates,
changes of deliveries and fleet orders, redeliveries, reused on retries of network errors and 5xx; Retry-After on 429) and webhook
verification per Standard Webhooks.
"""

from .client import (
    RetryingTransport,
    client,
    create_delivery,
    new_idempotency_key,
    redeliver_delivery,
    update_delivery,
)
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "RetryingTransport",
    "WebhookVerificationError",
    "client",
    "create_delivery",
    "new_idempotency_key",
    "redeliver_delivery",
    "update_delivery",
    "verify_webhook",
]
