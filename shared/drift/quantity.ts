/**
 * resource.Quantity values compared by value, as the API server canonicalises them
 * (k8s.io/apimachinery/pkg/api/resource/quantity.go): `500m` = `0.5`, `1Gi` = `1073741824` = `1024Mi`,
 * `1e3` = `1k`. A value is an exact fraction (numerator / 10^scale), so no float rounding can make two
 * different quantities equal.
 */

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export interface Fraction {
  numerator: bigint;
  /** Power of ten of the denominator. */
  scale: number;
}

export function parseQuantity(input: unknown): Fraction | undefined {
  if (typeof input === "number") return Number.isFinite(input) ? parseQuantity(String(input)) : undefined;
  if (typeof input !== "string") return undefined;
  const match = QUANTITY.exec(input.trim());
  if (!match) return undefined;
  const [, number, suffix = ""] = match;
  const negative = number.startsWith("-");
  const digits = number.replace(/^[+-]/, "");
  const [whole, fraction = ""] = digits.split(".");
  let numerator = BigInt(`${whole || "0"}${fraction}`) * (negative ? -1n : 1n);
  let scale = fraction.length;
  if (suffix in BINARY) numerator *= 1024n ** BigInt(BINARY[suffix]);
  else {
    const exponent = suffix.startsWith("e") || suffix.startsWith("E") ? Number(suffix.slice(1)) : DECIMAL[suffix];
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else scale -= exponent;
  }
  return { numerator, scale };
}

export function quantitiesEqual(a: unknown, b: unknown): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return false;
  const scale = Math.max(x.scale, y.scale);
  return x.numerator * 10n ** BigInt(scale - x.scale) === y.numerator * 10n ** BigInt(scale - y.scale);
}
