/**
 * Kubernetes label selectors (`helm list -l`, apimachinery's labels.Parse): requirements
 * joined by commas, each `key`, `!key`, `key=value`, `key==value`, `key!=value`,
 * `key in (a,b)` or `key notin (a,b)`.
 */
import { ValidationError } from "../errors.ts";

export class InvalidSelectorError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidSelector");
  }
}

type Requirement =
  | { key: string; op: "exists" | "!exists"; values?: never }
  | { key: string; op: "in" | "notin"; values: string[] };

export type LabelSelector = (labels: Record<string, string>) => boolean;

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** Splits on commas outside parentheses. */
function clauses(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of selector) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (c === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

function checked(kind: "key" | "value", text: string, selector: string): string {
  if (!(kind === "key" ? KEY : VALUE).test(text)) {
    throw new InvalidSelectorError(
      `invalid label selector ${JSON.stringify(selector)}: ${JSON.stringify(text)} is not a valid label ${kind}`,
    );
  }
  return text;
}

function requirement(clause: string, selector: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(clause);
  if (set) {
    const values = set[3].split(",").map((v) => checked("value", v.trim(), selector));
    return { key: checked("key", set[1], selector), op: set[2] as "in" | "notin", values };
  }
  const pair = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(clause);
  if (pair) {
    const value = [checked("value", pair[3], selector)];
    return { key: checked("key", pair[1], selector), op: pair[2] === "!=" ? "notin" : "in", values: value };
  }
  if (clause.startsWith("!")) return { key: checked("key", clause.slice(1).trim(), selector), op: "!exists" };
  if (clause !== "") return { key: checked("key", clause, selector), op: "exists" };
  throw new InvalidSelectorError(`invalid label selector ${JSON.stringify(selector)}: an empty requirement`);
}

export function parseLabelSelector(selector: string): LabelSelector {
  if (selector.trim() === "") return () => true;
  const requirements = clauses(selector).map((c) => requirement(c, selector));
  return (labels) =>
    requirements.every((r) => {
      const has = Object.hasOwn(labels, r.key);
      if (r.op === "exists") return has;
      if (r.op === "!exists") return !has;
      const listed = r.values?.includes(labels[r.key]) ?? false;
      return r.op === "in" ? has && listed : !has || !listed;
    });
}
