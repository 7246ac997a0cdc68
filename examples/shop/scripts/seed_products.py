"""Loads a few demo products into a local database (nobody's element owns this yet)."""

PRODUCTS = [("SKU-1", "Mug", 1200), ("SKU-2", "Poster", 2500), ("SKU-3", "Sticker", 300)]


def main(db) -> None:
    for sku, name, price in PRODUCTS:
        db.execute("INSERT INTO products (sku, name, price_cents) VALUES (?, ?, ?)", (sku, name, price))
