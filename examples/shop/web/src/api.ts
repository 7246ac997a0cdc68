// A small client for the public API behind the gateway. Errors come back as JSON
// ({"error": "..."}) from the services, but the gateway's own 404 is plain text.
import { Cart } from "./cart";

export interface Product {
  sku: string;
  name: string;
  priceCents: number;
}

export interface PricedCart {
  cartId: string;
  subtotalCents: number;
  discountCents: number;
  taxCents: number;
  totalCents: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`api error ${status}: ${code}`);
  }
}

export class StorefrontApi {
  constructor(
    private readonly baseUrl: string = "/api",
    private readonly token?: string,
  ) {}

  withToken(token: string): StorefrontApi {
    return new StorefrontApi(this.baseUrl, token);
  }

  async products(): Promise<Product[]> {
    return this.get<Product[]>("/products");
  }

  async product(sku: string): Promise<Product> {
    return this.get<Product>(`/products/${encodeURIComponent(sku)}`);
  }

  // Reprice on page load: unit prices in the cart are snapshots from when the
  // item was added and may be stale.
  async price(cart: Cart, code?: string): Promise<PricedCart> {
    return this.post<PricedCart>("/pricing/quote", { cartId: cart.id, lines: cart.lines, code });
  }

  async orderStatus(orderId: string): Promise<string> {
    const order = await this.get<{ id: string; status: string }>(`/orders/${encodeURIComponent(orderId)}`);
    return order.status;
  }

  private async get<T>(path: string): Promise<T> {
    return this.request<T>(path, { method: "GET", headers: this.headers() });
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>(path, {
      method: "POST",
      headers: { ...this.headers(), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  private headers(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  private async request<T>(path: string, init: RequestInit): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, init);
    if (!response.ok) {
      throw new ApiError(response.status, await errorCode(response));
    }
    return (await response.json()) as T;
  }
}

async function errorCode(response: Response): Promise<string> {
  const type = response.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    const body = (await response.json()) as { error?: string };
    return body.error ?? "unknown";
  }
  return response.status === 404 ? "not_found" : "unknown";
}
