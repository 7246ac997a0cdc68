"""Refund rules: operators refund through here, never through the PSP dashboard,
so the payments table and the order status stay in step."""

from __future__ import annotations

from dataclasses import dataclass


class RefundError(Exception):
    pass


@dataclass(frozen=True)
class RefundRequest:
    order_id: str
    charge_id: str
    amount_cents: int
    reason: str


def check_refund(request: RefundRequest, charged_cents: int, refunded_cents: int) -> None:
    if not isinstance(request.amount_cents, int) or request.amount_cents <= 0:
        raise RefundError("a refund is a positive amount of integer cents")
    if refunded_cents + request.amount_cents > charged_cents:
        left = charged_cents - refunded_cents
        raise RefundError(f"only {left} cents of this charge are left to refund")
    if not request.reason.strip():
        raise RefundError("a refund needs a reason for the audit trail")


def is_full_refund(charged_cents: int, refunded_cents: int) -> bool:
    return refunded_cents >= charged_cents


class RefundService:
    def __init__(self, payments, repository):
        self.payments = payments
        self.repository = repository

    def refund(self, request: RefundRequest) -> str:
        charged, refunded = self.repository.amounts(request.charge_id)
        check_refund(request, charged, refunded)
        refund_id = self.payments.refund(request.charge_id, request.amount_cents)
        self.repository.record_refund(request.charge_id, refund_id, request.amount_cents, request.reason)
        return refund_id
