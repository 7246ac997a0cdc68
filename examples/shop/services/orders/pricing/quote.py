"""A priced cart broken down into subtotal, discount, tax and total, for the
storefront's repricing call and for invoices. Always agrees with price_cart."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .engine import TAX_RATE_PERCENT, discount, line_total


@dataclass(frozen=True)
class LineQuote:
    sku: str
    quantity: int
    unit_price_cents: int
    total_cents: int


@dataclass(frozen=True)
class Quote:
    lines: tuple[LineQuote, ...]
    subtotal_cents: int
    discount_cents: int
    tax_cents: int
    total_cents: int
    code: str | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        data["lines"] = [asdict(line) for line in self.lines]
        return data


def tax_on(amount_cents: int) -> int:
    """Half up, once, on the whole amount (never per line)."""
    return (amount_cents * TAX_RATE_PERCENT + 50) // 100


def quote_cart(cart, code: str | None = None) -> Quote:
    lines = tuple(
        LineQuote(line.sku, line.quantity, line.unit_price_cents, line_total(line)) for line in cart.lines
    )
    subtotal = sum(line.total_cents for line in lines)
    off = discount(subtotal, code)
    tax = tax_on(subtotal - off)
    return Quote(
        lines=lines,
        subtotal_cents=subtotal,
        discount_cents=off,
        tax_cents=tax,
        total_cents=subtotal - off + tax,
        code=code if off else None,
    )


def net_from_gross(gross_cents: int) -> int:
    """The largest net amount whose gross (net plus rounded tax) does not exceed
    gross_cents; used when an operator enters a tax-inclusive price."""
    net = gross_cents * 100 // (100 + TAX_RATE_PERCENT)
    while net + tax_on(net + 1) + 1 <= gross_cents:
        net += 1
    while net > 0 and net + tax_on(net) > gross_cents:
        net -= 1
    return net
