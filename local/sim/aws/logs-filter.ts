/**
 * CloudWatch Logs' FilterLogEvents filter patterns, the subset the simulator understands (docs/simulator.md,
 * "CloudWatch Logs"): plain terms, "quoted phrases", ?optional and -excluded terms, and JSON patterns
 * `{ $.a.b = "v" && $.c[0] != "w*" }`. Anything else is refused with the service's error, never ignored.
 */
export class QuerySyntaxError extends Error {}

export interface LogRecord {
  timestamp: number;
  ingestionTime: number;
  message: string;
  logStreamName: string;
  logGroupName: string;
  account: string;
  eventId: string;
}

export function parsed(message: string): unknown {
  try {
    return JSON.parse(message);
  } catch {
    return undefined;
  }
}

type Matcher = (message: string) => boolean;

function wildcard(value: string): (actual: string) => boolean {
  if (!value.includes("*")) return (actual) => actual === value;
  const pattern = new RegExp(
    `^${value
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return (actual) => pattern.test(actual);
}

/** `$.user.extra.sessionName[0]` read from a parsed JSON event. */
function selectJson(document: unknown, selector: string): unknown {
  if (!selector.startsWith("$")) throw new QuerySyntaxError(`Invalid selector: ${selector}`);
  const steps = selector
    .slice(1)
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((s) => s !== "");
  let current: unknown = document;
  for (const step of steps) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

function jsonPattern(text: string): Matcher {
  const inner = text.trim().replace(/^\{/, "").replace(/\}$/, "");
  const disjuncts = inner.split("||").map((part) =>
    part.split("&&").map((comparison) => {
      const m = /^\s*(\$[\w.[\]]*)\s*(=|!=|>=|<=|>|<)\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))\s*$/.exec(comparison);
      if (!m) throw new QuerySyntaxError("Invalid character(s) in term");
      const [, selector, op, quoted, bare] = m;
      const value = quoted ?? bare;
      const numeric = quoted === undefined && /^-?\d+(\.\d+)?$/.test(value);
      const equals = wildcard(value);
      return (document: unknown) => {
        const actual = selectJson(document, selector);
        if (actual === undefined || actual === null || typeof actual === "object") return op === "!=";
        if (numeric && ["<", ">", "<=", ">="].includes(op)) {
          const n = Number(actual);
          const v = Number(value);
          return op === "<" ? n < v : op === ">" ? n > v : op === "<=" ? n <= v : n >= v;
        }
        const text = String(actual);
        if (op === "=") return equals(text);
        if (op === "!=") return !equals(text);
        throw new QuerySyntaxError(`Invalid operator ${op} for a string value`);
      };
    }),
  );
  return (message) => {
    const document = parsed(message);
    if (document === undefined) return false;
    return disjuncts.some((all) => all.every((test) => test(document)));
  };
}

function termPattern(text: string): Matcher {
  const terms = [...text.matchAll(/([?-]?)(?:"((?:[^"\\]|\\.)*)"|(\S+))/g)].map((m) => ({
    kind: m[1],
    term: m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3],
  }));
  const optional = terms.filter((t) => t.kind === "?").map((t) => t.term);
  const required = terms.filter((t) => t.kind === "").map((t) => t.term);
  const excluded = terms.filter((t) => t.kind === "-").map((t) => t.term);
  return (message) =>
    (optional.length === 0 || optional.some((t) => message.includes(t))) &&
    required.every((t) => message.includes(t)) &&
    !excluded.some((t) => message.includes(t));
}

/** A FilterLogEvents `filterPattern` as a predicate over messages. */
export function filterPattern(pattern: string | undefined): Matcher {
  const text = (pattern ?? "").trim();
  if (text === "") return () => true;
  if (text.startsWith("{")) {
    if (!text.endsWith("}")) throw new QuerySyntaxError("Invalid character(s) in term");
    return jsonPattern(text);
  }
  return termPattern(text);
}
