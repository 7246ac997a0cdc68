"""The cart and its lines as the order service receives them from the storefront."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CartLine:
    sku: str
    quantity: int
    unit_price_cents: int


@dataclass
class Cart:
    id: str
    lines: list[CartLine] = field(default_factory=list)
    currency: str = "EUR"
    discount_code: str | None = None


def cart_from_request(body: dict[str, Any]) -> Cart:
    """Builds a cart from the JSON body of POST /api/checkout (ADR 2: the whole cart
    travels in the body). Amounts must already be integer cents."""
    lines = []
    for raw in body.get("lines", []):
        price = raw["unitPriceCents"]
        quantity = raw["quantity"]
        if not isinstance(price, int) or not isinstance(quantity, int):
            raise ValueError(f"{raw.get('sku')}: quantity and price must be integers")
        lines.append(CartLine(sku=str(raw["sku"]), quantity=quantity, unit_price_cents=price))
    return Cart(id=str(body["cartId"]), lines=lines, discount_code=body.get("code"))

