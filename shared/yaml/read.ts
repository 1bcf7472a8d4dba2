import { type Document, parseAllDocuments, type ScalarTag, type Tags } from "yaml";
import { resolvePlainScalar } from "./scalars.ts";

/**
 * YAML read the way Helm, kubectl and kube-apiserver read it: sigs.k8s.io/yaml's YAMLToJSON, i.e. go-yaml
 * v2 (YAML 1.1 scalars, resolve() in scalars.ts) then convertToJSONableObject (every map key made a
 * string: `true`, `420`, float keys as Go's FormatFloat(k, 'g', -1, 32), a null key refused). A stored
 * manifest says `defaultMode: 0644` and the API server holds 420; a ConfigMap key `on` is the key "true".
 * Reading it as YAML 1.2 would report both as drift.
 */

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
