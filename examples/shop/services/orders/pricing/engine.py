"""Prices, discounts and tax for a cart, in integer cents."""

TAX_RATE_PERCENT = 20


def line_total(line) -> int:
    return line.quantity * line.unit_price_cents


def discount(subtotal: int, code: str | None) -> int:
    if code == "WELCOME10":
        return subtotal // 10
    return 0


def price_cart(cart, code: str | None = None) -> int:
    subtotal = sum(line_total(line) for line in cart.lines)
    after_discount = subtotal - discount(subtotal, code)
    # Round tax half up on the whole cart, never per line.
    tax = (after_discount * TAX_RATE_PERCENT + 50) // 100
    return after_discount + tax
