"""Orders storage: the SQL the processor's ``orders`` collaborator runs."""

from __future__ import annotations

from datetime import datetime, timezone

from .ids import new_order_id
from .processor import Order
from .status import PENDING_PAYMENT, transition


class OrderNotFound(LookupError):
    pass


class OrderRepository:
    """Orders in the Orders Database (see db/migrations). Ids are generated here,
    before the INSERT, never by a database serial."""

    def __init__(self, db, new_id=new_order_id):
        self.db = db
        self.new_id = new_id

    def create(self, cart_id: str, total_cents: int) -> Order:
        if not isinstance(total_cents, int) or total_cents < 0:
            raise ValueError("total_cents must be a non-negative integer")
        order = Order(id=self.new_id(), cart_id=cart_id, total_cents=total_cents)
        self.db.execute(
            "INSERT INTO orders (id, cart_id, total_cents, status, created_at) VALUES (?, ?, ?, ?, ?)",
            (order.id, order.cart_id, order.total_cents, PENDING_PAYMENT, datetime.now(timezone.utc)),
        )
        return order

    def get(self, order_id: str) -> Order:
        row = self.db.execute(
            "SELECT id, cart_id, total_cents, status FROM orders WHERE id = ?", (order_id,)
        ).fetchone()
        if row is None:
            raise OrderNotFound(order_id)
        return Order(id=row[0], cart_id=row[1], total_cents=row[2], status=row[3])

    def set_status(self, order_id: str, status: str) -> Order:
        order = self.get(order_id)
        order.status = transition(order.status, status)
        self.db.execute("UPDATE orders SET status = ? WHERE id = ?", (order.status, order_id))
        self.db.execute(
            "INSERT INTO order_status_history (order_id, status, changed_at) VALUES (?, ?, ?)",
            (order_id, order.status, datetime.now(timezone.utc)),
        )
        return order

