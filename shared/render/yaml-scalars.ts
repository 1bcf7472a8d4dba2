/**
 * How go-yaml v2 (the emitter behind sigs.k8s.io/yaml, so behind every `helm ... -o yaml`)
 * decides a string's style: its resolver (YAML 1.1: `yes`, `on`, `2026-01-01`, `1:30`,
 * `0x1F` are not strings when plain; the one port of resolve.go is shared/manifest/go-yaml.ts,
 * which reads manifests the same way) and libyaml's scalar analysis (which styles the
 * characters allow), a port of yaml_emitter_analyze_scalar, so the bytes match.
 */
import { resolvePlainScalar } from "../manifest/go-yaml.ts";

const BASE_60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** True when go-yaml would read the plain form of `value` as something other than a string. */
export function resolvesToNonString(value: string): boolean {
  // Base 60 is not resolved, but go-yaml quotes it "for compatibility with other parsers".
  if (BASE_60_FLOAT.test(value)) return true;
  return resolvePlainScalar(value).tag !== "str";
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

/** Starts with a letter no resolver rule looks at, then letters, digits and `-._/` only. */
const SAFE_WORD = /^[A-MP-SU-XZa-mp-su-xz][A-Za-z0-9._/-]*$/;

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
