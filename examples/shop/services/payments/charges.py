"""Charges through the payment provider, idempotent per order attempt (ADR 3)."""

from __future__ import annotations

import hashlib


def idempotency_key(order_id: str, attempt: int) -> str:
    return hashlib.sha256(f"{order_id}:{attempt}".encode()).hexdigest()[:32]


class PaymentService:
    def __init__(self, provider, keys):
        self.provider = provider
        self.keys = keys

    def request(self, order_id: str, amount_cents: int, attempt: int = 1) -> str:
        key = idempotency_key(order_id, attempt)
        earlier = self.keys.get(key)
        if earlier is not None:
            return earlier
        charge_id = self.provider.charge(amount_cents, idempotency_key=key)
        self.keys.put(key, charge_id, ttl_hours=24)
        return charge_id

    def refund(self, charge_id: str, amount_cents: int) -> str:
        return self.provider.refund(charge_id, amount_cents)
