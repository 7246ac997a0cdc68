"""Current product prices, so carts are repriced from the catalog rather than from
the unit prices the storefront captured when an item was added."""

from __future__ import annotations

from dataclasses import dataclass, replace


class UnknownProduct(LookupError):
    pass


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price_cents: int
    active: bool = True


class Catalog:
    def __init__(self, products: list[Product] | None = None):
        self._products = {product.sku: product for product in products or []}

    @classmethod
    def from_rows(cls, rows) -> "Catalog":
        """From (sku, name, price_cents, active) rows of the products table."""
        return cls([Product(sku, name, price, bool(active)) for sku, name, price, active in rows])

    def price(self, sku: str) -> int:
        product = self._products.get(sku)
        if product is None or not product.active:
            raise UnknownProduct(sku)
        return product.price_cents

    def set_price(self, sku: str, price_cents: int) -> None:
        if not isinstance(price_cents, int) or price_cents < 0:
            raise ValueError("prices are non-negative integer cents")
        product = self._products.get(sku)
        if product is None:
            raise UnknownProduct(sku)
        self._products[sku] = replace(product, price_cents=price_cents)

    def skus(self) -> set[str]:
        return {sku for sku, product in self._products.items() if product.active}

    def stale_lines(self, cart) -> list[str]:
        """SKUs whose captured price differs from the catalog's current price."""
        return [line.sku for line in cart.lines if self.price(line.sku) != line.unit_price_cents]

    def reprice(self, cart):
        """A copy of the cart with every unit price taken from the catalog."""
        lines = [replace(line, unit_price_cents=self.price(line.sku)) for line in cart.lines]
        return replace(cart, lines=lines)
