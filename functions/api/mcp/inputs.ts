/**
 * The MCP tools' arguments, built from the API's own validation rules: a parameter is checked by the same
 * validator its route calls (shared/release/validation.ts through params.ts), so a bad cluster, namespace,
 * release name, revision or status gets the same message as `GET ...?` would (Helm's words), and the JSON Schema
 * the tools list shows carries the same rule (pattern, length, enum) for the assistant to read. Times, health
 * lists, filters and cursors are checked by the use case, as for the routes.
 */
import * as z from "zod";
import { publicErrorMessage } from "../../../shared/errors.ts";
import { RELEASE_STATUSES } from "../../../shared/release/model.ts";
import * as rules from "../../../shared/release/validation.ts";

/** Longest free-text argument (times, filters, selectors, cursors): anything longer is refused before any read. */
const MAX_TEXT = 1024;

/** A value checked by `validate` (the route's validator); its public message is the tool error, at the parameter. */
function checkedBy<T extends z.ZodType>(schema: T, validate: (value: z.infer<T>) => unknown) {
  return schema.superRefine((value, ctx) => {
    try {
      validate(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: publicErrorMessage(error) });
    }
  });
}

export const text = (description: string) => z.string().max(MAX_TEXT).describe(description);

export const cluster = checkedBy(z.string(), rules.validateClusterName).meta({
  description: "the cluster's name in the registry (list_clusters)",
  pattern: rules.CLUSTER_NAME.source,
  maxLength: rules.MAX_CLUSTER_NAME_LENGTH,
});

export const namespace = checkedBy(z.string(), rules.validateNamespace).meta({
  description: "the release's namespace",
  pattern: rules.DNS1123_LABEL.source,
  maxLength: rules.MAX_NAMESPACE_LENGTH,
});

const releaseNameRule = { pattern: rules.RELEASE_NAME_PATTERN, maxLength: rules.MAX_RELEASE_NAME_BYTES };
/** A release name to read history by (helm history's wording of a bad name). */
export const releaseName = checkedBy(z.string(), rules.validateReleaseName).meta({
  description: "the release's name",
  ...releaseNameRule,
});
/** A release name to read content by (helm status / get manifest word a bad name `releaseContent: ...`). */
export const contentReleaseName = checkedBy(z.string(), rules.validateReleaseContentName).meta({
  description: "the release's name",
  ...releaseNameRule,
});

export const revision = checkedBy(z.int(), rules.revisionOrLatest)
  .meta({ description: "a revision (0 or less, or absent: the latest)", maximum: rules.MAX_REVISION })
  .optional();

export const status = checkedBy(z.string(), rules.validateStatus)
  .meta({ description: "exactly this Helm status", enum: [...RELEASE_STATUSES] })
  .optional();

/** A page size: a whole number from 1 to `max` (params.ts's optionalLimit). */
export const limit = (max: number, description: string) => z.int().min(1).max(max).describe(description).optional();

export const cursor = text("the cursor of the next page, from the previous answer").optional();
export const since = text("start of the window: RFC 3339 or a duration ago (30m, 6h, 7d; default 30d)").optional();
export const until = text("end of the window: RFC 3339 or a duration ago (default now)").optional();
export const time = (description: string) =>
  text(`${description}: RFC 3339 (2026-12-02T10:00:00Z) or a duration ago (2h)`);
export const optionalText = (description: string) => text(description).optional();
export const flag = (description: string) => z.boolean().describe(description).optional();

/** The three parts of one release, as in the API's paths. `content`: status and manifest's wording of a bad name. */
export const releaseInput = (content = false) => ({
  cluster,
  namespace,
  name: content ? contentReleaseName : releaseName,
});

/** Arguments as a route's query string (the API's parsers read strings): absent stays absent, true is "true". */
export function asQuery(args: Record<string, unknown>): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value !== undefined) query[key] = String(value);
  }
  return query;
}
