-- Products, carts and stock. Prices and amounts are integer cents (EUR);
-- timestamps are TIMESTAMPTZ in UTC.

CREATE TABLE products (
    sku TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    active BOOLEAN NOT NULL DEFAULT true,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE carts (
    id TEXT PRIMARY KEY,
    customer_id TEXT,
    currency TEXT NOT NULL DEFAULT 'EUR' CHECK (currency = 'EUR'),
    discount_code TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The order service enforces at most 200 lines per cart; quantities are 1..99.
CREATE TABLE cart_lines (
    cart_id TEXT NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    added_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (cart_id, sku)
);

CREATE TABLE stock_levels (
    sku TEXT PRIMARY KEY REFERENCES products(sku),
    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
    reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    CHECK (reserved <= on_hand)
);

-- A reservation is taken before the charge and released if checkout fails.
CREATE TABLE stock_reservations (
    id BIGSERIAL PRIMARY KEY,
    cart_id TEXT NOT NULL REFERENCES carts(id),
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    state TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'committed', 'released')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    released_at TIMESTAMPTZ
);

CREATE INDEX stock_reservations_cart_idx ON stock_reservations (cart_id);
CREATE INDEX stock_reservations_held_idx ON stock_reservations (sku) WHERE state = 'held';

-- Orders reference their cart; existing rows predate carts, so no FK yet
-- (expand and contract: the constraint comes once old carts are backfilled).
CREATE INDEX orders_cart_idx ON orders (cart_id);
CREATE INDEX orders_created_idx ON orders (created_at);
