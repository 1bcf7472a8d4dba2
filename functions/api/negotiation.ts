import type { OutputFormat } from "../../shared/render/index.ts";
import { InvalidParameterError, NotAcceptableError } from "./errors.ts";

/**
 * Content negotiation. `?output=` wins over Accept because a URL pasted into a
 * browser or a chat message cannot carry headers.
 */

export type { OutputFormat } from "../../shared/render/index.ts";

export const MEDIA_TYPES: Record<OutputFormat, string> = {
  table: "text/plain; charset=utf-8",
  json: "application/json; charset=utf-8",
  yaml: "application/yaml; charset=utf-8",
};

interface Preference {
  type: string;
  q: number;
  order: number;
}

/** Parses an Accept / Accept-Encoding style list, best first (q, then specificity, then order). */
export function parsePreferences(header: string | undefined): Preference[] {
  if (!header) return [];
  const preferences: Preference[] = [];
  header.split(",").forEach((part, order) => {
    const [rawType, ...params] = part.split(";");
    const type = rawType.trim().toLowerCase();
    if (!type) return;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((s) => s.trim());
      if (key?.toLowerCase() === "q") {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    preferences.push({ type, q, order });
  });
  const specificity = (type: string) => (type === "*/*" || type === "*" ? 0 : type.endsWith("/*") ? 1 : 2);
  return preferences.sort((a, b) => b.q - a.q || specificity(b.type) - specificity(a.type) || a.order - b.order);
}

const ACCEPTED_TYPES: Record<string, OutputFormat> = {
  "text/plain": "table",
  "application/json": "json",
  "application/yaml": "yaml",
  "application/x-yaml": "yaml",
  "text/yaml": "yaml",
  "text/x-yaml": "yaml",
};

function formatForMediaRange(range: string, allowed: readonly OutputFormat[], fallback: OutputFormat) {
  if (range === "*/*") return fallback;
  const exact = ACCEPTED_TYPES[range];
  if (exact) return allowed.includes(exact) ? exact : undefined;
  if (range.endsWith("/*")) {
    const major = range.slice(0, -1);
    if (fallback && MEDIA_TYPES[fallback].startsWith(major)) return fallback;
    return allowed.find((format) => MEDIA_TYPES[format].startsWith(major));
  }
  return undefined;
}

/**
 * The output format for a request: `?output=` if given (validated), else the best
 * Accept match, else `fallback`. An Accept naming only formats we cannot produce is a 406.
 */
export function chooseOutput(
  outputParam: string | undefined,
  acceptHeader: string | undefined,
  allowed: readonly OutputFormat[],
  fallback: OutputFormat,
): OutputFormat {
  if (outputParam !== undefined) {
    if (!(allowed as readonly string[]).includes(outputParam)) {
      throw new InvalidParameterError(
        "output",
        `${JSON.stringify(outputParam)} is not an output format (one of ${allowed.join(", ")})`,
      );
    }
    return outputParam as OutputFormat;
  }
  const preferences = parsePreferences(acceptHeader);
  if (preferences.length === 0) return fallback;
  for (const { type, q } of preferences) {
    if (q <= 0) continue;
    const format = formatForMediaRange(type, allowed, fallback);
    if (format) return format;
  }
  throw new NotAcceptableError(
    `cannot produce any type in Accept: ${JSON.stringify(acceptHeader)}; this route serves ${allowed
      .map((format) => MEDIA_TYPES[format].split(";")[0])
      .join(", ")} (or use ?output=${allowed.join("|")})`,
  );
}

/** Encodings we produce, in our order of preference when the client ranks them equally. */
const ENCODINGS = ["br", "gzip", "deflate", "zstd"] as const;
export type ContentEncoding = (typeof ENCODINGS)[number];

/** The encoding to compress with, or undefined for identity. */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  const preferences = parsePreferences(acceptEncoding);
  if (preferences.length === 0) return undefined;
  const refused = new Set(preferences.filter((p) => p.q <= 0).map((p) => p.type));
  const wildcard = preferences.find((p) => p.type === "*" && p.q > 0);
  let best: { encoding: ContentEncoding; q: number } | undefined;
  for (const encoding of ENCODINGS) {
    if (refused.has(encoding)) continue;
    const named = preferences.find((p) => p.type === encoding);
    const q = named ? named.q : wildcard ? wildcard.q : 0;
    if (q > 0 && (!best || q > best.q)) best = { encoding, q };
  }
  return best?.encoding;
}
