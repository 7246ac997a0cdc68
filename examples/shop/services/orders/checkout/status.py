"""Order status transitions. orders.status is TEXT; the allowed values live here."""

from __future__ import annotations

PENDING_PAYMENT = "pending_payment"
PAID = "paid"
CANCELLED = "cancelled"
REFUNDED = "refunded"

STATUSES = (PENDING_PAYMENT, PAID, CANCELLED, REFUNDED)

TRANSITIONS: dict[str, frozenset[str]] = {
    PENDING_PAYMENT: frozenset({PAID, CANCELLED}),
    PAID: frozenset({REFUNDED}),
    CANCELLED: frozenset(),
    REFUNDED: frozenset(),
}


class InvalidTransition(Exception):
    def __init__(self, current: str, target: str):
        super().__init__(f"an order cannot go from {current} to {target}")
        self.current = current
        self.target = target


def can_transition(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


def transition(current: str, target: str) -> str:
    if target not in STATUSES:
        raise ValueError(f"unknown order status: {target}")
    if not can_transition(current, target):
        raise InvalidTransition(current, target)
    return target


def is_final(status: str) -> bool:
    return not TRANSITIONS.get(status)
