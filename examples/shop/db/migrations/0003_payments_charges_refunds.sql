-- Payments: store the PSP charge id as soon as charge() returns; refunds and
-- disputes are looked up by it. Expand step: nullable now, NOT NULL in a later
-- migration once every live row carries one.

ALTER TABLE payments ADD COLUMN charge_id TEXT;
ALTER TABLE payments ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE payments ADD CONSTRAINT payments_amount_positive CHECK (amount_cents > 0);

CREATE UNIQUE INDEX payments_charge_id_idx ON payments (charge_id) WHERE charge_id IS NOT NULL;
CREATE INDEX payments_order_idx ON payments (order_id);

CREATE TABLE refunds (
    id TEXT PRIMARY KEY,
    charge_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX refunds_charge_idx ON refunds (charge_id);

-- orders.status stays TEXT (no enum type): the allowed values are enforced in the
-- order service. History of every transition, for support and for reconciliation.
CREATE TABLE order_status_history (
    id BIGSERIAL PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    status TEXT NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX order_status_history_order_idx ON order_status_history (order_id, changed_at);

-- Reconciliation compares payments.amount_cents with orders.total_cents, never
-- with the PSP's settled amount (net of fees).
CREATE VIEW payment_mismatches AS
SELECT o.id AS order_id, o.total_cents, p.amount_cents, p.charge_id
FROM orders o
JOIN payments p ON p.order_id = o.id
WHERE o.total_cents <> p.amount_cents;
