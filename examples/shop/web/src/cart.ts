// The cart as the storefront keeps it between page loads.
export interface CartLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Cart {
  id: string;
  lines: CartLine[];
}

export function addLine(cart: Cart, sku: string, quantity: number, unitPriceCents: number): Cart {
  const existing = cart.lines.find((line) => line.sku === sku);
  if (existing) {
    return {
      ...cart,
      lines: cart.lines.map((line) =>
        line.sku === sku ? { ...line, quantity: line.quantity + quantity } : line,
      ),
    };
  }
  return { ...cart, lines: [...cart.lines, { sku, quantity, unitPriceCents }] };
}

export function totalCents(cart: Cart): number {
  return cart.lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
}

export function setQuantity(cart: Cart, sku: string, quantity: number): Cart {
  if (quantity <= 0) {
    return removeLine(cart, sku);
  }
  return {
    ...cart,
    lines: cart.lines.map((line) => (line.sku === sku ? { ...line, quantity } : line)),
  };
}

export function removeLine(cart: Cart, sku: string): Cart {
  return { ...cart, lines: cart.lines.filter((line) => line.sku !== sku) };
}

export function itemCount(cart: Cart): number {
  return cart.lines.reduce((sum, line) => sum + line.quantity, 0);
}

// Replaces snapshot prices with current ones (see the stale-price pitfall).
export function reprice(cart: Cart, prices: Map<string, number>): Cart {
  return {
    ...cart,
    lines: cart.lines.map((line) => {
      const current = prices.get(line.sku);
      return current === undefined ? line : { ...line, unitPriceCents: current };
    }),
  };
}
