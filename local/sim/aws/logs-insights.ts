/**
 * The Logs Insights query language, the subset the simulator understands (docs/simulator.md, "CloudWatch Logs"):
 * `fields`/`display`, `filter` (=, ==, !=, <, >, <=, >=, like "text", like /regex/, not, and, or, parentheses),
 * `sort` and `limit`. Any other command is a MalformedQueryException, never silently ignored.
 */
import { type LogRecord, parsed, QuerySyntaxError } from "./logs-filter.ts";

export interface InsightsQuery {
  fields: string[];
  filters: Array<(record: LogRecord) => boolean>;
  sort?: Array<{ field: string; descending: boolean }>;
  limit?: number;
}

/** Insights' time format: `2026-12-02 15:10:00.000`. */
const insightsTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");

/** A field of a record as Insights discovers it: system fields, or a JSON path with arrays as `.0`. */
export function fieldValue(record: LogRecord, name: string, json: () => unknown): string | undefined {
  switch (name) {
    case "@timestamp":
      return insightsTime(record.timestamp);
    case "@ingestionTime":
      return insightsTime(record.ingestionTime);
    case "@message":
      return record.message;
    case "@logStream":
      return record.logStreamName;
    case "@log":
      return `${record.account}:${record.logGroupName}`;
    case "@ptr":
      return Buffer.from(`${record.logGroupName}|${record.eventId}`).toString("base64");
  }
  let current: unknown = json();
  for (const step of name.replace(/`/g, "").split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  if (current === undefined || current === null) return undefined;
  return typeof current === "object" ? JSON.stringify(current) : String(current);
}

/** Splits on a separator outside quotes and regex literals. */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      current += ch;
      if (ch === "\\") current += text[++i] ?? "";
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "/") {
      quote = ch;
      current += ch;
      continue;
    }
    if (ch === separator) {
      parts.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  if (quote) throw new QuerySyntaxError("unterminated string or regular expression");
  parts.push(current);
  return parts;
}

type Token = { kind: "word" | "string" | "regex" | "op" | "paren"; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\/(?:[^/\\]|\\.)*\/)|(==|!=|<=|>=|=~|=|<|>)|([()])|([@\w.`-]+))/y;
  let index = 0;
  while (index < text.length) {
    if (/^\s*$/.test(text.slice(index))) break;
    pattern.lastIndex = index;
    const m = pattern.exec(text);
    if (!m) throw new QuerySyntaxError(`unexpected symbol at ${index}: ${text.slice(index, index + 10)}`);
    index = pattern.lastIndex;
    if (m[1]) tokens.push({ kind: "string", text: m[1].slice(1, -1).replace(/\\(.)/g, "$1") });
    else if (m[2]) tokens.push({ kind: "regex", text: m[2].slice(1, -1) });
    else if (m[3]) tokens.push({ kind: "op", text: m[3] });
    else if (m[4]) tokens.push({ kind: "paren", text: m[4] });
    else tokens.push({ kind: "word", text: m[5] });
  }
  return tokens;
}

type Predicate = (value: (field: string) => string | undefined) => boolean;

