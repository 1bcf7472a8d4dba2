/**
 * Kubernetes label selectors (`helm list -l`): apimachinery's labels.Parse, its lexer and parser ported
 * so a bad selector is refused in Helm's words (`found '==', expected: !, identifier, or 'end of string'`):
 * requirements joined by commas, each `key`, `!key`, `key=value`, `key==value`, `key!=value`,
 * `key in (a,b)`, `key notin (a,b)`, `key gt 1`-style `key>1` / `key<1`.
 */
import { ValidationError } from "../errors.ts";

export class InvalidSelectorError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidSelector");
  }
}

type Operator = "exists" | "!exists" | "in" | "notin" | "gt" | "lt";
interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export type LabelSelector = (labels: Record<string, string>) => boolean;

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

type Token = "id" | "in" | "notin" | "!" | "!=" | "=" | "==" | ">" | "<" | "(" | ")" | "," | "end" | "error";
const SYMBOLS = new Set(["!", "!=", "=", "==", ">", "<", "(", ")", ","]);
const SPECIAL = "=!(),><";
const WHITESPACE = " \t\r\n";

/** apimachinery's Lexer: special symbols by longest match, anything else up to whitespace or a symbol. */
function lex(selector: string): { token: Token; text: string }[] {
  const out: { token: Token; text: string }[] = [];
  let i = 0;
  while (i < selector.length) {
    if (WHITESPACE.includes(selector[i])) {
      i++;
      continue;
    }
    let j = i;
    if (SPECIAL.includes(selector[i])) {
      while (j < selector.length && SPECIAL.includes(selector[j]) && SYMBOLS.has(selector.slice(i, j + 1))) j++;
      const text = selector.slice(i, Math.max(j, i + 1));
      out.push({ token: SYMBOLS.has(text) ? (text as Token) : "error", text });
      i = Math.max(j, i + 1);
      continue;
    }
    while (j < selector.length && !WHITESPACE.includes(selector[j]) && !SPECIAL.includes(selector[j])) j++;
    const text = selector.slice(i, j);
    out.push({ token: text === "in" || text === "notin" ? text : "id", text });
    i = j;
  }
  out.push({ token: "end", text: "" });
  return out;
}

class Parser {
  private position = 0;
  private readonly items: { token: Token; text: string }[];
  private readonly selector: string;
  constructor(selector: string) {
    this.selector = selector;
    this.items = lex(selector);
  }

  /** In a value position the keywords `in` / `notin` are identifiers. */
  private peek(values = true) {
    const item = this.items[Math.min(this.position, this.items.length - 1)];
    return values && (item.token === "in" || item.token === "notin") ? { token: "id" as Token, text: item.text } : item;
  }

  private next(values = true) {
    const item = this.peek(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { token, text } = this.peek();
      if (token === "end") return requirements;
      if (token !== "id" && token !== "!") fail(`found '${text}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.requirement());
      } catch (error) {
        if (error instanceof InvalidSelectorError) fail(`unable to parse requirement: ${error.message}`);
        throw error;
      }
      const after = this.next();
      if (after.token === "end") return requirements;
      if (after.token !== ",") fail(`found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.token !== "id" && following.token !== "!") {
        fail(`found '${following.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    let op: Operator | undefined;
    let item = this.next();
    if (item.token === "!") {
      op = "!exists";
      item = this.next();
    }
    if (item.token !== "id") fail(`found '${item.text}', expected: identifier`);
    const key = checked("key", item.text, this.selector);
    const ahead = this.peek().token;
    if (op === "!exists" || ahead === "end" || ahead === ",") return { key, op: op ?? "exists", values: [] };
    const operator = this.next(false);
    switch (operator.token) {
      case "in":
      case "notin":
        return { key, op: operator.token, values: this.setValues() };
      case "=":
      case "==":
      case "!=":
        return { key, op: operator.token === "!=" ? "notin" : "in", values: [this.exactValue()] };
      case ">":
      case "<":
        return { key, op: operator.token === ">" ? "gt" : "lt", values: [integerValue(this.exactValue())] };
      default:
        return fail(`found '${operator.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private setValues(): string[] {
    const open = this.next();
    if (open.token !== "(") fail(`found '${open.text}' expected: '('`);
    const first = this.peek();
    if (first.token === ")") {
      this.next();
      return [""];
    }
    if (first.token !== "id" && first.token !== ",") fail(`found '${first.text}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const item = this.next();
      if (item.token === "id") {
        values.add(checked("value", item.text, this.selector));
        const ahead = this.peek();
        if (ahead.token === ")") break;
        if (ahead.token !== ",") fail(`found '${ahead.text}', expected: ',' or ')'`);
      } else if (item.token === ",") {
        if (values.size === 0) values.add("");
        const ahead = this.peek().token;
        if (ahead === ")") {
          values.add("");
          break;
        }
        if (ahead === ",") {
          this.next();
          values.add("");
        }
      } else fail(`found '${item.text}', expected: ',', or identifier`);
    }
    const close = this.next();
    if (close.token !== ")") fail(`found '${close.text}', expected: ')'`);
    return [...values];
  }

  private exactValue(): string {
    const ahead = this.peek().token;
    if (ahead === "end" || ahead === ",") return "";
    const item = this.next();
    if (item.token !== "id") fail(`found '${item.text}', expected: identifier`);
    return checked("value", item.text, this.selector);
  }
}

function fail(message: string): never {
  throw new InvalidSelectorError(message);
}

function checked(kind: "key" | "value", text: string, selector: string): string {
  if (!(kind === "key" ? KEY : VALUE).test(text)) {
    fail(`invalid label selector ${JSON.stringify(selector)}: ${JSON.stringify(text)} is not a valid label ${kind}`);
  }
  return text;
}

function integerValue(text: string): string {
  if (!/^[-+]?\d+$/.test(text)) fail("for 'Gt', 'Lt' operators, the value must be an integer");
  return text;
}

export function parseLabelSelector(selector: string): LabelSelector {
  const requirements = new Parser(selector).parse();
  return (labels) =>
    requirements.every((r) => {
      const has = Object.hasOwn(labels, r.key);
      if (r.op === "exists") return has;
      if (r.op === "!exists") return !has;
      if (r.op === "gt" || r.op === "lt") {
        if (!has || !/^[-+]?\d+$/.test(labels[r.key])) return false;
        const [value, bound] = [BigInt(labels[r.key]), BigInt(r.values[0])];
        return r.op === "gt" ? value > bound : value < bound;
      }
      const listed = r.values.includes(labels[r.key]);
      return r.op === "in" ? has && listed : !has || !listed;
    });
}
