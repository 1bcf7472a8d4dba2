/**
 * resource.Quantity canonical form, as kube-apiserver stores built-in kinds' quantities
 * (apimachinery resource/quantity.go CanonicalizeBytes): the suffix family is kept, the largest suffix that
 * leaves a whole number is used, no fraction digits (`0.5` -> `500m`, `1024Mi` -> `1Gi`, `1.5Gi` -> `1536Mi`,
 * `1000m` -> `1`). Exponent forms (`1e3`) and values that cannot be read are left as they are.
 */

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;
const BINARY = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([suffix, exponent]) => [exponent, suffix]));

export function canonicalQuantity(input: unknown): unknown {
  const text = typeof input === "number" && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== "string") return input;
  const match = QUANTITY.exec(text.trim());
  if (!match) return input;
  const [, number, suffix = ""] = match;
  const negative = number.startsWith("-");
  const [whole, fraction = ""] = number.replace(/^[+-]/, "").split(".");
  // value = numerator × 10^-scale (× 1024^k for binary suffixes)
  let numerator = BigInt(`${whole || "0"}${fraction}`);
  let scale = fraction.length;
  const binary = BINARY.indexOf(suffix);
  if (binary > 0) {
    numerator *= 1024n ** BigInt(binary);
    const divisor = 10n ** BigInt(scale);
    if (numerator % divisor === 0n) {
      let bytes = numerator / divisor;
      let k = 0;
      while (bytes !== 0n && bytes % 1024n === 0n && k < BINARY.length - 1) {
        bytes /= 1024n;
        k++;
      }
      return `${negative ? "-" : ""}${bytes}${BINARY[k]}`;
    }
  } else {
    scale -= DECIMAL[suffix];
  }
  // Decimal SI: the largest multiple-of-3 exponent leaving a whole number, rounded up to nano units.
  let exponent = -scale;
  while (numerator !== 0n && numerator % 10n === 0n) {
    numerator /= 10n;
    exponent++;
  }
  if (exponent < -9) {
    const drop = 10n ** BigInt(-9 - exponent);
    numerator = (numerator + drop - 1n) / drop;
    exponent = -9;
  }
  let chosen = Math.min(18, Math.floor(exponent / 3) * 3);
  if (numerator === 0n) chosen = 0;
  const mantissa = numerator * 10n ** BigInt(exponent - chosen);
  return `${negative && mantissa !== 0n ? "-" : ""}${mantissa}${DECIMAL_SUFFIX.get(chosen) ?? ""}`;
}

const QUANTITY_MAPS = new Set(["limits", "requests"]);

/** Canonicalises container resource quantities anywhere in a built-in object (pod templates included). */
export function canonicaliseResources(value: unknown, parent = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicaliseResources(item));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = QUANTITY_MAPS.has(parent) ? canonicalQuantity(child) : canonicaliseResources(child, key);
  }
  return out;
}

/** A quantity's value as a number (cores for CPU, bytes for memory), or undefined when it is not a quantity. */
export function quantityNumber(input: unknown): number | undefined {
  const text = typeof input === "number" && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== "string") return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number, suffix = ""] = match;
  const binary = BINARY.indexOf(suffix);
  return Number(number) * (binary > 0 ? 1024 ** binary : 10 ** DECIMAL[suffix]);
}
