import type { KubeObject } from "./types.ts";

type Requirement = (labels: Record<string, string>) => boolean;

/** A selector the server cannot parse: kube-apiserver answers 400 BadRequest. */
export class SelectorError extends Error {}

/**
 * Parses a label selector as `labels.Parse` accepts it: `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma separated (commas inside parentheses
 * belong to the set).
 */
export function parseLabelSelector(text: string): (object: KubeObject) => boolean {
  const requirements = splitTopLevel(text).map(parseRequirement);
  return (object) => {
    const labels = object.metadata?.labels ?? {};
    return requirements.every((r) => r(labels));
  };
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`);
  }
  return value;
}

function parseRequirement(text: string): Requirement {
  let m = /^(.+?)\s+(in|notin)\s+\((.*)\)$/.exec(text);
  if (m) {
    const key = checkKey(m[1].trim());
    const values = new Set(m[3].split(",").map((v) => checkValue(v.trim())));
    return m[2] === "in" ? (l) => key in l && values.has(l[key]) : (l) => !(key in l) || !values.has(l[key]);
  }
  m = /^(.+?)\s*(==|!=|=)\s*(.*)$/.exec(text);
  if (m) {
    const key = checkKey(m[1].trim());
    const value = checkValue(m[3].trim());
    return m[2] === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  if (text.startsWith("!")) {
    const key = checkKey(text.slice(1).trim());
    return (l) => !(key in l);
  }
  const key = checkKey(text);
  return (l) => key in l;
}

/** Field selectors: `metadata.name`, `metadata.namespace`, plus the per-kind fields kube-apiserver indexes. */
const FIELDS_BY_KIND: Record<string, string[]> = {
  Pod: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
  ],
  Secret: ["type"],
  Event: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  Namespace: ["status.phase"],
  Node: ["spec.unschedulable"],
  Job: ["status.successful"],
  ReplicaSet: ["status.replicas"],
};

export function parseFieldSelector(text: string, kind: string): (object: KubeObject) => boolean {
  const allowed = new Set(["metadata.name", "metadata.namespace", ...(FIELDS_BY_KIND[kind] ?? [])]);
  const requirements = splitTopLevel(text).map((part) => {
    const m = /^([^!=]+?)\s*(==|!=|=)\s*(.*)$/.exec(part);
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    const path = m[1].trim();
    if (!allowed.has(path)) {
      throw new SelectorError(`field label not supported: ${path}`);
    }
    const value = m[3].trim();
    const negate = m[2] === "!=";
    // Event's `source` field label is the source's component (ToSelectableFields).
    const fieldPath = kind === "Event" && path === "source" ? "source.component" : path;
    return (object: KubeObject) => {
      const actual = fieldPath
        .split(".")
        .reduce<unknown>(
          (acc, key) => (acc && typeof acc === "object" ? (acc as Record<string, unknown>)[key] : undefined),
          object,
        );
      const text = actual === undefined || actual === null ? "" : String(actual);
      return negate ? text !== value : text === value;
    };
  });
  return (object) => requirements.every((r) => r(object));
}