function parseFilter(text: string): Predicate {
  const tokens = tokenize(text);
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];
  const keyword = (word: string) => peek()?.kind === "word" && peek().text.toLowerCase() === word;
  const comparison = (): Predicate => {
    if (keyword("not")) {
      take();
      const inner = primary();
      return (v) => !inner(v);
    }
    return primary();
  };
  const primary = (): Predicate => {
    if (peek()?.kind === "paren" && peek().text === "(") {
      take();
      const inner = disjunction();
      if (take()?.text !== ")") throw new QuerySyntaxError("missing closing parenthesis");
      return inner;
    }
    const field = take();
    if (field?.kind !== "word") throw new QuerySyntaxError("expected a field name in filter");
    const name = field.text.replace(/`/g, "");
    let negate = false;
    if (keyword("not")) {
      take();
      negate = true;
    }
    const op = take();
    if (!op) throw new QuerySyntaxError(`expected an operator after ${name}`);
    const operand = take();
    if (!operand || !["string", "regex", "word"].includes(operand.kind))
      throw new QuerySyntaxError(`expected a value after ${op.text}`);
    const opText = op.kind === "word" ? op.text.toLowerCase() : op.text;
    let test: (actual: string | undefined) => boolean;
    if (opText === "like" || opText === "=~") {
      const regex = operand.kind === "regex" ? new RegExp(operand.text) : undefined;
      test = (actual) => actual !== undefined && (regex ? regex.test(actual) : actual.includes(operand.text));
    } else if (["=", "==", "!="].includes(opText)) {
      const equal = (actual: string | undefined) => actual !== undefined && actual === operand.text;
      test = opText === "!=" ? (actual) => !equal(actual) : equal;
    } else if (["<", ">", "<=", ">="].includes(opText)) {
      const bound = Number(operand.text);
      test = (actual) => {
        if (actual === undefined) return false;
        const n = Number(actual);
        return opText === "<" ? n < bound : opText === ">" ? n > bound : opText === "<=" ? n <= bound : n >= bound;
      };
    } else {
      throw new QuerySyntaxError(`unsupported operator ${op.text}`);
    }
    return negate ? (v) => !test(v(name)) : (v) => test(v(name));
  };
  const conjunction = (): Predicate => {
    let left = comparison();
    while (keyword("and")) {
      take();
      const right = comparison();
      const l = left;
      left = (v) => l(v) && right(v);
    }
    return left;
  };
  const disjunction = (): Predicate => {
    let left = conjunction();
    while (keyword("or")) {
      take();
      const right = conjunction();
      const l = left;
      left = (v) => l(v) || right(v);
    }
    return left;
  };
  const predicate = disjunction();
  if (position < tokens.length) throw new QuerySyntaxError(`unexpected ${tokens[position].text} in filter`);
  return predicate;
}

/** Parses a query of the supported subset; anything else is a QuerySyntaxError. */
export function parseInsightsQuery(text: string): InsightsQuery {
  const query: InsightsQuery = { fields: [], filters: [] };
  for (const raw of splitOutside(text, "|")) {
    const command = raw.trim();
    if (command === "") throw new QuerySyntaxError("empty command");
    const m = /^(\w+)\s+([\s\S]*)$/.exec(command);
    if (!m) throw new QuerySyntaxError(`unexpected command: ${command}`);
    const [, name, rest] = m;
    switch (name.toLowerCase()) {
      case "fields":
      case "display":
        query.fields.push(...rest.split(",").map((f) => f.trim().replace(/`/g, "")));
        break;
      case "filter": {
        const predicate = parseFilter(rest);
        query.filters.push((record) => {
          let json: unknown;
          let read = false;
          const lazy = () => {
            if (!read) {
              json = parsed(record.message);
              read = true;
            }
            return json;
          };
          return predicate((field) => fieldValue(record, field, lazy));
        });
        break;
      }
      case "sort":
        query.sort = rest.split(",").map((part) => {
          const [field, direction = "desc"] = part.trim().split(/\s+/);
          if (!["asc", "desc"].includes(direction.toLowerCase()))
            throw new QuerySyntaxError(`sort order must be asc or desc: ${direction}`);
          return { field, descending: direction.toLowerCase() === "desc" };
        });
        break;
      case "limit": {
        const n = Number(rest.trim());
        if (!Number.isInteger(n) || n < 1 || n > 10_000)
          throw new QuerySyntaxError("limit must be between 1 and 10000");
        query.limit = n;
        break;
      }
      default:
        throw new QuerySyntaxError(`unsupported command in the simulator: ${name}`);
    }
  }
  return query;
}

/** Runs a parsed query over records: rows of {field, value} with @ptr, as GetQueryResults returns them. */
export function runInsightsQuery(
  query: InsightsQuery,
  records: LogRecord[],
  limit: number,
): { rows: Array<Array<{ field: string; value: string }>>; matched: number } {
  const matched = records.filter((record) => query.filters.every((f) => f(record)));
  const sort = query.sort ?? [{ field: "@timestamp", descending: true }];
  const cache = new Map<LogRecord, unknown>();
  const json = (record: LogRecord) => () => {
    if (!cache.has(record)) cache.set(record, parsed(record.message));
    return cache.get(record);
  };
  const key = (record: LogRecord, field: string) =>
    field === "@timestamp" ? record.timestamp : (fieldValue(record, field, json(record)) ?? "");
  matched.sort((a, b) => {
    for (const { field, descending } of sort) {
      const x = key(a, field);
      const y = key(b, field);
      if (x < y) return descending ? 1 : -1;
      if (x > y) return descending ? -1 : 1;
    }
    return 0;
  });
  const fields = query.fields.length > 0 ? query.fields : ["@timestamp", "@message"];
  const rows = matched.slice(0, Math.min(limit, query.limit ?? limit)).map((record) => {
    const row: Array<{ field: string; value: string }> = [];
    for (const field of [...fields.filter((f) => f !== "@ptr"), "@ptr"]) {
      const value = fieldValue(record, field, json(record));
      if (value !== undefined) row.push({ field, value });
    }
    return row;
  });
  return { rows, matched: matched.length };
}
