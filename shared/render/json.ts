/**
 * The one JSON policy: what `helm ... -o json` writes. Go's json.Encoder: one compact line
 * and a newline, `<`, `>`, `&`, U+2028 and U+2029 escaped as \u003c, \u003e, \u0026, \u2028,
 * \u2029 (its HTML-safe default). Key order is the value's own (Helm's struct order; callers
 * sort map keys where Go would).
 */
const GO_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function renderJson(value: unknown): string {
  // Those characters only occur inside JSON strings, so replacing them in the text is exact.
  return `${JSON.stringify(value ?? null).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c])}\n`;
}
