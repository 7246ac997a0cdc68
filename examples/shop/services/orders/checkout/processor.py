"""Turns a validated cart into an order, reserving stock first."""

from __future__ import annotations

from dataclasses import dataclass

from ..pricing.engine import price_cart


class CheckoutError(Exception):
    pass


@dataclass
class Order:
    id: str
    cart_id: str
    total_cents: int
    status: str = "pending_payment"


class OrderProcessor:
    def __init__(self, stock, orders, payments):
        self.stock = stock
        self.orders = orders
        self.payments = payments

    def checkout(self, cart) -> Order:
        if not cart.lines:
            raise CheckoutError("empty cart")
        # Reserve before charging: a charge without stock is a refund later.
        reservation = self.stock.reserve({line.sku: line.quantity for line in cart.lines})
        try:
            total = price_cart(cart)
            order = self.orders.create(cart_id=cart.id, total_cents=total)
            self.payments.request(order_id=order.id, amount_cents=total)
        except Exception:
            self.stock.release(reservation)
            raise
        return order
