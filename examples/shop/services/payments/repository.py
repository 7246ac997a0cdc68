"""Payment rows. Store the PSP charge id as soon as charge() returns: refunds and
disputes are looked up by it. amount_cents is what was sent to the PSP."""

from __future__ import annotations


class PaymentRepository:
    def __init__(self, db):
        self.db = db

    def record_attempt(self, payment_id: str, order_id: str, key: str, amount_cents: int) -> None:
        self.db.execute(
            "INSERT INTO payments (id, order_id, idempotency_key, amount_cents) VALUES (?, ?, ?, ?)",
            (payment_id, order_id, key, amount_cents),
        )

    def record_charge(self, key: str, charge_id: str) -> None:
        self.db.execute("UPDATE payments SET charge_id = ? WHERE idempotency_key = ?", (charge_id, key))

    def amounts(self, charge_id: str) -> tuple[int, int]:
        """(charged, refunded so far) for a charge, in integer cents."""
        row = self.db.execute(
            "SELECT p.amount_cents, COALESCE(SUM(r.amount_cents), 0) FROM payments p "
            "LEFT JOIN refunds r ON r.charge_id = p.charge_id WHERE p.charge_id = ? GROUP BY p.amount_cents",
            (charge_id,),
        ).fetchone()
        if row is None:
            raise LookupError(charge_id)
        return row[0], row[1]

    def record_refund(self, charge_id: str, refund_id: str, amount_cents: int, reason: str) -> None:
        self.db.execute(
            "INSERT INTO refunds (id, charge_id, amount_cents, reason) VALUES (?, ?, ?, ?)",
            (refund_id, charge_id, amount_cents, reason),
        )

    def unreconciled(self) -> list[tuple[str, int, int]]:
        """Orders whose payment amount differs from the order total."""
        return self.db.execute(
            "SELECT o.id, o.total_cents, p.amount_cents FROM orders o JOIN payments p ON p.order_id = o.id "
            "WHERE o.total_cents <> p.amount_cents"
        ).fetchall()
