"""Cart validation rules applied before checkout."""

MAX_LINES = 200
MAX_QUANTITY = 99


def validate(cart) -> list[str]:
    problems = []
    if len(cart.lines) > MAX_LINES:
        problems.append(f"a cart holds at most {MAX_LINES} lines")
    for line in cart.lines:
        if not 0 < line.quantity <= MAX_QUANTITY:
            problems.append(f"{line.sku}: quantity must be 1..{MAX_QUANTITY}")
    return problems


def validate_prices(cart) -> list[str]:
    """Amounts are integer cents: floats once caused a 1-cent mismatch with the PSP."""
    problems = []
    for line in cart.lines:
        if not isinstance(line.unit_price_cents, int) or isinstance(line.unit_price_cents, bool):
            problems.append(f"{line.sku}: unit price must be integer cents")
        elif line.unit_price_cents < 0:
            problems.append(f"{line.sku}: unit price cannot be negative")
    return problems


def validate_skus(cart, known_skus) -> list[str]:
    seen = set()
    problems = []
    for line in cart.lines:
        if line.sku not in known_skus:
            problems.append(f"{line.sku}: unknown product")
        if line.sku in seen:
            problems.append(f"{line.sku}: appears on more than one line")
        seen.add(line.sku)
    return problems


def all_problems(cart, known_skus=None) -> list[str]:
    problems = validate(cart) + validate_prices(cart)
    if known_skus is not None:
        problems += validate_skus(cart, known_skus)
    return problems
