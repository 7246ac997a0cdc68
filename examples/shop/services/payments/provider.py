"""The payment provider as the service sees it, and a fake for local runs."""

from __future__ import annotations

import itertools
from typing import Protocol


class ProviderError(Exception):
    """The PSP refused or failed; retry only with the same idempotency key."""


class Provider(Protocol):
    def charge(self, amount_cents: int, *, idempotency_key: str) -> str: ...

    def refund(self, charge_id: str, amount_cents: int) -> str: ...


class FakeProvider:
    """Remembers charges by idempotency key, as the real PSP does."""

    def __init__(self):
        self._ids = itertools.count(1)
        self.charges: dict[str, int] = {}
        self.by_key: dict[str, str] = {}
        self.refunds: dict[str, list[int]] = {}

    def charge(self, amount_cents: int, *, idempotency_key: str) -> str:
        if not isinstance(amount_cents, int) or amount_cents <= 0:
            raise ProviderError("amount must be positive integer cents")
        if idempotency_key in self.by_key:
            return self.by_key[idempotency_key]
        charge_id = f"ch_{next(self._ids):06d}"
        self.charges[charge_id] = amount_cents
        self.by_key[idempotency_key] = charge_id
        return charge_id

    def refund(self, charge_id: str, amount_cents: int) -> str:
        if charge_id not in self.charges:
            raise ProviderError(f"unknown charge {charge_id}")
        refunded = sum(self.refunds.get(charge_id, []))
        if refunded + amount_cents > self.charges[charge_id]:
            raise ProviderError("refund exceeds the charge")
        self.refunds.setdefault(charge_id, []).append(amount_cents)
        return f"re_{charge_id}_{len(self.refunds[charge_id])}"
