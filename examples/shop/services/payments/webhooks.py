"""PSP webhooks. The signature is computed over the raw request bytes, which is why
the gateway forwards bodies unchanged: verify before parsing, never after."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time

TOLERANCE_SECONDS = 300


class WebhookError(Exception):
    pass


def webhook_secret() -> bytes:
    """From the environment, set by the deploy platform; never committed."""
    value = os.environ.get("PSP_WEBHOOK_SECRET")
    if not value:
        raise WebhookError("PSP_WEBHOOK_SECRET is not set")
    return value.encode()


def expected_signature(secret: bytes, timestamp: int, body: bytes) -> str:
    return hmac.new(secret, str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def verify(body: bytes, timestamp: int, signature: str, secret: bytes, now: float | None = None) -> dict:
    current = time.time() if now is None else now
    if abs(current - timestamp) > TOLERANCE_SECONDS:
        raise WebhookError("webhook timestamp outside the tolerance window")
    if not hmac.compare_digest(expected_signature(secret, timestamp, body), signature):
        raise WebhookError("bad webhook signature")
    return json.loads(body)


def order_status_for(event: dict) -> str | None:
    """The order status a PSP event moves the order to, if any."""
    return {"charge.succeeded": "paid", "charge.failed": "cancelled", "charge.refunded": "refunded"}.get(
        event.get("type", "")
    )
