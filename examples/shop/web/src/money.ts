// Money in the storefront: integer cents in, formatted EUR strings out.
// Never divide by 100 and call toFixed in a template; format through here.

const CURRENCY = "EUR";
const LOCALE = "de-DE";

const formatter = new Intl.NumberFormat(LOCALE, {
  style: "currency",
  currency: CURRENCY,
  minimumFractionDigits: 2,
});

export function formatCents(cents: number): string {
  if (!Number.isInteger(cents)) {
    throw new Error(`amounts are integer cents, got ${cents}`);
  }
  return formatter.format(cents / 100);
}

export function sumCents(amounts: number[]): number {
  return amounts.reduce((sum, amount) => sum + amount, 0);
}

export function formatLineTotal(quantity: number, unitPriceCents: number): string {
  return formatCents(quantity * unitPriceCents);
}

export function isValidCents(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
