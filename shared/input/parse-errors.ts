/**
 * What a JSON or YAML parse failure may tell a caller. The parsers quote the
 * input around the fault (Node: `Unexpected token 'x', ..."pw": s3cr3t}" is not
 * valid JSON`; yaml: `Block scalar header includes extra characters: |s3cr3t`,
 * the alias or tag name, and a context block with the whole line), and what we
 * parse is release Secrets and their values. So only the kind of fault and its
 * position survive: never a character of the input.
 */
import { firstLine } from "./values.ts";

/** yaml options for parsing untrusted text: warnings (which quote the line) are never printed to stderr. */
export const QUIET_YAML = { logLevel: "error" } as const;

/** A JSON.parse failure as "what, where", without the excerpt of the input V8 adds. */
export function jsonErrorMessage(error: unknown): string {
  const first = firstLine(error);
  // V8's only excerpting form is `Unexpected token 'X', "...context..." is not valid JSON`; the token is input too.
  if (first.includes('"') || /^Unexpected token '/.test(first)) {
    return "unexpected character (a value that is not quoted, a stray character or a missing comma)";
  }
  return first;
}

/** A yaml parse failure as "what at line L, column C", without names, excerpts or the context block. */
export function yamlErrorMessage(error: unknown): string {
  const first = firstLine(error);
  const position = / at line \d+, column \d+/.exec(first);
  const what = (position ? first.slice(0, position.index) : first.replace(/:$/, ""))
    // Messages that name input put it after a colon (`...: |s3cr3t`, `Unresolved tag: !x`) or in quotes.
    .replace(/:\s.*$/, "")
    .replace(/\s*"(?:[^"\\]|\\.)*"/g, "")
    // ...or as the one offending character or escape: still a piece of a value.
    .replace(/(reserved character|escape sequence) \S+$/, "$1");
  return `${what}${position ? position[0] : ""}`;
}
