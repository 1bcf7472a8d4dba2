/**
 * How go-yaml v2 (the emitter behind sigs.k8s.io/yaml, so behind every `helm ... -o yaml`)
 * decides a string's style: its resolver (YAML 1.1: `yes`, `on`, `2026-01-01`, `1:30`,
 * `0x1F` are not strings when plain) and libyaml's scalar analysis (which styles the
 * characters allow). A port of resolve.go and yaml_emitter_analyze_scalar, so the bytes match.
 */

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE_60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
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

/** True when go-yaml would read the plain form of `value` as something other than a string. */
export function resolvesToNonString(value: string): boolean {
  // Base 60 is not resolved, but go-yaml quotes it "for compatibility with other parsers".
  if (BASE_60_FLOAT.test(value)) return true;
  return resolvePlainScalar(value).tag !== "str";
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

export interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** libyaml's printable set (go-yaml's is_printable), by code point. */
export function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

export const isBreak = (c: string) => c === "\n" || c === "\r" || c === "\u0085" || c === "\u2028" || c === "\u2029";
const isBlank = (c: string | undefined) => c === " " || c === "\t";

/** yaml_emitter_analyze_scalar, for block context (go-yaml never emits flow collections with content). */
export function analyzeScalar(value: string): ScalarAnalysis {
  if (value === "")
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const chars = [...value];
  let blockIndicators = value.startsWith("---") || value.startsWith("...");
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  chars.forEach((c, i) => {
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || isBlank(next) || isBreak(next);
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(c)) blockIndicators = true;
      else if ((c === "?" || c === ":" || c === "-") && followedByWhitespace) blockIndicators = true;
    } else if (c === ":" && followedByWhitespace) blockIndicators = true;
    else if (c === "#" && precededByWhitespace) blockIndicators = true;
    if (!isPrintable(c.codePointAt(0) ?? 0)) special = true;
    const last = i === chars.length - 1;
    if (c === " ") {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c);
  });
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks || blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

/**
 * Starts with a letter no resolver rule looks at (resolve()'s hint table marks `yYnNtTfFoO~`: the bool and null
 * words), then letters, digits and `-._/` only.
 */
const SAFE_WORD = /^[A-EG-MP-SU-XZa-eg-mp-su-xz][A-Za-z0-9._/-]*$/;

export type ScalarStyle = "plain" | "single" | "double" | "literal";

/** go-yaml's encoder.stringv plus yaml_emitter_select_scalar_style, for a string value or a mapping key. */
export function stringStyle(value: string, simpleKey: boolean): ScalarStyle {
  // Fast path: a word of safe characters that no YAML 1.1 rule can read as anything but a string.
  if (SAFE_WORD.test(value)) return "plain";
  const analysis = analyzeScalar(value);
  let style: ScalarStyle = value.includes("\n") ? "literal" : resolvesToNonString(value) ? "double" : "plain";
  if (simpleKey && analysis.multiline) style = "double";
  if (style === "plain") {
    if (!analysis.blockPlainAllowed) style = "single";
    if (value === "" && simpleKey) style = "single";
  }
  if (style === "single" && !analysis.singleQuotedAllowed) style = "double";
  if (style === "literal" && (!analysis.blockAllowed || simpleKey)) style = "double";
  return style;
}
