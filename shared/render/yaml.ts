/**
 * The one YAML policy: what `helm ... -o yaml` writes. Helm marshals with sigs.k8s.io/yaml,
 * which goes through JSON (so omitted fields and key names are JSON's) and then go-yaml v2:
 * keys in go-yaml's natural order, block style, sequences unindented under a mapping key,
 * YAML 1.1 quoting (`"yes"`, `"2026-01-01"`), multi-line strings as literal blocks unless a
 * line ends in a space, and plain/quoted scalars folded at the first space past column 80.
 * No library writes exactly these bytes, so this is a small port of the emitter paths that
 * JSON-shaped data reaches (yaml_emitter_* in go-yaml's emitterc.go).
 */
import { isBreak, isPrintable, type ScalarStyle, stringStyle } from "../yaml/scalars.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BEST_INDENT = 2;
const ASCII = /^[\t\n\x20-\x7e]*$/;
/** Printable ASCII a double-quoted scalar writes as is (no `"` or `\\` to escape). */
const PRINTABLE_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const BEST_WIDTH = 80;
const MAX_SIMPLE_KEY_BYTES = 128;

/** `value` as sigs.k8s.io/yaml.Marshal writes it (always ends in a newline). */
export function renderYaml(value: unknown): string {
  const json = JSON.parse(JSON.stringify(value ?? null)) as Json;
  const emitter = new Emitter();
  emitter.node(json, { indent: -1, mappingValue: false, simpleKey: false });
  emitter.writeIndent(0);
  return emitter.out;
}

interface NodeContext {
  /** The enclosing collection's indent (-1 at the root). */
  indent: number;
  /** The node is the value of a block mapping entry (its sequence is then unindented). */
  mappingValue: boolean;
  simpleKey: boolean;
}

class Emitter {
  out = "";
  column = 0;
  whitespace = true;
  indention = true;

  node(value: Json, context: NodeContext): void {
    if (Array.isArray(value)) {
      if (value.length === 0) this.emptyCollection("[]");
      else this.sequence(value, context);
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 0) this.emptyCollection("{}");
      else this.mapping(value, keys, context);
    } else {
      const indent = context.indent < 0 ? BEST_INDENT : context.indent + BEST_INDENT;
      const style = typeof value === "string" ? stringStyle(value, context.simpleKey) : "plain";
      const text = value === null ? "null" : typeof value === "number" ? goNumber(value) : String(value);
      this.scalar(text, style, indent, context);
    }
  }

  sequence(items: Json[], context: NodeContext): void {
    const indentless = context.mappingValue && !this.indention;
    const indent = context.indent < 0 ? 0 : indentless ? context.indent : context.indent + BEST_INDENT;
    for (const item of items) {
      this.writeIndent(indent);
      this.indicator("-", true, false, true);
      this.node(item, { indent, mappingValue: false, simpleKey: false });
    }
  }

  mapping(map: { [key: string]: Json }, keys: string[], context: NodeContext): void {
    const indent = context.indent < 0 ? 0 : context.indent + BEST_INDENT;
    for (const key of keys.sort(compareKeys)) {
      this.writeIndent(indent);
      const simple = Buffer.byteLength(key) <= MAX_SIMPLE_KEY_BYTES && !key.includes("\n");
      if (simple) {
        this.node(key, { indent, mappingValue: false, simpleKey: true });
        this.indicator(":", false, false, false);
      } else {
        this.indicator("?", true, false, true);
        this.node(key, { indent, mappingValue: false, simpleKey: false });
        this.writeIndent(indent);
        this.indicator(":", true, false, true);
      }
      this.node(map[key], { indent, mappingValue: true, simpleKey: false });
    }
  }

  emptyCollection(text: "[]" | "{}"): void {
    this.indicator(text[0], true, true, false);
    this.indicator(text[1], false, false, false);
  }

  scalar(value: string, style: ScalarStyle, indent: number, context: NodeContext): void {
    const breaks = !context.simpleKey;
    // Fast path (most scalars): nothing to fold (no space, or the line cannot pass column 80) and nothing to escape.
    const short = !breaks || !value.includes(" ") || this.column + 3 + value.length <= BEST_WIDTH;
    if (short && style === "plain") {
      if (!this.whitespace) this.put(" ");
      this.putRun(value);
      this.endScalar();
      return;
    }
    if (short && style === "double" && PRINTABLE_ASCII.test(value)) {
      this.quoted('"', () => this.putRun(value));
      return;
    }
    if (style === "plain") this.plain(value, indent, breaks);
    else if (style === "single") this.singleQuoted(value, indent, breaks);
    else if (style === "double") this.doubleQuoted(value, indent, breaks);
    else this.literal(value, indent);
  }

  plain(value: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(" ");
    const chars = [...value];
    let spaces = false;
    chars.forEach((c, i) => {
      if (c === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== " ") this.writeIndent(indent);
        else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    });
    this.endScalar();
  }

  /** A scalar's text between its quotes; then, like any scalar, neither after white space nor indentation. */
  quoted(quote: string, writeText: () => void): void {
    this.indicator(quote, true, false, false);
    writeText();
    this.indicator(quote, false, false, false);
    this.endScalar();
  }

  endScalar(): void {
    this.whitespace = false;
    this.indention = false;
  }

  singleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.quoted("'", () => this.singleQuotedText([...value], indent, allowBreaks));
  }

  singleQuotedText(chars: string[], indent: number, allowBreaks: boolean): void {
    let spaces = false;
    let breaks = false;
    chars.forEach((c, i) => {
      if (isBreak(c)) {
        if (!breaks && c === "\n") this.putBreak();
        this.putBreak(c);
        this.indention = true;
        breaks = true;
      } else if (c === " ") {
        if (breaks) this.writeIndent(indent);
        const inside = i > 0 && i < chars.length - 1;
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && inside && chars[i + 1] !== " ") {
          this.writeIndent(indent);
        } else this.put(c);
        spaces = true;
        breaks = false;
      } else {
        if (breaks) this.writeIndent(indent);
        breaks = false;
        if (c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    });
  }

  doubleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.quoted('"', () => this.doubleQuotedText([...value], indent, allowBreaks));
  }

  doubleQuotedText(chars: string[], indent: number, allowBreaks: boolean): void {
    let spaces = false;
    chars.forEach((c, i) => {
      const code = c.codePointAt(0) ?? 0;
      if (!isPrintable(code) || code === 0xfeff || isBreak(c) || c === '"' || c === "\\") {
        this.put(`\\${escapeCode(code)}`);
        spaces = false;
      } else if (c === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent(indent);
          if (chars[i + 1] === " ") this.put("\\");
        } else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    });
  }

  literal(value: string, indent: number): void {
    this.indicator("|", true, false, false);
    const chars = [...value];
    if (chars[0] === " " || isBreak(chars[0] ?? "")) this.indicator(String(BEST_INDENT), false, false, false);
    const last = chars.at(-1) ?? "";
    const beforeLast = chars.at(-2);
    if (!isBreak(last)) this.indicator("-", false, false, false);
    else if (chars.length === 1 || (beforeLast !== undefined && isBreak(beforeLast))) {
      this.indicator("+", false, false, false);
    }
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.putBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }

  indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.put(text);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  writeIndent(indent: number): void {
    const target = Math.max(indent, 0);
    if (!this.indention || this.column > target || (this.column === target && !this.whitespace)) this.putBreak();
    while (this.column < target) this.put(" ");
    this.whitespace = true;
    this.indention = true;
  }

  /** Text without line breaks, written at once. */
  putRun(text: string): void {
    this.out += text;
    this.column += ASCII.test(text) ? text.length : [...text].length;
  }

  put(text: string): void {
    this.out += text;
    this.column += text.length === 1 ? 1 : [...text].length;
  }

  /** A line break; a literal block keeps its own break characters (NEL, LS, PS). */
  putBreak(text = "\n"): void {
    this.out += text;
    this.column = 0;
  }
}

