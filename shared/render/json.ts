/**
 * The one JSON policy: what `helm ... -o json` writes. Go's json.Encoder: one compact line
 * and a newline, `<`, `>`, `&`, U+2028 and U+2029 escaped as \u003c, \u003e, \u0026, \u2028,
 * \u2029 (its HTML-safe default). Key order is the value's own (Helm's struct order; callers
 * sort map keys where Go would), except where JavaScript cannot keep it: an object's
 * integer-like keys ("2", "10") always come first, in numeric order. Struct fields are never
 * such names, so an object holding one is a Go map, and Go writes a map's keys in byte order.
 */
const GO_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function renderJson(value: unknown): string {
  let text = JSON.stringify(value ?? null) ?? "null";
  if (INDEX_KEY_IN_TEXT.test(text)) text = goMapJson(value ?? null) ?? "null";
  // Those characters only occur inside JSON strings, so replacing them in the text is exact.
  return `${text.replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c])}\n`;
}

/**
 * An object key of digits in JSON text: a `"` inside a string is always written `\"`, so `{"` and `,"` start
 * keys only. One scan of the text, so the usual document (no such key) costs no second serialization.
 */
const INDEX_KEY_IN_TEXT = /[{,]"(?:0|[1-9][0-9]{0,9})":/;

/** A canonical array index: the keys JavaScript moves to the front of an object, in numeric order. */
const isIndexKey = (key: string) => /^(0|[1-9][0-9]{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** JSON.stringify's rules (toJSON, undefined and functions left out), with Go's byte order for map keys. */
function goMapJson(value: unknown): string | undefined {
  const json = (value as { toJSON?: () => unknown } | null)?.toJSON;
  const plain = typeof json === "function" ? json.call(value) : value;
  if (plain === null || typeof plain !== "object") return JSON.stringify(plain);
  if (Array.isArray(plain)) return `[${plain.map((item) => goMapJson(item) ?? "null").join(",")}]`;
  const record = plain as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 0 && isIndexKey(keys[0])) keys.sort(byteOrder);
  const members: string[] = [];
  for (const key of keys) {
    const member = goMapJson(record[key]);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(",")}}`;
}
