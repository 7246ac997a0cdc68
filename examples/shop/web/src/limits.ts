// Cart limits, mirrored from the order service so the UI can warn before checkout.
import { Cart } from "./cart";

export const MAX_LINES = 200;
export const MAX_QUANTITY = 99;

export interface CartProblem {
  sku?: string;
  message: string;
}

export function cartProblems(cart: Cart): CartProblem[] {
  const problems: CartProblem[] = [];
  if (cart.lines.length > MAX_LINES) {
    problems.push({ message: `a cart holds at most ${MAX_LINES} lines` });
  }
  for (const line of cart.lines) {
    if (!(line.quantity > 0 && line.quantity <= MAX_QUANTITY)) {
      problems.push({ sku: line.sku, message: `quantity must be 1..${MAX_QUANTITY}` });
    }
  }
  return problems;
}

export function canCheckout(cart: Cart): boolean {
  return cart.lines.length > 0 && cartProblems(cart).length === 0;
}

export function clampQuantity(quantity: number): number {
  return Math.min(MAX_QUANTITY, Math.max(1, Math.floor(quantity)));
}
