import { type Document, parseAllDocuments, type ScalarTag, type Tags } from "yaml";

/**
 * YAML read the way Helm, kubectl and kube-apiserver read it: sigs.k8s.io/yaml's YAMLToJSON, i.e. go-yaml
 * v2 (YAML 1.1 scalars: resolvePlainScalar, a port of resolve.go, also behind the emitter's quoting in
 * shared/render/yaml-scalars.ts) then convertToJSONableObject (every map key made a string: `true`, `420`,
 * float keys as Go's FormatFloat(k, 'g', -1, 32), a null key refused). A stored manifest says
 * `defaultMode: 0644` and the API server holds 420; a ConfigMap key `on` is the key "true". Reading it as
 * YAML 1.2 would report both as drift.
 */

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go's strconv.ParseInt/ParseUint with base 0 (underscores already removed). */
const GO_INTEGER = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** What go-yaml v2's resolve() makes of a plain (unquoted, untagged) scalar, by its tag. */
export type GoScalar =
  | { tag: "str" | "timestamp"; value: string }
  | { tag: "bool"; value: boolean }
  | { tag: "null"; value: null }
  | { tag: "int" | "float"; value: number };

const RESOLVED_WORDS = new Map<string, GoScalar>([
  ...wordsOf("y Y yes Yes YES true True TRUE on On ON", { tag: "bool", value: true }),
  ...wordsOf("n N no No NO false False FALSE off Off OFF", { tag: "bool", value: false }),
  ...wordsOf("~ null Null NULL", { tag: "null", value: null }),
  ...wordsOf(".nan .NaN .NAN", { tag: "float", value: Number.NaN }),
  ...wordsOf(".inf .Inf .INF +.inf +.Inf +.INF", { tag: "float", value: Number.POSITIVE_INFINITY }),
  ...wordsOf("-.inf -.Inf -.INF", { tag: "float", value: Number.NEGATIVE_INFINITY }),
  ["", { tag: "null", value: null }],
]);

function wordsOf(words: string, scalar: GoScalar): [string, GoScalar][] {
  return words.split(" ").map((word) => [word, scalar]);
}

/**
 * go-yaml v2's resolve() for a plain scalar — how sigs.k8s.io/yaml (Helm, kubectl, kube-apiserver) reads
 * a manifest: YAML 1.1 bool words (`yes`, `on`, `y`, `off`...), Go's integer syntax after dropping `_`
 * (`0644` and `0o644` octal, `0x`, `0b`, a sign), floats, `~`; timestamps stay their text (decoded into
 * an interface{}, go-yaml keeps the string) and base-60 `1:30` is a string (go-yaml never resolves it).
 */
export function resolvePlainScalar(text: string): GoScalar {
  const first = text[0] ?? "";
  if (text !== "" && !"+-0123456789yYnNtTfFoO~.".includes(first)) return { tag: "str", value: text };
  const word = RESOLVED_WORDS.get(text);
  if (word) return word;
  if (first === ".") {
    const float = /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : Number.NaN;
    return Number.isFinite(float) ? { tag: "float", value: float } : { tag: "str", value: text };
  }
  if (!"+-0123456789".includes(first)) return { tag: "str", value: text };
  if (isTimestamp(text)) return { tag: "timestamp", value: text };
  const plain = text.replaceAll("_", "");
  const integer = goInteger(plain);
  if (integer !== undefined) return { tag: "int", value: Number(integer) };
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return { tag: "float", value: Number(plain) };
  return { tag: "str", value: text };
}

/** Go's strconv.ParseInt, else ParseUint, with base 0 (the `-0b` and `0b` retries of resolve() included). */
function goInteger(text: string): bigint | undefined {
  const match = GO_INTEGER.exec(text);
  if (!match) return undefined;
  const [, sign, digits] = match;
  const body = /^0[0-7]+$/.test(digits)
    ? `0o${digits.slice(1)}`
    : digits.replace(/^0([XOB])/, (_, p) => `0${p.toLowerCase()}`);
  const magnitude = BigInt(body);
  if (sign === "-") return -magnitude >= INT64_MIN ? -magnitude : undefined;
  if (sign === "+") return magnitude <= INT64_MAX ? magnitude : undefined; // ParseUint takes no sign
  return magnitude <= UINT64_MAX ? magnitude : undefined;
}

