-- Daily sales for the operators' report. Timestamps are stored in UTC; reports
-- that group by day convert to Europe/Berlin explicitly.

CREATE VIEW daily_sales AS
SELECT
    (o.created_at AT TIME ZONE 'Europe/Berlin')::date AS day,
    count(*) AS orders,
    sum(o.total_cents) AS gross_cents,
    coalesce(sum(r.refunded_cents), 0) AS refunded_cents
FROM orders o
LEFT JOIN (
    SELECT p.order_id, sum(rf.amount_cents) AS refunded_cents
    FROM refunds rf
    JOIN payments p ON p.charge_id = rf.charge_id
    GROUP BY p.order_id
) r ON r.order_id = o.id
WHERE o.status IN ('paid', 'refunded')
GROUP BY 1;

-- Carts older than 30 days without an order are abandoned; the nightly job
-- deletes them (cart_lines go with them through ON DELETE CASCADE).
CREATE VIEW abandoned_carts AS
SELECT c.id, c.updated_at
FROM carts c
LEFT JOIN orders o ON o.cart_id = c.id
WHERE o.id IS NULL
  AND c.updated_at < now() - interval '30 days';

-- Price changes, so support can explain why a cart was repriced at checkout
-- (the storefront shows the price captured when the item was added).
CREATE TABLE product_price_changes (
    id BIGSERIAL PRIMARY KEY,
    sku TEXT NOT NULL REFERENCES products(sku),
    old_price_cents INTEGER NOT NULL CHECK (old_price_cents >= 0),
    new_price_cents INTEGER NOT NULL CHECK (new_price_cents >= 0),
    changed_by TEXT NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX product_price_changes_sku_idx ON product_price_changes (sku, changed_at);
