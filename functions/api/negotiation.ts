import Negotiator from "negotiator";
import type { OutputFormat } from "../../shared/render/index.ts";
import { InvalidParameterError, NotAcceptableError } from "../_shared/http/errors.ts";

/**
 * Content negotiation (Accept and Accept-Encoding parsed and ranked by `negotiator`, RFC 9110's rules: q, then
 * the most specific range, then the client's order). `?output=` wins over Accept because a URL pasted into a
 * browser or a chat message cannot carry headers.
 */

export type { OutputFormat } from "../../shared/render/index.ts";

export const MEDIA_TYPES: Record<OutputFormat, string> = {
  table: "text/plain; charset=utf-8",
  json: "application/json; charset=utf-8",
  yaml: "application/yaml; charset=utf-8",
};

/** The media types a client may name for each format (YAML has four in use); the first is what we send. */
const ACCEPTED_TYPES: Record<OutputFormat, readonly string[]> = {
  table: ["text/plain"],
  json: ["application/json"],
  yaml: ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"],
};

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
  // No Accept (or an empty one) takes the route's default, like */*.
  if (!acceptHeader?.trim()) return fallback;
  // Offered canonical types first, the route's default first among them: equal preferences (*/*, text/*) pick
  // the default, then the allowed order.
  const ordered = [fallback, ...allowed.filter((format) => format !== fallback)];
  const canonical = ordered.map((format) => ({ type: ACCEPTED_TYPES[format][0], format }));
  const aliases = ordered.flatMap((format) => ACCEPTED_TYPES[format].slice(1).map((type) => ({ type, format })));
  const offered = [...canonical, ...aliases];
  const negotiator = new Negotiator({ headers: { accept: acceptHeader } });
  // An alias (text/yaml) counts only when the client names it: the answer carries the canonical type, which a
  // wildcard such as text/* would not cover.
  const named = new Set(negotiator.mediaTypes().map((type) => type.toLowerCase()));
  for (const type of negotiator.mediaTypes(offered.map((o) => o.type))) {
    const choice = offered.find((o) => o.type === type)!;
    if (canonical.includes(choice) || named.has(type)) return choice.format;
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

/** The encoding to compress with, or undefined for identity (also when the client ranks identity first). */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (!acceptEncoding?.trim()) return undefined;
  const negotiator = new Negotiator({ headers: { "accept-encoding": acceptEncoding } }) as unknown as WithPreferred;
  // Our order breaks ties between encodings the client ranks equally (gzip, br -> br).
  return negotiator.encodings(ENCODINGS, { preferred: ENCODINGS })[0] as ContentEncoding | undefined;
}

/** negotiator 1.x's `encodings(available, { preferred })` (@types/negotiator still describes 0.6). */
interface WithPreferred {
  encodings(available: readonly string[], options: { preferred: readonly string[] }): string[];
}
