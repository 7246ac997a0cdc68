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
