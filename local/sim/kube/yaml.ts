import { type Document, parseAllDocuments, type ScalarTag, type Tags } from "yaml";

/**
 * YAML bodies as kube-apiserver decodes them (`application/apply-patch+yaml`, and kubectl/helm on their side):
 * sigs.k8s.io/yaml, i.e. go-yaml v2's YAML 1.1 scalars — `yes`/`on`/`y` are true, `0644` and `0o644` are 420,
 * `0x1F`, `0b101`, `1_000`, `08` (a float) — while timestamps and `1:30` stay text; map keys become strings the
 * way Go formats them (a float key with float32 precision), a null key is refused. The simulator's own reader.
 */

const TRUE = /^(?:y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const FALSE = /^(?:n|N|no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
/** Go's ParseInt/ParseUint with base 0, after go-yaml drops every `_`. */
const INT = /^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$/;
const SPECIAL_FLOAT = /^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

class Float {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

function goInteger(text: string): number | undefined {
  const plain = text.replaceAll("_", "");
  const negative = plain.startsWith("-");
  const body = plain.replace(/^[-+]/, "");
  const literal = /^0[0-7]+$/.test(body)
    ? `0o${body.slice(1)}`
    : body.replace(/^0([XOB])/, (_, p) => `0${p.toLowerCase()}`);
  const magnitude = BigInt(literal);
  const value = negative ? -magnitude : magnitude;
  // int64, else (no sign) uint64; beyond that go-yaml tries a float.
  const fits = negative ? value >= -(2n ** 63n) : value <= (plain.startsWith("+") ? 2n ** 63n - 1n : 2n ** 64n - 1n);
  return fits ? Number(value) : undefined;
}

function resolve(text: string): unknown {
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  if (NULL.test(text)) return null;
  if (SPECIAL_FLOAT.test(text)) {
    return new Float(
      text.endsWith("nan") || /NaN|NAN/.test(text) ? Number.NaN : text.startsWith("-") ? -Infinity : Infinity,
    );
  }
  if (/^\d{4}-/.test(text)) return text; // a date or timestamp: kept as written
  if (INT.test(text)) {
    const integer = goInteger(text);
    if (integer !== undefined) return integer;
  }
  const plain = text.replaceAll("_", "");
  if (FLOAT.test(text) && Number.isFinite(Number(plain))) return new Float(Number(plain));
  return text;
}

const PLAIN: ScalarTag = {
  tag: "tag:yaml.org,2002:sim-go-plain",
  default: true,
  test: /^(?!<<$)[\s\S]*$/,
  resolve,
};

const KEEP = new Set(["tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"]);
const tags = (base: Tags): Tags => [...base.filter((tag) => KEEP.has((tag as ScalarTag).tag)), PLAIN];

export function parseKubeYamlDocuments(text: string): Document.Parsed[] {
  const documents = parseAllDocuments(text, { merge: true, uniqueKeys: false, customTags: tags });
  return Array.isArray(documents) ? documents : [];
}

/** A parsed document's value as JSON (Go's key strings); throws on a null key. */
export function kubeYamlValue(doc: Document): unknown {
  return jsonOf(doc.toJS({ mapAsMap: true, maxAliasCount: 100 }));
}

function jsonOf(value: unknown): unknown {
  if (value instanceof Float) return value.value;
  if (Array.isArray(value)) return value.map(jsonOf);
  if (!(value instanceof Map)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of value) out[keyOf(key)] = jsonOf(inner);
  return out;
}

function keyOf(key: unknown): string {
  if (typeof key === "string") return key;
  if (key instanceof Float) return float32Text(key.value);
  if (typeof key === "number" || typeof key === "boolean") return String(key);
  throw new Error(`unsupported map key of type: ${key === null ? "<nil>" : typeof key}`);
}

/** Go's FormatFloat(f, 'g', -1, 32), spelled .inf/.nan as go-yaml does. */
function float32Text(value: number): string {
  if (Number.isNaN(value)) return ".nan";
  if (!Number.isFinite(value)) return value > 0 ? ".inf" : "-.inf";
  const single = Math.fround(value);
  let digits = 1;
  while (digits < 9 && Math.fround(Number(single.toPrecision(digits))) !== single) digits++;
  const [mantissa, exponent] = single.toExponential(digits - 1).split("e");
  const power = Number(exponent);
  if (power >= -4 && power < 6) return String(Number(single.toPrecision(digits)));
  return `${mantissa}e${power < 0 ? "-" : "+"}${String(Math.abs(power)).padStart(2, "0")}`;
}
