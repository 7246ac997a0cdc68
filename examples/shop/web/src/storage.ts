// Keeps the cart in localStorage between page loads (never in a cookie: the CDN
// rejects requests whose cookies exceed 4 KB). A new cart shape needs a new key.
import { Cart, CartLine } from "./cart";

export const CART_KEY = "shop.cart.v2";
const LEGACY_CART_KEY = "shop.cart.v1";

interface LegacyLine {
  sku: string;
  qty: number;
  price: number;
}

interface LegacyCart {
  id: string;
  items: LegacyLine[];
}

export function emptyCart(id: string): Cart {
  return { id, lines: [] };
}

export function saveCart(storage: Storage, cart: Cart): void {
  storage.setItem(CART_KEY, JSON.stringify(cart));
}

export function loadCart(storage: Storage, newId: () => string): Cart {
  const current = storage.getItem(CART_KEY);
  if (current !== null) {
    const parsed = parseCart(current);
    if (parsed) {
      return parsed;
    }
  }
  const legacy = storage.getItem(LEGACY_CART_KEY);
  if (legacy !== null) {
    const migrated = migrateLegacy(legacy);
    storage.removeItem(LEGACY_CART_KEY);
    if (migrated) {
      saveCart(storage, migrated);
      return migrated;
    }
  }
  return emptyCart(newId());
}

export function clearCart(storage: Storage): void {
  storage.removeItem(CART_KEY);
}

function parseCart(raw: string): Cart | null {
  try {
    const value = JSON.parse(raw) as Cart;
    if (typeof value.id !== "string" || !Array.isArray(value.lines)) {
      return null;
    }
    return value;
  } catch {
    return null;
  }
}

function migrateLegacy(raw: string): Cart | null {
  try {
    const old = JSON.parse(raw) as LegacyCart;
    const lines: CartLine[] = old.items.map((item) => ({
      sku: item.sku,
      quantity: item.qty,
      unitPriceCents: item.price,
    }));
    return { id: old.id, lines };
  } catch {
    return null;
  }
}
