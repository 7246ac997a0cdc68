"""Stock reservations: taken before the charge, released when checkout fails."""

from __future__ import annotations

import itertools
from dataclasses import dataclass


class OutOfStock(Exception):
    def __init__(self, shortages: dict[str, int]):
        super().__init__("out of stock: " + ", ".join(f"{sku} (short {n})" for sku, n in sorted(shortages.items())))
        self.shortages = shortages


@dataclass(frozen=True)
class Reservation:
    id: int
    quantities: dict[str, int]


class InMemoryStock:
    """The ``stock`` collaborator of OrderProcessor, for local runs."""

    def __init__(self, levels: dict[str, int]):
        self.levels = dict(levels)
        self.reserved: dict[int, Reservation] = {}
        self._ids = itertools.count(1)

    def available(self, sku: str) -> int:
        return self.levels.get(sku, 0)

    def reserve(self, quantities: dict[str, int]) -> Reservation:
        shortages = {sku: n - self.available(sku) for sku, n in quantities.items() if n > self.available(sku)}
        if shortages:
            raise OutOfStock(shortages)
        for sku, n in quantities.items():
            self.levels[sku] -= n
        reservation = Reservation(next(self._ids), dict(quantities))
        self.reserved[reservation.id] = reservation
        return reservation

    def release(self, reservation: Reservation) -> None:
        if self.reserved.pop(reservation.id, None) is None:
            return  # already released: releasing twice must not double the stock
        for sku, n in reservation.quantities.items():
            self.levels[sku] = self.levels.get(sku, 0) + n

    def commit(self, reservation: Reservation) -> None:
        """Makes a reservation final once the order is paid."""
        self.reserved.pop(reservation.id, None)
