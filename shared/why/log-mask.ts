/**
 * A container's log lines made safe to show: bounded in lines and bytes, invalid UTF-8 and binary replaced, ANSI
 * escapes and other control characters removed, and secrets masked before anything leaves the process — the values
 * of the release's own Secrets (read for the Secret table, never returned), and what looks like an AWS access key,
 * a JWT, a bearer or basic credential, a private key block or a `password=`-style assignment. Pure.
 */

export const MASK = "****";
/** Lines and bytes of an excerpt, whatever the log holds (the read asks the API server for no more either). */
export const EXCERPT_LINES = 40;
export const EXCERPT_BYTES = 16 * 1024;
/** Secret values shorter than this are not masked by value: "1" or "true" would blank half a log. */
const MIN_SECRET_LENGTH = 4;

/** What looks like a credential, and what it becomes: an assignment keeps its name, a scheme its word. */
const PATTERNS: { pattern: RegExp; mask: (...groups: string[]) => string }[] = [
  // PEM private keys, whole blocks when they fit the excerpt, else from the header on.
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, mask: () => MASK },
  // AWS access key ids, and secret access keys as assigned.
  { pattern: /\b(?:AKIA|ASIA|AROA|AIDA)[A-Z0-9]{16}\b/g, mask: () => MASK },
  // JWTs (three base64url parts, the first a JSON header).
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, mask: () => MASK },
  // Authorization schemes with their credential.
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, mask: (_match, scheme) => `${scheme} ${MASK}` },
  // password=..., token: ..., aws_secret_access_key = "...", api-key=...: the value up to a delimiter.
  {
    pattern:
      /\b([A-Za-z_]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)[A-Za-z_]*)(\s*[:=]\s*["']?)[^\s"',;&]{3,}/gi,
    mask: (_match, name, separator) => `${name}${separator}${MASK}`,
  },
];

/** A cause's log excerpt as a report carries it (logs.ts reads it). */
export interface LogExcerpt extends Excerpt {
  container: string;
  /** The previous (crashed) instance's log, else the current one's. */
  previous: boolean;
}

/** Why a cause has no excerpt where one was asked for. */
export interface LogUnread {
  container: string;
  unread: string;
}

export interface Excerpt {
  lines: string[];
  /** The log had more lines or bytes than the excerpt keeps (or the API server cut it at limitBytes). */
  truncated: boolean;
}

/**
 * The last EXCERPT_LINES lines of `bytes` (the API server's answer to `log?previous=true&tailLines&limitBytes`),
 * masked. `secretValues`: the release's Secret values, decoded, each masked wherever it appears.
 */
export function maskedExcerpt(bytes: Uint8Array, secretValues: readonly string[], cutByServer = false): Excerpt {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(
    bytes.subarray(Math.max(0, bytes.length - EXCERPT_BYTES)),
  );
  const binary = (text.match(/\uFFFD/g)?.length ?? 0) > text.length / 10;
  if (binary) return { lines: ["(binary output, not shown)"], truncated: true };
  text = withoutTerminalControls(text);
  text = maskSecrets(text, secretValues);
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  const lines = all.slice(-EXCERPT_LINES);
  return { lines, truncated: cutByServer || bytes.length > EXCERPT_BYTES || all.length > lines.length };
}

/** Terminal escapes (colours, cursor moves, titles, hyperlinks), other control characters and bidi overrides. */
const TERMINAL_CONTROLS = [
  // biome-ignore lint/suspicious/noControlCharactersInRegex: CSI sequences are what is removed
  /\u001b\[[0-?]*[ -/]*[@-~]/g,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: OSC sequences are what is removed
  /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (CR included) are what is removed
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
  /[\u202a-\u202e\u2066-\u2069]/g,
];

function withoutTerminalControls(text: string): string {
  return TERMINAL_CONTROLS.reduce((out, pattern) => out.replace(pattern, ""), text);
}

export function maskSecrets(text: string, secretValues: readonly string[]): string {
  let out = text;
  // Longest first, so a value containing another is masked whole.
  const values = [...new Set(secretValues)]
    .filter((v) => v.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const value of values) out = out.split(value).join(MASK);
  for (const { pattern, mask } of PATTERNS) out = out.replace(pattern, (...args: string[]) => mask(...args));
  return out;
}
