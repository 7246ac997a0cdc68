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
