import { isRecord } from "../input/values.ts";
import { parseQuantity, quantitiesEqual } from "./quantity.ts";
import { isIntOrStringField, isQuantityField, keyElement, keyText, listSchema } from "./schema.ts";

/**
 * The fields a manifest object sets, compared with the live object. Only the manifest's leaves are visited,
 * so server defaults, controller-written status and admission-injected fields are never drift. Values are
 * compared as the API server stores them: quantities by value, numbers by value, int-or-strings by type and
 * value, empty and absent alike, map lists item by item by their merge key (wherever the item sits).
 */

export interface Difference {
  /** For people: `spec.template.spec.containers[name=app].image`. */
  field: string;
  /** FieldsV1 elements of the field (`f:spec`, `k:{"name":"app"}`...), to look its owners up. */
  elements: string[];
  /** Other FieldsV1 paths the same value may be owned at (a Secret's `stringData.x` is stored as `data.x`). */
  alternates?: string[][];
  /** The manifest's value; for a map-list item, the item. */
  release: unknown;
  /** The live value; undefined when the live object lacks the field. */
  live: unknown;
  /** A Secret key: its value is never compared nor shown, only whether the key is there. */
  secret?: boolean;
}

/** Never drift: the server owns them, or they are not part of what Helm applies. */
const SKIPPED_TOP = new Set(["apiVersion", "kind", "status"]);
const SKIPPED_METADATA = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "managedFields",
  "selfLink",
]);
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

interface Context {
  field: string;
  elements: string[];
  parent?: string;
  name: string;
}

export interface CompareInput {
  manifest: Record<string, unknown>;
  /** The live object as fetched: a Secret's values already redacted, its keys kept (manifest/redact.ts). */
  live: Record<string, unknown>;
}

export function compareObject(input: CompareInput): Difference[] {
  const out: Difference[] = [];
  const { manifest, live } = input;
  const secret = manifest.kind === "Secret" && (manifest.apiVersion === "v1" || manifest.apiVersion === undefined);
  for (const [key, value] of Object.entries(manifest)) {
    if (SKIPPED_TOP.has(key)) continue;
    if (secret && (key === "data" || key === "stringData")) {
      compareSecretKeys(key, value, live, out);
      continue;
    }
    if (key === "metadata" && isRecord(value)) {
      const liveMetadata = isRecord(live.metadata) ? live.metadata : {};
      for (const [field, child] of Object.entries(value)) {
        if (SKIPPED_METADATA.has(field)) continue;
        const childValue =
          field === "annotations" && isRecord(child)
            ? Object.fromEntries(Object.entries(child).filter(([k]) => k !== LAST_APPLIED))
            : child;
        walk(childValue, liveMetadata[field], context(["metadata", field]), out);
      }
      continue;
    }
    walk(value, live[key], { field: key, elements: [`f:${key}`], name: key }, out);
  }
  return out;
}

function context(path: string[]): Context {
  return { field: path.join("."), elements: path.map((p) => `f:${p}`), parent: path.at(-2), name: path.at(-1) ?? "" };
}

function child(ctx: Context, key: string): Context {
  const segment = PLAIN_KEY.test(key) ? `.${key}` : `[${key}]`;
  return { field: `${ctx.field}${segment}`, elements: [...ctx.elements, `f:${key}`], parent: ctx.name, name: key };
}

function walk(release: unknown, live: unknown, ctx: Context, out: Difference[]): void {
  if (isRecord(release)) {
    if (Object.keys(release).length === 0) return; // sets nothing
    if (live !== undefined && live !== null && !isRecord(live)) {
      out.push({ field: ctx.field, elements: ctx.elements, release, live });
      return;
    }
    const liveRecord = isRecord(live) ? live : {};
    for (const [key, value] of Object.entries(release)) walk(value, liveRecord[key], child(ctx, key), out);
    return;
  }
  if (Array.isArray(release)) {
    if (release.length === 0) {
      if (!isEmpty(live)) out.push({ field: ctx.field, elements: ctx.elements, release, live });
      return;
    }
    const schema = listSchema(ctx.name, release);
    const liveItems = Array.isArray(live) ? live : [];
    if (schema.type === "map" && release.every(isRecord)) {
      for (const item of release as Record<string, unknown>[]) {
        const element = keyElement(item, schema.keys);
        const match = liveItems.find(
          (candidate) => isRecord(candidate) && keyElement(candidate, schema.keys) === element,
        );
        const itemCtx: Context = {
          field: `${ctx.field}${keyText(item, schema.keys)}`,
          elements: [...ctx.elements, element],
          parent: ctx.name,
          name: "",
        };
        if (!isRecord(match)) {
          out.push({ field: itemCtx.field, elements: itemCtx.elements, release: item, live: undefined });
          continue;
        }
        for (const [key, value] of Object.entries(item)) walk(value, match[key], child(itemCtx, key), out);
      }
      return;
    }
    if (schema.type === "set") {
      const have = new Set(liveItems.map((item) => JSON.stringify(item)));
      if (!release.every((item) => have.has(JSON.stringify(item))))
        out.push({ field: ctx.field, elements: ctx.elements, release, live });
      return;
    }
    if (!atomicListEqual(release, live)) out.push({ field: ctx.field, elements: ctx.elements, release, live });
    return;
  }
  if (!scalarEqual(release, live, ctx)) out.push({ field: ctx.field, elements: ctx.elements, release, live });
}

/** An atomic list is owned and replaced whole: same length, same order, each item by the manifest's leaves. */
function atomicListEqual(release: unknown[], live: unknown): boolean {
  if (!Array.isArray(live) || live.length !== release.length) return false;
  return release.every((item, i) => {
    const scratch: Difference[] = [];
    walk(item, live[i], { field: "", elements: [], name: "" }, scratch);
    return scratch.length === 0;
  });
}

export function scalarEqual(release: unknown, live: unknown, ctx: { parent?: string; name: string }): boolean {
  if (isEmpty(release) && isEmpty(live)) return true;
  if (release === live) return true;
  if (isQuantityField(ctx.parent, ctx.name) && parseQuantity(release) && parseQuantity(live))
    return quantitiesEqual(release, live);
  if (typeof release === "number" && typeof live === "number") return release === live;
  if (isIntOrStringField(ctx.name)) return false; // the type is kept: "8080" is not 8080
  return false;
}

/**
 * A Secret's `data` / `stringData`: only whether each key the manifest sets is there live (a live `stringData.x`
 * is stored as `data.x`). Values are never compared, for anyone (issue #38): a comparison would answer "is the
 * value X?" for any Secret the product can read, to whoever may write a manifest. Nothing here depends on a
 * value, so neither does any answer, log line or timing.
 */
function compareSecretKeys(
  key: "data" | "stringData",
  values: unknown,
  live: Record<string, unknown>,
  out: Difference[],
): void {
  if (!isRecord(values)) return;
  const liveKeys = new Set([
    ...Object.keys(isRecord(live.data) ? live.data : {}),
    ...Object.keys(isRecord(live.stringData) ? live.stringData : {}),
  ]);
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined || liveKeys.has(name)) continue;
    out.push({
      field: `${key}${PLAIN_KEY.test(name) ? `.${name}` : `[${name}]`}`,
      elements: [`f:${key}`, `f:${name}`],
      alternates: key === "stringData" ? [["f:data", `f:${name}`]] : undefined,
      release: undefined,
      live: undefined,
      secret: true,
    });
  }
}