/** go-yaml's parseTimestamp: YYYY-M-D, optionally with a time (T/t/space) as time.Parse accepts it. */
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:([Tt])|( ))(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/;

function isTimestamp(value: string): boolean {
  const match = TIMESTAMP.exec(value);
  if (!match) return false;
  const [, year, month, day, t, space, hour, minute, second, , zone] = match;
  if (hour !== undefined) {
    if (t && zone === undefined) return false; // the T forms need a zone
    if (space && zone !== undefined) return false; // the space form has none
    if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
    if (zone && zone !== "Z" && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) return false;
  }
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  const y = Number(year);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/** A float as go-yaml resolved it, until its map key (if it is one) has been written Go's way. */
class GoFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/** Every plain scalar goes through go-yaml's resolver; quoted and block scalars stay strings. */
const GO_PLAIN_SCALAR: ScalarTag = {
  tag: "tag:yaml.org,2002:go-plain",
  default: true,
  // Not `<<`: the merge key (go-yaml merges, as yaml's `merge` option does).
  test: /^(?!<<$)[\s\S]*$/,
  resolve: (text: string) => {
    const scalar = resolvePlainScalar(text);
    return scalar.tag === "float" ? new GoFloat(scalar.value) : scalar.value;
  },
};

const KEEP = new Set(["tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"]);
const goTags = (tags: Tags): Tags => [...tags.filter((tag) => KEEP.has((tag as ScalarTag).tag)), GO_PLAIN_SCALAR];

export interface YamlReadOptions {
  uniqueKeys?: boolean;
}

/** The documents of a YAML stream, their scalars resolved as go-yaml v2 does (convert with `toGoJson`). */
export function parseGoYamlDocuments(text: string, options: YamlReadOptions = {}): Document.Parsed[] {
  const documents = parseAllDocuments(text, {
    uniqueKeys: options.uniqueKeys ?? false,
    merge: true,
    customTags: goTags,
  });
  return Array.isArray(documents) ? documents : [];
}

/** One document as sigs.k8s.io/yaml turns it into JSON values. Throws on what Helm refuses (a null key). */
export function toGoJson(doc: Document, maxAliasCount: number): unknown {
  return jsonable(doc.toJS({ maxAliasCount, mapAsMap: true }));
}

/** Parses one YAML document as sigs.k8s.io/yaml.Unmarshal into an interface{} would. */
export function parseGoYaml(text: string): unknown {
  const [doc] = parseGoYamlDocuments(text);
  if (!doc) return null;
  if (doc.errors.length > 0) throw doc.errors[0];
  return toGoJson(doc, 100);
}

function jsonable(value: unknown): unknown {
  if (value instanceof GoFloat) return value.value;
  if (Array.isArray(value)) return value.map(jsonable);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of value) out[goKey(key)] = jsonable(inner);
    return out;
  }
  return value;
}

/** convertToJSONableObject's key rules. */
function goKey(key: unknown): string {
  if (typeof key === "string") return key;
  if (key instanceof GoFloat) return goFloat32Key(key.value);
  if (typeof key === "number" || typeof key === "boolean") return String(key);
  throw new TypeError(`unsupported map key of type: ${key === null ? "<nil>" : typeof key}`);
}

/** strconv.FormatFloat(k, 'g', -1, 32) (%e when the exponent is < -4 or >= 6), as go-yaml spells inf and NaN. */
function goFloat32Key(value: number): string {
  if (Number.isNaN(value)) return ".nan";
  if (!Number.isFinite(value)) return value > 0 ? ".inf" : "-.inf";
  const single = Math.fround(value);
  // The shortest decimal that reads back as the same float32.
  let text = single.toExponential(0);
  for (let digits = 1; digits < 9 && Math.fround(Number(text)) !== single; digits++) {
    text = single.toExponential(digits);
  }
  const [mantissa, exponent] = text.split("e");
  const power = Number(exponent);
  if (power < -4 || power >= 6) {
    return `${mantissa}e${power < 0 ? "-" : "+"}${String(Math.abs(power)).padStart(2, "0")}`;
  }
  return String(Number(text));
}