function escapeCode(code: number): string {
  const short: Record<number, string> = {
    0: "0",
    7: "a",
    8: "b",
    9: "t",
    10: "n",
    11: "v",
    12: "f",
    13: "r",
    27: "e",
    34: '"',
    92: "\\",
    133: "N",
    160: "_",
    8232: "L",
    8233: "P",
  };
  if (short[code] !== undefined) return short[code];
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return `x${hex.padStart(2, "0")}`;
  if (code <= 0xffff) return `u${hex.padStart(4, "0")}`;
  return `U${hex.padStart(8, "0")}`;
}

/**
 * A JSON number as go-yaml writes it after sigs.k8s.io/yaml re-read the JSON: integers
 * (int64/uint64 range) in decimal, other numbers with strconv.FormatFloat(f, 'g', -1, 64).
 */
export function goNumber(value: number): string {
  if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 64) return BigInt(value).toString();
  if (!Number.isFinite(value)) return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  const [mantissa, exponentText] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}

/**
 * go-yaml's keyList.Less for string keys: letters after other characters, digit runs compared as int64 numbers
 * (unicode.IsDigit, so any Nd digit). Not a strict weak order (`0O7` < `1` < `08` < `0O7`): go-yaml sorts a Go
 * map's keys in Go's random iteration order, so for such key sets helm itself prints a different order from run
 * to run (docs/status.md), and this order is one of them.
 */
export function compareKeys(left: string, right: string): number {
  const ascii = ASCII.test(left) && ASCII.test(right);
  const a = ascii ? left : [...left];
  const b = ascii ? right : [...right];
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] === b[i]) continue;
    const al = isLetter(a[i]);
    const bl = isLetter(b[i]);
    if (al && bl) return runeLess(a[i], b[i]);
    if (al || bl) return bl ? -1 : 1;
    let an = 0n;
    let bn = 0n;
    if (a[i] === "0" || b[i] === "0") {
      for (let j = i - 1; j >= 0 && isDigit(a[j]); j--) {
        if (a[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    // Go's int64 arithmetic: a run of 19 or more digits wraps around (9223372036854775808 sorts as a negative).
    for (; ai < a.length && isDigit(a[ai]); ai++) an = BigInt.asIntN(64, an * 10n + digitValue(a[ai]));
    let bi = i;
    for (; bi < b.length && isDigit(b[bi]); bi++) bn = BigInt.asIntN(64, bn * 10n + digitValue(b[bi]));
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return runeLess(a[i], b[i]);
  }
  return a.length - b.length;
}

/** Code point order (a UTF-16 comparison puts U+1F600 before U+FFFF). */
const runeLess = (a: string, b: string) => ((a.codePointAt(0) ?? 0) < (b.codePointAt(0) ?? 0) ? -1 : 1);
const isLetter = (c: string) => {
  const code = c.charCodeAt(0);
  if (code < 0x80) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return /\p{L}/u.test(c);
};
const isDigit = (c: string) => (c.charCodeAt(0) < 0x80 ? c >= "0" && c <= "9" : /^\p{Nd}$/u.test(c));
/** `rune - '0'`, as go-yaml adds it whatever the digit's script. */
const digitValue = (c: string) => BigInt((c.codePointAt(0) ?? 48) - 48);
