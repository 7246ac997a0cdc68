"""Spreads a cart-level amount (a discount, the tax) over its lines for invoices.
The line shares always add up to the cart amount exactly: largest remainder wins."""

from __future__ import annotations


def allocate(amount_cents: int, weights: list[int]) -> list[int]:
    """Splits amount_cents in proportion to weights, in integer cents.

    >>> allocate(100, [1, 1, 1])
    [34, 33, 33]
    """
    if amount_cents < 0:
        raise ValueError("cannot allocate a negative amount")
    total_weight = sum(weights)
    if total_weight == 0:
        if amount_cents and weights:
            raise ValueError("cannot allocate over lines that are all zero")
        return [0 for _ in weights]
    shares = [amount_cents * weight // total_weight for weight in weights]
    remainders = [amount_cents * weight % total_weight for weight in weights]
    leftover = amount_cents - sum(shares)
    # Hand the leftover cents to the largest remainders; ties go to earlier lines.
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[:leftover]:
        shares[i] += 1
    return shares


def allocate_quote(quote) -> list[dict]:
    """Per-line discount and tax for an invoice, from a Quote."""
    weights = [line.total_cents for line in quote.lines]
    discounts = allocate(quote.discount_cents, weights)
    net = [w - d for w, d in zip(weights, discounts)]
    taxes = allocate(quote.tax_cents, net)
    return [
        {
            "sku": line.sku,
            "gross_cents": line.total_cents,
            "discount_cents": d,
            "tax_cents": t,
            "total_cents": line.total_cents - d + t,
        }
        for line, d, t in zip(quote.lines, discounts, taxes)
    ]
