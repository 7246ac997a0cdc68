// Checkout posts the whole cart in the body (ADR 2: never in headers).
import { Cart } from "./cart";

export async function checkout(cart: Cart, token: string): Promise<string> {
  const response = await fetch("/api/checkout", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ cartId: cart.id, lines: cart.lines }),
  });
  if (!response.ok) {
    throw new Error(`checkout failed: ${response.status}`);
  }
  const order = await response.json();
  return order.id as string;
}
