"""Webhook verification per Standard Webhooks (the `standardwebhooks` package)."""

from __future__ import annotations

from typing import Any, Mapping

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

__all__ = ["WebhookVerificationError", "verify_webhook"]


def verify_webhook(secret: str, payload: bytes | str, headers: Mapping[str, str]) -> Any:
    """Verifies a webhook with the endpoint's `whsec_…` secret and returns its
    event (parsed JSON); raises `WebhookVerificationError` when the signature,
    id or timestamp do not hold. `payload` is the raw body."""
    return Webhook(secret).verify(payload, {key.lower(): value for key, value in headers.items()})
